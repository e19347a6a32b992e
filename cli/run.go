package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/pcflow/pcflow/activities/agents"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/internal/tserver"
	"github.com/pcflow/pcflow/specs"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/workflows"
)

// runRecord is what `pcflow resume` needs to bring a run's local worker back.
type runRecord struct {
	ID       string   `json:"id"`
	Spec     string   `json:"spec"`
	Vars     []string `json:"vars,omitempty"` // non-sensitive --var flags only
	VarFiles []string `json:"var_files,omitempty"`
	Device   string   `json:"device"`
	Display  string   `json:"display,omitempty"`
	Script   string   `json:"script,omitempty"`
	Started  string   `json:"started"`
}

func recordPath(state, id string) string {
	return filepath.Join(state, "runs", strings.ReplaceAll(id, "/", "_")+".json")
}

func saveRecord(state string, r runRecord) error {
	if err := os.MkdirAll(filepath.Join(state, "runs"), 0o755); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(r, "", "  ")
	return os.WriteFile(recordPath(state, r.ID), b, 0o644)
}

func loadRecord(state, id string) (runRecord, error) {
	var r runRecord
	b, err := os.ReadFile(recordPath(state, id))
	if err != nil {
		return r, fmt.Errorf("no record of run %q in %s (list runs with `pcflow status`)", id, state)
	}
	return r, json.Unmarshal(b, &r)
}

type runFlags struct {
	eng      engineFlags
	model    modelFlags
	dev      deviceFlags
	vars     varFlags
	device   string
	id       string
	detach   bool
	noWorker bool
	devTO    time.Duration
	quiet    bool
}

func (rf *runFlags) register(e *env, name, args, summary string) *flag.FlagSet {
	fs := newFlags(e, name, args, summary)
	rf.eng.register(fs, e)
	rf.model.register(fs)
	rf.dev.register(fs, e)
	fs.StringVar(&rf.device, "device", "", "which of the task's devices this process drives on --display (default: the first)")
	fs.DurationVar(&rf.devTO, "device-timeout", 60*time.Second, "report a device offline when its worker takes no work for this long")
	fs.BoolVar(&rf.noWorker, "no-worker", false, "start no local worker (devices are served by `pcflow worker` processes)")
	fs.BoolVar(&rf.quiet, "quiet", false, "print only the result")
	return fs
}

func cmdRun(ctx context.Context, e *env, args []string) int {
	var rf runFlags
	fs := rf.register(e, "run", "FILE [flags]", `Run a task end to end: start the embedded Temporal server (state in --state,
Web UI on 127.0.0.1:8233) or use --temporal, start a worker for the local display,
start the run and show its progress. Exit status 0 when the task succeeds, 1 when
it fails (the termination reason is printed). A run interrupted by Ctrl-C or a
crash continues with 'pcflow resume RUN'.

The model: OPENAI_API_KEY / OPENAI_BASE_URL / PCFLOW_MODEL select a real
OpenAI-compatible endpoint. Without a key, pcflow plays a scripted model
(--script, or FILE.script.json beside the task) and says so.`)
	rf.vars.register(fs)
	fs.StringVar(&rf.id, "id", "", "run id (default: TASK-YYYYMMDD-HHMMSS)")
	fs.BoolVar(&rf.detach, "detach", false, "start the run and return (needs --temporal and workers elsewhere)")
	files, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(files) != 1 {
		fmt.Fprintln(e.stderr, "pcflow run: name exactly one task file (see pcflow run --help)")
		return 2
	}
	if rf.detach && rf.eng.temporal == "" {
		fmt.Fprintln(e.stderr, "pcflow run: --detach needs --temporal HOST:PORT: the embedded server and worker stop when this process exits")
		return 2
	}
	res := loadSpec(e, files[0], &rf.vars)
	if res == nil {
		return 1
	}
	p := *res.Plan
	device := rf.device
	if device == "" {
		device = p.Devices[0].Name
	}
	if p.Device(device) == nil {
		fmt.Fprintf(e.stderr, "pcflow run: --device %s: the task has no such device (devices: %s)\n", device, deviceNames(p))
		return 2
	}
	id := rf.id
	if id == "" {
		id = fmt.Sprintf("%s-%s", p.Task, time.Now().Format("20060102-150405"))
	}
	abs, _ := filepath.Abs(files[0])
	rec := runRecord{ID: id, Spec: abs, VarFiles: rf.vars.varFiles, Device: device, Display: rf.dev.display, Script: rf.model.script, Started: time.Now().Format(time.RFC3339)}
	for _, v := range rf.vars.vars {
		name, _, _ := strings.Cut(v, "=")
		if _, secret := res.Secrets[name]; !secret {
			rec.Vars = append(rec.Vars, v)
		}
	}
	if rec.Script == "" {
		rec.Script = guessScript(e, abs)
	}
	sess, code := rf.start(ctx, e, abs, device, res.Secrets)
	if code >= 0 {
		return code
	}
	defer sess.close()
	if err := saveRecord(rf.eng.state, rec); err != nil {
		fmt.Fprintln(e.stderr, "pcflow run:", err)
		return 1
	}
	opts := workflows.Options{DeviceTimeout: rf.devTO, SearchAttributes: hasSearchAttributes(ctx, sess.eng.client)}
	start := client.StartWorkflowOptions{ID: id, TaskQueue: workflows.TaskQueue,
		StaticSummary: fmt.Sprintf("task %s (%d subtasks)", p.Task, len(p.Subtasks)),
		StaticDetails: p.Instruction}
	if opts.SearchAttributes {
		start.TypedSearchAttributes = temporal.NewSearchAttributes(workflows.TaskAttr.ValueSet(p.Task), workflows.StatusAttr.ValueSet("running"))
	}
	run, err := sess.eng.client.ExecuteWorkflow(ctx, start, workflows.InstructionWorkflowName, workflows.InstructionInput{Plan: p, Options: opts})
	if err != nil {
		fmt.Fprintf(e.stderr, "pcflow run: start %s: %v\n", id, err)
		return 1
	}
	sess.announce(e, id)
	if rf.detach {
		fmt.Fprintf(e.stdout, "detached; follow it with: pcflow status %s --temporal %s\n", id, rf.eng.temporal)
		return 0
	}
	return sess.follow(ctx, e, id, run.GetRunID(), rf.quiet)
}

