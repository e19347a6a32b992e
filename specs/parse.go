package specs

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/pcflow/pcflow/specs/plan"
)

// Defaults applied where a spec is silent.
const (
	DefaultMaxSteps   = 30
	DefaultTimeout    = 30 * time.Minute
	DefaultMaxInvalid = 3
	DefaultDevice     = "desktop"
)

// Options carry variable values from outside the file.
type Options struct {
	// Vars are --var NAME=VALUE values; they win over everything else.
	Vars map[string]string
	// VarFiles are --var-file files (HCL attributes NAME = value).
	VarFiles []string
	// Environ is the environment as os.Environ returns it; PCFLOW_VAR_NAME
	// sets variable NAME.
	Environ []string
}

// Result is what parsing produced: the plan, the secret values it refers to
// (kept out of the plan), and the parsed files for rendering diagnostics.
type Result struct {
	Plan    *plan.Plan
	Secrets map[string]string
	Files   map[string]*hcl.File
}

// ParseFile reads and parses one task file.
func ParseFile(path string, opts Options) (*Result, hcl.Diagnostics) {
	src, err := os.ReadFile(path)
	if err != nil {
		return &Result{Files: map[string]*hcl.File{}}, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Cannot read task file",
			Detail:   fmt.Sprintf("%s. Check the path and permissions.", err),
		}}
	}
	return Parse(path, src, opts)
}

type subtaskDecl struct {
	name    string
	block   *hcl.Block
	body    *hcl.BodyContent
	outputs map[string]hcl.Range
	// checkRefs are the subtasks whose outputs this subtask's checks read.
	checkRefs map[string]hcl.Range
}

type parser struct {
	opts     Options
	files    map[string]*hcl.File
	diags    hcl.Diagnostics
	vars     map[string]*variable
	devices  map[string]hcl.Range
	subtasks map[string]*subtaskDecl
	used     map[plan.OutputRef]bool
	secrets  map[string]string
}

// Parse parses a task file's source into a validated plan. Diagnostics carry
// exact source ranges; render them with WriteDiagnostics.
func Parse(filename string, src []byte, opts Options) (*Result, hcl.Diagnostics) {
	p := &parser{
		opts:     opts,
		files:    map[string]*hcl.File{},
		vars:     map[string]*variable{},
		devices:  map[string]hcl.Range{},
		subtasks: map[string]*subtaskDecl{},
		used:     map[plan.OutputRef]bool{},
		secrets:  map[string]string{},
	}
	res := &Result{Files: p.files, Secrets: p.secrets}
	f, diags := hclsyntax.ParseConfig(src, filename, hcl.Pos{Line: 1, Column: 1, Byte: 0})
	p.files[filename] = f
	if diags.HasErrors() {
		return res, diags
	}
	content, diags := f.Body.Content(fileSchema)
	p.diags = append(p.diags, diags...)
	var tasks []*hcl.Block
	for _, b := range content.Blocks {
		switch b.Type {
		case "variable":
			p.variable(b)
		case "task":
			tasks = append(tasks, b)
		}
	}
	p.applyVarValues()
	if p.diags.HasErrors() {
		return res, p.diags
	}
	switch len(tasks) {
	case 0:
		p.diags = append(p.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "No task block",
			Detail:   `A task file holds one task "NAME" { ... } block. Add one with an instruction, or with subtask blocks.`,
			Subject:  &hcl.Range{Filename: filename, Start: hcl.InitialPos, End: hcl.InitialPos},
		})
		return res, p.diags
	case 1:
	default:
		p.diags = append(p.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "More than one task block",
			Detail:   fmt.Sprintf("A task file holds exactly one task; the first is %q at %s. Put each task in its own file.", tasks[0].Labels[0], tasks[0].DefRange),
			Subject:  tasks[1].DefRange.Ptr(),
		})
		return res, p.diags
	}
	pl := p.task(tasks[0])
	pl.File = filename
	if p.diags.HasErrors() {
		return res, p.diags
	}
	res.Plan = pl
	return res, p.diags
}

