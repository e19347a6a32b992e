package specs

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

// fileCheck: file { path, exists, contains, not_contains, matches, equals,
// same_as, normalize, lines } reads a file
// on the device; with no condition it checks that the file exists.
func fileCheck() checkKind {
	return checkKind{
		name: plan.CheckFile,
		schema: &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
			{Name: "path", Required: true}, {Name: "exists"}, {Name: "contains"}, {Name: "not_contains"}, {Name: "matches"}, {Name: "equals"},
			{Name: "same_as"}, {Name: "normalize"}, {Name: "lines"},
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
			ck.SameAs = p.referenceFile(st, kc, "same_as", nil)
			if b := p.boolAttr(st, kc, "normalize"); b != nil {
				ck.Normalize = *b
				if ck.SameAs == nil {
					p.diags = append(p.diags, exprDiag(kc.Attributes["normalize"].NameRange, "normalize without same_as", "normalize says how the file is compared with same_as; add same_as = \"reference file\"."))
				}
			}
			if b := p.boolAttr(st, kc, "lines"); b != nil {
				ck.Lines = *b
				switch {
				case ck.SameAs == nil:
					p.diags = append(p.diags, exprDiag(kc.Attributes["lines"].NameRange, "lines without same_as", "lines says how the file is compared with same_as; add same_as = \"reference file\"."))
				case ck.Lines && ck.Normalize:
					p.diags = append(p.diags, exprDiag(kc.Attributes["lines"].NameRange, "Conflicting conditions", "normalize and lines both say how the file is compared with same_as; keep one."))
				}
			}
			if ck.SameAs != nil && ck.Exists != nil && !*ck.Exists {
				p.diags = append(p.diags, exprDiag(kc.Attributes["same_as"].NameRange, "Conflicting conditions", "exists = false cannot hold together with same_as. Keep one."))
			}
			p.settleConditions(kb, kc, ck, false)
			if ck.Exists == nil && ck.Contains == nil && ck.Matches == nil && ck.Equals == nil && ck.NotContains == nil && ck.SameAs == nil {
				t := true
				ck.Exists = &t
			}
		},
	}
}
