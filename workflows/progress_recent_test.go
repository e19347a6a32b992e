package workflows_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/mock"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/workflows"
)

// TestProgressKeepsRecentSteps: the subtask's progress query lists its
// last finished steps with their verdicts, so `pcflow run`, looking
// twice a second, shows every step, the last ones before the subtask
// ends too.
func TestProgressKeepsRecentSteps(t *testing.T) {
	env := unitEnv(t)
	env.OnActivity(activities.DecideName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.DecideInput) (*activities.DecideResult, error) {
			if in.Step <= 3 {
				return &activities.DecideResult{Action: screen.Action{Kind: screen.ActClick, X: 10 * in.Step, Y: 5}}, nil
			}
			return &activities.DecideResult{Action: screen.Action{Kind: screen.ActDone}}, nil
		})
	env.OnActivity(activities.ActName, mock.Anything, mock.Anything).Return(&activities.ActResult{Outcome: activities.OutcomeDone}, nil)
	verdicts := []string{screen.VerdictCorrect, screen.VerdictNoEffect, screen.VerdictCorrect}
	n := 0
	env.OnActivity(activities.ReflectName, mock.Anything, mock.Anything).Return(
		func(context.Context, activities.ReflectInput) (*activities.ReflectResult, error) {
			n++
			return &activities.ReflectResult{Verdict: verdicts[n-1]}, nil
		})
	env.OnActivity(activities.ProgressName, mock.Anything, mock.Anything).Return(&activities.ProgressResult{Summary: "ok"}, nil)
	env.ExecuteWorkflow(workflows.SubtaskWorkflowName, workflows.SubtaskInput{
		Subtask: plan.Subtask{Name: "s", Device: "desktop", MaxSteps: 6}, Instruction: "click three times", Loop: plan.LoopSequential,
		Deadline: time.Now().Add(time.Hour),
	})
	var res workflows.SubtaskResult
	if err := env.GetWorkflowResult(&res); err != nil || res.Reason != workflows.ReasonSuccess {
		t.Fatalf("run = %+v, %v", res, err)
	}
	v, err := env.QueryWorkflow(workflows.ProgressQuery)
	if err != nil {
		t.Fatal(err)
	}
	var live workflows.SubtaskLive
	if err := v.Get(&live); err != nil {
		t.Fatal(err)
	}
	var want []workflows.StepSeen
	for i, verdict := range verdicts {
		want = append(want, workflows.StepSeen{Step: i + 1, Action: fmt.Sprintf("click (%d,5)", 10*(i+1)), Verdict: verdict})
	}
	if diff := cmp.Diff(want, live.Recent); diff != "" {
		t.Errorf("recent steps (-want +got):\n%s", diff)
	}
}