func guessScript(e *env, spec string) string {
	if e.getenv("OPENAI_API_KEY") != "" {
		return ""
	}
	guess := strings.TrimSuffix(spec, filepath.Ext(spec)) + ".script.json"
	if _, err := os.Stat(guess); err == nil {
		return guess
	}
	return ""
}

func deviceNames(p plan.Plan) string {
	var n []string
	for _, d := range p.Devices {
		n = append(n, d.Name)
	}
	return strings.Join(n, ", ")
}

// session is a connected engine with a local worker and maybe a scripted model.
type session struct {
	eng     *engine
	model   *scripted.Server
	cleanup []func()
}

func (s *session) close() {
	for i := len(s.cleanup) - 1; i >= 0; i-- {
		s.cleanup[i]()
	}
}

// start connects, starts the scripted model if needed and the local worker.
func (rf *runFlags) start(ctx context.Context, e *env, spec, device string, secrets map[string]string) (*session, int) {
	s := &session{}
	var cfg agents.Config
	var model *scripted.Server
	var err error
	if rf.model.replay == "" {
		// Settle the model before starting anything: a missing key is the
		// most common first error.
		if cfg, model, err = rf.model.model(e, spec); err != nil {
			fmt.Fprintln(e.stderr, "pcflow:", err)
			return nil, 1
		}
		if model != nil {
			s.cleanup = append(s.cleanup, func() { model.Close() })
		}
	}
	eng, err := rf.eng.connect(ctx, e, true)
	if err != nil {
		s.close()
		fmt.Fprintln(e.stderr, "pcflow:", err)
		return nil, 1
	}
	s.eng = eng
	s.cleanup = append(s.cleanup, eng.close)
	if rf.model.replay != "" {
		cfg, model, err = rf.model.replayModel(ctx, e, eng, rf.eng.state)
		if model != nil {
			s.cleanup = append(s.cleanup, func() { model.Close() })
		}
	}
	if err != nil {
		s.close()
		fmt.Fprintln(e.stderr, "pcflow:", err)
		return nil, 1
	}
	if model != nil {
		s.model = model
		if !rf.quiet {
			if rf.model.replay != "" {
				fmt.Fprintf(e.stdout, "model: REPLAYED from the exchanges recorded by run %s\n", rf.model.replay)
			} else {
				fmt.Fprintf(e.stdout, "model: SCRIPTED (no OPENAI_API_KEY): answers come from a script, not a real model\n")
			}
		}
	} else if !rf.quiet {
		fmt.Fprintf(e.stdout, "model: %s at %s\n", cfg.DecisionModel, cfg.BaseURL)
	}
	if rf.noWorker {
		return s, -1
	}
	logger, closeLog, err := fileLogger(rf.eng.state)
	if err != nil {
		s.close()
		fmt.Fprintln(e.stderr, "pcflow:", err)
		return nil, 1
	}
	s.cleanup = append(s.cleanup, closeLog)
	dev, err := rf.dev.open(ctx, rf.eng.state, e.stderr)
	if err != nil {
		s.close()
		fmt.Fprintf(e.stderr, "pcflow: device %s: %v\n", device, err)
		return nil, 1
	}
	s.cleanup = append(s.cleanup, dev.Close)
	w, err := startWorker(eng, rf.eng.state, device, dev, cfg, secrets, logger, true, rf.model.record)
	if err != nil {
		s.close()
		fmt.Fprintln(e.stderr, "pcflow:", err)
		return nil, 1
	}
	s.cleanup = append(s.cleanup, w.Stop)
	if !rf.quiet {
		fmt.Fprintf(e.stdout, "worker: device %s on display %s (queue %s)\n", device, rf.dev.display, plan.DeviceQueue(device))
	}
	return s, -1
}

