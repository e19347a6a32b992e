package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/pcflow/pcflow/activities/artifacts"
	"github.com/pcflow/pcflow/internal/control"
	"github.com/pcflow/pcflow/internal/mcpserver"
	"github.com/pcflow/pcflow/internal/signing"
	"github.com/pcflow/pcflow/internal/text"
	"github.com/pcflow/pcflow/specs"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/workflows"
)

// mcpRuns gives the MCP server's run tools the commands' own code paths:
// a task file compiled as pcflow run compiles it and started as
// pcflow run --detach starts it (its devices served by pcflow worker
// processes); status, history and approve as those commands print them.
type mcpRuns struct {
	e     *env
	g     *engine
	state string
	// tasks is the folder whose task files the run tool may start.
	tasks string
	// policy is the operator's policy file (--policy), for the runs too.
	policy  string
	timeout time.Duration
}

var _ mcpserver.Runs = mcpRuns{}

// capture is r.e with its output into buffers.
func (r mcpRuns) capture() (*env, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	e := *r.e
	e.stdout, e.stderr = &out, &errb
	return &e, &out, &errb
}

// taskPath is name's path in the tasks folder: a plain file name of a
// .hcl file there, nothing outside it.
func (r mcpRuns) taskPath(name string) (string, error) {
	if name == "" || name != filepath.Base(name) || strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".hcl") {
		return "", fmt.Errorf("task_file %q: give the name of a .hcl task file in the folder pcflow mcp offers (%s), without a folder", name, r.tasks)
	}
	p := filepath.Join(r.tasks, name)
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("task_file %s: no such task file in %s (there: %s)", name, r.tasks, r.taskNames())
	}
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("task_file %s is not a regular file (a link or a folder is not followed)", name)
	}
	return p, nil
}

// taskNames lists the task files offered.
func (r mcpRuns) taskNames() string {
	m, _ := filepath.Glob(filepath.Join(r.tasks, "*.hcl"))
	var names []string
	for _, p := range m {
		names = append(names, filepath.Base(p))
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// Start compiles the task file and starts its run on the shared queue,
// as pcflow run --detach does.
func (r mcpRuns) Start(ctx context.Context, req mcpserver.RunRequest, lease func([]string) error) (mcpserver.RunStarted, error) {
	var st mcpserver.RunStarted
	vf := varFlags{policy: r.policy}
	for k, v := range req.Vars {
		vf.vars = append(vf.vars, k+"="+v)
	}
	e, _, errb := r.capture()
	var res *specs.Result
	if req.Instruction != "" {
		var err error
		if res, err = instructionTask(e, req.Instruction, req.Device, &vf); err != nil {
			return st, err
		}
	} else {
		path, err := r.taskPath(req.TaskFile)
		if err != nil {
			return st, err
		}
		if res = loadSpec(e, path, &vf); res == nil {
			return st, fmt.Errorf("task file %s:\n%s", req.TaskFile, errb.String())
		}
	}
	if len(res.Plan.Secrets) > 0 {
		return st, fmt.Errorf("task %s has sensitive variables (%s): an MCP client does not give secrets; run it with pcflow run, or give them to the device's worker (pcflow worker --secrets-from)", res.Plan.Task, strings.Join(res.Plan.Secrets, ", "))
	}
	p := *res.Plan
	st.Task = p.Task
	for _, d := range p.Devices {
		st.Devices = append(st.Devices, d.Name)
	}
	if err := lease(st.Devices); err != nil {
		return st, err
	}
	st.ID = req.ID
	if st.ID == "" {
		st.ID = fmt.Sprintf("%s-%s", p.Task, time.Now().Format("20060102-150405"))
	}
	c := r.g.client
	opts := workflows.Options{DeviceTimeout: r.timeout, SearchAttributes: hasSearchAttributes(ctx, c)}
	start := client.StartWorkflowOptions{ID: st.ID, TaskQueue: workflows.TaskQueue,
		StaticSummary: fmt.Sprintf("task %s (%d subtasks), started by an MCP client", p.Task, len(p.Subtasks)),
		StaticDetails: p.Instruction}
	if opts.SearchAttributes {
		start.TypedSearchAttributes = temporal.NewSearchAttributes(workflows.TaskAttr.ValueSet(p.Task), workflows.StatusAttr.ValueSet("running"))
	}
	if _, err := c.ExecuteWorkflow(ctx, start, workflows.InstructionWorkflowName, workflows.InstructionInput{Plan: p, Options: opts, Vars: res.Values}); err != nil {
		return st, fmt.Errorf("start run %s: %w", st.ID, err)
	}
	if !r.g.foreignPoller(ctx, workflows.TaskQueue) {
		return st, fmt.Errorf("run %s started, but no worker runs workflows on queue %s: start pcflow worker --device %s (without --workflows=false)", st.ID, workflows.TaskQueue, st.Devices[0])
	}
	return st, nil
}

// instructionTask is a task of one free-text instruction on device
// (default desktop), which the Manager agent decomposes at run time, as a
// task file holding only its instruction is.
func instructionTask(e *env, instruction, device string, vf *varFlags) (*specs.Result, error) {
	if device == "" {
		device = "desktop"
	}
	if !plan.ValidName(device) {
		return nil, fmt.Errorf("device %q is not a device name", device)
	}
	f := hclwrite.NewEmptyFile()
	b := f.Body().AppendNewBlock("task", []string{"mcp_instruction"}).Body()
	// A literal: the text is the instruction, never an expression.
	b.SetAttributeRaw("instruction", hclwrite.TokensForValue(cty.StringVal(instruction)))
	b.AppendNewBlock("device", []string{device})
	o, err := vf.options(e)
	if err != nil {
		return nil, err
	}
	res, diags := specs.Parse("instruction.hcl", f.Bytes(), o)
	if diags.HasErrors() {
		var out bytes.Buffer
		_ = specs.WriteDiagnostics(&out, res.Files, diags, false)
		return nil, fmt.Errorf("the instruction as a task:\n%s", out.String())
	}
	return res, nil
}

// Status is pcflow status RUN's output.
func (r mcpRuns) Status(ctx context.Context, run string) (string, error) {
	e, out, errb := r.capture()
	if runStatus(ctx, e, r.g, run, artifacts.Dir{Root: filepath.Join(r.state, "artifacts")}) == 1 && errb.Len() > 0 {
		return out.String(), errors.New(strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// History is pcflow history RUN's output.
func (r mcpRuns) History(ctx context.Context, run string) (string, error) {
	t, err := readRun(ctx, r.g.client, run, true)
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	printHistory(&out, t.steps(artifacts.Dir{Root: filepath.Join(r.state, "artifacts")}), t)
	return out.String(), nil
}

// Approve decides what run's subtask waits for, as pcflow approve or
// pcflow reject does (signed as this process's user).
func (r mcpRuns) Approve(ctx context.Context, run, subtask string, approve bool, reason string) (string, error) {
	s, out, err := control.Approve(ctx, r.g.client, signing.Signer{State: r.state}, run, subtask, workflows.Approval{Approve: approve, Reason: reason})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("subtask %s of run %s: %s", s.Name, run, text.Printable(out)), nil
}
