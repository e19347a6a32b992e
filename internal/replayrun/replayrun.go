// Package replayrun builds the script of a checked replay (pcflow run
// --replay-run, pcflow eval --replay-run) from an earlier successful
// run's Temporal history and the observations its device stored: per
// subtask, the actions that ran, the element each acted on (role, name,
// window, box) and what the screen showed once it had worked. Typed text
// and the texts a step's effect is checked by have the recorded run's
// variable values turned back into references, so a replay with other
// inputs types the new values. The script holds no secret in clear: the
// history it is read from never did (the worker redacts every result, and
// a typed secret is a {{secret.NAME}} placeholder until the device types
// it), and the new run's secret values are masked in it once more.
package replayrun

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/runhistory"
	"github.com/pcflow/pcflow/workflows"
)

type call = runhistory.Call

// Build reads run id's history through c and the observations it stored
// in store, and returns the replay of it for a run of the same task
// whose sensitive variables are secrets. Only a run that succeeded is
// replayed.
func Build(ctx context.Context, c client.Client, store activities.ArtifactStore, id string, secrets map[string]string) (*workflows.Replay, error) {
	var in *workflows.InstructionInput
	var res *workflows.InstructionResult
	var children []string
	dc := converter.GetDefaultDataConverter()
	calls, err := walk(ctx, c, id, func(ev *historypb.HistoryEvent) {
		if a := ev.GetWorkflowExecutionStartedEventAttributes(); a != nil && in == nil {
			if a.GetWorkflowType().GetName() != workflows.InstructionWorkflowName {
				return
			}
			var v workflows.InstructionInput
			if dc.FromPayloads(a.Input, &v) == nil {
				in = &v
			}
		}
		if a := ev.GetChildWorkflowExecutionStartedEventAttributes(); a != nil {
			children = append(children, a.WorkflowExecution.WorkflowId)
		}
		if a := ev.GetWorkflowExecutionCompletedEventAttributes(); a != nil {
			var r workflows.InstructionResult
			if dc.FromPayloads(a.Result, &r) == nil {
				res = &r
			}
		}
	})
	if err != nil {
		return nil, err
	}
	switch {
	case in == nil:
		return nil, fmt.Errorf("%s is not a task run (pcflow run): a suite's task runs are replayed with pcflow eval --replay-run SUITE_RUN", id)
	case res == nil:
		return nil, fmt.Errorf("run %s has not completed: only a successful run is replayed", id)
	case res.Status != workflows.StatusSucceeded:
		return nil, fmt.Errorf("run %s did not succeed (%s): only a successful run is replayed", id, res.Reason)
	}
	rp := &workflows.Replay{From: id, Task: in.Plan.Task, Subtasks: map[string]workflows.ReplaySubtask{}}
	subtasks := in.Plan.Subtasks
	if len(subtasks) == 0 {
		for _, cl := range calls {
			var mr activities.ManageResult
			if cl.Type == activities.ManageName && cl.Decode(false, &mr) {
				subtasks, rp.Plan = mr.Subtasks, mr.Subtasks
			}
		}
	}
	outputs := map[string]bool{}
	for _, s := range subtasks {
		outputs[s.Name] = len(s.Outputs) > 0
	}
	for _, cid := range children {
		name := strings.TrimPrefix(cid, id+"/")
		cc, err := walk(ctx, c, cid, nil)
		if err != nil {
			return nil, fmt.Errorf("subtask %s: %w", name, err)
		}
		rs, err := subtask(cc, store, in.Vars)
		if err != nil {
			return nil, fmt.Errorf("subtask %s of run %s: %w", name, id, err)
		}
		if d, ok := in.Done[name]; ok && d.Status == workflows.StatusSucceeded {
			continue // done before that run (resume --from): nothing recorded
		}
		rs.Done = rs.Done && !outputs[name]
		rp.Subtasks[name] = rs
	}
	activities.NewRedactor(secrets).Value(rp)
	return rp, nil
}

// step is what a subtask's history tells of one step.
type step struct {
	decide *activities.DecideResult
	acts   map[string]actCall // by action id
	after  *screen.Observation
}

type actCall struct {
	in  activities.ActInput
	out activities.ActResult
}

