package specs

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

var taskSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "instruction"},
		{Name: "max_steps"},
		{Name: "timeout"},
		{Name: "max_tokens"},
		{Name: "max_invalid"},
		{Name: "infeasible"},
		{Name: "requires"},
		{Name: "knowledge"},
		{Name: "loop"},
		{Name: "reflection"},
		{Name: "replay"},
		{Name: "video"},
	},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "device", LabelNames: []string{"name"}},
		{Type: "setup", LabelNames: []string{"name"}},
		{Type: "post_run", LabelNames: []string{"name"}},
		{Type: "subtask", LabelNames: []string{"name"}},
		{Type: "check", LabelNames: []string{"name"}},
		{Type: "start"},
		{Type: "policy"},
		{Type: "profiles"},
		{Type: "user"},
	},
}

// task decodes the task block: its limits, then its devices and subtask
// names (so references may point forward), setup steps, subtasks and
// checks; then the rules across blocks (cycles, what checks may read).
func (p *parser) task(b *hcl.Block) *plan.Plan {
	pl := &plan.Plan{Task: b.Labels[0], MaxSteps: DefaultMaxSteps, Timeout: plan.Duration(DefaultTimeout), MaxInvalid: DefaultMaxInvalid}
	c, d := b.Body.Content(taskSchema)
	p.diags = append(p.diags, d...)
	c.Blocks = append(append(hcl.Blocks{}, p.included...), c.Blocks...)
	st := &scope{vars: p.vars}

	if a, ok := c.Attributes["instruction"]; ok {
		x := p.template(st, a.Expr)
		if x.Kind == plan.ExprLit {
			pl.Instruction = plan.ToString(x.Lit)
		} else if !x.IsZero() {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Sensitive value in task instruction", "The task instruction is shown to the Manager agent and in the UI; use sensitive variables in subtask instructions, which the device fills in."))
		}
	}
	p.budgets(st, c.Attributes, &pl.MaxSteps, &pl.Timeout, &pl.MaxTokens, &pl.Knowledge)
	if a, ok := c.Attributes["max_invalid"]; ok {
		pl.MaxInvalid = p.count(st, a, invalidRange)
	}
	for _, w := range []struct {
		name    string
		v       *string
		allowed []string
	}{{"loop", &pl.Loop, plan.Loops}, {"reflection", &pl.Reflection, plan.Reflections}, {"replay", &pl.Replay, plan.Replays}} {
		if a, ok := c.Attributes[w.name]; ok {
			*w.v = p.staticString(st, a)
			p.oneOf(c, w.name, w.v, w.allowed)
		}
	}
	if a, ok := c.Attributes["requires"]; ok {
		pl.Requires = p.stringList(st, a)
		for _, r := range pl.Requires {
			if r == "" || strings.ContainsAny(r, " /\t\n") {
				p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid program name",
					fmt.Sprintf("requires lists program names looked up on the device's PATH, such as \"soffice\"; %q is not one.", r)))
			}
		}
	}
	var infeasible *hcl.Attribute
	if a, ok := c.Attributes["infeasible"]; ok {
		b, isBool := p.static(st, a.Expr).(bool)
		if !isBool {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid value", "infeasible takes true or false."))
		}
		pl.Infeasible, infeasible = b, a
	}

	// First pass: declare every name, so references may point forward.
	var subtaskBlocks []*subtaskDecl
	for _, blk := range c.Blocks {
		switch blk.Type {
		case "device":
			p.within(blk, func() {
				if dev, ok := p.device(st, blk); ok {
					pl.Devices = append(pl.Devices, dev)
				}
			})
		case "subtask":
			p.within(blk, func() {
				if sd := p.declareSubtask(blk); sd != nil {
					subtaskBlocks = append(subtaskBlocks, sd)
				}
			})
		}
	}
	if len(pl.Devices) == 0 {
		pl.Devices = []plan.Device{{Name: DefaultDevice, Platform: plan.PlatformLinux, Description: "the local display"}}
		p.devices[DefaultDevice] = b.DefRange
	}

	pl.Policy = p.taskPolicy(st, c.Blocks)
	pl.Profiles = p.taskProfiles(st, c.Blocks)
	pl.User = p.taskUser(st, c.Blocks, pl.Policy)

	// Setup steps run before the agents, post_run steps after them and
	// before the task's checks (OSWorld's post-config: save, close, wait).
	for _, kind := range []string{"setup", "post_run"} {
		names := map[string]hcl.Range{}
		for _, blk := range c.Blocks {
			if blk.Type != kind {
				continue
			}
			p.within(blk, func() {
				name := blk.Labels[0]
				p.label(blk, kind+" step")
				if prev, dup := names[name]; dup {
					p.diags = append(p.diags, duplicate(kind, name, blk.LabelRanges[0], prev))
					return
				}
				names[name] = blk.LabelRanges[0]
				if kind == "setup" {
					pl.Setup = append(pl.Setup, p.setup(st, blk))
				} else {
					pl.PostRun = append(pl.PostRun, p.setup(st, blk))
				}
			})
		}
	}

	// Second pass: subtasks, with references resolved.
	depRanges := map[string]map[string]hcl.Range{}
	for _, sd := range subtaskBlocks {
		p.within(sd.block, func() {
			s, deps := p.subtask(pl, sd)
			pl.Subtasks = append(pl.Subtasks, s)
			depRanges[sd.name] = deps
		})
	}
	pl.Start = p.start(c.Blocks)
	taskScope := &scope{vars: p.vars, subtasks: p.subtasks, used: p.used}
	pl.Checks = p.checks(taskScope, c.Blocks, "", "task")
	if pl.Infeasible && len(pl.Checks) > 0 {
		p.diags = append(p.diags, &hcl.Diagnostic{
			Severity: hcl.DiagWarning,
			Summary:  "Checks of an infeasible task are not run",
			Detail:   "With infeasible = true the run succeeds exactly when the agent calls fail; the task's checks are never evaluated. Remove them, or drop infeasible.",
			Subject:  infeasible.NameRange.Ptr(),
		})
	}

	if len(pl.Subtasks) == 0 && pl.Instruction == "" && !p.diags.HasErrors() {
		p.diags = append(p.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Nothing to do",
			Detail:   "The task has no subtask blocks and no instruction. Add instruction = \"...\" for the Manager agent to decompose, or subtask blocks.",
			Subject:  b.DefRange.Ptr(),
		})
	}

	// Cycles: name the whole cycle, pointing at the reference that closes it.
	g := plan.SubtaskGraph(pl.Subtasks)
	if cyc := g.Cycle(); cyc != nil {
		from, to := cyc[len(cyc)-2], cyc[len(cyc)-1]
		r := depRanges[from][to]
		p.diags = append(p.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Dependency cycle",
			Detail:   fmt.Sprintf("These subtasks wait for each other, so none can start: %s (each waits for the next). Remove one of the references or depends_on entries.", strings.Join(cyc, " → ")),
			Subject:  r.Ptr(),
			Context:  blockRange(p.subtasks[from].block).Ptr(),
		})
	}

	// A subtask's checks run when it finishes: they may read its own
	// outputs and those of subtasks it (transitively) waits for.
	if !p.diags.HasErrors() {
		for _, sd := range subtaskBlocks {
			if len(sd.checkRefs) == 0 {
				continue
			}
			refs := keys(sd.checkRefs)
			before := g.WaitsFor(sd.name, refs)
			for _, n := range refs {
				if n != sd.name && !before[n] {
					p.diags = append(p.diags, &hcl.Diagnostic{
						Severity: hcl.DiagError,
						Summary:  "Check reads an output that may not exist yet",
						Detail:   fmt.Sprintf("A check of subtask %q runs when %q finishes, but %q is not among the subtasks it waits for. Add subtask.%s to its depends_on, or move the check to the task.", sd.name, sd.name, n, n),
						Subject:  sd.checkRefs[n].Ptr(),
						Context:  blockRange(sd.block).Ptr(),
					})
				}
			}
		}
	}

	// Outputs nobody reads: a warning, they are still reported. Outputs of
	// a subtask nothing waits for are the task's results, not a smell.
	waited := g.Waited()
	for _, sd := range subtaskBlocks {
		if !waited[sd.name] {
			continue
		}
		for _, k := range keys(sd.outputs) {
			if !p.used[plan.OutputRef{Subtask: sd.name, Key: k}] {
				p.diags = append(p.diags, &hcl.Diagnostic{
					Severity: hcl.DiagWarning,
					Summary:  "Output never used",
					Detail:   fmt.Sprintf("No instruction or check reads subtask.%s.output.%s. It is still reported in the run's result; remove it if it is not needed.", sd.name, k),
					Subject:  sd.outputs[k].Ptr(),
					Context:  blockRange(sd.block).Ptr(),
				})
			}
		}
	}
	for name, v := range p.vars {
		if v.sensitive {
			pl.Secrets = append(pl.Secrets, name)
		}
	}
	sort.Strings(pl.Secrets)
	if a, ok := c.Attributes["video"]; ok {
		p.video(st, a, pl)
	}
	return pl
}