func (p *parser) variable(b *hcl.Block) {
	name := b.Labels[0]
	if prev, dup := p.vars[name]; dup {
		p.diags = append(p.diags, duplicate("variable", name, b.LabelRanges[0], prev.declRange))
		return
	}
	c, d := b.Body.Content(variableSchema)
	p.diags = append(p.diags, d...)
	v := &variable{name: name, declRange: b.LabelRanges[0]}
	p.vars[name] = v
	st := &scope{vars: map[string]*variable{}}
	if a, ok := c.Attributes["default"]; ok {
		v.value = p.static(st, a.Expr)
	}
	if a, ok := c.Attributes["sensitive"]; ok {
		b, ok := p.static(st, a.Expr).(bool)
		if !ok {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid value for sensitive", "sensitive takes true or false."))
		}
		v.sensitive = b
	}
}

// applyVarValues sets variables from var files, the environment and --var,
// in increasing precedence, and reports variables that end up with no value.
func (p *parser) applyVarValues() {
	set := func(name, raw string, where string, r *hcl.Range) {
		v, ok := p.vars[name]
		if !ok {
			p.diags = append(p.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Value for undeclared variable",
				Detail:   fmt.Sprintf("%s sets %q, but the task declares no such variable.%s", where, name, didYouMean(name, keys(p.vars))),
				Subject:  r,
			})
			return
		}
		v.value = coerceLike(v.value, raw)
	}
	for _, vf := range p.opts.VarFiles {
		src, err := os.ReadFile(vf)
		if err != nil {
			p.diags = append(p.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot read var file", Detail: err.Error()})
			continue
		}
		f, d := hclsyntax.ParseConfig(src, vf, hcl.Pos{Line: 1, Column: 1, Byte: 0})
		p.files[vf] = f
		p.diags = append(p.diags, d...)
		if d.HasErrors() {
			continue
		}
		attrs, d := f.Body.JustAttributes()
		p.diags = append(p.diags, d...)
		for _, name := range sortedAttrNames(attrs) {
			a := attrs[name]
			val, d := a.Expr.Value(nil)
			p.diags = append(p.diags, d...)
			g, err := ctyToGo(val)
			if err != nil {
				p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Unsupported value", err.Error()))
				continue
			}
			if _, ok := p.vars[name]; !ok {
				set(name, "", "The var file", a.NameRange.Ptr())
				continue
			}
			p.vars[name].value = g
		}
	}
	for _, kv := range p.opts.Environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(k, "PCFLOW_VAR_") {
			continue
		}
		name := strings.TrimPrefix(k, "PCFLOW_VAR_")
		if _, ok := p.vars[name]; ok {
			p.vars[name].value = coerceLike(p.vars[name].value, v)
		}
	}
	for _, name := range keys(p.opts.Vars) {
		set(name, p.opts.Vars[name], "--var", nil)
	}
	for _, name := range keys(p.vars) {
		v := p.vars[name]
		if v.value == nil {
			p.diags = append(p.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "No value for variable",
				Detail:   fmt.Sprintf("Variable %q has no default and no value was given. Pass --var %s=VALUE, set PCFLOW_VAR_%s, or add a default.", name, name, name),
				Subject:  v.declRange.Ptr(),
			})
		}
		if v.sensitive {
			p.secrets[name] = plan.ToString(v.value)
		}
	}
}

func sortedAttrNames(a hcl.Attributes) []string {
	n := make([]string, 0, len(a))
	for k := range a {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// coerceLike converts a raw string to the type of the default, so that
// --var steps=5 stays a number.
func coerceLike(def any, raw string) any {
	switch def.(type) {
	case float64:
		if f, err := strconv.ParseFloat(raw, 64); err == nil {
			return f
		}
	case bool:
		if b, err := strconv.ParseBool(raw); err == nil {
			return b
		}
	}
	return raw
}

func duplicate(kind, name string, at, first hcl.Range) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  fmt.Sprintf("Duplicate %s %q", kind, name),
		Detail:   fmt.Sprintf("A %s named %q is already defined at %s. Names must be unique: rename one of them.", kind, name, first),
		Subject:  at.Ptr(),
	}
}

