package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/artifacts"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/runhistory"
	"github.com/pcflow/pcflow/internal/text"
	"github.com/pcflow/pcflow/workflows"
)

// This file holds the one reader of a run's Temporal history: `history`,
// `status`, `resume` and `--replay` all read a run through readRun.

// runTrace is a run as its Temporal history tells it.
type runTrace struct {
	ID string
	// Input is what the run was started with: the plan, the options, the
	// queues. Nil when the history has no start event.
	Input *workflows.InstructionInput
	// Result is set once the run completed; Ended says how it ended
	// otherwise (failed, terminated, timed out), with the reason.
	Result *workflows.InstructionResult
	Ended  string
	// Calls are the run's own completed activities (setup, Manager, task
	// checks); Children its subtasks', in the order they started.
	Calls    []activityCall
	Children []childTrace
}

// childTrace is one subtask's child workflow, across continue-as-new.
type childTrace struct {
	Subtask string
	ID      string
	Calls   []activityCall
}

// activityCall is one completed activity of a run.
type activityCall = runhistory.Call

// openRun connects to Temporal and reads run id whole, its subtasks'
// histories too, for a command that shows or writes a run. The caller
// closes the engine.
func (ef *engineFlags) openRun(ctx context.Context, e *env, id string) (*engine, *runTrace, error) {
	g, err := ef.connect(ctx, e, false)
	if err != nil {
		return nil, nil, err
	}
	t, err := readRun(ctx, g.client, id, true)
	if err != nil {
		g.close()
		return nil, nil, err
	}
	return g, t, nil
}

// readRun reads a run's history, and with children its subtasks' too.
func readRun(ctx context.Context, c client.Client, id string, children bool) (*runTrace, error) {
	dc := converter.GetDefaultDataConverter()
	t := &runTrace{ID: id}
	var childIDs []string
	suite := false
	calls, err := walkCalls(ctx, c, id, func(ev *historypb.HistoryEvent) {
		if a := ev.GetWorkflowExecutionStartedEventAttributes(); a != nil && a.GetWorkflowType().GetName() == workflows.SuiteWorkflowName {
			suite = true
		}
		if a := ev.GetWorkflowExecutionStartedEventAttributes(); a != nil && t.Input == nil {
			var in workflows.InstructionInput
			if dc.FromPayloads(a.Input, &in) == nil {
				t.Input = &in
			}
		}
		if a := ev.GetChildWorkflowExecutionStartedEventAttributes(); a != nil {
			childIDs = append(childIDs, a.WorkflowExecution.WorkflowId)
		}
		if a := ev.GetWorkflowExecutionCompletedEventAttributes(); a != nil {
			var r workflows.InstructionResult
			if dc.FromPayloads(a.Result, &r) == nil {
				t.Result = &r
			}
		}
		if a := ev.GetWorkflowExecutionFailedEventAttributes(); a != nil {
			t.Ended = "failed: " + a.GetFailure().GetMessage()
		}
		if a := ev.GetWorkflowExecutionTerminatedEventAttributes(); a != nil {
			t.Ended = "terminated: " + a.GetReason()
		}
		if ev.GetWorkflowExecutionTimedOutEventAttributes() != nil {
			t.Ended = "timed out"
		}
		if ev.GetWorkflowExecutionCanceledEventAttributes() != nil {
			t.Ended = "cancelled"
		}
	})
	if err != nil {
		return nil, err
	}
	if suite {
		return nil, errSuiteRun(id)
	}
	t.Calls = calls
	if !children {
		return t, nil
	}
	for _, cid := range childIDs {
		calls, err := walkCalls(ctx, c, cid, nil)
		if err != nil {
			return nil, fmt.Errorf("subtask %s: %w", cid, err)
		}
		t.Children = append(t.Children, childTrace{Subtask: strings.TrimPrefix(cid, id+"/"), ID: cid, Calls: calls})
	}
	return t, nil
}

// walkCalls reads a workflow's completed activities, across its
// continue-as-new chain; fn, when set, sees every event.
func walkCalls(ctx context.Context, c client.Client, id string, fn func(*historypb.HistoryEvent)) ([]activityCall, error) {
	return runhistory.Walk(ctx, c, id, fn)
}

