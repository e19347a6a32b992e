package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agents"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/artifacts"
	"github.com/pcflow/pcflow/internal/tserver"
	"github.com/pcflow/pcflow/workflows"
)

func cmdStatus(ctx context.Context, e *env, args []string) int {
	var ef engineFlags
	fs := newFlags(e, "status", "[RUN]", "Without RUN: the recent runs with their status. With RUN: its subtasks and, while\nit runs, live progress; the result once it has ended.")
	ef.register(fs, e)
	limit := fs.Int("n", 20, "how many recent runs to list")
	task := fs.String("task", "", "list only runs of this task (needs the PcflowTask search attribute, which the embedded server has)")
	state := fs.String("status", "", "list only runs with this pcflow status: running, succeeded, failed")
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
	c := g.client
	if len(ids) == 0 {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Namespace: tserver.Namespace, PageSize: int32(*limit),
			Query: listQuery(*task, *state),
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
	id := ids[0]
	desc, err := c.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		fmt.Fprintf(e.stderr, "pcflow status: run %s: %v\n", id, err)
		return 1
	}
	st := desc.WorkflowExecutionInfo.Status
	fmt.Fprintf(e.stdout, "run %s: %s\n", id, statusName(st))
	if st == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
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
							line += fmt.Sprintf("  step %d/%d %s %s (%s)", sl.Step, sl.MaxSteps, sl.Phase, sl.LastAction, sl.Verdict)
						}
					}
				}
				fmt.Fprintln(e.stdout, line)
			}
		}
		return 0
	}
	var r workflows.InstructionResult
	if err := c.GetWorkflow(ctx, id, "").Get(ctx, &r); err != nil {
		fmt.Fprintf(e.stdout, "ended without a result: %v\n", err)
		return 1
	}
	return printResult(e, id, &r, g.uiURL)
}

func statusName(s enumspb.WorkflowExecutionStatus) string {
	return strings.ToLower(strings.TrimPrefix(s.String(), "WORKFLOW_EXECUTION_STATUS_"))
}

func cmdCancel(ctx context.Context, e *env, args []string) int {
	var ef engineFlags
	fs := newFlags(e, "cancel", "RUN", "Cancel a run: the running subtasks stop after their current activity.")
	ef.register(fs, e)
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

// Step is one step of a subtask as `pcflow history` shows it.
type Step struct {
	Subtask   string            `json:"subtask"`
	Device    string            `json:"device,omitempty"`
	Step      int               `json:"step"`
	Thought   string            `json:"thought,omitempty"`
	Action    string            `json:"action,omitempty"`
	Outcome   string            `json:"outcome,omitempty"`
	Verdict   string            `json:"verdict,omitempty"`
	Reason    string            `json:"reason,omitempty"`
	Progress  string            `json:"progress,omitempty"`
	Memory    string            `json:"memory,omitempty"`
	Tokens    int               `json:"tokens"`
	Artifacts map[string]string `json:"artifacts,omitempty"`
	Invalid   int               `json:"invalid,omitempty"`
}

// History is a run's record, read from Temporal.
type History struct {
	Run      string                              `json:"run"`
	Subtasks []string                            `json:"subtasks"`
	Steps    []Step                              `json:"steps"`
	Checks   map[string][]activities.CheckResult `json:"checks,omitempty"`
	Result   *workflows.InstructionResult        `json:"result,omitempty"`
}

func cmdHistory(ctx context.Context, e *env, args []string) int {
	var ef engineFlags
	fs := newFlags(e, "history", "RUN [--json]", "Every step of a run, read from Temporal's history: the Decision agent's thought\nand action, what the device did, the Reflection verdict, the Progress summary and\nmemory, and the screenshots (paths in the state folder's artifact store).")
	ef.register(fs, e)
	asJSON := fs.Bool("json", false, "print as JSON")
	ids, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(ids) != 1 {
		fmt.Fprintln(e.stderr, "pcflow history: name one run id")
		return 2
	}
	g, err := ef.connect(ctx, e, false)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow history:", err)
		return 1
	}
	defer g.close()
	h, err := readHistory(ctx, g.client, ids[0], artifacts.Dir{Root: filepath.Join(ef.state, "artifacts")})
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow history:", err)
		return 1
	}
	if *asJSON {
		b, _ := json.MarshalIndent(h, "", "  ")
		fmt.Fprintln(e.stdout, string(b))
		return 0
	}
	cur := ""
	for _, s := range h.Steps {
		if s.Subtask != cur {
			cur = s.Subtask
			fmt.Fprintf(e.stdout, "\nsubtask %s on %s\n", s.Subtask, s.Device)
		}
		fmt.Fprintf(e.stdout, "  step %d\n", s.Step)
		if s.Thought != "" {
			fmt.Fprintf(e.stdout, "    thought:  %s\n", oneLine(s.Thought, 160))
		}
		fmt.Fprintf(e.stdout, "    action:   %s\n", s.Action)
		if s.Outcome != "" {
			fmt.Fprintf(e.stdout, "    device:   %s\n", s.Outcome)
		}
		if s.Verdict != "" {
			fmt.Fprintf(e.stdout, "    verdict:  %s — %s\n", s.Verdict, oneLine(s.Reason, 140))
		}
		if s.Progress != "" {
			fmt.Fprintf(e.stdout, "    progress: %s\n", oneLine(s.Progress, 160))
		}
		if s.Memory != "" {
			fmt.Fprintf(e.stdout, "    memory:   %s\n", oneLine(s.Memory, 160))
		}
		keys := make([]string, 0, len(s.Artifacts))
		for k := range s.Artifacts {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(e.stdout, "    %-9s %s\n", k+":", s.Artifacts[k])
		}
	}
	if h.Result != nil {
		fmt.Fprintln(e.stdout)
		printResult(e, h.Run, h.Result, "")
	}
	return 0
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) > n {
		return string([]rune(s)[:n]) + "…"
	}
	return s
}