func (s *session) announce(e *env, id string) {
	fmt.Fprintf(e.stdout, "run %s started\n", id)
	if s.eng.uiURL != "" {
		fmt.Fprintf(e.stdout, "Temporal UI: %s/namespaces/default/workflows/%s\n", s.eng.uiURL, id)
	}
}

// follow shows live progress until the run ends, then the result.
func (s *session) follow(ctx context.Context, e *env, id, runID string, quiet bool) int {
	c := s.eng.client
	done := make(chan error, 1)
	var res workflows.InstructionResult
	go func() { done <- c.GetWorkflow(ctx, id, runID).Get(ctx, &res) }()
	seen := map[string]string{}
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if !quiet {
				s.progress(ctx, e, id, seen)
			}
			if err != nil {
				if ctx.Err() != nil {
					return interrupted(e, id)
				}
				fmt.Fprintf(e.stderr, "run %s: %v\n", id, err)
				return 1
			}
			return printResult(e, id, &res, s.eng.uiURL)
		case <-ctx.Done():
			return interrupted(e, id)
		case <-tick.C:
			if !quiet {
				s.progress(ctx, e, id, seen)
			}
		}
	}
}

func interrupted(e *env, id string) int {
	fmt.Fprintf(e.stderr, "\ninterrupted: run %s is saved and continues with `pcflow resume %s`\n", id, id)
	return 130
}

// progress prints what changed since the last call.
func (s *session) progress(ctx context.Context, e *env, id string, seen map[string]string) {
	qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	v, err := s.eng.client.QueryWorkflow(qctx, id, "", workflows.ProgressQuery)
	if err != nil {
		return
	}
	var live workflows.Live
	if v.Get(&live) != nil {
		return
	}
	if live.Phase != seen["#phase"] {
		seen["#phase"] = live.Phase
		switch live.Phase {
		case "running":
			var ls []string
			for i, l := range live.Layers {
				ls = append(ls, fmt.Sprintf("%d: %s", i+1, strings.Join(l, ", ")))
			}
			fmt.Fprintf(e.stdout, "plan: %s\n", strings.Join(ls, " │ "))
		case "setup", "planning", "checking":
			fmt.Fprintf(e.stdout, "… %s\n", live.Phase)
		}
	}
	names := make([]string, 0, len(live.Subtasks))
	for n := range live.Subtasks {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		st := live.Subtasks[n]
		if child, ok := live.Children[n]; ok && st == workflows.StatusRunning {
			cv, err := s.eng.client.QueryWorkflow(qctx, child, "", workflows.ProgressQuery)
			if err == nil {
				var sl workflows.SubtaskLive
				if cv.Get(&sl) == nil && sl.Done > 0 {
					key := fmt.Sprintf("%d", sl.Done)
					if seen[n+"#step"] != key {
						seen[n+"#step"] = key
						fmt.Fprintf(e.stdout, "  %-14s step %d/%d  %-28s → %s\n", n, sl.Done, sl.MaxSteps, sl.LastAction, sl.Verdict)
					}
				}
			}
		}
		if seen[n] != st {
			seen[n] = st
			switch st {
			case workflows.StatusRunning:
				fmt.Fprintf(e.stdout, "▶ %s started\n", n)
			case workflows.StatusSucceeded:
				fmt.Fprintf(e.stdout, "✓ %s succeeded\n", n)
			case workflows.StatusFailed:
				fmt.Fprintf(e.stdout, "✗ %s failed: %s\n", n, live.Reasons[n])
			case workflows.StatusSkipped:
				fmt.Fprintf(e.stdout, "- %s skipped\n", n)
			}
		}
	}
}

