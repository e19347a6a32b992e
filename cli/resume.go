package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/pcflow/pcflow/internal/control"
	"github.com/pcflow/pcflow/internal/text"
	"github.com/pcflow/pcflow/specs"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/worker/host"
	"github.com/pcflow/pcflow/workflows"
)

func cmdResume(ctx context.Context, e *env, args []string) int {
	var rf runFlags
	fs := rf.register(e, "resume", "RUN [--from SUBTASK]", `Continue a paused (or taken-over) run: its subtasks go on from where they stopped.
Bring the embedded server and the local worker back for a run and follow it to
its end: after a crash (process killed, machine rebooted) the run continues where
it stopped, without redoing finished subtasks or repeating an action. For a run
that failed, --from SUBTASK runs it again from that subtask, keeping the outputs
of the subtasks finished before it (the setup runs again: a failed run's
applications are stopped when it ends). Sensitive variables must be given again
(--var or PCFLOW_VAR_NAME): they are never stored.`)
	rf.vars.register(fs)
	rf.vars.registerPolicy(fs)
	from := fs.String("from", "", "rerun a failed run from the subtask `NAME`")
	subtask := fs.String("subtask", "", "continue only the paused subtask `NAME`")
	note := fs.String("note", "", "for a taken-over subtask: what you did with the device, `TEXT` told to the agent")
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
	m := rec.model()
	if !set["script"] && !set["replay"] {
		rf.model.spec.Script, rf.model.spec.Replay = m.Script, m.Replay
	}
	if !set["profile"] {
		rf.model.spec.Profile, rf.model.spec.Roles = m.Profile, m.Roles
	}
	if !set["record"] {
		rf.model.spec.Record = m.Record
	}
	device := rec.Device
	if rf.device != "" {
		device = rf.device
	}
	sess, code := rf.connect(ctx, e, rec.Spec)
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
	running := desc.WorkflowExecutionInfo.Status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	// A paused run that a worker serves: continue it.
	if running && *from == "" && sess.eng.server == nil {
		if code, ok := resumeHeld(ctx, e, c, id, *subtask, *note); ok {
			return code
		}
	}
	if running && set["policy"] {
		fmt.Fprintf(e.stderr, "pcflow resume: run %s continues under the policy it started with (it is in the run's input); --policy applies to a rerun of a finished run (--from)\n", id)
		return 2
	}
	if running && *from != "" {
		fmt.Fprintf(e.stderr, "pcflow resume: run %s is still running; cancel it first (pcflow cancel %s) or follow it (pcflow resume %s)\n", id, id, id)
		return 1
	}
	// The plan the run executes is in its history: the task file may have
	// moved or changed since.
	t, err := readRun(ctx, c, id, false)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow resume:", err)
		return 1
	}
	if t.Input == nil {
		fmt.Fprintf(e.stderr, "pcflow resume: run %s: its history has no start event\n", id)
		return 1
	}
	in := *t.Input
	if !running && *from == "" {
		if t.Result == nil {
			fmt.Fprintf(e.stderr, "pcflow resume: run %s ended without a result (%s); start it again with pcflow run\n", id, text.Printable(t.Ended))
			return 1
		}
		code := printResult(e.stdout, id, t.Result, sess.eng.uiURL)
		if code != 0 {
			fmt.Fprintf(e.stdout, "to run it again from a subtask: pcflow resume %s --from SUBTASK\n", id)
		}
		return code
	}
	secrets, err := resumeSecrets(e, rec, rf.vars, in.Plan)
	if err != nil {
		if err != errReported {
			fmt.Fprintln(e.stderr, "pcflow resume:", err)
		}
		return 1
	}
	if running {
		l := laneOf(in.Options)
		if !rf.noWorker {
			// A second worker for a run whose process lives would act on
			// the same desktop beside the first.
			lk, err := host.LockRun(rf.eng.state, id, "pcflow resume")
			if err != nil {
				fmt.Fprintln(e.stderr, "pcflow resume:", err)
				return 1
			}
			defer lk.Release()
			if code := sess.serve(ctx, e, &rf, device, l, secrets); code >= 0 {
				return code
			}
			// The process that served the run died holding its lock: what
			// its worker had started is retried now, not after a heartbeat
			// timeout.
			if n, err := host.FailOrphans(ctx, c, id, host.DeadWorker(lk)); err != nil {
				fmt.Fprintf(e.stderr, "pcflow resume: taking over the killed process's work at once failed (%v); it is retried after its heartbeat timeout\n", err)
			} else if n > 0 {
				fmt.Fprintf(e.stdout, "%d step(s) the killed process (pid %d) had started: retried now on this worker\n", n, lk.Previous.PID)
			}
		}
		fmt.Fprintf(e.stdout, "resuming run %s\n", id)
		sess.announce(e, id)
		w := sess.workerWatch(e, l, in.Plan, !rf.noWorker, device)
		w.check(ctx)
		return sess.ended(e, id, sess.follow(ctx, e, id, "", rf.quiet, w), !rf.noWorker, rf.keepOpen, rf.dev.display)
	}
	if t.Result == nil {
		fmt.Fprintf(e.stderr, "pcflow resume: run %s ended without a result (%s); start it again with pcflow run\n", id, text.Printable(t.Ended))
		return 1
	}
	if len(in.Plan.Subtasks) == 0 {
		fmt.Fprintf(e.stderr, "pcflow resume: run %s was planned by the Manager agent at run time, so it has no fixed subtasks to rerun from; start it again with pcflow run\n", id)
		return 1
	}
	done, err := keepBefore(in.Plan, *t.Result, *from)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow resume:", err)
		return 2
	}
	newID := fmt.Sprintf("%s-from-%s-%s", id, *from, time.Now().Format("150405"))
	var l lane
	if !rf.noWorker {
		lk, err := host.LockRun(rf.eng.state, newID, "pcflow resume --from "+*from)
		if err != nil {
			fmt.Fprintln(e.stderr, "pcflow resume:", err)
			return 1
		}
		defer lk.Release()
		l = privateLane(newID, device)
		if code := sess.serve(ctx, e, &rf, device, l, secrets); code >= 0 {
			return code
		}
	}
	// A rerun is a new run: the operator's policy of now (--policy,
	// $PCFLOW_POLICY) replaces the one the run started with, if any.
	op, files, diags := specs.OperatorPolicy(rf.vars.policy, e.environ)
	_ = specs.WriteDiagnostics(e.stderr, files, diags, false)
	if diags.HasErrors() {
		return 1
	}
	if op != nil {
		in.Plan.Policy = plan.WithOperator(in.Plan.Policy.TaskPart(), op)
	}
	// The setup runs again: a failed run's applications were stopped when
	// it ended (launches are skipped where the window is still there).
	in.Done, in.SkipSetup = done, false
	l.apply(&in.Options)
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: newID, TaskQueue: l.queue(),
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
	w := sess.workerWatch(e, l, in.Plan, !rf.noWorker, device)
	return sess.ended(e, newID, sess.follow(ctx, e, newID, run.GetRunID(), rf.quiet, w), !rf.noWorker, rf.keepOpen, rf.dev.display)
}