// readHistory walks a run's history and its subtasks' (across
// continue-as-new) and assembles the steps.
func readHistory(ctx context.Context, c client.Client, id string, store artifacts.Dir) (*History, error) {
	h := &History{Run: id, Checks: map[string][]activities.CheckResult{}}
	dc := converter.GetDefaultDataConverter()
	var children []string
	err := walkRun(ctx, c, id, func(ev *historypb.HistoryEvent) {
		if a := ev.GetChildWorkflowExecutionStartedEventAttributes(); a != nil {
			children = append(children, a.WorkflowExecution.WorkflowId)
		}
		if a := ev.GetWorkflowExecutionCompletedEventAttributes(); a != nil {
			var r workflows.InstructionResult
			if dc.FromPayloads(a.Result, &r) == nil {
				h.Result = &r
			}
		}
	})
	if err != nil {
		return nil, err
	}
	for _, child := range children {
		name := strings.TrimPrefix(child, id+"/")
		h.Subtasks = append(h.Subtasks, name)
		byStep := map[int]*Step{}
		var order []int
		st := func(n int) *Step {
			s, ok := byStep[n]
			if !ok {
				s = &Step{Subtask: name, Step: n, Artifacts: map[string]string{}}
				byStep[n] = s
				order = append(order, n)
			}
			return s
		}
		// Event ids restart with each continued run; a completion always
		// follows its own scheduling event, so one map serves the chain.
		scheduled := map[int64]*historypb.ActivityTaskScheduledEventAttributes{}
		err := walkRun(ctx, c, child, func(ev *historypb.HistoryEvent) {
			if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil {
				scheduled[ev.EventId] = a
			}
			a := ev.GetActivityTaskCompletedEventAttributes()
			if a == nil {
				return
			}
			sch := scheduled[a.ScheduledEventId]
			if sch == nil {
				return
			}
			switch sch.ActivityType.Name {
			case activities.DecideName:
				var in activities.DecideInput
				var out activities.DecideResult
				if decode(dc, sch.Input, &in) && decode(dc, a.Result, &out) {
					s := st(in.Step)
					s.Device = strings.TrimPrefix(sch.TaskQueue.GetName(), "device.")
					s.Thought, s.Action, s.Invalid = out.Thought, out.Action.Summary(), out.Invalid
					s.Tokens += out.Usage.Total()
					if out.Observation.Annotated != "" {
						s.Artifacts["before"] = store.Path(out.Observation.Annotated)
					}
				}
			case activities.ActName:
				var in activities.ActInput
				var out activities.ActResult
				if decode(dc, sch.Input, &in) && decode(dc, a.Result, &out) {
					s := st(stepOf(in.ID))
					s.Outcome = out.Outcome
					if out.Note != "" {
						s.Outcome += ": " + out.Note
					}
					if out.Error != "" {
						s.Outcome += ": " + out.Error
					}
				}
			case activities.ReflectName:
				var in activities.ReflectInput
				var out activities.ReflectResult
				if decode(dc, sch.Input, &in) && decode(dc, a.Result, &out) {
					s := st(in.Step)
					s.Verdict, s.Reason = out.Verdict, out.Reason
					s.Tokens += out.Usage.Total()
					if out.After.Annotated != "" {
						s.Artifacts["after"] = store.Path(out.After.Annotated)
					}
				}
			case activities.ProgressName:
				var in activities.ProgressInput
				var out activities.ProgressResult
				if decode(dc, sch.Input, &in) && decode(dc, a.Result, &out) {
					s := st(in.Step)
					s.Progress, s.Memory = out.Summary, out.Memory
					s.Tokens += out.Usage.Total()
				}
			case activities.CheckName:
				var out activities.CheckResult
				if decode(dc, a.Result, &out) {
					h.Checks[name] = append(h.Checks[name], out)
				}
			}
		})
		if err != nil {
			return nil, fmt.Errorf("subtask %s: %w", name, err)
		}
		sort.Ints(order)
		for _, n := range order {
			h.Steps = append(h.Steps, *byStep[n])
		}
	}
	return h, nil
}