// video decodes the video attribute: a task whose devices are recorded.
// A task with sensitive variables is refused: the agent types their
// values, and a video would keep them in clear pixels.
func (p *parser) video(st *scope, a *hcl.Attribute, pl *plan.Plan) {
	b, isBool := p.static(st, a.Expr).(bool)
	if !isBool {
		p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid value", "video takes true (record every device's screen during the task) or false."))
		return
	}
	if b && len(pl.Secrets) > 0 {
		p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Video of a task with sensitive variables",
			fmt.Sprintf("The task has sensitive variables (%s): the agent types their values, and a video would show them in clear, which screenshots never do. Remove video, or give the task no sensitive variable.", strings.Join(pl.Secrets, ", "))))
		return
	}
	pl.Video = b
}

var startSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "retries"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "check", LabelNames: []string{"name"}}},
}

// startRetriesRange bounds start { retries }: each retry resets the
// devices and runs the whole setup again.
var startRetriesRange = intRange{0, 5}

// start decodes the task's start block, the checks the screen must pass
// after setup (no subtask has run: they read variables only); nil when
// there is none.
func (p *parser) start(blocks hcl.Blocks) *plan.Start {
	var blk *hcl.Block
	for _, b := range blocks {
		if b.Type != "start" {
			continue
		}
		if blk != nil {
			p.diags = append(p.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Duplicate start block",
				Detail:   fmt.Sprintf("A task has one start block, and this one has another at line %d; put all its checks in one.", blk.DefRange.Start.Line),
				Subject:  b.DefRange.Ptr(),
				Context:  blockRange(b).Ptr(),
			})
			continue
		}
		blk = b
	}
	if blk == nil {
		return nil
	}
	st := &plan.Start{Retries: plan.DefaultStartRetries}
	p.within(blk, func() {
		c, d := blk.Body.Content(startSchema)
		p.diags = append(p.diags, d...)
		if a, ok := c.Attributes["retries"]; ok {
			st.Retries = p.count(&scope{vars: p.vars}, a, startRetriesRange)
		}
		st.Checks = p.checks(&scope{vars: p.vars}, c.Blocks, "", "the start block")
		if len(st.Checks) == 0 && !p.diags.HasErrors() {
			p.diags = append(p.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Start block with no check",
				Detail:   "A start block says what the screen must show before the agent starts, in check blocks, for example: start { check \"editor\" { window_title { contains = \"Mousepad\" } } }.",
				Subject:  blk.DefRange.Ptr(),
			})
		}
		for _, ck := range st.Checks {
			if ck.Kind == plan.CheckExpect || ck.Capture {
				p.diags = append(p.diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Start check reads no device",
					Detail:   fmt.Sprintf("Start check %q is an expect (or its value is read): a start check looks at a device, with a kind such as window_title, element or screen_text.", ck.Name),
					Subject:  blk.DefRange.Ptr(),
				})
			}
		}
	})
	return st
}