// exchanges lists the recorded model exchanges (artifact references) of
// every activity of the run, in history order.
func (t *runTrace) exchanges() []string {
	var refs []string
	add := func(calls []activityCall) {
		for _, a := range calls {
			var r struct {
				Exchanges []string `json:"exchanges"`
			}
			if a.Decode(false, &r) {
				refs = append(refs, r.Exchanges...)
			}
		}
	}
	add(t.Calls)
	for _, ch := range t.Children {
		add(ch.Calls)
	}
	return refs
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
	// Batch lists each action of a batch (several actions in one answer)
	// with what the device did, in the order they ran.
	Batch []string `json:"batch,omitempty"`
	// Person lists what a person did at this step: approved or rejected
	// its action (or let the approval time out), answered the agent's
	// question, had control of the device before it.
	Person []string `json:"person,omitempty"`
	// Replay says what a replay (--replay-run) did at this step: replayed
	// a recorded step, or stopped where the screen drifted and handed over
	// to the agent.
	Replay string `json:"replay,omitempty"`
	// Grounded says how a grounder placed the step's targets named by
	// description: the description, the grounder's answer, the point.
	Grounded []screen.Grounding `json:"grounded,omitempty"`
	// Models are the models that answered the step's calls, with how
	// many calls each (a cascade's small and large ones apart).
	Models map[string]int `json:"models,omitempty"`
}

// addModels counts the calls of u by model.
func (s *Step) addModels(u screen.Usage) {
	for m, mu := range u.ByModel {
		if s.Models == nil {
			s.Models = map[string]int{}
		}
		s.Models[m] += mu.Calls
	}
}

// History is a run's record, read from Temporal.
type History struct {
	Run      string                              `json:"run"`
	Subtasks []string                            `json:"subtasks"`
	Steps    []Step                              `json:"steps"`
	Checks   map[string][]activities.CheckResult `json:"checks,omitempty"`
	Result   *workflows.InstructionResult        `json:"result,omitempty"`
}

// steps assembles the run's steps from its subtasks' activities.
func (t *runTrace) steps(store artifacts.Dir) *History {
	h := &History{Run: t.ID, Checks: map[string][]activities.CheckResult{}, Result: t.Result}
	for _, ch := range t.Children {
		name := ch.Subtask
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
		for _, a := range ch.Calls {
			switch a.Type {
			case activities.DecideName:
				var in activities.DecideInput
				var out activities.DecideResult
				if a.Decode(true, &in) && a.Decode(false, &out) {
					s := st(in.Step)
					// A run's own device queue is device.NAME@RUN~TAG.
					s.Device, _, _ = strings.Cut(strings.TrimPrefix(a.Queue, "device."), "@")
					s.Thought, s.Action, s.Invalid = out.Thought, out.Action.Summary(), out.Invalid
					if len(out.Batch) > 0 {
						s.Action += fmt.Sprintf(" (+%d more in a batch)", len(out.Batch))
					}
					s.Tokens += out.Usage.Total()
					s.addModels(out.Usage)
					s.Grounded = out.Action.Grounded
					if out.Observation.Annotated != "" {
						s.Artifacts["before"] = store.Path(out.Observation.Annotated)
					}
				}
			case activities.ActName:
				var in activities.ActInput
				var out activities.ActResult
				if a.Decode(true, &in) && a.Decode(false, &out) {
					s := st(runhistory.StepOf(in.ID))
					s.Batch = append(s.Batch, in.Action.Summary()+" → "+out.Outcome)
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
				if a.Decode(true, &in) && a.Decode(false, &out) {
					s := st(in.Step)
					s.Verdict, s.Reason = out.Verdict, out.Reason
					s.Tokens += out.Usage.Total()
					s.addModels(out.Usage)
					if out.After.Annotated != "" {
						s.Artifacts["after"] = store.Path(out.After.Annotated)
					}
				}
			case activities.ProgressName:
				var in activities.ProgressInput
				var out activities.ProgressResult
				if a.Decode(true, &in) && a.Decode(false, &out) {
					s := st(in.Step)
					s.Progress, s.Memory = out.Summary, out.Memory
					if !screen.Reflected(in.Verdict) && in.Verdict != "" {
						// No reflection: the policy, a person or a question decided the step.
						s.Verdict, s.Reason = in.Verdict, in.Reason
					}
					if in.Person != "" {
						s.Person = append(s.Person, in.Person)
					}
					s.Tokens += out.Usage.Total()
					s.addModels(out.Usage)
				}
			case activities.ReplayStepName:
				var in activities.ReplayStepInput
				var out activities.ReplayStepResult
				if a.Decode(true, &in) && a.Decode(false, &out) {
					replayedStep(st, store, in, out)
				}
			case activities.ZoomName:
				var in activities.ZoomInput
				var out activities.ZoomResult
				if a.Decode(true, &in) && a.Decode(false, &out) {
					st(in.Step).Artifacts["zoom"] = store.Path(out.Zoom.Image)
				}
			case activities.CheckName:
				var out activities.CheckResult
				if a.Decode(false, &out) {
					h.Checks[name] = append(h.Checks[name], out)
				}
			}
		}
		sort.Ints(order)
		for _, n := range order {
			if len(byStep[n].Batch) < 2 {
				byStep[n].Batch = nil // one action: the step's action says it
			}
			h.Steps = append(h.Steps, *byStep[n])
		}
	}
	return h
}

func cmdHistory(ctx context.Context, e *env, args []string) int {
	var ef engineFlags
	fs := newFlags(e, "history", "RUN [--json]", "Every step of a run, read from Temporal's history: the Decision agent's thought\nand action, what the device did, the Reflection verdict, the Progress summary and\nmemory, and the screenshots (paths in the state folder's artifact store).")
	ef.register(fs, e, false)
	asJSON := fs.Bool("json", false, "print as JSON")
	ids, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(ids) != 1 {
		fmt.Fprintln(e.stderr, "pcflow history: name one run id")
		return 2
	}
	g, t, err := ef.openRun(ctx, e, ids[0])
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow history:", err)
		return 1
	}
	defer g.close()
	h := t.steps(artifacts.Dir{Root: filepath.Join(ef.state, "artifacts")})
	if *asJSON {
		b, _ := json.MarshalIndent(h, "", "  ")
		fmt.Fprintln(e.stdout, string(b))
		return 0
	}
	printHistory(e.stdout, h, t)
	return 0
}

