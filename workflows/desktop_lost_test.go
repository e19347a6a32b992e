package workflows_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/mock"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/workflows"
)

const launchTask = `task "calc" {
  setup "open" {
    launch          = ["galculator"]
    wait_for_window = "galculator"
  }
  subtask "work" {
    instruction = "compute 12 x 7"
  }
}`

// TestDesktopLostIsTheHarnesss: a run whose agent fails on an empty
// desktop that a worker started again since the setup shows (its X server
// died and came back without the calculator) ends as harness_error
// (desktop lost), not agent_failed; the same failure on the setup's own
// desktop (the agent closed the calculator itself) stays the agent's.
func TestDesktopLostIsTheHarnesss(t *testing.T) {
	for _, tt := range []struct {
		name, session string
		windows       []string
		reason        string
	}{
		{"another session, empty", "s2", nil, workflows.ReasonHarnessError},
		{"the setup's session, empty", "s1", nil, workflows.ReasonAgentFailed},
		{"another session, a window", "s2", []string{"galculator"}, workflows.ReasonAgentFailed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := unitEnv(t)
			var a *activities.Activities
			env.RegisterActivity(a.Observe)
			env.OnActivity(activities.SetupName, mock.Anything, mock.Anything).Return(&activities.SetupResult{Session: "s1"}, nil)
			env.OnActivity(activities.DecideName, mock.Anything, mock.Anything).Return(
				&activities.DecideResult{Action: screen.Action{Kind: screen.ActFail, Reason: "no calculator buttons among 0 elements"}}, nil)
			env.OnActivity(activities.ObserveName, mock.Anything, mock.Anything).Return(
				&activities.ObserveResult{Session: tt.session, After: screen.Observation{Windows: tt.windows}}, nil)
			env.ExecuteWorkflow(workflows.InstructionWorkflowName, workflows.InstructionInput{Options: sequentialLoop, Plan: mustPlan(t, launchTask)})
			if !env.IsWorkflowCompleted() || env.GetWorkflowError() != nil {
				t.Fatalf("workflow: %v", env.GetWorkflowError())
			}
			var res workflows.InstructionResult
			if err := env.GetWorkflowResult(&res); err != nil {
				t.Fatal(err)
			}
			if res.Reason != tt.reason {
				t.Errorf("reason = %s (%s), want %s", res.Reason, res.Error, tt.reason)
			}
			if tt.reason == workflows.ReasonHarnessError && (!strings.HasPrefix(res.Error, "desktop lost: device desktop shows an empty desktop") || !strings.Contains(res.Error, "0 elements")) {
				t.Errorf("error = %q, want the lost desktop and the run's own failure", res.Error)
			}
		})
	}
}
