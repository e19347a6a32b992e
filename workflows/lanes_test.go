package workflows_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/internal/enginetest"
	"github.com/pcflow/pcflow/worker"
	"github.com/pcflow/pcflow/workflows"
)

// TestRunsOnOwnQueuesNeverMix runs two tasks at once on one server, both
// on a device called "desktop", each served by its own worker on queues of
// its own (Options.Queue for workflows and model calls, Options.Bind for
// the device): every action lands on its own run's device.
func TestRunsOnOwnQueuesNeverMix(t *testing.T) {
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{
		"one": {Steps: []scripted.Step{click("A"), click("B"), done(nil)}},
		"two": {Steps: []scripted.Step{click("C"), click("D"), done(nil)}},
	}})
	devs := map[string]*fakedevice.Device{"r1": fakedevice.New("A", "B"), "r2": fakedevice.New("C", "D")}
	plans := map[string]string{"r1": "one", "r2": "two"}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	runs := map[string]client.WorkflowRun{}
	for _, id := range []string{"r1", "r2"} {
		queue, physical := workflows.TaskQueue+"@"+id, "desktop@"+id
		w, err := worker.New(worker.Config{Client: env.Client, Device: physical, Workflows: true, Queue: queue, DecisionKey: env.DecisionKey,
			Activities: env.Activities(devs[id], id, env.ModelConfig())})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.Stop)
		p := mustPlan(t, `task "t" {
  subtask "`+plans[id]+`" {
    instruction = "press the buttons"
  }
}`)
		o := workflows.Options{Queue: queue, Bind: map[string]string{"desktop": physical}}
		run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue},
			workflows.InstructionWorkflowName, workflows.InstructionInput{Plan: p, Options: o})
		if err != nil {
			t.Fatal(err)
		}
		runs[id] = run
	}
	want := map[string]string{"r1": `click #1 "A"|click #2 "B"`, "r2": `click #1 "C"|click #2 "D"`}
	for _, id := range []string{"r1", "r2"} {
		var res workflows.InstructionResult
		if err := runs[id].Get(ctx, &res); err != nil {
			t.Fatal(err)
		}
		if res.Status != workflows.StatusSucceeded {
			t.Errorf("run %s = %s/%s (%s)", id, res.Status, res.Reason, res.Error)
		}
		if got := strings.Join(summaries(devs[id].Actions()), "|"); got != want[id] {
			t.Errorf("run %s's device executed %q, want %q", id, got, want[id])
		}
	}
}
