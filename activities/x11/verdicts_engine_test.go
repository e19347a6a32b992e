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
	s, reflections := verdictRun(t, dev, "add", []scripted.Step{
		{Thought: "Recall the memory.", Action: "click", Target: "MR", RedoFrom: 2},
		{Action: "click", Target: "7"},
		{Action: "click", Target: "+"},
		{Action: "click", Target: "2"},
		// The display shows 9 once the sum is done; on a loaded machine
		// galculator can take a click late or lose one: then the sum is
		// done again from 7, as an agent reading the display would.
		{Action: "click", Target: "=", Expect: &scripted.Probe{Role: "text", Pattern: `^9$`}, RedoFrom: 2},
		{Action: "done", Read: map[string]scripted.Probe{"sum": {Role: "text", Pattern: `^(\d+)$`}}},
	}, `task "add" {
  max_steps = 10
  subtask "add" {
    instruction = "In the calculator, compute 7 + 2 by clicking its buttons, then report the number shown."
    output "sum" {}
  }
}`)
	if s.Outputs["sum"] != "9" {
		t.Errorf("sum = %q, want 9", s.Outputs["sum"])
	}
	// Five clicks: MR judged by the device, the four others by the model
	// (four more for each time the sum was done again, after "=" changed
	// nothing the model could see).
	again := (reflections - 4) / 4
	if s.Judged[activities.ByDevice] != 1 || s.Judged[activities.ByModel] != reflections || reflections < 4 || reflections%4 != 0 ||
		s.Verdicts["no_effect"] != 1+again {
		t.Errorf("judged %v, verdicts %v, %d Reflection requests: want MR's no_effect from the device and 4 Reflection requests for the rest",
			s.Judged, s.Verdicts, reflections)
	}
}

// TestDeviceSeesTheExpectedElementAppear runs a task on Mousepad: a click
// on the File menu, and it opens (its items appear); a click on "Save
// As...", and the dialog of that name comes to the front. The device says
// correct to both without asking the Reflection agent. The agent then
// waits until the dialog lists its Cancel button (a busy machine can take
// seconds to build the file chooser, whose tree is missing meanwhile), and
// clicks it: the wait and the click, whose effects the device cannot
// tell, go to the Reflection agent.
func TestDeviceSeesTheExpectedElementAppear(t *testing.T) {
	dev := desktop(t)
	app(t, dev, "Mousepad", "mousepad")
	s, reflections := verdictRun(t, dev, "saveas", []scripted.Step{
		{Thought: "Open the File menu.", Action: "click", Target: "File", Role: "menu"},
		{Action: "click", Target: "Save As...", Role: "menu item"},
		{Thought: "Let the dialog come up.", Action: "wait", Args: map[string]any{"seconds": 1},
			Expect: &scripted.Probe{Role: "push button", Pattern: "^Cancel$"}, RedoFrom: 3},
		{Action: "click", Target: "Cancel", Role: "push button"},
		{Action: "done"},
	}, `task "saveas" {
  max_steps = 10
  subtask "saveas" {
    instruction = "Open the editor's Save As dialog from its File menu, then cancel it."
  }
}`)
	// The model judges the waits (one, or more while the dialog builds)
	// and Cancel; every wait but the last one changed nothing.
	waits := s.Judged[activities.ByModel] - 1
	if s.Judged[activities.ByDevice] != 2 || waits < 1 || reflections != waits+1 || s.Verdicts["correct"] != 4 || s.Verdicts["no_effect"] != waits-1 {
		t.Errorf("judged %v, verdicts %v, %d Reflection requests: want the menu and the dialog judged correct by the device, the waits and Cancel by the model",
			s.Judged, s.Verdicts, reflections)
	}
}

// verdictRun runs a one-subtask task on dev through the real engine with
// the scripted model: the subtask's result and how many Reflection
// requests the model had.
func verdictRun(t *testing.T, dev *Device, name string, steps []scripted.Step, task string) (workflows.SubtaskResult, int) {
	t.Helper()
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{name: {Steps: steps}}})
	env.Serve("desktop", env.Activities(dev, "desktop", env.ModelConfig()), true)
	res, diags := specs.Parse(name+".hcl", []byte(task), specs.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := env.Run(ctx, "device-verdict-"+name, *res.Plan, workflows.Options{})
	if err != nil || out.Reason != workflows.ReasonSuccess {
		t.Fatalf("run: %v %+v", err, out)
	}
	reflections := 0
	for _, r := range env.Model.Requests() {
		if r.Role == agent.RoleReflection {
			reflections++
		}
	}
	return out.Subtasks[0], reflections
}