func printResult(e *env, id string, r *workflows.InstructionResult, ui string) int {
	fmt.Fprintf(e.stdout, "\nrun %s: %s (%s)\n", id, strings.ToUpper(r.Status), r.Reason)
	if r.Error != "" {
		fmt.Fprintf(e.stdout, "  %s\n", r.Error)
	}
	fmt.Fprintf(e.stdout, "%-16s %-10s %-10s %-16s %5s %7s  %s\n", "SUBTASK", "DEVICE", "STATUS", "REASON", "STEPS", "TOKENS", "OUTPUTS")
	for _, s := range r.Subtasks {
		fmt.Fprintf(e.stdout, "%-16s %-10s %-10s %-16s %5d %7d  %s\n", s.Name, s.Device, s.Status, s.Reason, s.Steps, s.Usage.Total(), formatOutputs(s.Outputs))
		for _, c := range s.Checks {
			fmt.Fprintf(e.stdout, "    check %-12s %s  %s\n", c.Name, passMark(c.Passed, c.Skipped), c.Detail)
		}
	}
	for _, c := range r.Checks {
		fmt.Fprintf(e.stdout, "task check %-12s %s  %s\n", c.Name, passMark(c.Passed, c.Skipped), c.Detail)
	}
	m := r.Metrics
	fmt.Fprintf(e.stdout, "metrics: SR=%.0f SSR=%.2f CR=%.2f EE=%.3f CE=%.3f  steps=%d tokens=%d model calls=%d\n",
		m.SR, m.SSR, m.CR, m.EE, m.CE, r.Steps, r.Usage.Total(), r.Usage.Calls)
	fmt.Fprintf(e.stdout, "every step: pcflow history %s\n", id)
	if ui != "" {
		fmt.Fprintf(e.stdout, "in the UI:  %s/namespaces/default/workflows/%s\n", ui, id)
	}
	if r.Status == workflows.StatusSucceeded {
		return 0
	}
	return 1
}

func passMark(ok, skipped bool) string {
	switch {
	case skipped:
		return "skipped"
	case ok:
		return "pass"
	}
	return "FAIL"
}

func formatOutputs(o map[string]string) string {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%q", k, o[k]))
	}
	return strings.Join(parts, " ")
}