// walkRun calls fn for every event of a workflow, following its
// continue-as-new chain from the first run.
func walkRun(ctx context.Context, c client.Client, id string, fn func(*historypb.HistoryEvent)) error {
	runID := ""
	for {
		evs, err := allEvents(ctx, c, id, runID)
		if err != nil {
			return fmt.Errorf("run %s: %w", id, err)
		}
		next := ""
		for _, ev := range evs {
			if a := ev.GetWorkflowExecutionContinuedAsNewEventAttributes(); a != nil {
				next = a.NewExecutionRunId
			}
			fn(ev)
		}
		if next == "" {
			return nil
		}
		runID = next
	}
}

func stepOf(actionID string) int {
	i := strings.LastIndex(actionID, "/step-")
	if i < 0 {
		return 0
	}
	var n int
	fmt.Sscanf(actionID[i+6:], "%d", &n)
	return n
}

func decode(dc converter.DataConverter, p *commonpb.Payloads, v any) bool {
	return p != nil && dc.FromPayloads(p, v) == nil
}

func allEvents(ctx context.Context, c client.Client, id, runID string) ([]*historypb.HistoryEvent, error) {
	it := c.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var out []*historypb.HistoryEvent
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	return out, nil
}

// replayModel serves the exchanges recorded by an earlier run.
func (m *modelFlags) replayModel(ctx context.Context, e *env, g *engine, state string) (agents.Config, *scripted.Server, error) {
	cfg := agents.ConfigFromEnv(e.getenv)
	refs, err := recordedExchanges(ctx, g.client, m.replay)
	if err != nil {
		return cfg, nil, err
	}
	if len(refs) == 0 {
		return cfg, nil, fmt.Errorf("run %s recorded no model exchanges: run it with --record (or PCFLOW_RECORD=1)", m.replay)
	}
	store := artifacts.Dir{Root: filepath.Join(state, "artifacts")}
	var recs []scripted.Recorded
	for _, ref := range refs {
		b, err := store.Get(ref)
		if err != nil {
			return cfg, nil, fmt.Errorf("recorded exchange of run %s: %w (replay on the machine that recorded it)", m.replay, err)
		}
		var r scripted.Recorded
		if err := json.Unmarshal(b, &r); err != nil {
			return cfg, nil, fmt.Errorf("recorded exchange %s: %w", ref, err)
		}
		recs = append(recs, r)
	}
	srv := scripted.NewReplay(recs)
	if err := srv.Start("127.0.0.1:0"); err != nil {
		return cfg, nil, err
	}
	cfg.BaseURL, cfg.APIKey = srv.URL, "replay"
	return cfg, srv, nil
}

// recordedExchanges lists the exchange artifacts referenced by a run's
// activity results, in history order.
func recordedExchanges(ctx context.Context, c client.Client, id string) ([]string, error) {
	dc := converter.GetDefaultDataConverter()
	var refs []string
	var children []string
	visit := func(ev *historypb.HistoryEvent) {
		if a := ev.GetChildWorkflowExecutionStartedEventAttributes(); a != nil {
			children = append(children, a.WorkflowExecution.WorkflowId)
		}
		if a := ev.GetActivityTaskCompletedEventAttributes(); a != nil {
			var r struct {
				Exchanges []string `json:"exchanges"`
			}
			if decode(dc, a.Result, &r) {
				refs = append(refs, r.Exchanges...)
			}
		}
	}
	if err := walkRun(ctx, c, id, visit); err != nil {
		return nil, err
	}
	parentChildren := children
	for _, ch := range parentChildren {
		if err := walkRun(ctx, c, ch, visit); err != nil {
			return nil, err
		}
	}
	return refs, nil
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
