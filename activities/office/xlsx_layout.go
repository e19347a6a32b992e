package office

import (
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Hidden returns a sheet's hidden rows (1-based, in order) and hidden
// columns ("B", in order). Rows a filter hides count as hidden.
func (w *Workbook) Hidden(sheet string) (rows []int, cols []string, err error) {
	x, err := w.xlsxFor("hidden rows and columns")
	if err != nil {
		return nil, nil, err
	}
	s, err := w.sheet(sheet)
	if err != nil {
		return nil, nil, err
	}
	sh, err := x.scanSheet(s)
	if err != nil {
		return nil, nil, err
	}
	return sh.hiddenRows, sh.hiddenCols, nil
}

// maxHidden bounds the hidden rows or columns listed: a sheet may hide
// every column from one to the edge (16,384).
const maxHidden = 1000

// cfRule is one conditional formatting rule as the sheet part writes it.
type cfRule struct {
	ranges   []string // sqref, space-separated in the file
	typ      string   // cellIs, expression, containsText, …
	operator string   // for cellIs
	text     string   // for containsText and its kin
	formulas []string
}

// sheetScan is what scanSheet reads of a sheet part.
type sheetScan struct {
	hiddenRows []int
	hiddenCols []string
	rules      []cfRule
}

func truthy(v string) bool { return v == "1" || v == "true" }

// scanSheet reads a sheet part's hidden rows and columns and conditional
// formatting rules (those of the main part and of the x14 extension,
// where Office writes some kinds).
func (x *xlsxBook) scanSheet(sheet string) (*sheetScan, error) {
	part, err := x.sheetPart(sheet)
	if err != nil {
		return nil, err
	}
	b, err := x.read(part)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", x.path, err)
	}
	out := &sheetScan{}
	dec := xml.NewDecoder(strings.NewReader(string(b)))
	var cf *struct {
		sqref string
		rules []cfRule
	}
	var rule *cfRule
	var text strings.Builder
	hiddenCols := map[int]bool{}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", x.path, part, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			a := func(name string) string {
				for _, at := range t.Attr {
					if at.Name.Local == name {
						return at.Value
					}
				}
				return ""
			}
			switch t.Name.Local {
			case "row":
				if truthy(a("hidden")) && len(out.hiddenRows) < maxHidden {
					if r, err := strconv.Atoi(a("r")); err == nil {
						out.hiddenRows = append(out.hiddenRows, r)
					}
				}
			case "col":
				if truthy(a("hidden")) {
					lo, _ := strconv.Atoi(a("min"))
					hi, _ := strconv.Atoi(a("max"))
					for c := max(lo, 1); c <= hi && len(hiddenCols) < maxHidden; c++ {
						hiddenCols[c] = true
					}
				}
			case "conditionalFormatting":
				cf = &struct {
					sqref string
					rules []cfRule
				}{sqref: a("sqref")}
			case "cfRule":
				rule = &cfRule{typ: a("type"), operator: a("operator"), text: a("text")}
			case "formula", "f", "sqref":
				text.Reset()
			}
		case xml.CharData:
			text.Write(t)
		case xml.EndElement:
			switch t.Name.Local {
			case "formula", "f":
				if rule != nil {
					rule.formulas = append(rule.formulas, strings.TrimSpace(text.String()))
				}
			case "sqref":
				if cf != nil {
					cf.sqref = strings.TrimSpace(text.String())
				}
			case "cfRule":
				if cf != nil && rule != nil {
					cf.rules = append(cf.rules, *rule)
				}
				rule = nil
			case "conditionalFormatting":
				if cf != nil {
					for _, r := range cf.rules {
						r.ranges = strings.Fields(strings.ReplaceAll(cf.sqref, "$", ""))
						out.rules = append(out.rules, r)
					}
				}
				cf = nil
			}
		}
	}
	slices.Sort(out.hiddenRows)
	for _, c := range slices.Sorted(mapKeys(hiddenCols)) {
		out.hiddenCols = append(out.hiddenCols, strings.TrimRight(CellName(c-1, 0), "1"))
	}
	return out, nil
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// StyledCells returns the cells (in row order) that the sheet's conditional
// formats style, their rules evaluated on the cells' values; with rng, only
// the rules on that range. Empty cells are never styled, except by a rule
// that asks for blanks. A rule of a kind not evaluated is an error.
func (w *Workbook) StyledCells(sheet, rng string) ([]string, error) {
	x, err := w.xlsxFor("conditional formats")
	if err != nil {
		return nil, err
	}
	s, err := w.sheet(sheet)
	if err != nil {
		return nil, err
	}
	sh, err := x.scanSheet(s)
	if err != nil {
		return nil, err
	}
	want := strings.ToUpper(strings.ReplaceAll(rng, "$", ""))
	styled := map[string]bool{}
	var have []string
	matched := false
	for _, r := range sh.rules {
		on := strings.Join(r.ranges, " ")
		have = append(have, on)
		if want != "" && !strings.EqualFold(on, want) {
			continue
		}
		matched = true
		cells, err := r.styles(w, s)
		if err != nil {
			return nil, fmt.Errorf("the conditional format on %s: %w", on, err)
		}
		for _, c := range cells {
			styled[c] = true
		}
	}
	if want != "" && !matched {
		return nil, fmt.Errorf("no conditional format on %s (formatted ranges: %s)", rng, orNone(strings.Join(slices.Compact(have), ", ")))
	}
	out := slices.Collect(mapKeys(styled))
	slices.SortFunc(out, compareCells)
	return out, nil
}

