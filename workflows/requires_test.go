package workflows_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/mock"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/workflows"
)

// TestUnitRequires: a task's required programs are looked up (for real, on
// this machine's PATH) on each device before setup; a missing one ends the
// run with a clear reason, and nothing else runs.
func TestUnitRequires(t *testing.T) {
	for _, tt := range []struct {
		programs string
		reason   string
		errHas   string
		setups   int
	}{
		{`["sh", "ls"]`, workflows.ReasonSuccess, "", 1},
		{`["sh", "pcflow-no-such-program"]`, workflows.ReasonMissingRequirement, "needs pcflow-no-such-program, which this device does not have", 0},
	} {
		t.Run(tt.programs, func(t *testing.T) {
			env := unitEnv(t)
			env.OnActivity(activities.RequiresName, mock.Anything, mock.Anything).Return(
				func(ctx context.Context, in activities.RequiresInput) error {
					return (&activities.Activities{}).Requires(ctx, in)
				})
			setups := 0
			env.OnActivity(activities.SetupName, mock.Anything, mock.Anything).Return(
				func(context.Context, activities.SetupInput) (*activities.SetupResult, error) {
					setups++
					return &activities.SetupResult{}, nil
				})
			env.OnActivity(activities.DecideName, mock.Anything, mock.Anything).Return(&activities.DecideResult{Action: screen.Action{Kind: screen.ActDone}}, nil)
			env.ExecuteWorkflow(workflows.InstructionWorkflowName, workflows.InstructionInput{Plan: mustPlan(t, `task "t" {
  requires = `+tt.programs+`
  setup "s" {
    command = ["true"]
  }
  subtask "x" {
    instruction = "do it"
  }
}`)})
			var res workflows.InstructionResult
			if err := env.GetWorkflowResult(&res); err != nil {
				t.Fatal(err)
			}
			if res.Reason != tt.reason || !strings.Contains(res.Error, tt.errHas) || setups != tt.setups {
				t.Errorf("reason=%s error=%q setups=%d, want %s with %q and %d setups", res.Reason, res.Error, setups, tt.reason, tt.errHas, tt.setups)
			}
		})
	}
}

// TestUnitPlatformRefused: a task whose device says platform = "windows",
// run on a worker whose device is linux, ends before setup with an error
// naming both platforms; the same task on a windows device runs, and a
// worker that does not say its platform takes any.
func TestUnitPlatformRefused(t *testing.T) {
	for _, tt := range []struct {
		served string // the worker's device's platform
		reason string
		errHas string
		setups int
	}{
		{"linux", workflows.ReasonMissingRequirement, `device desktop: task t: device desktop is windows (platform = "windows"), but the worker serving it drives a device of platform linux`, 0},
		{"windows", workflows.ReasonSuccess, "", 1},
		{"", workflows.ReasonSuccess, "", 1},
	} {
		t.Run("on "+tt.served, func(t *testing.T) {
			env := unitEnv(t)
			asked := 0
			env.OnActivity(activities.RequiresName, mock.Anything, mock.Anything).Return(
				func(ctx context.Context, in activities.RequiresInput) error {
					asked++
					return (&activities.Activities{Platform: tt.served}).Requires(ctx, in)
				})
			setups := 0
			env.OnActivity(activities.SetupName, mock.Anything, mock.Anything).Return(
				func(context.Context, activities.SetupInput) (*activities.SetupResult, error) {
					setups++
					return &activities.SetupResult{}, nil
				})
			env.OnActivity(activities.DecideName, mock.Anything, mock.Anything).Return(&activities.DecideResult{Action: screen.Action{Kind: screen.ActDone}}, nil)
			env.ExecuteWorkflow(workflows.InstructionWorkflowName, workflows.InstructionInput{Plan: mustPlan(t, `task "t" {
  device "desktop" {
    platform = "windows"
  }
  setup "s" {
    command = ["cmd", "/c", "echo"]
  }
  subtask "x" {
    instruction = "do it"
  }
}`)})
			var res workflows.InstructionResult
			if err := env.GetWorkflowResult(&res); err != nil {
				t.Fatal(err)
			}
			if res.Reason != tt.reason || !strings.Contains(res.Error, tt.errHas) || setups != tt.setups || asked != 1 {
				t.Errorf("reason=%s error=%q setups=%d platform asked %d times, want %s with %q, %d setups, asked once", res.Reason, res.Error, setups, asked, tt.reason, tt.errHas, tt.setups)
			}
		})
	}
}
