package x11

import (
	"context"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/internal/enginetest"
	"github.com/pcflow/pcflow/specs"
	"github.com/pcflow/pcflow/workflows"
)

// TestDeviceJudgesAClickThatDidNothing runs a task on galculator through
// the real engine (Temporal, the activities, the scripted model over
// HTTP). Its first click is on MR, disabled while the memory is empty:
// nothing on the screen or in the element tree changes, and the device
// says no_effect without asking the Reflection agent (the scripted server
// counts its requests). The agent goes on and computes 7 + 2; those
// clicks change the display, and the Reflection agent judges them.
func TestDeviceJudgesAClickThatDidNothing(t *testing.T) {
	dev := desktop(t)
	app(t, dev, "galculator", "galculator")
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{"add": {Steps: []scripted.Step{
		{Thought: "Recall the memory.", Action: "click", Target: "MR", RedoFrom: 2},
		{Action: "click", Target: "7"},
		{Action: "click", Target: "+"},
		{Action: "click", Target: "2"},
		{Action: "click", Target: "="},
		{Action: "done", Read: map[string]scripted.Probe{"sum": {Role: "text", Pattern: `^(\d+)$`}}},
	}}}})
	env.Serve("desktop", env.Activities(dev, "desktop", env.ModelConfig()), true)
	res, diags := specs.Parse("add.hcl", []byte(`task "add" {
  max_steps = 10
  subtask "add" {
    instruction = "In the calculator, compute 7 + 2 by clicking its buttons, then report the number shown."
    output "sum" {}
  }
}`), specs.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := env.Run(ctx, "device-verdict", *res.Plan, workflows.Options{})
	if err != nil || out.Reason != workflows.ReasonSuccess {
		t.Fatalf("run: %v %+v", err, out)
	}
	s := out.Subtasks[0]
	if s.Outputs["sum"] != "9" {
		t.Errorf("sum = %q, want 9", s.Outputs["sum"])
	}
	reflections := 0
	for _, r := range env.Model.Requests() {
		if r.Role == agent.RoleReflection {
			reflections++
		}
	}
	// Five clicks: MR judged by the device, the four others by the model.
	if s.Judged[activities.ByDevice] != 1 || s.Judged[activities.ByModel] != 4 || reflections != 4 || s.Verdicts["no_effect"] != 1 {
		t.Errorf("judged %v, verdicts %v, %d Reflection requests: want MR's no_effect from the device and 4 Reflection requests for the rest",
			s.Judged, s.Verdicts, reflections)
	}
}