// static evaluates an expression that may read variables but no outputs.
func (p *parser) static(st *scope, e hcl.Expression) any {
	x, d := st.convert(e)
	p.diags = append(p.diags, d...)
	if d.HasErrors() {
		return nil
	}
	if x.Kind == plan.ExprSecret {
		p.diags = append(p.diags, exprDiag(e.Range(), "Sensitive value not allowed here", "Sensitive variables may be used only in instructions, setup file contents and checks, where pcflow can keep them out of logs; commands read them from the environment as PCFLOW_SECRET_NAME."))
		return nil
	}
	x, d = fold(x, e.Range())
	p.diags = append(p.diags, d...)
	if x.Kind != plan.ExprLit {
		return nil
	}
	return x.Lit
}

func (p *parser) staticString(st *scope, a *hcl.Attribute) string {
	v := p.static(st, a.Expr)
	if _, ok := v.(string); !ok && v != nil {
		if _, isNum := v.(float64); !isNum {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid value", fmt.Sprintf("%s must be a string.", a.Name)))
			return ""
		}
	}
	return plan.ToString(v)
}

func (p *parser) staticInt(st *scope, a *hcl.Attribute, min int) int {
	v := p.static(st, a.Expr)
	if v == nil {
		return 0
	}
	f, ok := v.(float64)
	if !ok || f != float64(int(f)) || int(f) < min {
		p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid value", fmt.Sprintf("%s must be a whole number of at least %d.", a.Name, min)))
		return 0
	}
	return int(f)
}

func (p *parser) duration(st *scope, a *hcl.Attribute) plan.Duration {
	s := p.staticString(st, a)
	if s == "" {
		return 0
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid duration",
			fmt.Sprintf("%q is not a duration. Write a positive number with a unit, such as \"90s\", \"10m\" or \"1h30m\".", s)))
		return 0
	}
	return plan.Duration(d)
}

func (p *parser) stringList(st *scope, a *hcl.Attribute) []string {
	v := p.static(st, a.Expr)
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		out := make([]string, len(x))
		for i, e := range x {
			out[i] = plan.ToString(e)
		}
		return out
	case nil:
		return nil
	}
	p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid value", fmt.Sprintf("%s must be a string or a list of strings.", a.Name)))
	return nil
}

// argv converts a list expression of templates (argv may use secrets).
func (p *parser) argv(st *scope, a *hcl.Attribute) []plan.Expr {
	items, d := hcl.ExprList(a.Expr)
	if d.HasErrors() || len(items) == 0 {
		p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid command", fmt.Sprintf("%s takes a non-empty list of strings, the program first: [\"mousepad\", \"/tmp/memo.txt\"].", a.Name)))
		return nil
	}
	out := make([]plan.Expr, 0, len(items))
	for _, it := range items {
		x := p.template(st, it)
		if name := secretIn(x); name != "" {
			env := plan.SecretEnv(name)
			p.diags = append(p.diags, exprDiag(it.Range(), "Sensitive value in a command line",
				fmt.Sprintf("Command lines are visible to every user of the machine (ps), so var.%s cannot be an argument of %s. "+
					"Setup commands and command checks receive every sensitive variable in the environment: read $%s, "+
					"for example [\"sh\", \"-c\", \"printf %%s \\\"$%s\\\" | login --password-stdin\"].", name, a.Name, env, env)))
		}
		out = append(out, x)
	}
	return out
}

// secretIn returns the name of a sensitive variable e reads, or "".
func secretIn(e plan.Expr) string {
	if e.Kind == plan.ExprSecret {
		return e.Ref[0]
	}
	for _, a := range e.Args {
		if n := secretIn(a); n != "" {
			return n
		}
	}
	return ""
}

// template converts an expression that is rendered at run time.
func (p *parser) template(st *scope, e hcl.Expression) plan.Expr {
	x, d := st.convert(e)
	p.diags = append(p.diags, d...)
	if d.HasErrors() {
		return plan.Expr{}
	}
	x, d = fold(x, e.Range())
	p.diags = append(p.diags, d...)
	return x
}

