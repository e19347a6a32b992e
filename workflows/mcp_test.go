package workflows_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/control"
	"github.com/pcflow/pcflow/internal/enginetest"
	"github.com/pcflow/pcflow/specs/plan"
	pcworker "github.com/pcflow/pcflow/worker"
	"github.com/pcflow/pcflow/workflows"
)

// TestMCPActWaitsForApproval: an act a confirm rule holds waits for a
// person; internal/control finds it as a run's subtask (pcflow approve
// WORKFLOW), and once approved the device acts once. With -record its
// history becomes a replay fixture (testdata/pcflow.mcp.act.desk.r1.json).
func TestMCPActWaitsForApproval(t *testing.T) {
	env := enginetest.Start(t, scripted.Script{})
	dev := fakedevice.New("OK")
	env.Serve("desk", env.Activities(dev, "desk", env.ModelConfig()), false)
	w := sdkworker.New(env.Client, workflows.MCPQueue, sdkworker.Options{
		Interceptors: []interceptor.WorkerInterceptor{&pcworker.DecisionInterceptor{Key: env.DecisionKey}}})
	pcworker.RegisterMCP(w)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := workflows.MCPActWorkflowID("desk", "r1")
	pol := &plan.Policy{Rules: []plan.PolicyRule{{Name: "clicks_need_a_person", Kinds: []string{screen.ActClick}, Decision: plan.PolicyConfirm}}}
	run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: workflows.MCPQueue}, workflows.MCPActWorkflowName,
		workflows.MCPActInput{Device: "desk", RequestID: "r1", Action: screen.Action{Kind: screen.ActClick, X: 30, Y: 50}, Policy: pol})
	if err != nil {
		t.Fatal(err)
	}
	var s control.Subtask
	deadline := time.Now().Add(30 * time.Second)
	for {
		subs, err := control.Pending(ctx, env.Client, id)
		if err == nil && len(subs) == 1 {
			s = subs[0]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited 30 s for the act to wait for an approval: %v, %v", subs, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if s.Name != workflows.MCPActSubtask || s.Live.Waiting.Kind != workflows.WaitApproval || len(dev.Actions()) != 0 {
		t.Fatalf("pending = %+v, device acts %v; want the act waiting for an approval, nothing done", s, dev.Actions())
	}
	if _, _, err := control.Approve(ctx, env.Client, env.Signer(), id, "", workflows.Approval{Approve: true, By: "alice@desk"}); err != nil {
		t.Fatal(err)
	}
	var r workflows.MCPActResult
	if err := run.Get(ctx, &r); err != nil {
		t.Fatal(err)
	}
	if r.Outcome != activities.OutcomeDone || !strings.Contains(r.Person, "approved") || len(dev.Actions()) != 1 {
		t.Errorf("result = %+v, device acts %v; want done once, approved", r, dev.Actions())
	}
	if *record {
		saveHistories(t, env, id)
	}
}
