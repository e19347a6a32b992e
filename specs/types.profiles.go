package specs

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// profileAgents are the agents a profiles block names, in order.
var profileAgents = []string{"decision", "reflection", "progress", "manager"}

var profilesSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "decision"}, {Name: "reflection"}, {Name: "progress"}, {Name: "manager"},
}}

// taskProfiles decodes the task's profiles block (at most one): the model
// profile each agent speaks, by name. Options.Profile, when set, says
// whether an agent can have a profile of that name.
func (p *parser) taskProfiles(st *scope, blocks hcl.Blocks) map[string]string {
	var out map[string]string
	blk, dups := p.single(blocks, "profiles", "Name every agent's profile in one block.")
	defer func() { p.diags = append(p.diags, dups...) }()
	if blk != nil {
		p.within(blk, func() {
			c, d := blk.Body.Content(profilesSchema)
			p.diags = append(p.diags, d...)
			for _, agent := range profileAgents {
				a, ok := c.Attributes[agent]
				if !ok {
					continue
				}
				name, isString := p.static(st, a.Expr).(string)
				switch {
				case !isString || !safeName(name):
					p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid profile name",
						fmt.Sprintf("%s takes the name of a model profile as a string, such as \"uitars-1.5\" or \"qwen2.5-vl\" (docs/profiles.md).", agent)))
					continue
				case p.opts.Profile != nil:
					if err := p.opts.Profile(agent, name); err != nil {
						p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Profile not available", err.Error()))
						continue
					}
				}
				if out == nil {
					out = map[string]string{}
				}
				out[agent] = name
			}
		})
	}
	return out
}

// single returns the task's block of a type it may have once (nil: none),
// and an error naming each further one; hint says what to do instead.
// The caller adds the errors after decoding the block, so they come in
// source order.
func (p *parser) single(blocks hcl.Blocks, typ, hint string) (*hcl.Block, hcl.Diagnostics) {
	var first *hcl.Block
	var dups hcl.Diagnostics
	for _, blk := range blocks {
		if blk.Type != typ {
			continue
		}
		if first != nil {
			dups = append(dups, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  fmt.Sprintf("More than one %s block", typ),
				Detail:   fmt.Sprintf("The task already has a %s block at %s (an included file's counts too). %s", typ, first.DefRange, hint),
				Subject:  blk.DefRange.Ptr(),
				Context:  blockRange(blk).Ptr(),
			})
			continue
		}
		first = blk
	}
	return first, dups
}

// safeName reports whether a profile name is a plain word: letters,
// digits, '.', '_' and '-', at most 64 characters.
func safeName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}
