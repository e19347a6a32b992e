package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/pcflow/pcflow/internal/report"
	"github.com/pcflow/pcflow/internal/text"
	"github.com/pcflow/pcflow/worker/host"
	"github.com/pcflow/pcflow/workflows"
)

// followSuite shows progress until the suite ends, then writes results
// and the report.
func followSuite(ctx context.Context, e *env, s *suiteSession, rec suiteRecord, runID string, quiet, noReport bool, state string) int {
	c := s.eng.client
	done := make(chan error, 1)
	var res workflows.SuiteResult
	go func() { done <- c.GetWorkflow(ctx, rec.ID, runID).Get(ctx, &res) }()
	seen := map[string]string{}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				if ctx.Err() != nil {
					s.keepDesktops = true
					return suiteInterrupted(e, rec)
				}
				fmt.Fprintln(e.stderr, followFailure(rec, err))
				return 1
			}
			if !quiet {
				// A task run that ended after the last poll has no line yet.
				printSuiteChanges(e.stdout, workflows.SuiteLive{Suite: res.Suite, Started: res.Started, Removed: res.Removed, Runs: res.Runs}, seen, time.Now())
			}
			return finishSuite(ctx, e, s.eng.client, rec, &res, noReport, state)
		case <-ctx.Done():
			s.keepDesktops = true
			return suiteInterrupted(e, rec)
		case <-tick.C:
			if !quiet {
				suiteProgress(ctx, e, c, rec.ID, seen)
			}
		}
	}
}

// followFailure says why following suite rec stopped with err: a server
// that does not answer (the long poll ran out: "context deadline
// exceeded", or the connection is refused) holds the suite, which goes on
// once it is back, so the message says how to follow it again.
func followFailure(rec suiteRecord, err error) string {
	var unavailable *serviceerror.Unavailable
	var deadline *serviceerror.DeadlineExceeded
	if !errors.Is(err, context.DeadlineExceeded) && !errors.As(err, &unavailable) && !errors.As(err, &deadline) {
		return fmt.Sprintf("suite %s: %v", rec.ID, err)
	}
	server, flag := "the Temporal server of this eval", ""
	if rec.Temporal != "" {
		server, flag = "the Temporal server at "+rec.Temporal, " --temporal "+rec.Temporal
	}
	return fmt.Sprintf("suite %s: %s does not answer (%v). The suite is kept there: once the server is back, `pcflow eval resume %s%s` follows it again (finished tasks are not run again) and writes the results and the report",
		rec.ID, server, err, rec.ID, flag)
}

func suiteInterrupted(e *env, rec suiteRecord) int {
	fmt.Fprintf(e.stderr, "\ninterrupted: suite %s is saved and continues with `pcflow eval resume %s`\n", rec.ID, rec.ID)
	if rec.Local && len(rec.Displays) > 0 {
		fmt.Fprintf(e.stderr, "its devices' workers stopped; their desktops (%s) stay up, with the running tasks' applications, for the resume (or stop each with `pcflow desktop down --display :N`)\n", strings.Join(rec.Displays, ", "))
	}
	return 130
}

// suiteProgress prints what changed since the last call and a line of
// counts with the pass rate so far and an estimate of the time left.
func suiteProgress(ctx context.Context, e *env, c client.Client, id string, seen map[string]string) {
	qctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	v, err := c.QueryWorkflow(qctx, id, "", workflows.SuiteQuery)
	if err != nil {
		return
	}
	var live workflows.SuiteLive
	if v.Get(&live) != nil {
		return
	}
	printSuiteChanges(e.stdout, live, seen, time.Now())
}

