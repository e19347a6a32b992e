package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/pcflow/pcflow/activities/artifacts"
	"github.com/pcflow/pcflow/internal/text"
	"github.com/pcflow/pcflow/internal/tserver"
	"github.com/pcflow/pcflow/workflows"
)

func cmdStatus(ctx context.Context, e *env, args []string) int {
	var ef engineFlags
	fs := newFlags(e, "status", "[RUN]", "Without RUN: the recent runs with their status. With RUN: its subtasks and, while\nit runs, live progress; the result once it has ended.")
	ef.register(fs, e, false)
	limit := fs.Int("n", 20, "how many recent runs to list, `COUNT`")
	task := fs.String("task", "", "list only runs of the task `NAME` (needs the PcflowTask search attribute, which the embedded server has)")
	state := fs.String("status", "", "list only runs with this pcflow `STATUS`: running, succeeded, failed")
	ids, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	g, err := ef.connect(ctx, e, false)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow status:", err)
		return 1
	}
	defer g.close()
	if len(ids) == 0 {
		return listRuns(ctx, e, g, *limit, listQuery(*task, *state))
	}
	return runStatus(ctx, e, g, ids[0], artifacts.Dir{Root: filepath.Join(ef.state, "artifacts")})
}

// runStatus prints one run's status: while it runs, its live progress;
// once ended, its result (pcflow status RUN, and the MCP server's status
// tool).
func runStatus(ctx context.Context, e *env, g *engine, id string, store artifacts.Dir) int {
	c := g.client
	desc, err := c.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		fmt.Fprintf(e.stderr, "pcflow status: run %s: %v\n", id, err)
		return 1
	}
	if desc.WorkflowExecutionInfo.GetType().GetName() == workflows.SuiteWorkflowName {
		fmt.Fprintln(e.stderr, "pcflow status:", errSuiteRun(id))
		return 1
	}
	st := desc.WorkflowExecutionInfo.Status
	fmt.Fprintf(e.stdout, "run %s: %s\n", id, statusName(st))
	if st == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return showLive(ctx, e, g, id, store)
	}
	t, err := readRun(ctx, c, id, false)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow status:", err)
		return 1
	}
	if t.Result == nil {
		fmt.Fprintf(e.stdout, "ended without a result: %s\n", text.Printable(t.Ended))
		return 1
	}
	return printResult(e.stdout, id, t.Result, g.uiURL)
}

func listRuns(ctx context.Context, e *env, g *engine, limit int, query string) int {
	resp, err := g.client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		Namespace: tserver.Namespace, PageSize: int32(limit), Query: query,
	})
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow status:", err)
		return 1
	}
	if len(resp.Executions) == 0 {
		fmt.Fprintln(e.stdout, "no runs yet: start one with pcflow run FILE")
		return 0
	}
	fmt.Fprintf(e.stdout, "%-44s %-12s %-20s %s\n", "RUN", "STATUS", "STARTED", "DURATION")
	for _, ex := range resp.Executions {
		st := ex.StartTime.AsTime()
		dur := "-"
		if ex.CloseTime != nil {
			dur = ex.CloseTime.AsTime().Sub(st).Round(time.Second).String()
		}
		fmt.Fprintf(e.stdout, "%-44s %-12s %-20s %s\n", ex.Execution.WorkflowId, statusName(ex.Status), st.Local().Format("2006-01-02 15:04:05"), dur)
	}
	return 0
}

// showLive prints a running run's phase and each subtask's progress.
func showLive(ctx context.Context, e *env, g *engine, id string, store artifacts.Dir) int {
	c := g.client
	qctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	v, err := c.QueryWorkflow(qctx, id, "", workflows.ProgressQuery)
	if err != nil {
		fmt.Fprintf(e.stdout, "no worker is serving it right now (bring one back with pcflow resume %s)\n", id)
		return 0
	}
	var live workflows.Live
	_ = v.Get(&live)
	fmt.Fprintf(e.stdout, "phase: %s\n", live.Phase)
	for _, layer := range live.Layers {
		for _, n := range layer {
			line := fmt.Sprintf("  %-16s %s", n, live.Subtasks[n])
			if child, ok := live.Children[n]; ok {
				if cv, err := c.QueryWorkflow(qctx, child, "", workflows.ProgressQuery); err == nil {
					var sl workflows.SubtaskLive
					if cv.Get(&sl) == nil {
						line += fmt.Sprintf("  step %d/%d %s %s (%s)", sl.Step, sl.MaxSteps, sl.Phase, text.Printable(sl.LastAction), text.Printable(sl.Verdict))
						for _, l := range waitingLines(id, sl.Waiting, store.Path) {
							line += "\n      " + l
						}
					}
				}
			}
			fmt.Fprintln(e.stdout, line)
		}
	}
	return 0
}

func statusName(s enumspb.WorkflowExecutionStatus) string {
	return strings.ToLower(strings.TrimPrefix(s.String(), "WORKFLOW_EXECUTION_STATUS_"))
}

func listQuery(task, status string) string {
	q := fmt.Sprintf("WorkflowType = '%s'", workflows.InstructionWorkflowName)
	if task != "" {
		q += fmt.Sprintf(" AND PcflowTask = '%s'", strings.ReplaceAll(task, "'", ""))
	}
	if status != "" {
		q += fmt.Sprintf(" AND PcflowStatus = '%s'", strings.ReplaceAll(status, "'", ""))
	}
	return q
}

func cmdCancel(ctx context.Context, e *env, args []string) int {
	var ef engineFlags
	fs := newFlags(e, "cancel", "RUN", "Cancel a run: the running subtasks stop after their current activity.")
	ef.register(fs, e, false)
	ids, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(ids) != 1 {
		fmt.Fprintln(e.stderr, "pcflow cancel: name one run id")
		return 2
	}
	g, err := ef.connect(ctx, e, false)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow cancel:", err)
		return 1
	}
	defer g.close()
	if err := g.client.CancelWorkflow(ctx, ids[0], ""); err != nil {
		fmt.Fprintf(e.stderr, "pcflow cancel: %s: %v\n", ids[0], err)
		return 1
	}
	fmt.Fprintf(e.stdout, "cancel requested for %s\n", ids[0])
	return 0
}
