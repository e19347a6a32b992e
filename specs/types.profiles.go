package specs

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

// profileAgents are the agents a profiles block names, in order.
var profileAgents = []string{"decision", "reflection", "progress", "manager", "judge", "user", "grounder"}

var profilesSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "decision"}, {Name: "reflection"}, {Name: "progress"}, {Name: "manager"}, {Name: "judge"}, {Name: "user"}, {Name: "grounder"},
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
				names := p.cascade(st, agent, a)
				for key, name := range names {
					if out == nil {
						out = map[string]string{}
					}
					out[key] = name
				}
			}
		})
	}
	return out
}

// cascade decodes one agent's profile: a name, or a cascade { small =
// NAME, large = NAME } (the small one answers until a monitor of the
// agent loop fires, then the large one: docs/profiles.md). It returns the
// names by their key in the plan's Profiles (plan.LargeProfile).
func (p *parser) cascade(st *scope, agent string, a *hcl.Attribute) map[string]string {
	one := func(e hcl.Expression, key string) (string, bool) {
		name, isString := p.static(st, e).(string)
		switch {
		case !isString || !safeName(name):
			p.diags = append(p.diags, exprDiag(e.Range(), "Invalid profile name",
				fmt.Sprintf("%s takes the name of a model profile as a string, such as \"uitars-1.5\" or \"qwen2.5-vl\", or a cascade { small = \"…\", large = \"…\" } (docs/profiles.md).", key)))
			return "", false
		case p.opts.Profile != nil:
			if err := p.opts.Profile(agent, name); err != nil {
				p.diags = append(p.diags, exprDiag(e.Range(), "Profile not available", err.Error()))
				return "", false
			}
		}
		return name, true
	}
	pairs, d := hcl.ExprMap(a.Expr)
	if d.HasErrors() {
		// Not an object: one profile's name.
		if name, ok := one(a.Expr, agent); ok {
			return map[string]string{agent: name}
		}
		return nil
	}
	out := map[string]string{}
	bad := false
	for _, kv := range pairs {
		k := hcl.ExprAsKeyword(kv.Key)
		var key string
		switch k {
		case "small":
			key = agent
		case "large":
			key = plan.LargeProfile(agent)
		default:
			p.diags = append(p.diags, exprDiag(kv.Key.Range(), "Invalid cascade",
				fmt.Sprintf("A cascade names two profiles, small and large, e.g. %s = { small = \"qwen2.5-vl\", large = \"my-qwen-72b\" }; %q is neither.", agent, k)))
			bad = true
			continue
		}
		if name, ok := one(kv.Value, agent+"."+k); ok {
			out[key] = name
		} else {
			bad = true
		}
	}
	if bad {
		return nil
	}
	if out[agent] == "" || out[plan.LargeProfile(agent)] == "" {
		p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid cascade",
			fmt.Sprintf("A cascade names both profiles, small and large: %s = { small = \"…\", large = \"…\" }.", agent)))
		return nil
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