// printSuiteChanges prints a line for each task run whose status changed
// since seen (▶ started, ✓ succeeded, ✗ failed) and each device that left
// the pool, then the counts when anything changed. seen records what was
// printed, so the suite's final result prints the lines the polls missed.
func printSuiteChanges(w io.Writer, live workflows.SuiteLive, seen map[string]string, now time.Time) {
	changed := false
	for _, r := range live.Runs {
		// A run started again is running under a workflow id of its own.
		state := r.Status
		if r.Status == workflows.StatusRunning {
			state += " " + r.Workflow
		}
		if seen[r.Key] == state {
			continue
		}
		seen[r.Key] = state
		changed = true
		switch r.Status {
		case workflows.StatusQueued:
		case workflows.StatusRunning:
			if r.Retried != "" {
				fmt.Fprintf(w, "↻ %-24s starts again: %s\n", r.Key, oneLine(r.Retried, 120))
			}
			fmt.Fprintf(w, "▶ %-24s on %s\n", r.Key, devicesOf(r.Devices))
		case workflows.StatusSucceeded:
			fmt.Fprintf(w, "✓ %-24s %6s\n", r.Key, runTime(r))
		default:
			fmt.Fprintf(w, "✗ %-24s %6s  %s: %s\n", r.Key, runTime(r), text.Printable(r.Reason), oneLine(r.Error, 120))
		}
		printReplayed(w, r)
	}
	for _, d := range live.Removed {
		if seen["#removed "+d.Device] == "" {
			seen["#removed "+d.Device] = "1"
			fmt.Fprintf(w, "! device %s left the pool: its reset after %s failed: %s\n", d.Device, d.After, oneLine(d.Error, 160))
		}
	}
	if changed {
		fmt.Fprintln(w, progressLine(live, now))
	}
}

func devicesOf(m map[string]string) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, k+"→"+m[k])
	}
	return strings.Join(parts, ", ")
}

// progressLine is "[5/12 done · 3 running · 4 queued] pass 4/5 (80%) · ETA 1m10s".
func progressLine(live workflows.SuiteLive, now time.Time) string {
	queued, running, done, passed := live.Counts()
	total := queued + running + done
	line := fmt.Sprintf("[%d/%d done · %d running · %d queued]", done, total, running, queued)
	harness := 0 // not scored
	for _, r := range live.Runs {
		if r.Status == workflows.StatusFailed && r.Reason == workflows.ReasonHarnessError {
			harness++
		}
	}
	if scored := done - harness; scored > 0 {
		line += fmt.Sprintf(" pass %d/%d (%.0f%%)", passed, scored, 100*float64(passed)/float64(scored))
	}
	if harness > 0 {
		line += fmt.Sprintf(" · %d harness error(s)", harness)
	}
	if done > 0 {
		if queued+running > 0 {
			elapsed := now.Sub(live.Started)
			// A running task is on average half done.
			eta := time.Duration(float64(elapsed) / float64(done) * (float64(queued) + float64(running)/2))
			line += " · ETA " + eta.Round(time.Second).String()
		}
	}
	return line
}

// finishSuite writes the results and the report and prints the summary.
func finishSuite(ctx context.Context, e *env, c client.Client, rec suiteRecord, res *workflows.SuiteResult, noReport bool, state string) int {
	r := report.Build(rec.ID, res, rec.Devices, rec.Repro)
	scoreBenchmarks(ctx, c, r)
	if err := r.Write(rec.Out); err != nil {
		fmt.Fprintln(e.stderr, "pcflow eval: write results:", err)
		return 1
	}
	printSuiteSummary(e, r)
	fmt.Fprintf(e.stdout, "results: %s\n", filepath.Join(rec.Out, "results.json"))
	if rec.Atif {
		if err := writeSuiteATIF(ctx, c, res, rec.Out, state, secretRedactor(e.environ)); err != nil {
			fmt.Fprintln(e.stderr, "pcflow eval:", err)
			return 1
		}
		fmt.Fprintf(e.stdout, "atif:    %s\n", filepath.Join(rec.Out, "atif"))
	}
	if !noReport {
		if err := writeReport(ctx, c, r, rec.Out, state); err != nil {
			fmt.Fprintln(e.stderr, "pcflow eval: report:", err)
			return 1
		}
		fmt.Fprintf(e.stdout, "report:  %s\n", filepath.Join(rec.Out, "index.html"))
	}
	return 0
}

