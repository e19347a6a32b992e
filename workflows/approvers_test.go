package workflows_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/testsuite"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/workflows"
)

// TestOnlyApproversDecide: with approvers configured, an approval from a
// person not on the list (or on it by name with another uid) is refused
// and the action keeps waiting; the listed person's approval runs it and is
// recorded under their name.
func TestOnlyApproversDecide(t *testing.T) {
	env := unitEnv(t)
	var mu sync.Mutex
	var acted []string
	var person string
	env.OnActivity(activities.DecideName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.DecideInput) (*activities.DecideResult, error) {
			if in.Step == 1 {
				return &activities.DecideResult{Action: screen.Action{Kind: screen.ActClick, X: 5, Y: 5},
					SafetyChecks: []activities.SafetyCheck{{ID: "sc", Code: "c", Message: "m"}}}, nil
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
	env.OnActivity(activities.ProgressName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.ProgressInput) (*activities.ProgressResult, error) {
			mu.Lock()
			defer mu.Unlock()
			if in.Person != "" {
				person = in.Person
			}
			return &activities.ProgressResult{Summary: "ok"}, nil
		})
	var rejected []string
	send := func(id string, ap workflows.Approval, wantAccepted bool) {
		env.UpdateWorkflow(workflows.ApproveUpdate, id, &testsuite.TestUpdateCallback{
			OnReject: func(err error) {
				rejected = append(rejected, err.Error())
				if wantAccepted {
					t.Errorf("approval by %s (uid %s) rejected: %v", ap.By, ap.UID, err)
				}
			},
			OnAccept: func() {
				if !wantAccepted {
					t.Errorf("approval by %s (uid %s) accepted, want it refused", ap.By, ap.UID)
				}
			},
			OnComplete: func(any, error) {},
		}, ap)
	}
	env.RegisterDelayedCallback(func() {
		send("u1", workflows.Approval{Approve: true, By: "someone@desk", UID: "65534"}, false)
		send("u2", workflows.Approval{Approve: true, By: "fay@desk", UID: "65534"}, false)
		send("u3", workflows.Approval{Approve: true, By: "", UID: ""}, false)
		send("u4", workflows.Approval{Approve: true, By: "fay@desk", UID: "1001"}, true)
	}, time.Minute)
	env.ExecuteWorkflow(workflows.SubtaskWorkflowName, workflows.SubtaskInput{
		Subtask: plan.Subtask{Name: "s", Device: "desktop", MaxSteps: 5}, Instruction: "click it", Loop: plan.LoopSequential,
		Deadline: time.Now().Add(time.Hour), Options: workflows.Options{Approvers: []string{"fay=1001", "gus"}},
	})
	var res workflows.SubtaskResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if res.Reason != workflows.ReasonSuccess || len(acted) != 1 {
		t.Fatalf("run = %s (%s), acted %v; want success after fay's approval", res.Reason, res.Error, acted)
	}
	if len(rejected) != 3 || !strings.Contains(rejected[0], "someone@desk (uid 65534) is not an approver of this run") || !strings.Contains(rejected[0], "fay=1001, gus") {
		t.Errorf("refusals = %q, want three naming the person and the approvers", rejected)
	}
	if !strings.HasPrefix(person, "fay@desk approved") {
		t.Errorf("recorded person = %q, want fay@desk's approval", person)
	}
}

func TestCheckApprover(t *testing.T) {
	for _, tc := range []struct {
		approvers []string
		by, uid   string
		ok        bool
	}{
		{nil, "anyone@h", "7", true},
		{[]string{"fay"}, "fay@h", "7", true},
		{[]string{"fay"}, "fay", "", true},
		{[]string{"fay=1001"}, "fay@h", "1001", true},
		{[]string{"fay=1001"}, "fay@h", "7", false},
		{[]string{"fay"}, "fayx@h", "7", false},
		{[]string{"fay"}, "view page", "", false},
		{[]string{"a@b"}, "a@b@h", "", true},
	} {
		err := workflows.CheckApprover(tc.approvers, tc.by, tc.uid)
		if (err == nil) != tc.ok {
			t.Errorf("CheckApprover(%q, %q, %q) = %v, want ok=%v", tc.approvers, tc.by, tc.uid, err, tc.ok)
		}
	}
}