func cmdResume(ctx context.Context, e *env, args []string) int {
	var rf runFlags
	fs := rf.register(e, "resume", "RUN [--from SUBTASK]", `Bring the embedded server and the local worker back for a run and follow it to
its end: after a crash (process killed, machine rebooted) the run continues where
it stopped, without redoing finished subtasks or repeating an action. For a run
that failed, --from SUBTASK runs it again from that subtask, keeping the outputs
of the subtasks finished before it. Sensitive variables must be given again
(--var or PCFLOW_VAR_NAME): they are never stored.`)
	rf.vars.register(fs)
	from := fs.String("from", "", "rerun a failed run from this subtask")
	ids, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(ids) != 1 {
		fmt.Fprintln(e.stderr, "pcflow resume: name one run id (see pcflow status)")
		return 2
	}
	id := ids[0]
	rec, err := loadRecord(rf.eng.state, id)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow resume:", err)
		return 1
	}
	// The record's settings, unless given again.
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["display"] && rec.Display != "" {
		rf.dev.display = rec.Display
	}
	if !set["script"] {
		rf.model.script = rec.Script
	}
	vf := varFlags{vars: append(multiFlag(nil), rec.Vars...), varFiles: rec.VarFiles}
	vf.vars = append(vf.vars, rf.vars.vars...)
	o, err := vf.options(e)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow resume:", err)
		return 2
	}
	res, diags := specs.ParseFile(rec.Spec, o)
	_ = specs.WriteDiagnostics(e.stderr, res.Files, diags, false)
	if diags.HasErrors() {
		return 1
	}
	device := rec.Device
	if rf.device != "" {
		device = rf.device
	}
	sess, code := rf.start(ctx, e, rec.Spec, device, res.Secrets)
	if code >= 0 {
		return code
	}
	defer sess.close()
	c := sess.eng.client
	desc, err := c.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		fmt.Fprintf(e.stderr, "pcflow resume: run %s: %v\n", id, err)
		return 1
	}
	status := desc.WorkflowExecutionInfo.Status
	if *from == "" {
		if status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
			fmt.Fprintf(e.stdout, "resuming run %s\n", id)
			sess.announce(e, id)
			return sess.follow(ctx, e, id, "", rf.quiet)
		}
		var r workflows.InstructionResult
		if err := c.GetWorkflow(ctx, id, "").Get(ctx, &r); err != nil {
			fmt.Fprintf(e.stderr, "pcflow resume: run %s ended: %v\n", id, err)
			return 1
		}
		code := printResult(e, id, &r, sess.eng.uiURL)
		if code != 0 {
			fmt.Fprintf(e.stdout, "to run it again from a subtask: pcflow resume %s --from SUBTASK\n", id)
		}
		return code
	}
	in, err := runInput(ctx, c, id)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow resume:", err)
		return 1
	}
	var prev workflows.InstructionResult
	if status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		fmt.Fprintf(e.stderr, "pcflow resume: run %s is still running; cancel it first (pcflow cancel %s) or follow it (pcflow resume %s)\n", id, id, id)
		return 1
	}
	if err := c.GetWorkflow(ctx, id, "").Get(ctx, &prev); err != nil {
		fmt.Fprintf(e.stderr, "pcflow resume: run %s has no result: %v\n", id, err)
		return 1
	}
	if len(in.Plan.Subtasks) == 0 {
		fmt.Fprintf(e.stderr, "pcflow resume: run %s was planned by the Manager agent at run time, so it has no fixed subtasks to rerun from; start it again with pcflow run\n", id)
		return 1
	}
	done, err := keepBefore(in.Plan, prev, *from)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow resume:", err)
		return 2
	}
	newID := fmt.Sprintf("%s-from-%s-%s", id, *from, time.Now().Format("150405"))
	in.Done, in.SkipSetup = done, true
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: newID, TaskQueue: workflows.TaskQueue,
		StaticSummary: fmt.Sprintf("task %s, rerun of %s from %s", in.Plan.Task, id, *from)}, workflows.InstructionWorkflowName, in)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow resume:", err)
		return 1
	}
	rec.ID = newID
	_ = saveRecord(rf.eng.state, rec)
	var kept []string
	for k := range done {
		kept = append(kept, k)
	}
	sort.Strings(kept)
	fmt.Fprintf(e.stdout, "rerunning %s from %s as %s (keeping %s)\n", id, *from, newID, strings.Join(kept, ", "))
	sess.announce(e, newID)
	return sess.follow(ctx, e, newID, run.GetRunID(), rf.quiet)
}

// keepBefore returns the results to keep when rerunning from a subtask:
// every succeeded subtask that is neither it nor depends on it.
func keepBefore(p plan.Plan, prev workflows.InstructionResult, from string) (map[string]workflows.SubtaskResult, error) {
	if p.Subtask(from) == nil {
		return nil, fmt.Errorf("the run has no subtask %q (subtasks: %s)", from, subtaskNames(p))
	}
	redo := plan.SubtaskGraph(p.Subtasks).Dependents(from)
	redo[from] = true
	done := map[string]workflows.SubtaskResult{}
	for _, r := range prev.Subtasks {
		if !redo[r.Name] && r.Status == workflows.StatusSucceeded {
			done[r.Name] = r
		}
	}
	return done, nil
}

func subtaskNames(p plan.Plan) string {
	var n []string
	for _, s := range p.Subtasks {
		n = append(n, s.Name)
	}
	return strings.Join(n, ", ")
}

// runInput reads a run's input from its first history event.
func runInput(ctx context.Context, c client.Client, id string) (workflows.InstructionInput, error) {
	var in workflows.InstructionInput
	it := c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	if !it.HasNext() {
		return in, fmt.Errorf("run %s has no history", id)
	}
	ev, err := it.Next()
	if err != nil {
		return in, err
	}
	attrs := ev.GetWorkflowExecutionStartedEventAttributes()
	if attrs == nil {
		return in, errors.New("first event is not the start")
	}
	err = converter.GetDefaultDataConverter().FromPayloads(attrs.Input, &in)
	return in, err
}

// hasSearchAttributes reports whether the server knows pcflow's search
// attributes (the embedded server registers them; on another cluster,
// register PcflowTask and PcflowStatus as Keyword to find runs by them).
func hasSearchAttributes(ctx context.Context, c client.Client) bool {
	resp, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: tserver.Namespace})
	if err != nil {
		return false
	}
	_, task := resp.CustomAttributes["PcflowTask"]
	_, status := resp.CustomAttributes["PcflowStatus"]
	return task && status
}
