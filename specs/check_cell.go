package specs

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

var cellRef = regexp.MustCompile(`^[A-Z]{1,3}[1-9][0-9]{0,6}$`)

// cellCheck: cell { path, cell, sheet, equals, contains } reads one cell of
// a spreadsheet on the device.
func cellCheck() checkKind {
	return checkKind{
		name: plan.CheckCell,
		schema: &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
			{Name: "path", Required: true}, {Name: "cell", Required: true}, {Name: "sheet"}, {Name: "equals"}, {Name: "contains"},
		}},
		decode: func(p *parser, st *scope, kb *hcl.Block, kc *hcl.BodyContent, ck *plan.Check) {
			ck.Path = p.templatePtr(st, kc, "path")
			p.conditions(st, kc, ck, condNames{contains: "contains", equals: "equals"})
			if a, ok := kc.Attributes["cell"]; ok {
				ck.Cell = strings.ToUpper(p.staticString(st, a))
				if !cellRef.MatchString(ck.Cell) {
					p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid cell", fmt.Sprintf("%q is not a cell reference; write a column and a row, such as \"B2\".", ck.Cell)))
				}
			}
			if a, ok := kc.Attributes["sheet"]; ok {
				ck.Sheet = p.staticString(st, a)
			}
			p.settleConditions(kb, kc, ck, true)
		},
	}
}
