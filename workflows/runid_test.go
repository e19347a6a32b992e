package workflows_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/internal/enginetest"
	"github.com/pcflow/pcflow/workflows"
)

// TestReusedRunIDActsAgain starts two runs under one workflow id (pcflow
// run --id X twice): the second run's actions are executed on the device,
// not answered from the first run's entries in the action log.
func TestReusedRunIDActsAgain(t *testing.T) {
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{
		"s": {Steps: []scripted.Step{click("A"), click("B"), done(map[string]any{"v": "1"})}}}})
	dev := fakedevice.New("A", "B")
	env.Serve("desktop", env.Activities(dev, "desktop", env.ModelConfig()), true)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for i := 1; i <= 2; i++ {
		res, err := env.Run(ctx, "same-id", mustPlan(t, oneSubtask), workflows.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != workflows.StatusSucceeded {
			t.Fatalf("run %d = %s/%s (%s)", i, res.Status, res.Reason, res.Error)
		}
		if got, want := strings.Join(summaries(dev.Actions()), "|"), strings.Repeat(`|click #1 "A"|click #2 "B"`, i)[1:]; got != want {
			t.Fatalf("after run %d the device executed %q, want %q", i, got, want)
		}
	}
}
