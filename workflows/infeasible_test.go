package workflows_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/mock"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/workflows"
)

// TestUnitInfeasible: a task declared infeasible succeeds when the agent
// calls fail, with SSR, CR and PC 1, and fails when the agent claims it
// done, with all of them 0.
func TestUnitInfeasible(t *testing.T) {
	const task = `task "t" {
  infeasible = true
  subtask "s" {
    instruction = "open the file in Photoshop"
  }
}`
	for _, tt := range []struct {
		action               screen.Action
		status, reason, text string
	}{
		{screen.Action{Kind: screen.ActFail, Reason: "there is no Photoshop on Linux"}, workflows.StatusSucceeded, workflows.ReasonInfeasible, "no Photoshop"},
		{screen.Action{Kind: screen.ActDone}, workflows.StatusFailed, workflows.ReasonNotInfeasible, "instead of calling fail"},
	} {
		t.Run(tt.action.Kind, func(t *testing.T) {
			env := unitEnv(t)
			env.OnActivity(activities.DecideName, mock.Anything, mock.Anything).Return(&activities.DecideResult{Action: tt.action}, nil)
			env.ExecuteWorkflow(workflows.InstructionWorkflowName, workflows.InstructionInput{Plan: mustPlan(t, task)})
			var res workflows.InstructionResult
			if err := env.GetWorkflowResult(&res); err != nil {
				t.Fatal(err)
			}
			if res.Status != tt.status || res.Reason != tt.reason || !strings.Contains(res.Error, tt.text) {
				t.Errorf("agent %s: status=%s reason=%s error=%q, want %s %s with %q", tt.action.Kind, res.Status, res.Reason, res.Error, tt.status, tt.reason, tt.text)
			}
			// The right answer earns every rate, the false "done" none: the
			// agent's fail leaves its subtask failed, the "done" succeeded.
			want := map[bool]float64{true: 1, false: 0}[tt.status == workflows.StatusSucceeded]
			if m := res.Metrics; m.SR != want || m.SSR != want || m.CR != want || m.PC != want {
				t.Errorf("agent %s: SR %v, SSR %v, CR %v, PC %v; want all %v", tt.action.Kind, m.SR, m.SSR, m.CR, m.PC, want)
			}
		})
	}
}
