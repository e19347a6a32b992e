package workflows_test

import (
	"context"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/internal/control"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/workflows"
)

// BenchmarkApprove measures what a person waits for after `pcflow
// approve`: finding the run's waiting subtask (progress queries) and the
// approve update's round trip, on the embedded server. Run with
// -benchtime=Nx (each op is one approved step).
func BenchmarkApprove(b *testing.B) {
	steps := make([]scripted.Step, 0, b.N+1)
	for range b.N {
		steps = append(steps, click("Delete"))
	}
	steps = append(steps, done(nil))
	p := &plan.Policy{Rules: []plan.PolicyRule{{Name: "confirm", Target: "^Delete$", Decision: plan.PolicyConfirm}}}
	env, _, run := personRun(b, "bench-approve", steps, p, "Delete")
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		deadline := time.Now().Add(time.Minute)
		for {
			subs, _ := control.Pending(ctx, env.Client, "bench-approve")
			if len(subs) == 1 && subs[0].Live.Waiting.Kind == workflows.WaitApproval && subs[0].Live.Step == i+1 {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("step %d never waited: %+v", i+1, subs)
			}
			time.Sleep(5 * time.Millisecond)
		}
		b.StartTimer()
		if _, _, err := control.Approve(ctx, env.Client, env.Signer(), "bench-approve", "", workflows.Approval{Approve: true}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	var res workflows.InstructionResult
	if err := run.Get(ctx, &res); err != nil || res.Reason != workflows.ReasonSuccess {
		b.Fatalf("run = %+v, %v", res, err)
	}
}
