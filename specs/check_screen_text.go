package specs

import (
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

// screenTextCheck: screen_text { contains, not_contains, matches, window }
// reads the text on screen (accessibility names and values, OCR), or with
// window the text of one window alone: a terminal such as xterm, which
// has no accessibility tree, is read by OCR of its own window.
func screenTextCheck() checkKind {
	return checkKind{
		name: plan.CheckScreenText,
		schema: &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
			{Name: "contains"}, {Name: "not_contains"}, {Name: "matches"}, {Name: "window"},
		}},
		decode: func(p *parser, st *scope, kb *hcl.Block, kc *hcl.BodyContent, ck *plan.Check) {
			p.conditions(st, kc, ck, condNames{contains: "contains", matches: "matches", notContains: "not_contains"})
			if a, ok := kc.Attributes["window"]; ok {
				ck.Window = p.staticString(st, a)
				if strings.TrimSpace(ck.Window) == "" {
					p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid value",
						"window names the window to read by a part of its title, such as \"Terminal\"; drop window to read the whole screen."))
				}
			}
			p.settleConditions(kb, kc, ck, true)
		},
	}
}
