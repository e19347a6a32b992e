package specs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

// ElementStates are the states an element check may ask for.
var ElementStates = []string{"checked", "unchecked", "selected", "focused", "editable", "enabled", "disabled"}

// elementCheck: element { role, name, name_contains, name_matches, states,
// exists } passes when the accessibility tree shows (or, with exists =
// false, does not show) an element with that role, name and states — the
// WAA/OSWorld accessibility-tree check, such as a checked check box.
func elementCheck() checkKind {
	return checkKind{
		name: plan.CheckElement,
		schema: &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
			{Name: "role"}, {Name: "name"}, {Name: "name_contains"}, {Name: "name_matches"}, {Name: "states"}, {Name: "exists"},
		}},
		decode: func(p *parser, st *scope, kb *hcl.Block, kc *hcl.BodyContent, ck *plan.Check) {
			p.conditions(st, kc, ck, condNames{contains: "name_contains", matches: "name_matches", equals: "name"})
			if a, ok := kc.Attributes["role"]; ok {
				ck.Role = strings.ToLower(p.staticString(st, a))
			}
			if a, ok := kc.Attributes["states"]; ok {
				ck.States = p.stringList(st, a)
				for _, s := range ck.States {
					if !slices.Contains(ElementStates, s) {
						p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid state",
							fmt.Sprintf("%q is not a state an element check reads; use %s.%s", s, strings.Join(ElementStates, ", "), didYouMean(s, ElementStates))))
					}
				}
			}
			ck.Exists = p.boolAttr(st, kc, "exists")
			if ck.Role == "" && ck.Contains == nil && ck.Matches == nil && ck.Equals == nil {
				p.diags = append(p.diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Element check selects nothing",
					Detail:   fmt.Sprintf("The element block of check %q needs role, name, name_contains or name_matches.", ck.Name),
					Subject:  kb.DefRange.Ptr(),
				})
			}
			if ck.Equals != nil && (ck.Contains != nil || ck.Matches != nil) {
				p.diags = append(p.diags, exprDiag(kc.Attributes["name"].NameRange, "Conflicting conditions", "name already fixes the whole name; drop name_contains/name_matches, or drop name."))
			}
		},
	}
}
