package specs

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

// clipboardCheck: clipboard { contains, not_contains, matches, equals }
// reads the clipboard.
func clipboardCheck() checkKind {
	return checkKind{
		name:   plan.CheckClipboard,
		schema: &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "contains"}, {Name: "not_contains"}, {Name: "matches"}, {Name: "equals"}}},
		decode: func(p *parser, st *scope, kb *hcl.Block, kc *hcl.BodyContent, ck *plan.Check) {
			p.conditions(st, kc, ck, textConds)
			p.settleConditions(kb, kc, ck, true)
		},
	}
}