// subtask builds one subtask's script from its activities, in the order
// they completed.
func subtask(calls []call, store activities.ArtifactStore, vars map[string]string) (workflows.ReplaySubtask, error) {
	steps := map[int]*step{}
	progress := map[int]activities.ProgressResult{}
	var order []int
	at := func(n int) *step {
		s, ok := steps[n]
		if !ok {
			s = &step{acts: map[string]actCall{}}
			steps[n] = s
			order = append(order, n)
		}
		return s
	}
	last := 0 // the step that acted last, whose effect the next observation shows
	var rs workflows.ReplaySubtask
	for _, cl := range calls {
		switch cl.Type {
		case activities.DecideName:
			var in activities.DecideInput
			var out activities.DecideResult
			if !cl.Decode(true, &in) || !cl.Decode(false, &out) {
				continue
			}
			if s := steps[last]; last > 0 && s.after == nil {
				s.after = &out.Observation
			}
			if s := at(in.Step); s.decide == nil || len(s.acts) == 0 {
				s.decide = &out
			}
			rs.Done = out.Action.Kind == screen.ActDone
		case activities.ActName:
			var ac actCall
			if cl.Decode(true, &ac.in) && cl.Decode(false, &ac.out) {
				n := runhistory.StepOf(ac.in.ID)
				at(n).acts[ac.in.ID] = ac
				last = n
				steps[n].after = nil
			}
		case activities.ObserveName:
			var out activities.ObserveResult
			if s := steps[last]; last > 0 && cl.Decode(false, &out) {
				s.after = &out.After
			}
		case activities.ReflectName:
			var in activities.ReflectInput
			var out activities.ReflectResult
			if cl.Decode(true, &in) && cl.Decode(false, &out) && in.After == nil {
				if s := steps[in.Step]; s != nil {
					s.after = &out.After
				}
			}
		case activities.ProgressName:
			var in activities.ProgressInput
			var out activities.ProgressResult
			if cl.Decode(true, &in) && cl.Decode(false, &out) {
				progress[in.Step] = out
			}
		}
	}
	sort.Ints(order)
	for _, n := range order {
		s := steps[n]
		if s.decide == nil || len(s.acts) == 0 {
			continue
		}
		rec, ok, err := recorded(n, s, store, vars)
		if err != nil {
			return rs, err
		}
		if !ok {
			continue
		}
		p := progress[n]
		rec.Progress, rec.Memory = p.Summary, p.Memory
		rs.Steps = append(rs.Steps, rec)
	}
	return rs, nil
}

// recorded is step n as a replay runs it: the actions that ran, in
// order, each with the element it acted on; false when one did not
// finish (the step is left out).
func recorded(n int, s *step, store activities.ArtifactStore, vars map[string]string) (workflows.RecordedStep, bool, error) {
	rec := workflows.RecordedStep{Step: n, Thought: s.decide.Thought}
	ids := make([]string, 0, len(s.acts))
	for id := range s.acts {
		ids = append(ids, id)
	}
	// The step's first action has the step's id, the others "/2", "/3"...
	sort.Slice(ids, func(i, j int) bool { return actionIndex(ids[i]) < actionIndex(ids[j]) })
	before, err := elements(store, s.decide.Observation)
	if err != nil {
		return rec, false, err
	}
	for i, id := range ids {
		ac := s.acts[id]
		if ac.out.Outcome != activities.OutcomeDone {
			return rec, false, nil
		}
		act := ac.in.Action
		rec.Actions = append(rec.Actions, act)
		rec.Targets = append(rec.Targets, activities.RecordedTarget(before, s.decide.Observation.ActiveWindow, act))
		if act.Kind == screen.ActType && act.Text != "" {
			if t := workflows.Templated(act.Text, vars); len(t) > 1 || t[0].Var != "" {
				if rec.Texts == nil {
					rec.Texts = map[int]workflows.Template{}
				}
				rec.Texts[i] = t
			}
		}
	}
	if s.after == nil {
		return rec, false, nil
	}
	after, err := elements(store, *s.after)
	if err != nil {
		return rec, false, err
	}
	x := activities.RecordedExpect(after, s.after.ActiveWindow)
	rec.After = workflows.RecordedAfter{Window: workflows.Templated(x.Window, vars), Focused: x.Focused, FocusedRole: x.FocusedRole,
		Value: workflows.Templated(x.Value, vars)}
	return rec, true, nil
}

// elements reads an observation's element list from the store.
func elements(store activities.ArtifactStore, obs screen.Observation) ([]screen.Element, error) {
	els, err := activities.LoadElements(store, obs)
	if err != nil {
		return nil, fmt.Errorf("the recorded observation %s is not in this state folder's artifact store (%v): replay with the --state of the machine whose device made the run", obs.Elements, err)
	}
	return els, nil
}

// actionIndex is an action's place in its step (1 for the first).
func actionIndex(id string) int {
	i := strings.LastIndex(id, "/step-")
	rest := id[i+6:]
	if _, after, ok := strings.Cut(rest, "/"); ok {
		var n int
		fmt.Sscanf(after, "%d", &n)
		return n
	}
	return 1
}

// walk reads a workflow's completed activities, across its
// continue-as-new chain; fn sees every event.
func walk(ctx context.Context, c client.Client, id string, fn func(*historypb.HistoryEvent)) ([]call, error) {
	calls, err := runhistory.Walk(ctx, c, id, fn)
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return nil, fmt.Errorf("no run %s on this server: give the id of an earlier run (pcflow status lists them)", id)
	}
	return calls, err
}

// Count is the replay's number of recorded steps, over every subtask.
func Count(r *workflows.Replay) int {
	n := 0
	for _, s := range r.Subtasks {
		n += len(s.Steps)
	}
	return n
}
