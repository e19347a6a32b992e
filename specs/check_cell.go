package specs

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

var cellRef = regexp.MustCompile(`^[A-Z]{1,3}[1-9][0-9]{0,6}$`)

// cellFormat are the formatting attributes of a cell check.
var cellFormat = []string{"bold", "italic", "underline", "font", "font_size", "color", "fill", "number_format"}

// cellCheck: cell { path, cell, sheet, equals, contains, not_contains,
// matches, approx, tolerance, less_than, greater_than, formula, bold,
// italic, underline, font, font_size, color, fill, number_format } reads
// one cell of a spreadsheet (.xlsx, .xls, .ods, .csv) on the device.
func cellCheck() checkKind {
	attrs := []hcl.AttributeSchema{
		{Name: "path", Required: true}, {Name: "cell", Required: true}, {Name: "sheet"},
		{Name: "equals"}, {Name: "contains"}, {Name: "not_contains"}, {Name: "matches"},
		{Name: "approx"}, {Name: "tolerance"}, {Name: "less_than"}, {Name: "greater_than"}, {Name: "formula"},
	}
	for _, n := range cellFormat {
		attrs = append(attrs, hcl.AttributeSchema{Name: n})
	}
	return checkKind{
		name:   plan.CheckCell,
		schema: &hcl.BodySchema{Attributes: attrs},
		decode: func(p *parser, st *scope, kb *hcl.Block, kc *hcl.BodyContent, ck *plan.Check) {
			p.officePath(st, kc, ck, plan.SheetFormats)
			p.conditions(st, kc, ck, textConds)
			if a, ok := kc.Attributes["cell"]; ok {
				ck.Cell = strings.ToUpper(p.staticString(st, a))
				if !cellRef.MatchString(ck.Cell) {
					p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid cell", fmt.Sprintf("%q is not a cell reference; write a column and a row, such as \"B2\".", ck.Cell)))
				}
			}
			if a, ok := kc.Attributes["sheet"]; ok {
				ck.Sheet = p.staticString(st, a)
			}
			o := plan.Office{Number: p.number(st, kc), Formula: p.stringAttr(st, kc, "formula"), Format: p.format(st, kc, cellFormat...)}
			given := false // an office attribute with a bad value is reported once
			for _, n := range append([]string{"approx", "tolerance", "less_than", "greater_than", "formula"}, cellFormat...) {
				if _, ok := kc.Attributes[n]; ok {
					given = true
				}
			}
			if o.Number != nil || o.Formula != nil || o.Format != nil || given {
				ck.Office = &o
			}
			p.settleConditions(kb, kc, ck, true)
		},
	}
}