// maxRuleCells bounds the cells one rule is evaluated on.
const maxRuleCells = 100000

// styles evaluates the rule on every cell of its ranges.
func (r cfRule) styles(w *Workbook, sheet string) ([]string, error) {
	if len(r.ranges) == 0 {
		return nil, fmt.Errorf("the rule names no cells")
	}
	ac, ar, _, _, err := ParseRange(r.ranges[0])
	if err != nil {
		return nil, err
	}
	var out []string
	n := 0
	for _, rg := range r.ranges {
		c0, r0, c1, r1, err := ParseRange(rg)
		if err != nil {
			return nil, err
		}
		for row := r0; row <= r1; row++ {
			for col := c0; col <= c1; col++ {
				if n++; n > maxRuleCells {
					return nil, fmt.Errorf("it covers more than %d cells; pcflow evaluates rules on at most that many", maxRuleCells)
				}
				ok, err := r.holds(w, sheet, col, row, col-ac, row-ar)
				if err != nil {
					return nil, err
				}
				if ok {
					out = append(out, CellName(col, row))
				}
			}
		}
	}
	return out, nil
}

// CFKinds are the conditional formatting rules StyledCells evaluates.
var CFKinds = []string{"cellIs", "expression", "containsText", "notContainsText", "beginsWith", "endsWith", "containsBlanks", "notContainsBlanks"}

// holds evaluates the rule on the cell at col, row; dc, dr shift the
// relative references of its formulas.
func (r cfRule) holds(w *Workbook, sheet string, col, row, dc, dr int) (bool, error) {
	cell, err := w.Cell(sheet, CellName(col, row))
	if err != nil {
		return false, err
	}
	v := cellVal(cell)
	env := &cfEnv{w: w, sheet: sheet, dc: dc, dr: dr}
	blank := v.kind == vBlank || (v.kind == vStr && strings.TrimSpace(v.s) == "")
	lower := strings.ToLower(v.text())
	switch r.typ {
	case "containsBlanks":
		return blank, nil
	case "notContainsBlanks":
		return !blank, nil
	}
	if v.kind == vBlank {
		return false, nil
	}
	switch r.typ {
	case "containsText":
		return strings.Contains(lower, strings.ToLower(r.text)), nil
	case "notContainsText":
		return !strings.Contains(lower, strings.ToLower(r.text)), nil
	case "beginsWith":
		return strings.HasPrefix(lower, strings.ToLower(r.text)), nil
	case "endsWith":
		return strings.HasSuffix(lower, strings.ToLower(r.text)), nil
	case "expression":
		if len(r.formulas) == 0 {
			return false, fmt.Errorf("its formula is missing")
		}
		x, err := env.eval(r.formulas[0])
		if err != nil {
			return false, err
		}
		return x.truth(), nil
	case "cellIs":
		var refs []val
		for _, f := range r.formulas {
			x, err := env.eval(f)
			if err != nil {
				return false, err
			}
			refs = append(refs, x)
		}
		need := map[string]int{"between": 2, "notBetween": 2}[r.operator]
		if need == 0 {
			need = 1
		}
		if len(refs) < need {
			return false, fmt.Errorf("the %s rule has %d values, needs %d", r.operator, len(refs), need)
		}
		cmp0 := compareVals(v, refs[0])
		switch r.operator {
		case "equal":
			return cmp0 == 0, nil
		case "notEqual":
			return cmp0 != 0, nil
		case "greaterThan":
			return cmp0 > 0, nil
		case "lessThan":
			return cmp0 < 0, nil
		case "greaterThanOrEqual":
			return cmp0 >= 0, nil
		case "lessThanOrEqual":
			return cmp0 <= 0, nil
		case "between", "notBetween":
			lo, hi := refs[0], refs[1]
			if compareVals(lo, hi) > 0 {
				lo, hi = hi, lo
			}
			in := compareVals(v, lo) >= 0 && compareVals(v, hi) <= 0
			return in == (r.operator == "between"), nil
		}
		return false, fmt.Errorf("the cell-value operator %q is not evaluated (pcflow knows equal, notEqual, greaterThan, lessThan, greaterThanOrEqual, lessThanOrEqual, between, notBetween)", r.operator)
	}
	return false, fmt.Errorf("a %q rule is not evaluated: pcflow evaluates %s rules; check this one with conditional_format (that a rule is on the range) or a cell's fill instead", r.typ, strings.Join(CFKinds, ", "))
}