// printHistory prints a run's steps and its end. Every text a model, a
// person, a device or a check wrote is shown through text.Printable: a
// thought holding escape sequences must not drive the terminal.
func printHistory(w io.Writer, h *History, t *runTrace) {
	p := text.Printable
	cur := ""
	for _, s := range h.Steps {
		if s.Subtask != cur {
			cur = s.Subtask
			fmt.Fprintf(w, "\nsubtask %s on %s\n", p(s.Subtask), p(s.Device))
		}
		fmt.Fprintf(w, "  step %d\n", s.Step)
		if s.Thought != "" {
			fmt.Fprintf(w, "    thought:  %s\n", oneLine(s.Thought, 160))
		}
		fmt.Fprintf(w, "    action:   %s\n", p(s.Action))
		for _, g := range s.Grounded {
			fmt.Fprintf(w, "    grounder: %s (%s) placed %q at (%d,%d), answering %s\n", p(g.Profile), p(g.Model), p(g.Describe), g.X, g.Y, oneLine(g.Answer, 160))
		}
		for i, b := range s.Batch {
			fmt.Fprintf(w, "      %d. %s\n", i+1, p(b))
		}
		if s.Outcome != "" {
			fmt.Fprintf(w, "    device:   %s\n", p(s.Outcome))
		}
		if s.Verdict != "" {
			fmt.Fprintf(w, "    verdict:  %s — %s\n", p(s.Verdict), oneLine(s.Reason, 140))
		}
		if s.Replay != "" {
			fmt.Fprintf(w, "    replay:   %s\n", oneLine(s.Replay, 240))
		}
		for _, pe := range s.Person {
			fmt.Fprintf(w, "    person:   %s\n", oneLine(pe, 200))
		}
		if s.Progress != "" {
			fmt.Fprintf(w, "    progress: %s\n", oneLine(s.Progress, 160))
		}
		if s.Memory != "" {
			fmt.Fprintf(w, "    memory:   %s\n", oneLine(s.Memory, 160))
		}
		if len(s.Models) > 1 {
			ms := make([]string, 0, len(s.Models))
			for m, n := range s.Models {
				ms = append(ms, fmt.Sprintf("%s ×%d", p(m), n))
			}
			sort.Strings(ms)
			fmt.Fprintf(w, "    models:   %s\n", strings.Join(ms, ", "))
		}
		keys := make([]string, 0, len(s.Artifacts))
		for k := range s.Artifacts {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(w, "    %-9s %s\n", k+":", p(s.Artifacts[k]))
		}
	}
	if h.Result != nil {
		fmt.Fprintln(w)
		printResult(w, h.Run, h.Result, "")
	} else if t.Ended != "" {
		fmt.Fprintf(w, "\nrun %s %s\n", t.ID, p(t.Ended))
	}
}

// oneLine is s on one line of at most n runes, printable.
func oneLine(s string, n int) string {
	return text.Printable(text.Trunc(strings.Join(strings.Fields(s), " "), n))
}

// errSuiteRun is the answer of the single-run commands (status, history,
// resume) given a suite run's id.
func errSuiteRun(id string) error {
	return fmt.Errorf("%s is a suite run, not a single run: `pcflow eval status %s` lists its task runs (their workflow ids, for `pcflow history`, are in its results.json), `pcflow report %s` writes its report", id, id, id)
}