func printSuiteSummary(e *env, r *report.Results) {
	fmt.Fprintf(e.stdout, "\nsuite %s (%s): %d/%d passed (%.0f%%), mean CR %.2f, mean PC %.2f, %d steps, %d tokens, %.1fs\n", r.ID, r.Suite,
		r.Overall.Passed, r.Overall.Runs, 100*r.Overall.SuccessRate, r.Overall.MeanCR, r.Overall.MeanPC, r.Overall.Steps, r.Overall.Tokens, r.WallSeconds)
	fmt.Fprintf(e.stdout, "%-24s %-10s %-20s %5s %5s %5s %6s %7s  %s\n", "TASK RUN", "STATUS", "REASON", "CR", "PC", "STEPS", "TOKENS", "SECONDS", "DEVICES")
	for _, row := range r.Runs {
		fmt.Fprintf(e.stdout, "%-24s %-10s %-20s %5.2f %5.2f %5d %6d %7.1f  %s\n", row.Key, row.Status, row.Reason, row.CR, row.PC, row.Steps, row.Tokens, row.WallSeconds, devicesOf(row.Devices))
	}
	var reasons []string
	for _, k := range sortedKeys(r.Overall.Reasons) {
		reasons = append(reasons, fmt.Sprintf("%s=%d", k, r.Overall.Reasons[k]))
	}
	fmt.Fprintf(e.stdout, "reasons: %s\n", strings.Join(reasons, " "))
	for _, b := range r.Benchmarks {
		fmt.Fprintf(e.stdout, "%s score (the benchmark's own scoring): %.2f over %d runs\n", b.Title, b.Score, b.Runs)
	}
	if r.PassK != nil {
		fmt.Fprintf(e.stdout, "pass@%d = %.2f, pass^%d = %.2f over %d tasks\n", r.PassK.K, r.PassK.PassAt, r.PassK.K, r.PassK.PassAll, r.PassK.Tasks)
	}
	for _, d := range r.Removed {
		fmt.Fprintf(e.stdout, "device %s left the pool after %s: %s\n", d.Device, d.After, text.Printable(d.Error))
	}
	if bad := r.HarnessErrors(); len(bad) > 0 {
		fmt.Fprintf(e.stdout, "%d harness error(s), not scored (in no rate above):\n", len(bad))
		for _, row := range bad {
			fmt.Fprintf(e.stdout, "  %s: %s: %s\n", row.Key, row.Reason, text.Printable(row.Error))
		}
	}
}

func cmdEvalResume(ctx context.Context, e *env, args []string) int {
	var f evalFlags
	fs := newFlags(e, "eval resume", "ID", `Bring a suite's devices, workers and model back after the eval process was
killed, and follow the suite to its end: finished tasks are not run again,
running ones continue where they were (in the overlay sandbox, which went with
the killed eval, they start again from their setup), queued ones start.`)
	f.register(e, fs)
	ids, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(ids) != 1 {
		fmt.Fprintln(e.stderr, "pcflow eval resume: name one suite run id")
		return 2
	}
	rec, err := loadSuite(f.eng.state, ids[0])
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow eval resume:", err)
		return 1
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if msg := resumeFlags(rec, set, f.displays); msg != "" {
		fmt.Fprintln(e.stderr, "pcflow eval resume:", msg)
		return 2
	}
	if set["out"] && f.out != "" {
		rec.Out, _ = filepath.Abs(f.out)
	}
	if set["displays"] && len(rec.Displays) == 0 && f.displays != "" {
		rec.Displays = strings.Split(f.displays, ",") // no desktop came up before
	}
	lk, err := host.LockSuite(f.eng.state, rec.ID, "pcflow eval resume")
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow eval resume:", err)
		return 1
	}
	defer lk.Release()
	if set["out"] {
		// Its results and report go there, this time and the next.
		if err := saveSuite(f.eng.state, rec); err != nil {
			fmt.Fprintln(e.stderr, "pcflow eval resume:", err)
			return 1
		}
		fmt.Fprintf(e.stdout, "results of suite %s go to %s\n", rec.ID, rec.Out)
	}
	if rec.Temporal != "" && f.eng.temporal == "" {
		f.eng.temporal = rec.Temporal
	}
	var secrets map[string]string
	if len(rec.Secrets) > 0 {
		if secrets, err = secretValues(e, rec.Secrets, &f.vars); err != nil {
			fmt.Fprintf(e.stderr, "pcflow eval resume: the suite's tasks use sensitive variables (%s), which eval never stores: %v\n", strings.Join(rec.Secrets, ", "), err)
			return 1
		}
	}
	sess, code := startSuiteSession(ctx, e, &f, &rec, secrets)
	if code >= 0 {
		return code
	}
	defer sess.close()
	if !rec.Local {
		if code := checkPool(ctx, e, sess.eng, rec.Devices, false); code >= 0 {
			return code
		}
	}
	desc, err := sess.eng.client.DescribeWorkflowExecution(ctx, rec.ID, "")
	if err != nil {
		fmt.Fprintf(e.stderr, "pcflow eval resume: suite %s: %v\n", rec.ID, err)
		return 1
	}
	fmt.Fprintf(e.stdout, "resuming suite %s\n", rec.ID)
	if rec.Local && rec.Sandbox == host.SandboxOverlay {
		if err := restartRunning(ctx, e, sess.eng.client, rec.ID); err != nil {
			fmt.Fprintf(e.stderr, "pcflow eval resume: %v\n", err)
			return 1
		}
	}
	return followSuite(ctx, e, sess, rec, desc.WorkflowExecutionInfo.Execution.RunId, f.quiet, f.noReport, f.eng.state)
}

