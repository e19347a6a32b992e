package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/pcflow/pcflow/activities/artifacts"
	"github.com/pcflow/pcflow/internal/report"
	"github.com/pcflow/pcflow/workflows"
)

func cmdReport(ctx context.Context, e *env, args []string) int {
	var ef engineFlags
	fs := newFlags(e, "report", "RUN|SUITE_RUN [--out DIR]", `Write a static HTML trajectory report that works offline: an index with the
metrics and a sortable table of task runs, and a page per task run with every
step (the annotated screenshots before and after, the thought, the action and
what the device did, the reflection verdict, the progress summary and memory),
the check results and the termination reason. Screenshots are copied from the
artifact store into the report folder.`)
	ef.register(fs, e, false)
	out := fs.String("out", "", "the report folder `DIR` (default: the suite's --out folder, or report-RUN)")
	ids, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(ids) != 1 {
		fmt.Fprintln(e.stderr, "pcflow report: name one run or suite run id")
		return 2
	}
	id := ids[0]
	g, err := ef.connect(ctx, e, false)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow report:", err)
		return 1
	}
	defer g.close()
	var r *report.Results
	rec, lerr := loadSuite(ef.state, id)
	if lerr != nil && !errors.Is(lerr, errNoSuiteRecord) {
		fmt.Fprintln(e.stderr, "pcflow report:", lerr)
		return 1
	}
	isSuite := lerr == nil
	if !isSuite {
		// A suite started from another state folder or machine.
		if desc, err := g.client.DescribeWorkflowExecution(ctx, id, ""); err == nil && desc.WorkflowExecutionInfo.GetType().GetName() == workflows.SuiteWorkflowName {
			isSuite = true
			rec = suiteRecord{ID: id}
			fmt.Fprintf(e.stderr, "pcflow report: no record of suite %s in %s: the report lacks the reproducibility block (model, prompts, file hashes) eval keeps there\n", id, ef.state)
		}
	}
	if isSuite {
		live, running, err := suiteLive(ctx, g.client, id)
		if err != nil {
			fmt.Fprintln(e.stderr, "pcflow report:", err)
			return 1
		}
		res := &workflows.SuiteResult{Suite: live.Suite, Runs: live.Runs, Removed: live.Removed, Started: live.Started, Ended: time.Now()}
		if running {
			queued, active, done, _ := live.Counts()
			fmt.Fprintf(e.stdout, "suite %s is still running: the report covers the %d finished task runs (%d running, %d queued); run pcflow report again later, or pcflow eval resume %s to write it at the end\n", id, done, active, queued, id)
		}
		r = report.Build(id, res, rec.Devices, rec.Repro)
		scoreBenchmarks(ctx, g.client, r)
		if *out == "" {
			*out = rec.Out
		}
	} else {
		h, err := runHistory(ctx, g.client, id, artifacts.Dir{Root: filepath.Join(ef.state, "artifacts")})
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			fmt.Fprintf(e.stderr, "pcflow report: no run or suite run %s on %s (pcflow status lists the recent runs)\n", id, g.addr)
			return 1
		}
		if err != nil {
			fmt.Fprintln(e.stderr, "pcflow report:", err)
			return 1
		}
		if h.Result == nil {
			fmt.Fprintf(e.stderr, "pcflow report: run %s has not ended; follow it with pcflow status %s\n", id, id)
			return 1
		}
		run := workflows.SuiteRun{Key: id, Task: h.Result.Task, Workflow: id, Status: h.Result.Status, Reason: h.Result.Reason, Error: h.Result.Error, Result: h.Result}
		if desc, err := g.client.DescribeWorkflowExecution(ctx, id, ""); err == nil {
			info := desc.WorkflowExecutionInfo
			run.Queued, run.Started = info.StartTime.AsTime(), info.StartTime.AsTime()
			if info.CloseTime != nil {
				run.Ended = info.CloseTime.AsTime()
			}
		}
		devs := map[string]string{}
		for _, s := range h.Steps {
			devs[s.Device] = s.Device
		}
		run.Devices = devs
		r = report.Build(id, &workflows.SuiteResult{Suite: h.Result.Task, Runs: []workflows.SuiteRun{run}, Started: run.Started, Ended: run.Ended}, nil, report.Repro{Pcflow: version, Commit: commit()})
	}
	if *out == "" {
		*out = "report-" + strings.ReplaceAll(id, "/", "_")
	}
	if err := r.Write(*out); err != nil {
		fmt.Fprintln(e.stderr, "pcflow report:", err)
		return 1
	}
	if err := writeReport(ctx, g.client, r, *out, ef.state); err != nil {
		fmt.Fprintln(e.stderr, "pcflow report:", err)
		return 1
	}
	abs, _ := filepath.Abs(filepath.Join(*out, "index.html"))
	fmt.Fprintf(e.stdout, "report: %s\n", abs)
	return 0
}

// writeReport reads every task run's trajectory from Temporal and writes
// the HTML report.
func writeReport(ctx context.Context, c client.Client, r *report.Results, out, state string) error {
	store := artifacts.Dir{Root: filepath.Join(state, "artifacts")}
	var trajs []report.Trajectory
	for _, row := range r.Runs {
		if row.Workflow == "" || row.Status == workflows.StatusQueued {
			continue
		}
		h, err := runHistory(ctx, c, row.Workflow, store)
		if err != nil {
			// A task that failed before its workflow started has none.
			continue
		}
		t := report.Trajectory{Key: row.Key, Result: h.Result, Checks: h.Checks}
		if h.Result != nil && h.Result.StartScreenshot != "" {
			t.StartScreenshot = store.Path(h.Result.StartScreenshot)
		}
		if h.Result != nil {
			for _, v := range h.Result.Videos {
				rv := report.Video{Device: v.Device, Note: v.Note}
				for _, sg := range v.Segments {
					rv.Files = append(rv.Files, store.Path(sg.Ref))
				}
				t.Videos = append(t.Videos, rv)
			}
		}
		for _, s := range h.Steps {
			t.Steps = append(t.Steps, report.Step{Subtask: s.Subtask, Device: s.Device, Step: s.Step, Thought: s.Thought, Action: s.Action,
				Outcome: s.Outcome, Verdict: s.Verdict, Reason: s.Reason, Progress: s.Progress, Memory: s.Memory, Tokens: s.Tokens,
				Before: s.Artifacts["before"], After: s.Artifacts["after"], Replay: s.Replay})
		}
		trajs = append(trajs, t)
	}
	return report.WriteHTML(out, r, trajs)
}

// runHistory reads a run and its subtasks from Temporal and assembles its
// steps.
func runHistory(ctx context.Context, c client.Client, id string, store artifacts.Dir) (*History, error) {
	t, err := readRun(ctx, c, id, true)
	if err != nil {
		return nil, err
	}
	return t.steps(store), nil
}
