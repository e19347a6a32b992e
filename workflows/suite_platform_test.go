package workflows_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/workflow"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/workflows"
)

// TestSuiteMatchesPlatforms: in a pool of a linux and a windows device
// (as their workers say), a windows task runs on the windows device and a
// linux task on the linux one, whatever the order they are free in; an
// android task, which no device of the pool can run, fails at once naming
// the pool's platforms.
func TestSuiteMatchesPlatforms(t *testing.T) {
	env := unitEnv(t)
	env.RegisterWorkflowWithOptions(workflows.SuiteWorkflow, workflow.RegisterOptions{Name: workflows.SuiteWorkflowName})
	var a *activities.Activities
	env.RegisterActivity(a.Reset)
	env.OnActivity(activities.DecideName, mock.Anything, mock.Anything).Return(&activities.DecideResult{Action: screen.Action{Kind: screen.ActDone}}, nil)
	env.OnActivity(activities.ResetName, mock.Anything, mock.Anything).Return(&activities.ResetResult{}, nil)
	platforms := map[string]string{"pc": "linux", "win": "windows"}
	env.OnActivity(activities.RequiresName, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.RequiresInput) error {
			// The worker of the device the task was bound to.
			served := platforms[strings.TrimPrefix(activity.GetInfo(ctx).TaskQueue, "device.")]
			return (&activities.Activities{Platform: served}).Requires(ctx, in)
		})
	task := func(name, platform string) *workflows.SuiteTask {
		p := mustPlan(t, `task "`+name+`" {
  device "desktop" {
    platform = "`+platform+`"
  }
  subtask "x" {
    instruction = "do it"
  }
}`)
		return &workflows.SuiteTask{Key: name, Plan: &p}
	}
	in := workflows.SuiteInput{Suite: "s", Devices: []string{"pc", "win"}, Platforms: platforms, Tasks: []workflows.SuiteTask{
		*task("notepad", "windows"), *task("phone", "android"), *task("gedit", "linux"), *task("paint", "windows"),
	}}
	env.ExecuteWorkflow(workflows.SuiteWorkflowName, in)
	var res workflows.SuiteResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Runs {
		switch r.Key {
		case "phone":
			if r.Status != workflows.StatusFailed || r.Reason != workflows.ReasonMissingRequirement || !strings.Contains(r.Error, "needs 1 android device(s) and the pool has 0 working (pc is linux, win is windows)") || len(r.Devices) != 0 {
				t.Errorf("phone = %s/%s %q on %v, want it failed at once naming the pool's platforms", r.Status, r.Reason, r.Error, r.Devices)
			}
		default:
			want := map[string]string{"notepad": "win", "gedit": "pc", "paint": "win"}[r.Key]
			if r.Status != workflows.StatusSucceeded || r.Devices["desktop"] != want {
				t.Errorf("%s = %s/%s %q on %v, want succeeded on %s", r.Key, r.Status, r.Reason, r.Error, r.Devices, want)
			}
		}
	}
}
