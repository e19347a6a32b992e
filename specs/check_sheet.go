package specs

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

var rangeRef = regexp.MustCompile(`^\$?[A-Z]{1,3}\$?[1-9][0-9]{0,6}(:\$?[A-Z]{1,3}\$?[1-9][0-9]{0,6})?$`)

// sheetCheck: sheet { path, sheet, range, equals, gold, gold_sheet,
// tolerance, sheets, frozen, filter, chart_type, chart_title,
// chart_series, chart_categories, chart { ... }, conditional_format,
// conditional_format_cells, hidden_rows, hidden_columns } checks a
// spreadsheet beyond one cell: a range against a table or a reference
// file, the sheets' names and order, panes, filters, charts, conditional
// formats and hidden rows and columns.
func sheetCheck() checkKind {
	return checkKind{
		name: plan.CheckSheet,
		schema: &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
			{Name: "path", Required: true}, {Name: "sheet"}, {Name: "range"}, {Name: "equals"},
			{Name: "gold"}, {Name: "gold_sheet"}, {Name: "tolerance"}, {Name: "sheets"},
			{Name: "frozen"}, {Name: "filter"}, {Name: "chart_type"}, {Name: "chart_title"},
			{Name: "chart_series"}, {Name: "conditional_format"}, {Name: "chart_categories"},
			{Name: "conditional_format_cells"}, {Name: "hidden_rows"}, {Name: "hidden_columns"},
		}, Blocks: []hcl.BlockHeaderSchema{{Type: "chart"}}},
		decode: func(p *parser, st *scope, kb *hcl.Block, kc *hcl.BodyContent, ck *plan.Check) {
			p.officePath(st, kc, ck, plan.SheetFormats)
			if a, ok := kc.Attributes["sheet"]; ok {
				ck.Sheet = p.staticString(st, a)
			}
			o := plan.Office{
				Gold:              p.referenceFile(st, kc, "gold", plan.SheetFormats),
				Frozen:            p.stringAttr(st, kc, "frozen"),
				Filter:            p.stringAttr(st, kc, "filter"),
				ChartType:         p.stringAttr(st, kc, "chart_type"),
				ChartTitle:        p.stringAttr(st, kc, "chart_title"),
				ConditionalFormat: p.stringAttr(st, kc, "conditional_format"),
				ChartCategories:   p.stringAttr(st, kc, "chart_categories"),
			}
			p.sheetLayout(st, kc, &o)
			p.oneOf(kc, "chart_type", o.ChartType, plan.ChartTypes)
			for _, n := range []string{"range", "frozen", "filter", "conditional_format"} {
				a, ok := kc.Attributes[n]
				if !ok {
					continue
				}
				v := strings.ToUpper(p.staticString(st, a))
				if n == "range" {
					o.Range = v
				}
				if v != "" && !rangeRef.MatchString(v) {
					p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid range",
						fmt.Sprintf("%s = %q is not a cell or a range; write one such as \"A1:C4\"%s.", n, v, map[bool]string{true: " (or \"\" for none)", false: ""}[n != "range"])))
				}
			}
			if a, ok := kc.Attributes["gold_sheet"]; ok {
				o.GoldSheet = p.staticString(st, a)
			}
			if a, ok := kc.Attributes["equals"]; ok {
				o.Table = p.table(st, a)
				if o.Gold != nil {
					p.diags = append(p.diags, exprDiag(a.NameRange, "Conflicting conditions",
						"equals gives the expected values and gold a file holding them; keep one."))
				}
			}
			if t := p.numberAttr(st, kc, "tolerance"); t != nil {
				o.Number = &plan.Number{Tolerance: *t}
				if o.Table == nil && o.Gold == nil {
					p.diags = append(p.diags, exprDiag(kc.Attributes["tolerance"].NameRange, "Tolerance without values",
						"tolerance applies to numbers compared with equals or gold; add one, or drop tolerance."))
				}
			}
			if a, ok := kc.Attributes["sheets"]; ok {
				o.Sheets = p.stringList(st, a)
			}
			if a, ok := kc.Attributes["chart_series"]; ok {
				o.ChartSeries = p.stringList(st, a)
			}
			_, hasEquals := kc.Attributes["equals"]
			if a, ok := kc.Attributes["range"]; ok && !hasEquals && o.Gold == nil {
				p.diags = append(p.diags, exprDiag(a.NameRange, "Range without values",
					"range says which cells to compare; add equals = [[...]] or gold = \"reference file\"."))
			}
			ck.Office = &o
			if !hasEquals && o.Gold == nil && o.Sheets == nil && o.Frozen == nil && o.Filter == nil &&
				o.ChartType == nil && o.ChartTitle == nil && o.ChartSeries == nil && o.ConditionalFormat == nil &&
				o.ChartCategories == nil && o.Charts == nil && o.HiddenRows == nil && o.HiddenColumns == nil && o.ConditionalCells == nil {
				ck.Office = nil
				p.diags = append(p.diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Check with no condition",
					Detail:   fmt.Sprintf("The sheet block of check %q needs a condition: equals or gold (with range), sheets, frozen, filter, chart_type, chart_title, chart_series, chart_categories, chart { ... }, conditional_format, conditional_format_cells, hidden_rows or hidden_columns.", ck.Name),
					Subject:  kb.DefRange.Ptr(),
				})
			}
		},
	}
}
