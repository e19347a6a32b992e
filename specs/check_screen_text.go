package specs

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

// screenTextCheck: screen_text { contains } reads the text on screen
// (accessibility names and values, OCR).
func screenTextCheck() checkKind {
	return checkKind{
		name:   plan.CheckScreenText,
		schema: &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "contains", Required: true}}},
		decode: func(p *parser, st *scope, kb *hcl.Block, kc *hcl.BodyContent, ck *plan.Check) {
			p.conditions(st, kc, ck, condNames{contains: "contains"})
			p.settleConditions(kb, kc, ck, false)
		},
	}
}
