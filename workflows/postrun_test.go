package workflows_test

import (
	"context"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/mock"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/workflows"
)

// TestUnitPostRunBetweenAgentAndChecks: post_run steps run on the device
// after the last subtask and before the task's checks, in order, and what
// they did is in the result.
func TestUnitPostRunBetweenAgentAndChecks(t *testing.T) {
	env := unitEnv(t)
	var mu sync.Mutex
	var order []string
	record := func(s string) {
		mu.Lock()
		order = append(order, s)
		mu.Unlock()
	}
	env.OnActivity(activities.DecideName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.DecideInput) (*activities.DecideResult, error) {
			record("decide " + in.Subtask)
			return &activities.DecideResult{Action: screen.Action{Kind: screen.ActDone}}, nil
		})
	env.OnActivity(activities.SetupName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.SetupInput) (*activities.SetupResult, error) {
			record("setup " + in.Name)
			return &activities.SetupResult{Notes: []string{"did " + in.Name}}, nil
		})
	env.OnActivity(activities.CheckName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.CheckInput) (*activities.CheckResult, error) {
			record("check " + in.Name)
			return &activities.CheckResult{Name: in.Name, Kind: in.Kind, Passed: true, Detail: "ok"}, nil
		})
	env.ExecuteWorkflow(workflows.InstructionWorkflowName, workflows.InstructionInput{Plan: mustPlan(t, `task "t" {
  setup "open" {
    command = ["true"]
  }
  subtask "edit" {
    instruction = "edit the sheet"
  }
  post_run "save" {
    press {
      window = "Calc"
      keys   = ["ctrl", "s"]
    }
    sleep = "1s"
  }
  post_run "close" {
    close_window = "Calc"
    commands     = [["sync"], ["true"]]
  }
  check "saved" {
    file { path = "/tmp/x.ods" }
  }
}`)})
	var res workflows.InstructionResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if res.Reason != workflows.ReasonSuccess {
		t.Fatalf("reason = %s (%s)", res.Reason, res.Error)
	}
	want := []string{"setup open", "decide edit", "setup save", "setup close", "check saved"}
	if diff := cmp.Diff(want, order); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	wantNotes := []workflows.StepNotes{{Name: "save", Notes: []string{"did save"}}, {Name: "close", Notes: []string{"did close"}}}
	if diff := cmp.Diff(wantNotes, res.PostRun); diff != "" {
		t.Errorf("post-run notes (-want +got):\n%s", diff)
	}
}
