package specs

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

var subtaskSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "instruction", Required: true},
		{Name: "device"},
		{Name: "depends_on"},
		{Name: "max_steps"},
		{Name: "timeout"},
		{Name: "max_tokens"},
		{Name: "knowledge"},
	},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "output", LabelNames: []string{"key"}},
		{Type: "check", LabelNames: []string{"name"}},
	},
}

var outputSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "description"}},
}

// subtaskDecl is a subtask known by name and outputs before any subtask is
// decoded, so instructions may refer to subtasks declared later.
type subtaskDecl struct {
	name    string
	block   *hcl.Block
	body    *hcl.BodyContent
	outputs map[string]hcl.Range
	// checkRefs are the subtasks whose outputs this subtask's checks read.
	checkRefs map[string]hcl.Range
}

// declareSubtask records a subtask's name and output keys; nil for a
// duplicate.
func (p *parser) declareSubtask(blk *hcl.Block) *subtaskDecl {
	name := blk.Labels[0]
	p.label(blk, "subtask")
	if prev, dup := p.subtasks[name]; dup {
		p.diags = append(p.diags, duplicate("subtask", name, blk.LabelRanges[0], prev.block.LabelRanges[0]))
		return nil
	}
	sc, d := blk.Body.Content(subtaskSchema)
	p.diags = append(p.diags, d...)
	sd := &subtaskDecl{name: name, block: blk, body: sc, outputs: map[string]hcl.Range{}}
	for _, ob := range sc.Blocks {
		if ob.Type != "output" {
			continue
		}
		k := ob.Labels[0]
		p.within(ob, func() { p.label(ob, "output") })
		if prev, dup := sd.outputs[k]; dup {
			p.diags = append(p.diags, duplicate("output", k, ob.LabelRanges[0], prev))
			continue
		}
		sd.outputs[k] = ob.LabelRanges[0]
	}
	p.subtasks[name] = sd
	return sd
}

// subtask decodes a declared subtask; deps are the subtasks it waits for,
// with the reference that makes it wait.
func (p *parser) subtask(pl *plan.Plan, sd *subtaskDecl) (plan.Subtask, map[string]hcl.Range) {
	c := sd.body
	st := &scope{vars: p.vars, subtasks: p.subtasks, used: p.used, refs: map[string]hcl.Range{}}
	s := plan.Subtask{Name: sd.name, MaxSteps: pl.MaxSteps}
	s.Device = p.bindDevice(c, "subtask", sd.name, sd.block.DefRange)
	if a, ok := c.Attributes["instruction"]; ok {
		s.Instruction = p.template(st, a.Expr)
		if s.Instruction.Kind == plan.ExprLit && strings.TrimSpace(plan.ToString(s.Instruction.Lit)) == "" {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Empty instruction", "Say what the agent must do in this subtask."))
		}
	}
	deps := map[string]hcl.Range{}
	for n, r := range st.refs {
		if n == sd.name {
			p.diags = append(p.diags, exprDiag(r, "Subtask refers to itself", "A subtask cannot use its own outputs: they exist only once it has finished."))
			continue
		}
		deps[n] = r
	}
	if a, ok := c.Attributes["depends_on"]; ok {
		names, ranges := p.refList(a, "subtask")
		for i, n := range names {
			if _, known := p.subtasks[n]; !known {
				p.diags = append(p.diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Reference to unknown subtask",
					Detail:   fmt.Sprintf("No subtask %q is defined in this task.%s", n, didYouMean(n, keys(p.subtasks))),
					Subject:  ranges[i].Ptr(),
				})
				continue
			}
			if n == sd.name {
				p.diags = append(p.diags, exprDiag(ranges[i], "Subtask depends on itself", "Remove it from depends_on."))
				continue
			}
			if _, ok := deps[n]; !ok {
				deps[n] = ranges[i]
			}
		}
	}
	s.DependsOn = keys(deps)
	p.budgets(st, c.Attributes, &s.MaxSteps, &s.Timeout, &s.MaxTokens, &s.Knowledge)
	for _, ob := range c.Blocks {
		if ob.Type != "output" {
			continue
		}
		p.within(ob, func() {
			oc, d := ob.Body.Content(outputSchema)
			p.diags = append(p.diags, d...)
			o := plan.Output{Key: ob.Labels[0]}
			if a, ok := oc.Attributes["description"]; ok {
				o.Description = p.staticString(st, a)
			}
			s.Outputs = append(s.Outputs, o)
		})
	}
	checkScope := &scope{vars: p.vars, subtasks: p.subtasks, used: p.used, refs: map[string]hcl.Range{}}
	s.Checks = p.checks(checkScope, c.Blocks, s.Device, "subtask "+sd.name)
	sd.checkRefs = checkScope.refs
	return s, deps
}