// errReported is an error already shown to the user (as diagnostics).
var errReported = errors.New("reported")

// resumeSecrets returns the values of the run's sensitive variables, which
// are never stored: from the task file when it is still there, else from
// --var, PCFLOW_VAR_NAME and the run's var files.
func resumeSecrets(e *env, rec runRecord, given varFlags, p plan.Plan) (map[string]string, error) {
	vf := varFlags{vars: append(multiFlag(nil), rec.Vars...), varFiles: rec.VarFiles}
	vf.vars = append(vf.vars, given.vars...)
	vf.varFiles = append(vf.varFiles, given.varFiles...)
	o, err := vf.options(e)
	if err != nil {
		return nil, err
	}
	// Only the secrets are wanted: the run's policy is in its input.
	o.Environ = slices.DeleteFunc(slices.Clone(o.Environ), func(kv string) bool { return strings.HasPrefix(kv, specs.PolicyEnv+"=") })
	if _, err := os.Stat(rec.Spec); err == nil {
		res, diags := specs.ParseFile(rec.Spec, o)
		_ = specs.WriteDiagnostics(e.stderr, res.Files, diags, false)
		if diags.HasErrors() {
			return nil, errReported
		}
		return res.Secrets, nil
	}
	fmt.Fprintf(e.stderr, "pcflow resume: the task file %s is gone; continuing from the plan in the run's history\n", rec.Spec)
	secrets := map[string]string{}
	var missing []string
	for _, name := range p.Secrets {
		if v, ok := o.Vars[name]; ok {
			secrets[name] = v
		} else if v, ok := envVar(e.environ, "PCFLOW_VAR_"+name); ok {
			secrets[name] = v
		} else if v, ok := varFileValue(vf.varFiles, name); ok {
			secrets[name] = v
		} else {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("sensitive variable(s) %s have no value (they are never stored): pass --var NAME=VALUE or set PCFLOW_VAR_NAME", strings.Join(missing, ", "))
	}
	return secrets, nil
}

func envVar(environ []string, key string) (string, bool) {
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// varFileValue reads a string variable from the last var file that sets it.
func varFileValue(files []string, name string) (string, bool) {
	val, found := "", false
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		file, diags := hclsyntax.ParseConfig(src, f, hcl.InitialPos)
		if diags.HasErrors() {
			continue
		}
		attrs, _ := file.Body.JustAttributes()
		if a, ok := attrs[name]; ok {
			if v, d := a.Expr.Value(nil); !d.HasErrors() && v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
				val, found = v.AsString(), true
			}
		}
	}
	return val, found
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

// resumeHeld continues the paused or taken-over subtasks of a run that a
// worker serves; ok is false when there are none (or nothing answers).
func resumeHeld(ctx context.Context, e *env, c client.Client, id, subtask, note string) (int, bool) {
	qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	subs, err := control.Running(qctx, c, id)
	cancel()
	if err != nil {
		return 0, false
	}
	for _, s := range subs {
		if w := s.Live.Waiting; w != nil && (w.Kind == workflows.WaitPaused || w.Kind == workflows.WaitTakeover) && (subtask == "" || s.Name == subtask) {
			return sendControl(ctx, e, c, id, subtask, workflows.Control{Op: workflows.ControlResume, By: control.By(), Note: note}), true
		}
	}
	return 0, false
}
