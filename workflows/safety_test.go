package workflows_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/testsuite"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/workflows"
)

// TestSafetyChecksNeedApproval: a provider's pending safety checks make
// the action wait for a person like a confirm rule; once approved the
// action runs and the next Decide acknowledges the checks. Rejected, the
// action does not run and nothing is acknowledged.
func TestSafetyChecksNeedApproval(t *testing.T) {
	checks := []activities.SafetyCheck{{ID: "cu_sc_1", Code: "malicious_instructions", Message: "the screen may carry instructions"}}
	for _, approve := range []bool{true, false} {
		env := unitEnv(t)
		var mu sync.Mutex
		var acted []string
		var acked [][]activities.SafetyCheck
		env.OnActivity(activities.DecideName, mock.Anything, mock.Anything).Return(
			func(_ context.Context, in activities.DecideInput) (*activities.DecideResult, error) {
				mu.Lock()
				defer mu.Unlock()
				acked = append(acked, in.Acknowledged)
				if in.Step == 1 {
					return &activities.DecideResult{Action: screen.Action{Kind: screen.ActClick, X: 5, Y: 5}, SafetyChecks: checks,
						Observation: screen.Observation{Annotated: "sha256-before"}}, nil
				}
				return &activities.DecideResult{Action: screen.Action{Kind: screen.ActDone}}, nil
			})
		env.OnActivity(activities.ActName, mock.Anything, mock.Anything).Return(
			func(_ context.Context, in activities.ActInput) (*activities.ActResult, error) {
				mu.Lock()
				defer mu.Unlock()
				acted = append(acted, in.Action.Summary())
				return &activities.ActResult{Outcome: activities.OutcomeDone}, nil
			})
		env.OnActivity(activities.ReflectName, mock.Anything, mock.Anything).Return(&activities.ReflectResult{Verdict: screen.VerdictCorrect}, nil)
		env.OnActivity(activities.ProgressName, mock.Anything, mock.Anything).Return(&activities.ProgressResult{Summary: "ok"}, nil)
		var waiting *workflows.Waiting
		env.RegisterDelayedCallback(func() {
			v, err := env.QueryWorkflow(workflows.ProgressQuery)
			if err != nil {
				t.Error(err)
				return
			}
			var live workflows.SubtaskLive
			_ = v.Get(&live)
			waiting = live.Waiting
			env.UpdateWorkflow(workflows.ApproveUpdate, "u1", &testsuite.TestUpdateCallback{
				OnReject: func(err error) { t.Errorf("approve rejected: %v", err) },
				OnAccept: func() {}, OnComplete: func(any, error) {},
			}, workflows.Approval{Approve: approve, By: "fay@desk", Reason: "looks odd"})
		}, time.Minute)
		env.ExecuteWorkflow(workflows.SubtaskWorkflowName, workflows.SubtaskInput{
			Subtask: plan.Subtask{Name: "s", Device: "desktop", MaxSteps: 5}, Instruction: "click it", Loop: plan.LoopSequential,
			Deadline: time.Now().Add(time.Hour),
		})
		var res workflows.SubtaskResult
		if err := env.GetWorkflowResult(&res); err != nil {
			t.Fatal(err)
		}
		if res.Reason != workflows.ReasonSuccess {
			t.Fatalf("approve=%v: run = %s (%s)", approve, res.Reason, res.Error)
		}
		if waiting == nil || waiting.Kind != workflows.WaitApproval || waiting.Rule != "safety check: malicious_instructions: the screen may carry instructions" ||
			waiting.Screenshot != "sha256-before" {
			t.Errorf("approve=%v: waiting = %+v, want an approval for the safety check", approve, waiting)
		}
		wantActed, wantAck := []string{"click (5,5)"}, checks
		if !approve {
			wantActed, wantAck = nil, nil
		}
		if diff := cmp.Diff(wantActed, acted); diff != "" {
			t.Errorf("approve=%v: acted (-want +got):\n%s", approve, diff)
		}
		if len(acked) != 2 || acked[0] != nil {
			t.Fatalf("approve=%v: %d decisions, acknowledged %v", approve, len(acked), acked)
		}
		if diff := cmp.Diff(wantAck, acked[1]); diff != "" {
			t.Errorf("approve=%v: second Decide acknowledged (-want +got):\n%s", approve, diff)
		}
	}
}
