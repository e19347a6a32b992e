package specs

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

// fileCheck: file { path, exists, contains, not_contains, matches, equals } reads a file
// on the device; with no condition it checks that the file exists.
func fileCheck() checkKind {
	return checkKind{
		name: plan.CheckFile,
		schema: &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
			{Name: "path", Required: true}, {Name: "exists"}, {Name: "contains"}, {Name: "not_contains"}, {Name: "matches"}, {Name: "equals"},
		}},
		decode: func(p *parser, st *scope, kb *hcl.Block, kc *hcl.BodyContent, ck *plan.Check) {
			ck.Path = p.templatePtr(st, kc, "path")
			p.conditions(st, kc, ck, textConds)
			if a, ok := kc.Attributes["exists"]; ok {
				b, isBool := p.static(st, a.Expr).(bool)
				if !isBool {
					p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid value", "exists takes true or false."))
				}
				ck.Exists = &b
			}
			p.settleConditions(kb, kc, ck, false)
			if ck.Exists == nil && ck.Contains == nil && ck.Matches == nil && ck.Equals == nil {
				t := true
				ck.Exists = &t
			}
		},
	}
}