func (p *parser) templatePtr(st *scope, c *hcl.BodyContent, name string) *plan.Expr {
	a, ok := c.Attributes[name]
	if !ok {
		return nil
	}
	x := p.template(st, a.Expr)
	return &x
}

// ref decodes a static reference such as device.NAME into NAME.
func (p *parser) ref(e hcl.Expression, root string) (string, hcl.Range, bool) {
	t, d := hcl.AbsTraversalForExpr(e)
	if d.HasErrors() || len(t) != 2 || t.RootName() != root {
		p.diags = append(p.diags, exprDiag(e.Range(), "Invalid reference", fmt.Sprintf("Expected a reference of the form %s.NAME.", root)))
		return "", e.Range(), false
	}
	name, r, ok := attrStep(t, 1)
	return name, r, ok
}

func (p *parser) refList(a *hcl.Attribute, root string) ([]string, []hcl.Range) {
	items, d := hcl.ExprList(a.Expr)
	if d.HasErrors() {
		p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid list", fmt.Sprintf("%s takes a list of references: [%s.NAME, ...].", a.Name, root)))
		return nil, nil
	}
	var names []string
	var ranges []hcl.Range
	for _, it := range items {
		if n, r, ok := p.ref(it, root); ok {
			names = append(names, n)
			ranges = append(ranges, r)
		}
	}
	return names, ranges
}

func (p *parser) deviceRef(a *hcl.Attribute) string {
	name, r, ok := p.ref(a.Expr, "device")
	if !ok {
		return ""
	}
	if _, known := p.devices[name]; !known {
		p.diags = append(p.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Reference to unknown device",
			Detail:   fmt.Sprintf("No device %q is declared in this task.%s Declare it with a device %q block.", name, didYouMean(name, keys(p.devices)), name),
			Subject:  r.Ptr(),
		})
		return ""
	}
	return name
}

// bindDevice resolves a block's device attribute, or the single device.
func (p *parser) bindDevice(c *hcl.BodyContent, kind, name string, def hcl.Range) string {
	if a, ok := c.Attributes["device"]; ok {
		return p.deviceRef(a)
	}
	if len(p.devices) == 1 {
		return keys(p.devices)[0]
	}
	p.diags = append(p.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "No device for " + kind,
		Detail:   fmt.Sprintf("The task has %d devices (%s), so %s %q must say which one it acts on: add device = device.NAME.", len(p.devices), strings.Join(keys(p.devices), ", "), kind, name),
		Subject:  def.Ptr(),
	})
	return ""
}

