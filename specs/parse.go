package specs

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/pcflow/pcflow/specs/plan"
)

// The parser is split by block, as packer's hcl2template is: this file is
// the entry point; types.variable.go, types.task.go, types.device.go,
// types.setup.go, types.subtask.go and types.check.go each hold one block's
// schema and decoding; check_KIND.go one check kind each (registered in
// newCheckKinds); decode.go the attribute helpers they share.

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
	// sets variable NAME, PCFLOW_POLICY names the operator's policy file.
	Environ []string
	// Policy is the operator's policy file (--policy); it wins over
	// PCFLOW_POLICY. Its rules bind every task: a task's own policy can
	// add restrictions, never lift the operator's (plan.WithOperator).
	Policy string
	// Profile, when set, says whether an agent (decision, reflection,
	// progress, manager) can speak the model profile a profiles block
	// names (the CLI: a built-in or one of $PCFLOW_PROFILES).
	Profile func(agent, name string) error
	// Optional names the Vars a task need not declare: a suite's command
	// line gives its variables to every task, and each uses those it
	// declares (the caller checks that some task declares each).
	Optional map[string]bool
}

// Result is what parsing produced: the plan, the secret values it refers to
// (kept out of the plan), and the parsed files for rendering diagnostics.
type Result struct {
	Plan    *plan.Plan
	Secrets map[string]string
	Files   map[string]*hcl.File
	// Variables are the names of the variables the task declares.
	Variables []string
	// Values are the values of the variables that are not sensitive, as
	// text (a replay finds them in what a recorded run typed).
	Values map[string]string
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

var fileSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "include"}},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "variable", LabelNames: []string{"name"}},
		{Type: "task", LabelNames: []string{"name"}},
	},
}

type parser struct {
	// capturing is set while a check whose value another check reads is
	// decoded: it needs no condition of its own.
	capturing bool
	opts      Options
	files     map[string]*hcl.File
	diags     hcl.Diagnostics
	vars      map[string]*variable
	devices   map[string]hcl.Range
	subtasks  map[string]*subtaskDecl
	used      map[plan.OutputRef]bool
	secrets   map[string]string
	kinds     checkKinds
	// included are the task blocks (device, setup, subtask, ...) of
	// included files, which join the task before its own.
	included hcl.Blocks
	// missingRefs are the warnings for reference files not found here,
	// by path: dropped at the end for a file a setup step makes.
	missingRefs map[*hcl.Diagnostic]string
}

// Parse parses a task file's source into a validated plan. Diagnostics carry
// exact source ranges (Subject) and the block they are in (Context); render
// them with WriteDiagnostics.
func Parse(filename string, src []byte, opts Options) (*Result, hcl.Diagnostics) {
	p := &parser{
		opts:     opts,
		files:    map[string]*hcl.File{},
		vars:     map[string]*variable{},
		devices:  map[string]hcl.Range{},
		subtasks: map[string]*subtaskDecl{},
		used:     map[plan.OutputRef]bool{},
		secrets:  map[string]string{},
		kinds:    newCheckKinds(),
	}
	res := &Result{Files: p.files, Secrets: p.secrets}
	f, diags := p.parseSource(filename, src)
	if diags.HasErrors() {
		return res, diags
	}
	content, diags := f.Body.Content(fileSchema)
	hintPolicyPlace(diags, `A task's policy goes inside its task block: task "NAME" { policy { ... } }. An operator's policy for every task is a file of its own, given with --policy FILE or $PCFLOW_POLICY.`)
	p.diags = append(p.diags, diags...)
	blocks := content.Blocks
	if a, ok := content.Attributes["include"]; ok {
		blocks = append(p.include(filename, a), blocks...)
	}
	var tasks []*hcl.Block
	for _, b := range blocks {
		switch b.Type {
		case "variable":
			p.within(b, func() { p.variable(b) })
		case "task":
			tasks = append(tasks, b)
		default:
			p.included = append(p.included, b)
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
			Context:  blockRange(tasks[1]).Ptr(),
		})
		return res, p.diags
	}
	var pl *plan.Plan
	p.within(tasks[0], func() { pl = p.task(tasks[0]) })
	pl.File = filename
	if !p.diags.HasErrors() {
		p.checkPlanSize(pl, tasks[0])
	}
	if p.diags.HasErrors() {
		return res, p.diags
	}
	res.Plan = pl
	res.Variables = keys(p.vars)
	res.Values = map[string]string{}
	for name, v := range p.vars {
		if !v.sensitive && v.value != nil {
			res.Values[name] = plan.ToString(v.value)
		}
	}
	p.dropMadeReferences(pl)
	return res, p.diags
}

// dropMadeReferences drops the "not found here" warning of a reference
// file that a setup or post_run step makes: one whose path such a step's
// command, launch or written file names (OSWorld's tasks download or
// build their gold files in their config and postconfig steps).
func (p *parser) dropMadeReferences(pl *plan.Plan) {
	if len(p.missingRefs) == 0 {
		return
	}
	var named []string
	lit := func(x plan.Expr) {
		if x.Kind == plan.ExprLit {
			named = append(named, plan.ToString(x.Lit))
		}
	}
	for _, su := range append(append([]plan.Setup{}, pl.Setup...), pl.PostRun...) {
		for _, x := range su.Command {
			lit(x)
		}
		for _, x := range su.Launch {
			lit(x)
		}
		for _, c := range su.Commands {
			for _, x := range c {
				lit(x)
			}
		}
		for _, w := range su.WriteFiles {
			lit(w.Path)
		}
	}
	kept := p.diags[:0]
	for _, d := range p.diags {
		if path, ok := p.missingRefs[d]; ok && slices.ContainsFunc(named, func(t string) bool { return strings.Contains(t, path) }) {
			continue
		}
		kept = append(kept, d)
	}
	p.diags = kept
}

// parseSource parses one file of the task (the task file, an included
// file, a var file) within the limits, and keeps it for rendering.
func (p *parser) parseSource(filename string, src []byte) (*hcl.File, hcl.Diagnostics) {
	if len(src) > MaxSourceBytes {
		p.files[filename] = &hcl.File{Body: hcl.EmptyBody()}
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "File too large",
			Detail:   fmt.Sprintf("%s holds more than %s, the most a task file (or an included, variable or policy file) may hold. Move long text into files the task's setup writes or the agent reads.", filename, byteSize(MaxSourceBytes)),
		}}
	}
	if diags := checkNesting(src, filename); diags.HasErrors() {
		p.files[filename] = &hcl.File{Body: hcl.EmptyBody(), Bytes: src}
		return nil, diags
	}
	f, diags := hclsyntax.ParseConfig(src, filename, hcl.Pos{Line: 1, Column: 1, Byte: 0})
	p.files[filename] = f
	return f, diags
}

// within runs decode and sets the Context of the diagnostics it adds to
// b's range, unless an inner block already set it.
func (p *parser) within(b *hcl.Block, decode func()) {
	n := len(p.diags)
	decode()
	r := blockRange(b)
	for _, d := range p.diags[n:] {
		if d.Context == nil {
			d.Context = r.Ptr()
		}
	}
}

// blockRange is the range of a whole block, header to closing brace.
func blockRange(b *hcl.Block) hcl.Range {
	if body, ok := b.Body.(*hclsyntax.Body); ok {
		return hcl.RangeBetween(b.DefRange, body.SrcRange)
	}
	return b.DefRange
}
