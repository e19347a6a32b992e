package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"

	historypb "go.temporal.io/api/history/v1"

	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/artifacts"
	"github.com/pcflow/pcflow/workflows"
)

// exchangeLoader reads the model exchanges a run — or every task run of a
// suite run — recorded (--record), from its history and the artifact store
// of state, for a replay.
func exchangeLoader(ctx context.Context, g *engine, state string) func(id string) ([]scripted.Recorded, error) {
	return func(id string) ([]scripted.Recorded, error) {
		runs, err := replayRuns(ctx, g, id)
		if err != nil {
			return nil, err
		}
		store := artifacts.Dir{Root: filepath.Join(state, "artifacts")}
		var recs []scripted.Recorded
		byRun := map[string][]scripted.Recorded{}
		for _, run := range runs {
			t, err := readRun(ctx, g.client, run, true)
			if err != nil {
				return nil, err
			}
			for _, ref := range t.exchanges() {
				b, err := store.Get(ref)
				if err != nil {
					return nil, fmt.Errorf("recorded exchange of run %s: %w (replay on the machine that recorded it, with the same --state)", run, err)
				}
				var r scripted.Recorded
				if err := json.Unmarshal(b, &r); err != nil {
					return nil, fmt.Errorf("recorded exchange %s of run %s: %w", ref, run, err)
				}
				recs = append(recs, r)
				byRun[run] = append(byRun[run], r)
			}
		}
		if len(recs) == 0 {
			return nil, fmt.Errorf("%s recorded no model exchanges: run it with --record (or PCFLOW_RECORD=1)", id)
		}
		if err := sameAnswers(runs, byRun); err != nil {
			return nil, fmt.Errorf("%s cannot be replayed: %w", id, err)
		}
		return recs, nil
	}
}

// replayRuns is the run id itself, or a suite run's task runs in the
// order it started them.
func replayRuns(ctx context.Context, g *engine, id string) ([]string, error) {
	suite := false
	var children []string
	_, err := walkCalls(ctx, g.client, id, func(ev *historypb.HistoryEvent) {
		if a := ev.GetWorkflowExecutionStartedEventAttributes(); a != nil && a.GetWorkflowType().GetName() == workflows.SuiteWorkflowName {
			suite = true
		}
		if a := ev.GetChildWorkflowExecutionStartedEventAttributes(); a != nil {
			children = append(children, a.WorkflowExecution.WorkflowId)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("replay %s: %w", id, err)
	}
	if !suite {
		return []string{id}, nil
	}
	return children, nil
}

// sameAnswers refuses recordings of several runs that answer one agent's
// step of one subtask in different ways (two task runs of a suite with the
// same subtask name, recorded from a real model): a replay serves by agent,
// subtask and step, so it could not tell which answer belongs to which run.
// Within one run, a step asked again (a re-ask, a redo) is served in order.
func sameAnswers(runs []string, byRun map[string][]scripted.Recorded) error {
	type owner struct {
		run     string
		answers []any
	}
	seen := map[string]owner{}
	for _, run := range runs {
		mine := map[string][]any{}
		var keys []string
		for _, r := range byRun[run] {
			if r.Response == nil || len(r.Response.Choices) == 0 {
				continue
			}
			k := fmt.Sprintf("%s/%s/%d", r.Role, r.Subtask, r.Step)
			if _, ok := mine[k]; !ok {
				keys = append(keys, k)
			}
			mine[k] = append(mine[k], r.Response.Choices[0].Message)
		}
		for _, k := range keys {
			prev, ok := seen[k]
			if !ok {
				seen[k] = owner{run, mine[k]}
				continue
			}
			if !reflect.DeepEqual(prev.answers, mine[k]) {
				return fmt.Errorf("runs %s and %s recorded different answers for %s (agent/subtask/step); replay them one at a time (pcflow eval --filter TASK --replay ...) or give their subtasks distinct names", prev.run, run, k)
			}
		}
	}
	return nil
}
