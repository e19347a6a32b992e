package specs

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

// commandCheck: command { argv, exit_code, stdout_contains,
// stdout_not_contains, stdout_matches, stdout_equals } runs a program on
// the device; exit_code defaults to 0.
func commandCheck() checkKind {
	return checkKind{
		name: plan.CheckCommand,
		schema: &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
			{Name: "argv", Required: true}, {Name: "exit_code"}, {Name: "stdout_contains"}, {Name: "stdout_not_contains"}, {Name: "stdout_matches"}, {Name: "stdout_equals"},
		}},
		decode: func(p *parser, st *scope, kb *hcl.Block, kc *hcl.BodyContent, ck *plan.Check) {
			p.conditions(st, kc, ck, condNames{contains: "stdout_contains", matches: "stdout_matches", equals: "stdout_equals", notContains: "stdout_not_contains"})
			if a, ok := kc.Attributes["argv"]; ok {
				ck.Argv = p.argv(st, a)
			}
			code := 0
			if a, ok := kc.Attributes["exit_code"]; ok {
				code = p.count(st, a, exitRange)
			}
			ck.ExitCode = &code
			p.settleConditions(kb, kc, ck, false)
		},
	}
}
