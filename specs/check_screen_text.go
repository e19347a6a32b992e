package specs

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

// screenTextCheck: screen_text { contains, not_contains, matches } reads
// the text on screen (accessibility names and values, OCR).
func screenTextCheck() checkKind {
	return checkKind{
		name:   plan.CheckScreenText,
		schema: &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "contains"}, {Name: "not_contains"}, {Name: "matches"}}},
		decode: func(p *parser, st *scope, kb *hcl.Block, kc *hcl.BodyContent, ck *plan.Check) {
			p.conditions(st, kc, ck, condNames{contains: "contains", matches: "matches", notContains: "not_contains"})
			p.settleConditions(kb, kc, ck, true)
		},
	}
}
