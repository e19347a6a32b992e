package specs

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

// windowTitleCheck: window_title { contains, matches } passes when some
// open window's title fits.
func windowTitleCheck() checkKind {
	return checkKind{
		name:   plan.CheckWindowTitle,
		schema: &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "contains"}, {Name: "matches"}}},
		decode: func(p *parser, st *scope, kb *hcl.Block, kc *hcl.BodyContent, ck *plan.Check) {
			p.conditions(st, kc, ck, condNames{contains: "contains", matches: "matches"})
			p.settleConditions(kb, kc, ck, true)
		},
	}
}