func (p *parser) task(b *hcl.Block) *plan.Plan {
	pl := &plan.Plan{Task: b.Labels[0], MaxSteps: DefaultMaxSteps, Timeout: plan.Duration(DefaultTimeout), MaxInvalid: DefaultMaxInvalid}
	c, d := b.Body.Content(taskSchema)
	p.diags = append(p.diags, d...)
	st := &scope{vars: p.vars}

	if a, ok := c.Attributes["instruction"]; ok {
		x := p.template(st, a.Expr)
		if x.Kind == plan.ExprLit {
			pl.Instruction = plan.ToString(x.Lit)
		} else if !x.IsZero() {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Sensitive value in task instruction", "The task instruction is shown to the Manager agent and in the UI; use sensitive variables in subtask instructions, which the device fills in."))
		}
	}
	if a, ok := c.Attributes["max_steps"]; ok {
		pl.MaxSteps = p.staticInt(st, a, 1)
	}
	if a, ok := c.Attributes["timeout"]; ok {
		pl.Timeout = p.duration(st, a)
	}
	if a, ok := c.Attributes["max_tokens"]; ok {
		pl.MaxTokens = p.staticInt(st, a, 1)
	}
	if a, ok := c.Attributes["max_invalid"]; ok {
		pl.MaxInvalid = p.staticInt(st, a, 1)
	}
	if a, ok := c.Attributes["knowledge"]; ok {
		pl.Knowledge = p.stringList(st, a)
	}

	// First pass: declare every name, so references may point forward.
	var subtaskBlocks []*subtaskDecl
	for _, blk := range c.Blocks {
		name := blk.Labels[0]
		switch blk.Type {
		case "device":
			if prev, dup := p.devices[name]; dup {
				p.diags = append(p.diags, duplicate("device", name, blk.LabelRanges[0], prev))
				continue
			}
			p.devices[name] = blk.LabelRanges[0]
			dc, d := blk.Body.Content(deviceSchema)
			p.diags = append(p.diags, d...)
			dev := plan.Device{Name: name, Platform: "linux"}
			if a, ok := dc.Attributes["platform"]; ok {
				dev.Platform = p.staticString(st, a)
				if dev.Platform != "linux" {
					p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Unsupported platform", fmt.Sprintf("Platform %q is not supported yet; pcflow drives \"linux\" (X11) devices.", dev.Platform)))
				}
			}
			if a, ok := dc.Attributes["description"]; ok {
				dev.Description = p.staticString(st, a)
			}
			pl.Devices = append(pl.Devices, dev)
		case "subtask":
			if prev, dup := p.subtasks[name]; dup {
				p.diags = append(p.diags, duplicate("subtask", name, blk.LabelRanges[0], prev.block.LabelRanges[0]))
				continue
			}
			sc, d := blk.Body.Content(subtaskSchema)
			p.diags = append(p.diags, d...)
			sd := &subtaskDecl{name: name, block: blk, body: sc, outputs: map[string]hcl.Range{}}
			for _, ob := range sc.Blocks {
				if ob.Type != "output" {
					continue
				}
				k := ob.Labels[0]
				if prev, dup := sd.outputs[k]; dup {
					p.diags = append(p.diags, duplicate("output", k, ob.LabelRanges[0], prev))
					continue
				}
				sd.outputs[k] = ob.LabelRanges[0]
			}
			p.subtasks[name] = sd
			subtaskBlocks = append(subtaskBlocks, sd)
		}
	}
	if len(pl.Devices) == 0 {
		pl.Devices = []plan.Device{{Name: DefaultDevice, Platform: "linux", Description: "the local display"}}
		p.devices[DefaultDevice] = b.DefRange
	}

	setupNames := map[string]hcl.Range{}
	for _, blk := range c.Blocks {
		if blk.Type != "setup" {
			continue
		}
		name := blk.Labels[0]
		if prev, dup := setupNames[name]; dup {
			p.diags = append(p.diags, duplicate("setup", name, blk.LabelRanges[0], prev))
			continue
		}
		setupNames[name] = blk.LabelRanges[0]
		pl.Setup = append(pl.Setup, p.setup(st, blk))
	}

	// Second pass: subtasks, with references resolved.
	depRanges := map[string]map[string]hcl.Range{}
	for _, sd := range subtaskBlocks {
		s, deps := p.subtask(pl, sd)
		pl.Subtasks = append(pl.Subtasks, s)
		depRanges[sd.name] = deps
	}
	taskScope := &scope{vars: p.vars, subtasks: p.subtasks, used: p.used}
	pl.Checks = p.checks(taskScope, c.Blocks, "", "task")

	if len(pl.Subtasks) == 0 && pl.Instruction == "" && !p.diags.HasErrors() {
		p.diags = append(p.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Nothing to do",
			Detail:   "The task has no subtask blocks and no instruction. Add instruction = \"...\" for the Manager agent to decompose, or subtask blocks.",
			Subject:  b.DefRange.Ptr(),
		})
	}

	// Cycles: name the whole cycle, pointing at the reference that closes it.
	deps := map[string][]string{}
	for _, s := range pl.Subtasks {
		deps[s.Name] = s.DependsOn
	}
	if cyc := plan.FindCycle(deps); cyc != nil {
		r := depRanges[cyc[len(cyc)-2]][cyc[len(cyc)-1]]
		p.diags = append(p.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Dependency cycle",
			Detail:   fmt.Sprintf("These subtasks wait for each other, so none can start: %s (each waits for the next). Remove one of the references or depends_on entries.", strings.Join(cyc, " → ")),
			Subject:  r.Ptr(),
		})
	}

	// A subtask's checks run when it finishes: they may read its own
	// outputs and those of subtasks it (transitively) waits for.
	if !p.diags.HasErrors() {
		for _, sd := range subtaskBlocks {
			before := ancestors(deps, sd.name)
			for _, n := range keys(sd.checkRefs) {
				if n != sd.name && !before[n] {
					p.diags = append(p.diags, &hcl.Diagnostic{
						Severity: hcl.DiagError,
						Summary:  "Check reads an output that may not exist yet",
						Detail:   fmt.Sprintf("A check of subtask %q runs when %q finishes, but %q is not among the subtasks it waits for. Add subtask.%s to its depends_on, or move the check to the task.", sd.name, sd.name, n, n),
						Subject:  sd.checkRefs[n].Ptr(),
					})
				}
			}
		}
	}

	// Outputs nobody reads: a warning, they are still reported.
	for _, sd := range subtaskBlocks {
		for _, k := range keys(sd.outputs) {
			if !p.used[plan.OutputRef{Subtask: sd.name, Key: k}] && hasDependents(pl, sd.name) {
				p.diags = append(p.diags, &hcl.Diagnostic{
					Severity: hcl.DiagWarning,
					Summary:  "Output never used",
					Detail:   fmt.Sprintf("No instruction or check reads subtask.%s.output.%s. It is still reported in the run's result; remove it if it is not needed.", sd.name, k),
					Subject:  sd.outputs[k].Ptr(),
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
	return pl
}

// ancestors returns every subtask name waits for, directly or not.
func ancestors(deps map[string][]string, name string) map[string]bool {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(n string) {
		for _, d := range deps[n] {
			if !seen[d] {
				seen[d] = true
				walk(d)
			}
		}
	}
	walk(name)
	return seen
}

// hasDependents reports whether any subtask waits for name: outputs of a
// subtask nothing waits for are the task's results, not a smell.
func hasDependents(pl *plan.Plan, name string) bool {
	for _, s := range pl.Subtasks {
		for _, d := range s.DependsOn {
			if d == name {
				return true
			}
		}
	}
	return false
}

func (p *parser) setup(st *scope, blk *hcl.Block) plan.Setup {
	c, d := blk.Body.Content(setupSchema)
	p.diags = append(p.diags, d...)
	s := plan.Setup{Name: blk.Labels[0]}
	s.Device = p.bindDevice(c, "setup", s.Name, blk.DefRange)
	if a, ok := c.Attributes["launch"]; ok {
		s.Launch = p.argv(st, a)
	}
	if a, ok := c.Attributes["command"]; ok {
		s.Command = p.argv(st, a)
	}
	if a, ok := c.Attributes["wait_for_window"]; ok {
		s.WaitForWindow = p.staticString(st, a)
		if _, err := regexp.Compile(s.WaitForWindow); err != nil {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid regular expression", fmt.Sprintf("%s. Use Go (RE2) syntax.", err)))
		}
	}
	for _, wb := range c.Blocks {
		wc, d := wb.Body.Content(writeFileSchema)
		p.diags = append(p.diags, d...)
		if d.HasErrors() {
			continue
		}
		s.WriteFiles = append(s.WriteFiles, plan.WriteFile{
			Path:    p.template(st, wc.Attributes["path"].Expr),
			Content: p.template(st, wc.Attributes["content"].Expr),
		})
	}
	if len(s.WriteFiles) == 0 && s.Launch == nil && s.Command == nil && s.WaitForWindow == "" {
		p.diags = append(p.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Empty setup step",
			Detail:   "A setup step needs at least one of write_file { ... }, launch, command or wait_for_window.",
			Subject:  blk.DefRange.Ptr(),
		})
	}
	return s
}

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
	if a, ok := c.Attributes["max_steps"]; ok {
		s.MaxSteps = p.staticInt(st, a, 1)
	}
	if a, ok := c.Attributes["timeout"]; ok {
		s.Timeout = p.duration(st, a)
	}
	if a, ok := c.Attributes["max_tokens"]; ok {
		s.MaxTokens = p.staticInt(st, a, 1)
	}
	if a, ok := c.Attributes["knowledge"]; ok {
		s.Knowledge = p.stringList(st, a)
	}
	for _, ob := range c.Blocks {
		if ob.Type != "output" {
			continue
		}
		oc, d := ob.Body.Content(outputSchema)
		p.diags = append(p.diags, d...)
		o := plan.Output{Key: ob.Labels[0]}
		if a, ok := oc.Attributes["description"]; ok {
			o.Description = p.staticString(st, a)
		}
		s.Outputs = append(s.Outputs, o)
	}
	checkScope := &scope{vars: p.vars, subtasks: p.subtasks, used: p.used, refs: map[string]hcl.Range{}}
	s.Checks = p.checks(checkScope, c.Blocks, s.Device, "subtask "+sd.name)
	sd.checkRefs = checkScope.refs
	return s, deps
}

func (p *parser) checks(st *scope, blocks hcl.Blocks, device, owner string) []plan.Check {
	names := map[string]hcl.Range{}
	var out []plan.Check
	var afterRanges [][]hcl.Range
	for _, blk := range blocks {
		if blk.Type != "check" {
			continue
		}
		name := blk.Labels[0]
		if prev, dup := names[name]; dup {
			p.diags = append(p.diags, duplicate("check", name, blk.LabelRanges[0], prev))
			continue
		}
		names[name] = blk.LabelRanges[0]
		ck, ar := p.check(st, blk, device)
		out = append(out, ck)
		afterRanges = append(afterRanges, ar)
	}
	deps := map[string][]string{}
	for i, ck := range out {
		for j, a := range ck.After {
			if _, ok := names[a]; !ok {
				p.diags = append(p.diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Reference to unknown check",
					Detail:   fmt.Sprintf("No check %q is defined in %s.%s after may name checks of the same subtask (or of the task).", a, owner, didYouMean(a, keys(names))),
					Subject:  afterRanges[i][j].Ptr(),
				})
			}
		}
		deps[ck.Name] = ck.After
	}
	if cyc := plan.FindCycle(deps); cyc != nil {
		p.diags = append(p.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Check cycle",
			Detail:   fmt.Sprintf("These checks wait for each other: %s. Remove one of the after entries.", strings.Join(cyc, " → ")),
			Subject:  names[cyc[0]].Ptr(),
		})
	}
	return out
}

