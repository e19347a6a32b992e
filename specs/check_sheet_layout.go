package specs

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

// chartSchema is a sheet check's chart { ... } block: one chart the sheet
// must have, where all the blocks together are exactly its charts.
var chartSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "type"}, {Name: "title"}, {Name: "series"}, {Name: "categories"},
}}

var columnRef = regexp.MustCompile(`^[A-Z]{1,3}$`)

// sheetRef is a range with an optional sheet: Sales!$A$2:$A$4, or
// OpenDocument's Sales.A2:A4.
var sheetRef = regexp.MustCompile(`^(.+[!.])?\$?[A-Z]{1,3}\$?[1-9][0-9]{0,6}(:\$?[A-Z]{1,3}\$?[1-9][0-9]{0,6})?$`)

// sheetLayout decodes chart blocks, chart_categories, hidden_rows,
// hidden_columns and conditional_format_cells into o.
func (p *parser) sheetLayout(st *scope, kc *hcl.BodyContent, o *plan.Office) {
	p.sheetRange(kc, "chart_categories", o.ChartCategories)
	for _, b := range kc.Blocks {
		if b.Type != "chart" {
			continue
		}
		c, d := b.Body.Content(chartSchema)
		p.diags = append(p.diags, d...)
		ch := plan.Chart{Type: p.stringAttr(st, c, "type"), Title: p.stringAttr(st, c, "title"), Categories: p.stringAttr(st, c, "categories")}
		p.oneOf(c, "type", ch.Type, plan.ChartTypes)
		p.sheetRange(c, "categories", ch.Categories)
		if a, ok := c.Attributes["series"]; ok {
			ch.Series = p.stringList(st, a)
		}
		if len(c.Attributes) == 0 {
			p.diags = append(p.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Empty chart block",
				Detail:   "A chart block describes one chart the sheet must have: give its type, title, series or categories.",
				Subject:  b.DefRange.Ptr(),
			})
		}
		o.Charts = append(o.Charts, ch)
	}
	if a, ok := kc.Attributes["hidden_rows"]; ok {
		rows := []int{}
		bad := false
		switch v := p.static(st, a.Expr).(type) {
		case []any:
			for _, e := range v {
				f, isNum := e.(float64)
				if !isNum || f < 1 || f > 1<<20 || f != float64(int(f)) {
					bad = true
					break
				}
				rows = append(rows, int(f))
			}
		case nil:
			return
		default:
			bad = true
		}
		if bad {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid value",
				"hidden_rows takes a list of row numbers (1 is the first row), such as [3, 5], or [] for none."))
		} else {
			o.HiddenRows = &rows
		}
	}
	if a, ok := kc.Attributes["hidden_columns"]; ok {
		cols := []string{}
		for _, c := range p.stringList(st, a) {
			c = strings.ToUpper(c)
			if !columnRef.MatchString(c) {
				p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid value",
					fmt.Sprintf("hidden_columns = [..., %q, ...]: write column letters, such as [\"B\", \"D\"], or [] for none.", c)))
				break
			}
			cols = append(cols, c)
		}
		o.HiddenColumns = &cols
	}
	if a, ok := kc.Attributes["conditional_format_cells"]; ok {
		cells := []string{}
		for _, given := range p.stringList(st, a) {
			c := strings.ToUpper(strings.ReplaceAll(given, "$", ""))
			if !cellRef.MatchString(c) {
				p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid cell",
					fmt.Sprintf("conditional_format_cells = [..., %q, ...]: list cells, such as [\"B2\", \"B4\"], or [] when the rules style none.", given)))
				break
			}
			cells = append(cells, c)
		}
		o.ConditionalCells = &cells
	}
}

// sheetRange reports a value that is not a range (with an optional sheet).
func (p *parser) sheetRange(kc *hcl.BodyContent, name string, v *string) {
	if v == nil || sheetRef.MatchString(strings.ToUpper(*v)) {
		return
	}
	p.diags = append(p.diags, exprDiag(kc.Attributes[name].Expr.Range(), "Invalid range",
		fmt.Sprintf("%s = %q is not a range; write one such as \"Sales!$A$2:$A$4\".", name, *v)))
}
