package workflows_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/workflows"
)

func startTask(name string, retries int) string {
	return `task "` + name + `" {
  start {
    retries = ` + string(rune('0'+retries)) + `
    check "editor" {
      window_title {
        contains = "Mousepad"
      }
    }
  }
  subtask "work" {
    instruction = "do it"
  }
}`
}

// TestSuiteStartState: a task whose first start fails its start check
// (a dialog in front) is reset and started again, and its good start is
// the run that is scored; a task that never starts right ends as
// harness_error (start state) after 1 + retries starts, with the screen
// of the last, and no agent step ever ran on a bad start.
func TestSuiteStartState(t *testing.T) {
	env := unitEnv(t)
	env.RegisterWorkflowWithOptions(workflows.SuiteWorkflow, workflow.RegisterOptions{Name: workflows.SuiteWorkflowName})
	var a *activities.Activities
	env.RegisterActivity(a.Reset)
	env.RegisterActivity(a.Observe)
	var mu sync.Mutex
	starts := map[string]int{} // task → start checks run
	decided := map[string]int{}
	resets := 0
	task := func(ctx context.Context) string {
		parts := strings.Split(activity.GetInfo(ctx).WorkflowExecution.ID, "/")
		return strings.Split(parts[1], "~")[0]
	}
	env.OnActivity(activities.CheckName, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.CheckInput) (*activities.CheckResult, error) {
			mu.Lock()
			defer mu.Unlock()
			t := task(ctx)
			starts[t]++
			if t == "never" || starts[t] == 1 {
				return &activities.CheckResult{Name: in.Name, Kind: "window_title", Detail: "no window title contains \"Mousepad\"; open: Restore session?"}, nil
			}
			return &activities.CheckResult{Name: in.Name, Kind: "window_title", Passed: true}, nil
		})
	env.OnActivity(activities.ObserveName, mock.Anything, mock.Anything).Return(
		&activities.ObserveResult{After: screen.Observation{Screenshot: "sha256-bad.png"}}, nil)
	env.OnActivity(activities.DecideName, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.DecideInput) (*activities.DecideResult, error) {
			mu.Lock()
			decided[task(ctx)]++
			mu.Unlock()
			return &activities.DecideResult{Action: screen.Action{Kind: screen.ActDone, Outputs: map[string]string{}}, Usage: screen.Usage{Calls: 1}}, nil
		})
	env.OnActivity(activities.ResetName, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.ResetInput) (*activities.ResetResult, error) {
			mu.Lock()
			resets++
			mu.Unlock()
			return &activities.ResetResult{Millis: 5}, nil
		})
	in := workflows.SuiteInput{Suite: "s", Devices: []string{"d1"}, Options: sequentialLoop}
	in.Tasks = append(in.Tasks, workflows.SuiteTask{Key: "flaky", Plan: ptr(mustPlan(t, startTask("flaky", 2)))},
		workflows.SuiteTask{Key: "never", Plan: ptr(mustPlan(t, startTask("never", 1)))})
	env.ExecuteWorkflow(workflows.SuiteWorkflowName, in)
	if !env.IsWorkflowCompleted() || env.GetWorkflowError() != nil {
		t.Fatalf("suite workflow: %v", env.GetWorkflowError())
	}
	var res workflows.SuiteResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	byKey := map[string]workflows.SuiteRun{}
	for _, r := range res.Runs {
		byKey[r.Key] = r
	}
	if r := byKey["flaky"]; r.Status != workflows.StatusSucceeded || r.BadStarts != 1 || !strings.HasPrefix(r.Retried, "start state: check editor failed") {
		t.Errorf("flaky = %s/%s, %d bad starts, retried after %q; want it succeeded on its second start", r.Status, r.Reason, r.BadStarts, r.Retried)
	}
	r := byKey["never"]
	if r.Reason != workflows.ReasonHarnessError || !strings.HasPrefix(r.Error, "start state: check editor failed") || r.BadStarts != 2 ||
		r.Result == nil || r.Result.StartScreenshot != "sha256-bad.png" {
		t.Errorf("never = %s/%s, %d bad starts: %s (result %+v); want harness_error (start state) after 2 starts, with the screenshot", r.Status, r.Reason, r.BadStarts, r.Error, r.Result)
	}
	if starts["flaky"] != 2 || starts["never"] != 2 {
		t.Errorf("start checks ran %v, want flaky 2 (a bad start, a good one) and never 2 (1 + retries)", starts)
	}
	if decided["never"] != 0 || decided["flaky"] != 1 {
		t.Errorf("the agent decided %v, want only on flaky's good start", decided)
	}
	if resets != 4 {
		t.Errorf("%d resets, want 4: one after each of the 4 starts", resets)
	}
}