// resumeFixed are the eval flags that say how a suite runs: they are in
// its workflow's input and its record from its start, and a resume cannot
// change them.
var resumeFixed = []string{"devices", "pool", "repeat", "filter", "id", "detach", "sandbox", "scratch-base", "reset",
	"device-timeout", "model-latency", "script", "replay", "record", "profile", "policy", "approvers"}

// resumeFlags says what is wrong with the flags set for `eval resume` of
// rec, or "": --out is honoured, --displays only where the suite's
// desktops are, the others that shape a suite are refused.
func resumeFlags(rec suiteRecord, set map[string]bool, displays string) string {
	var fixed []string
	for _, name := range resumeFixed {
		if set[name] {
			fixed = append(fixed, "--"+name)
		}
	}
	if len(fixed) > 0 {
		return fmt.Sprintf("%s cannot change on a resume: suite %s goes on as it was started; start a new suite with `pcflow eval` for other settings",
			strings.Join(fixed, ", "), rec.ID)
	}
	if set["displays"] && displays != strings.Join(rec.Displays, ",") && !(rec.Local && len(rec.Displays) == 0) {
		if !rec.Local {
			return fmt.Sprintf("--displays is for local devices; suite %s runs on the pool %s", rec.ID, strings.Join(rec.Devices, ", "))
		}
		return fmt.Sprintf("--displays %s: suite %s's devices are on %s, where their desktops stay up with the running tasks' applications, and the resume brings them back there; stop them with `pcflow desktop down --display :N` to free those displays, and leave --displays out",
			displays, rec.ID, strings.Join(rec.Displays, ","))
	}
	return ""
}

func cmdEvalStatus(ctx context.Context, e *env, args []string) int {
	var ef engineFlags
	fs := newFlags(e, "eval status", "ID", "A suite's progress: every task run's status, reason and devices, the pass rate so far and the time left.")
	ef.register(fs, e, false)
	ids, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(ids) != 1 {
		fmt.Fprintln(e.stderr, "pcflow eval status: name one suite run id")
		return 2
	}
	g, err := ef.connect(ctx, e, false)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow eval status:", err)
		return 1
	}
	defer g.close()
	live, running, err := suiteLive(ctx, g.client, ids[0])
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow eval status:", err)
		return 1
	}
	on := ""
	if len(live.Pool) > 0 {
		on = " on " + strings.Join(live.Pool, ", ")
	}
	fmt.Fprintf(e.stdout, "suite %s (%s)%s\n", ids[0], live.Suite, on)
	fmt.Fprintf(e.stdout, "%-24s %-10s %-20s %s\n", "TASK RUN", "STATUS", "REASON", "DEVICES")
	for _, r := range live.Runs {
		fmt.Fprintf(e.stdout, "%-24s %-10s %-20s %s\n", r.Key, r.Status, r.Reason, devicesOf(r.Devices))
	}
	fmt.Fprintln(e.stdout, progressLine(*live, time.Now()))
	if live.Draining {
		fmt.Fprintln(e.stdout, "its history is long: it lets the running tasks finish, then continues as new and leases again")
	}
	if running {
		fmt.Fprintf(e.stdout, "running; `pcflow eval resume %s` follows it and writes the results and the report at its end\n", ids[0])
	} else {
		fmt.Fprintf(e.stdout, "ended; `pcflow report %s` writes its report\n", ids[0])
	}
	return 0
}

