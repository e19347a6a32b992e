package specs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

// maxPersonaText bounds each text of a user block, in bytes.
const maxPersonaText = 4000

var userSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "persona", Required: true}, {Name: "knows"}, {Name: "wants"}, {Name: "style"}, {Name: "approves"},
}}

// taskUser decodes the task's user block (at most one): the simulated
// user a model plays to answer the agent's ask_human questions and the
// approvals of the policy rules named in approves, which must be confirm
// rules of the task's own policy.
func (p *parser) taskUser(st *scope, blocks hcl.Blocks, pol *plan.Policy) *plan.User {
	blk, dups := p.single(blocks, "user", "Describe the simulated user in one block.")
	defer func() { p.diags = append(p.diags, dups...) }()
	if blk == nil {
		return nil
	}
	u := &plan.User{}
	p.within(blk, func() {
		c, d := blk.Body.Content(userSchema)
		p.diags = append(p.diags, d...)
		for _, f := range []struct {
			name string
			v    *string
		}{{"persona", &u.Persona}, {"knows", &u.Knows}, {"wants", &u.Wants}, {"style", &u.Style}} {
			a, ok := c.Attributes[f.name]
			if !ok {
				continue
			}
			x := p.template(st, a.Expr)
			if x.Kind != plan.ExprLit {
				if x.Kind == plan.ExprSecret || secretIn(x) != "" {
					p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Sensitive value in a persona",
						fmt.Sprintf("%s is sent to the simulated user's model as it is; a sensitive variable must never reach a prompt. Give the persona what the agent may be told in clear.", f.name)))
				} else if !x.IsZero() {
					p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Persona text is not fixed",
						fmt.Sprintf("%s is read before any subtask runs: write text (variables are fine), not subtasks' outputs.", f.name)))
				}
				continue
			}
			*f.v = plan.ToString(x.Lit)
			if f.name == "persona" && strings.TrimSpace(*f.v) == "" {
				p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Empty persona",
					"persona says who the simulated user is, such as \"Dana, who ordered the report and knows the project code PX-7\"."))
			}
			if len(*f.v) > maxPersonaText {
				p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Persona text too long",
					fmt.Sprintf("%s is at most %d bytes; this one is %d.", f.name, maxPersonaText, len(*f.v))))
			}
		}
		a, ok := c.Attributes["approves"]
		if !ok {
			return
		}
		confirm := map[string]bool{}
		var names []string
		if pol != nil {
			for _, r := range pol.Rules {
				names = append(names, r.Name)
				confirm[r.Name] = r.Decision == plan.PolicyConfirm
			}
		}
		items, d := hcl.ExprList(a.Expr)
		if d.HasErrors() {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid list", "approves takes a list of the task's confirm rules' names: [\"send_mail\"]."))
			return
		}
		for _, it := range items {
			n, isString := p.static(st, it).(string)
			switch isConfirm, known := confirm[n]; {
			case !isString:
				p.diags = append(p.diags, exprDiag(it.Range(), "Invalid rule name", "approves takes the names of rules as strings."))
			case !known:
				p.diags = append(p.diags, exprDiag(it.Range(), "Unknown policy rule",
					fmt.Sprintf("approves names the rules of the task's policy whose approvals the simulated user decides; the task has no rule %q.%s", n, didYouMean(n, names))))
			case !isConfirm:
				p.diags = append(p.diags, exprDiag(it.Range(), "Rule asks no approval",
					fmt.Sprintf("Rule %q does not say decision = \"confirm\", so nobody approves its actions; approves names confirm rules only.", n)))
			case slices.Contains(u.Approves, n):
			default:
				u.Approves = append(u.Approves, n)
			}
		}
	})
	return u
}
