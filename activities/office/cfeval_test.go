package office

import (
	"strings"
	"testing"
)

// TestConditionalRules evaluates rules of each kind on a small sheet, and
// refuses the kinds and functions it does not evaluate with an error that
// names them.
func TestConditionalRules(t *testing.T) {
	w := &Workbook{path: "t.ods", sheets: []string{"S"}, cells: map[string]map[[2]int]Cell{"S": {
		{0, 0}: {Value: "apple"}, {1, 0}: {Value: "5"},
		{0, 1}: {Value: "Banana"}, {1, 1}: {Value: "12"},
		{0, 2}: {Value: "cherry"}, {1, 2}: {Value: "-3"},
		{2, 0}: {Value: "10"}, // C1: a threshold absolute references read
	}}}
	for _, tt := range []struct {
		name string
		rule cfRule
		want string // styled cells, or the error's words
	}{
		{"greater than an absolute reference", cfRule{ranges: []string{"B1:B4"}, typ: "cellIs", operator: "greaterThan", formulas: []string{"$C$1"}}, "B2"},
		{"not between", cfRule{ranges: []string{"B1:B3"}, typ: "cellIs", operator: "notBetween", formulas: []string{"10", "-1"}}, "B2 B3"},
		{"equal to text without case", cfRule{ranges: []string{"A1:A3"}, typ: "cellIs", operator: "equal", formulas: []string{`"BANANA"`}}, "A2"},
		{"formula with relative references", cfRule{ranges: []string{"A1:A3"}, typ: "expression", formulas: []string{"AND($B1>0,MOD($B1,2)=1)"}}, "A1"},
		{"formula with arithmetic and text", cfRule{ranges: []string{"A1:A3"}, typ: "expression", formulas: []string{`OR(LEN(A1)&"x"="6x",$B1*2+1<0)`}}, "A2 A3"},
		{"contains text", cfRule{ranges: []string{"A1:A3"}, typ: "containsText", text: "an"}, "A2"},
		{"blanks", cfRule{ranges: []string{"A3:A4"}, typ: "containsBlanks"}, "A4"},
		{"a kind not evaluated", cfRule{ranges: []string{"B1:B3"}, typ: "top10"}, `a "top10" rule is not evaluated: pcflow evaluates cellIs, expression`},
		{"a function not evaluated", cfRule{ranges: []string{"B1:B3"}, typ: "expression", formulas: []string{"VLOOKUP(B1,C1:C2,1)"}}, "the function VLOOKUP is not evaluated"},
		{"another sheet", cfRule{ranges: []string{"B1:B3"}, typ: "expression", formulas: []string{"B1>Other!A1"}}, "references to single cells of the rule's own sheet"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cells, err := tt.rule.styles(w, "S")
			got := strings.Join(cells, " ")
			if err != nil {
				got = err.Error()
			}
			if !strings.Contains(got, tt.want) || (err == nil && got != tt.want) {
				t.Errorf("styles(%+v) = %q, want %q", tt.rule, got, tt.want)
			}
		})
	}
}
