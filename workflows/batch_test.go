package workflows_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/mock"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/workflows"
)

// runBatch plays one step whose decision is a batch of five actions, then
// done; failAt (1-based, 0: none) makes that action fail. It returns the
// ids the Act activity ran, in order, and what the next decision was told.
func runBatch(t *testing.T, failAt int) (ids []string, told string) {
	t.Helper()
	env := unitEnv(t)
	batch := []screen.Action{
		{Kind: screen.ActClick, X: 10, Y: 10},
		{Kind: screen.ActType, Text: "12"},
		{Kind: screen.ActHotkey, Keys: []string{"ctrl", "a"}},
		{Kind: screen.ActScroll, Direction: "down", Amount: 3},
		{Kind: screen.ActDoubleClick, X: 20, Y: 20},
	}
	env.OnActivity(activities.DecideName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.DecideInput) (*activities.DecideResult, error) {
			if in.Step == 1 {
				return &activities.DecideResult{Action: batch[0], Batch: batch[1:]}, nil
			}
			told = in.LastAction
			return &activities.DecideResult{Action: screen.Action{Kind: screen.ActDone}}, nil
		})
	var mu sync.Mutex
	env.OnActivity(activities.ActName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.ActInput) (*activities.ActResult, error) {
			mu.Lock()
			defer mu.Unlock()
			ids = append(ids, in.ID)
			if len(ids) == failAt {
				return &activities.ActResult{Outcome: activities.OutcomeError, Error: "no window at (20,20)"}, nil
			}
			return &activities.ActResult{Outcome: activities.OutcomeDone}, nil
		})
	env.OnActivity(activities.ReflectName, mock.Anything, mock.Anything).Return(&activities.ReflectResult{Verdict: screen.VerdictCorrect}, nil)
	env.OnActivity(activities.ProgressName, mock.Anything, mock.Anything).Return(&activities.ProgressResult{Summary: "batched"}, nil)
	env.ExecuteWorkflow(workflows.InstructionWorkflowName, workflows.InstructionInput{Options: sequentialLoop, Plan: mustPlan(t, `task "t" {
  subtask "s" {
    instruction = "do five things at once"
  }
}`)})
	var res workflows.InstructionResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if res.Reason != workflows.ReasonSuccess {
		t.Fatalf("reason = %s (%s)", res.Reason, res.Error)
	}
	for i, id := range ids {
		ids[i] = id[strings.Index(id, "/step-"):]
	}
	return ids, told
}

// TestUnitBatchRunsInOrderEachJournaled: a five-action batch runs in
// order, each action under its own id (the action log's key, so a crash
// mid-batch resumes at the next unexecuted action), and the next decision
// is told each action that ran.
func TestUnitBatchRunsInOrderEachJournaled(t *testing.T) {
	ids, told := runBatch(t, 0)
	if diff := cmp.Diff([]string{"/step-1", "/step-1/2", "/step-1/3", "/step-1/4", "/step-1/5"}, ids); diff != "" {
		t.Errorf("Act ids (-want +got):\n%s", diff)
	}
	want := "batch of 5: ran click (10,10); type \"12\"; hotkey ctrl+a; scroll down 3; double_click (20,20)"
	if told != want {
		t.Errorf("next decision told %q, want %q", told, want)
	}
}

// TestUnitBatchStopsAtFirstFailure: the batch stops at the action that
// failed; the rest never run and the model is told which ran.
func TestUnitBatchStopsAtFirstFailure(t *testing.T) {
	ids, told := runBatch(t, 3)
	if diff := cmp.Diff([]string{"/step-1", "/step-1/2", "/step-1/3"}, ids); diff != "" {
		t.Errorf("Act ids (-want +got):\n%s", diff)
	}
	for _, want := range []string{"ran click (10,10); type \"12\"; hotkey ctrl+a", "stopped at action 3 of 5 (error: no window at (20,20)); the rest did not run"} {
		if !strings.Contains(told, want) {
			t.Errorf("next decision told %q, want it to contain %q", told, want)
		}
	}
}
