package activities_test

import (
	"context"
	"strings"
	"testing"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
)

// TestCheckElement: the element check finds an accessibility element by
// role, name and states, passing and failing with the near misses named.
func TestCheckElement(t *testing.T) {
	dev := fakedevice.New()
	dev.Elements = []screen.Element{
		{ID: 1, Role: "check box", Name: "Wrap text automatically", States: []string{"checked", "focused"}, Source: "a11y"},
		{ID: 2, Role: "check box", Name: "Hyphenation", Source: "a11y"},
		{ID: 3, Role: "push button", Name: "Save", States: []string{"disabled"}, Source: "a11y"},
		{ID: 4, Role: "text", Name: "Save", Source: "ocr"},
	}
	a := &activities.Activities{Device: dev}
	lit := func(s string) *plan.Expr { x := plan.Lit(s); return &x }
	f := false
	tests := []struct {
		name   string
		ck     plan.Check
		passed bool
		detail string
	}{
		{"checked box", plan.Check{Role: "check box", Contains: lit("Wrap text"), States: []string{"checked"}}, true, `found [1] check box "Wrap text automatically"`},
		{"unchecked box", plan.Check{Role: "check box", Equals: lit("Hyphenation"), States: []string{"checked"}}, false, `no check box "Hyphenation" (checked) on screen (window "Fake App"); near misses: [1] check box "Wrap text automatically"`},
		{"unchecked state", plan.Check{Role: "check box", Equals: lit("Hyphenation"), States: []string{"unchecked", "enabled"}}, true, "found"},
		{"disabled button", plan.Check{Role: "push button", Equals: lit("Save"), States: []string{"enabled"}}, false, `(not enabled; states: disabled)`},
		{"absent", plan.Check{Role: "menu item", Matches: lit("^Save"), Exists: &f}, true, `no menu item named like /^Save/`},
		{"present but must not be", plan.Check{Equals: lit("Save"), Exists: &f}, false, `element "Save" is shown: [3] push button "Save"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.ck.Name, tt.ck.Kind = "c", plan.CheckElement
			in, err := activities.NewCheckInput(tt.ck, nil)
			if err != nil {
				t.Fatal(err)
			}
			r, err := a.Check(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if r.Passed != tt.passed || !strings.Contains(r.Detail, tt.detail) {
				t.Errorf("passed=%v %q, want passed=%v with %q", r.Passed, r.Detail, tt.passed, tt.detail)
			}
		})
	}
}