// suiteLive asks a running suite for its progress, or reads a finished
// one's result; it never waits for a running suite to end. running says
// whether the suite is still going.
func suiteLive(ctx context.Context, c client.Client, id string) (live *workflows.SuiteLive, running bool, err error) {
	desc, err := c.DescribeWorkflowExecution(ctx, id, "")
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return nil, false, fmt.Errorf("no suite run %s on this server (pcflow status lists the recent runs; a suite's id is printed when eval starts it)", id)
	}
	if err != nil {
		return nil, false, fmt.Errorf("suite %s: %w", id, err)
	}
	info := desc.WorkflowExecutionInfo
	if t := info.GetType().GetName(); t != workflows.SuiteWorkflowName {
		return nil, false, fmt.Errorf("%s is a %s workflow, not a suite run (pcflow status %s shows a single run)", id, t, id)
	}
	if info.Status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		v, err := c.QueryWorkflow(qctx, id, "", workflows.SuiteQuery)
		if err != nil {
			return nil, true, fmt.Errorf("suite %s is running, but no worker answered for it (%v): are the workers that run workflows up? `pcflow eval resume %s` serves it from here", id, err, id)
		}
		var l workflows.SuiteLive
		if err := v.Get(&l); err != nil {
			return nil, true, err
		}
		return &l, true, nil
	}
	var res workflows.SuiteResult
	if err := c.GetWorkflow(ctx, id, "").Get(ctx, &res); err != nil {
		return nil, false, fmt.Errorf("suite %s ended without a result (%s): %w", id, strings.ToLower(strings.TrimPrefix(info.Status.String(), "WORKFLOW_EXECUTION_STATUS_")), err)
	}
	return &workflows.SuiteLive{Suite: res.Suite, Started: res.Started, Removed: res.Removed, Runs: res.Runs}, false, nil
}

// restartRunning starts the suite's running task runs again from their
// setup: an overlay sandbox went with the killed eval, and with it the
// applications those tasks had open (going on would drive an empty
// screen, and the failure would count against the model).
func restartRunning(ctx context.Context, e *env, c client.Client, id string) error {
	why := "eval resume: the device's overlay sandbox, and the applications the task had open, went with the killed eval; started again from its setup"
	keys, err := restartRuns(ctx, c, id, why, func(workflows.SuiteRun) bool { return true })
	if err != nil {
		return err
	}
	if len(keys) > 0 {
		fmt.Fprintf(e.stdout, "starting again from their setup (their overlay sandboxes went with the killed eval): %s\n", strings.Join(keys, ", "))
	}
	return nil
}

// workerLostWhy is why a task run starts again after its device's worker
// ended under it in a sandbox its applications went with.
const workerLostWhy = "the device's worker ended under the task, and the applications the task had open went with its sandbox; started again from its setup"

// restartOnDevice starts again from its setup the task run of suite id
// that runs on device, once: its worker ended, and the sandbox took the
// task's applications with it. A run already started again for this
// keeps going (a task that kills its own worker gets one more start, not
// a loop). It returns what it did, for the device's log.
func restartOnDevice(ctx context.Context, c client.Client, id, device string) string {
	keys, err := restartRuns(ctx, c, id, workerLostWhy, func(r workflows.SuiteRun) bool {
		return slices.Contains(slices.Collect(maps.Values(r.Devices)), device) && r.Retried != workerLostWhy
	})
	switch {
	case err != nil:
		return fmt.Sprintf("the task on %s lost its applications with its worker, and could not be started again: %v", device, err)
	case len(keys) > 0:
		return fmt.Sprintf("the task on %s lost its applications with its worker: %s starts again from its setup", device, strings.Join(keys, ", "))
	}
	return ""
}

// restartRuns signals suite id to start again, from their setup, its
// running task runs that match; it returns their keys.
func restartRuns(ctx context.Context, c client.Client, id, why string, match func(workflows.SuiteRun) bool) ([]string, error) {
	qctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	v, err := c.QueryWorkflow(qctx, id, "", workflows.SuiteQuery)
	if err != nil {
		return nil, fmt.Errorf("suite %s: %w", id, err)
	}
	var live workflows.SuiteLive
	if err := v.Get(&live); err != nil {
		return nil, err
	}
	var keys []string
	for _, r := range live.Runs {
		if r.Status == workflows.StatusRunning && match(r) {
			keys = append(keys, r.Key)
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	if err := c.SignalWorkflow(qctx, id, "", workflows.SuiteRestartSignal, workflows.SuiteRestart{Keys: keys, Why: why}); err != nil {
		return nil, fmt.Errorf("restart the running tasks of suite %s: %w", id, err)
	}
	return keys, nil
}

// runTime is how long a task run took, or "-" for one that never started
// (a task no device could take ends with no start time: its duration
// printed as 9223372036.9s).
func runTime(r workflows.SuiteRun) string {
	if r.Started.IsZero() || r.Ended.Before(r.Started) {
		return "-"
	}
	return fmt.Sprintf("%.1fs", r.Ended.Sub(r.Started).Seconds())
}