func (p *parser) check(st *scope, blk *hcl.Block, device string) (plan.Check, []hcl.Range) {
	c, d := blk.Body.Content(checkSchema())
	p.diags = append(p.diags, d...)
	ck := plan.Check{Name: blk.Labels[0]}
	var afterRanges []hcl.Range
	if a, ok := c.Attributes["after"]; ok {
		ck.After, afterRanges = p.refList(a, "check")
	}
	var kinds []string
	var kindRanges []hcl.Range
	if a, ok := c.Attributes["expect"]; ok {
		kinds = append(kinds, plan.CheckExpect)
		kindRanges = append(kindRanges, a.NameRange)
		x := p.template(st, a.Expr)
		ck.Expect = &x
		ck.Kind = plan.CheckExpect
		if x.Kind == plan.ExprLit {
			if _, isBool := x.Lit.(bool); !isBool {
				p.diags = append(p.diags, exprDiag(a.Expr.Range(), "expect is not a condition", "expect takes a boolean expression, such as subtask.read.output.time == \"10:30\"."))
			}
		}
	}
	var kb *hcl.Block
	for _, b := range c.Blocks {
		kinds = append(kinds, b.Type)
		kindRanges = append(kindRanges, b.TypeRange)
		kb = b
	}
	if len(kinds) == 0 {
		p.diags = append(p.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Check with no condition",
			Detail:   fmt.Sprintf("Check %q says nothing to verify. Add one of: %s blocks, or expect = <boolean expression>.", ck.Name, strings.Join(checkKindOrder, ", ")),
			Subject:  blk.DefRange.Ptr(),
		})
		return ck, afterRanges
	}
	if len(kinds) > 1 {
		p.diags = append(p.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Check with more than one condition kind",
			Detail:   fmt.Sprintf("Check %q has %s; a check verifies one kind of thing. Split it into several checks (use after = [check.NAME] to order them).", ck.Name, strings.Join(kinds, " and ")),
			Subject:  kindRanges[1].Ptr(),
		})
		return ck, afterRanges
	}
	if kb == nil {
		return ck, afterRanges
	}
	ck.Kind = kb.Type
	if a, ok := c.Attributes["device"]; ok {
		ck.Device = p.deviceRef(a)
	} else if device != "" {
		ck.Device = device
	} else {
		ck.Device = p.bindDevice(c, "check", ck.Name, blk.DefRange)
	}
	kc, d := kb.Body.Content(checkKinds[kb.Type])
	p.diags = append(p.diags, d...)
	ck.Path = p.templatePtr(st, kc, "path")
	ck.Contains = p.templatePtr(st, kc, "contains")
	ck.Matches = p.templatePtr(st, kc, "matches")
	ck.Equals = p.templatePtr(st, kc, "equals")
	if kb.Type == "command" {
		ck.Contains = p.templatePtr(st, kc, "stdout_contains")
		ck.Matches = p.templatePtr(st, kc, "stdout_matches")
		if a, ok := kc.Attributes["argv"]; ok {
			ck.Argv = p.argv(st, a)
		}
		if a, ok := kc.Attributes["exit_code"]; ok {
			n := p.staticInt(st, a, 0)
			ck.ExitCode = &n
		} else {
			zero := 0
			ck.ExitCode = &zero
		}
	}
	if a, ok := kc.Attributes["exists"]; ok {
		b, isBool := p.static(st, a.Expr).(bool)
		if !isBool {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid value", "exists takes true or false."))
		}
		ck.Exists = &b
	}
	if a, ok := kc.Attributes["cell"]; ok {
		ck.Cell = strings.ToUpper(p.staticString(st, a))
		if !cellRef.MatchString(ck.Cell) {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid cell", fmt.Sprintf("%q is not a cell reference; write a column and a row, such as \"B2\".", ck.Cell)))
		}
	}
	if a, ok := kc.Attributes["sheet"]; ok {
		ck.Sheet = p.staticString(st, a)
	}
	if m, ok := kc.Attributes["matches"]; ok && ck.Matches != nil && ck.Matches.Kind == plan.ExprLit {
		if _, err := regexp.Compile(plan.ToString(ck.Matches.Lit)); err != nil {
			p.diags = append(p.diags, exprDiag(m.Expr.Range(), "Invalid regular expression", fmt.Sprintf("%s. Use Go (RE2) syntax.", err)))
		}
	}
	// Conditions that cannot hold together, or none at all.
	conds := 0
	for _, x := range []*plan.Expr{ck.Contains, ck.Matches, ck.Equals} {
		if x != nil {
			conds++
		}
	}
	switch {
	case ck.Exists != nil && !*ck.Exists && conds > 0:
		p.diags = append(p.diags, exprDiag(kc.Attributes["exists"].Expr.Range(), "Conflicting conditions",
			"exists = false cannot hold together with contains, matches or equals: a missing file has no content. Keep one."))
	case ck.Equals != nil && conds > 1:
		p.diags = append(p.diags, exprDiag(kc.Attributes["equals"].NameRange, "Conflicting conditions",
			"equals already fixes the whole value; drop contains/matches, or drop equals."))
	case conds == 0 && ck.Exists == nil && (kb.Type == "window_title" || kb.Type == "clipboard" || kb.Type == "cell"):
		p.diags = append(p.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Check with no condition",
			Detail:   fmt.Sprintf("The %s block of check %q needs contains, matches or equals.", kb.Type, ck.Name),
			Subject:  kb.DefRange.Ptr(),
		})
	case kb.Type == "file" && conds == 0 && ck.Exists == nil:
		t := true
		ck.Exists = &t
	}
	return ck, afterRanges
}

var cellRef = regexp.MustCompile(`^[A-Z]{1,3}[1-9][0-9]{0,6}$`)
