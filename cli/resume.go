package main

import (
	"context"
	"flag"
	"fmt"
	"sort"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/pcflow/pcflow/specs"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/workflows"
)

func cmdResume(ctx context.Context, e *env, args []string) int {
	var rf runFlags
	fs := rf.register(e, "resume", "RUN [--from SUBTASK]", `Bring the embedded server and the local worker back for a run and follow it to
its end: after a crash (process killed, machine rebooted) the run continues where
it stopped, without redoing finished subtasks or repeating an action. For a run
that failed, --from SUBTASK runs it again from that subtask, keeping the outputs
of the subtasks finished before it. Sensitive variables must be given again
(--var or PCFLOW_VAR_NAME): they are never stored.`)
	rf.vars.register(fs)
	from := fs.String("from", "", "rerun a failed run from the subtask `NAME`")
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
	if !set["profile"] {
		rf.model.profile = rec.Profile
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
	if status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		if *from != "" {
			fmt.Fprintf(e.stderr, "pcflow resume: run %s is still running; cancel it first (pcflow cancel %s) or follow it (pcflow resume %s)\n", id, id, id)
			return 1
		}
		fmt.Fprintf(e.stdout, "resuming run %s\n", id)
		sess.announce(e, id)
		return sess.follow(ctx, e, id, "", rf.quiet)
	}
	t, err := readRun(ctx, c, id, false)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow resume:", err)
		return 1
	}
	if t.Result == nil {
		fmt.Fprintf(e.stderr, "pcflow resume: run %s ended without a result (%s); start it again with pcflow run\n", id, t.Ended)
		return 1
	}
	if *from == "" {
		code := printResult(e, id, t.Result, sess.eng.uiURL)
		if code != 0 {
			fmt.Fprintf(e.stdout, "to run it again from a subtask: pcflow resume %s --from SUBTASK\n", id)
		}
		return code
	}
	if t.Input == nil {
		fmt.Fprintf(e.stderr, "pcflow resume: run %s: its history has no start event\n", id)
		return 1
	}
	in := *t.Input
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
