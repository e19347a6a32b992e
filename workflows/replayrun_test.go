package workflows_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/enginetest"
	"github.com/pcflow/pcflow/internal/replayrun"
	"github.com/pcflow/pcflow/specs"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/workflows"
)

const typeTask = `
variable "word" {
  default = "alpha"
}
task "typing" {
  max_steps = 40
  timeout   = "10m"
  subtask "s" {
    instruction = "Click A, type ${var.word} into the field, then click B."
  }
}`

// engine is the embedded engine with a fake device showing buttons and a
// focused text field.
type engine struct {
	env *enginetest.Env
	dev *fakedevice.Device
	// policy, when set, rules the next runs' actions.
	policy *plan.Policy
	// task is the task file run (default typeTask); prefill is what the
	// text field holds when a run starts (a setup that fills it in).
	task, prefill string
}

func newEngine(tb testing.TB, steps []scripted.Step, latency int) *engine {
	return newEngineWith(tb, steps, latency, nil, "A", "B")
}

// newEngineWith is newEngine with buttons of the given names, and the
// device's clock when not nil.
func newEngineWith(tb testing.TB, steps []scripted.Step, latency int, clock activities.Clock, buttons ...string) *engine {
	env := enginetest.Start(tb, scripted.Script{LatencyMS: latency, Subtasks: map[string]scripted.SubtaskScript{"s": {Steps: steps}}})
	dev := fakedevice.New(buttons...)
	dev.Elements = append(dev.Elements, screen.Element{ID: 3, Role: "text", Name: "field", States: []string{"focused"},
		Box: screen.Rect{X: 20, Y: 200, W: 300, H: 30}, Source: "a11y"})
	acts := env.Activities(dev, "desktop", env.ModelConfig())
	acts.Now = clock
	env.Serve("desktop", acts, true)
	return &engine{env: env, dev: dev}
}

// run runs the task with vars, replaying rp when set.
func (e *engine) run(tb testing.TB, id string, vars map[string]string, rp *workflows.Replay) *workflows.InstructionResult {
	tb.Helper()
	opts := specs.Options{Vars: vars}
	task := typeTask
	if e.task != "" {
		task = e.task
	}
	res, diags := specs.Parse("typing.hcl", []byte(task), opts)
	if diags.HasErrors() {
		tb.Fatal(diags)
	}
	res.Plan.Policy = e.policy
	e.dev.Elements[2].Value = e.prefill // a fresh field, or one filled in
	r, err := e.env.RunInput(context.Background(), id, workflows.InstructionInput{Plan: *res.Plan, Vars: res.Values, Replay: rp})
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

func typeSteps() []scripted.Step {
	return []scripted.Step{
		{Action: "click", Target: "A"},
		{Action: "type", Target: "field", FromInstruction: map[string]string{"text": `type (\S+) into`}},
		{Action: "click", Target: "B"},
		{Action: "done"},
	}
}

// TestReplayTypesNewValuesAndHandsOverOnDrift replays a run with another
// value of its variable (typed instead of the recorded one, no model
// request), then after a button moved (the agent takes over there).
func TestReplayTypesNewValuesAndHandsOverOnDrift(t *testing.T) {
	e := newEngine(t, typeSteps(), 0)
	r := e.run(t, "first", nil, nil)
	if r.Status != workflows.StatusSucceeded {
		t.Fatalf("first run: %+v", r)
	}
	rp, err := replayrun.Build(context.Background(), e.env.Client, e.env.Artifacts, "first", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := replayrun.Count(rp); n != 3 || !rp.Subtasks["s"].Done {
		t.Fatalf("the replay has %d steps (done %v), want 3 and done: %+v", n, rp.Subtasks["s"].Done, rp)
	}
	if tx := rp.Subtasks["s"].Steps[1].Texts[0]; len(tx) != 1 || tx[0].Var != "word" {
		t.Errorf("the typed text's template = %+v, want a reference to var.word", tx)
	}

	before := len(e.env.Model.Requests())
	acted := len(e.dev.Actions())
	r = e.run(t, "replayed", map[string]string{"word": "beta"}, rp)
	if r.Status != workflows.StatusSucceeded || r.Replayed != 3 || len(r.HandedOver) != 0 {
		t.Fatalf("replay: %+v", r)
	}
	if n := len(e.env.Model.Requests()) - before; n != 0 {
		t.Errorf("the replay made %d model requests, want 0", n)
	}
	typed := e.dev.Actions()[acted+1]
	if typed.Kind != "type" || typed.Text != "beta" {
		t.Errorf("the replay typed %+v, want beta", typed)
	}

	// B moved: the replay runs click A and the typing, then hands over.
	e.dev.Elements[1].Box.X += 200
	before = len(e.env.Model.Requests())
	r = e.run(t, "replay-drift", nil, rp)
	if r.Status != workflows.StatusSucceeded || r.Replayed != 2 || len(r.HandedOver) != 1 || !strings.Contains(r.HandedOver[0], "s step 3: ") ||
		!strings.Contains(r.HandedOver[0], "the window moved?") {
		t.Fatalf("replay after B moved: %+v", r)
	}
	for _, q := range e.env.Model.Requests()[before:] {
		if q.Role == "decision" && q.Step < 3 {
			t.Errorf("the agent decided step %d; the replay should have run steps 1 and 2", q.Step)
		}
	}
	if n := len(e.env.Model.Requests()) - before; n == 0 {
		t.Error("no model request after the handover")
	}
	// The policy rules replayed actions as any: clicking B is denied, the
	// replay hands over there, and B is never clicked.
	e.dev.Elements[1].Box.X -= 200
	e.policy = &plan.Policy{Rules: []plan.PolicyRule{{Name: "no_b", Target: "B", Decision: plan.PolicyDeny, Message: "B is off limits"}}}
	acted = len(e.dev.Actions())
	r = e.run(t, "denied", nil, rp)
	e.policy = nil
	if r.Replayed != 2 || len(r.HandedOver) != 1 || !strings.Contains(r.HandedOver[0], "denied") {
		t.Errorf("replay under a policy denying B: %+v", r)
	}
	for _, a := range e.dev.Actions()[acted:] {
		if a.Kind == "click" && a.Target == "B" {
			t.Errorf("the device clicked B, which the policy denies: %+v", a)
		}
	}
	if *record {
		// workflows.TestReplay replays these against the workflow code.
		saveHistories(t, e.env, "replay-drift", workflows.ChildID("replay-drift", "s"))
	}
}

// TestReplayHandsOverOnRenameAndOtherValue: the agent takes over, and
// the run succeeds, when a recorded target is in its place under another
// name (a relabelled button), and when the field typed into holds another
// value after the typing than the recording saw (a setup filled it in).
func TestReplayHandsOverOnRenameAndOtherValue(t *testing.T) {
	steps := []scripted.Step{
		{Action: "click", Target: "Open"},
		{Action: "type", Target: "field", FromInstruction: map[string]string{"text": `type (\S+) into`}},
		{Action: "click", Target: "Send"},
		{Action: "done"},
	}
	// A clock that runs fast: the device's patience with a drifted screen
	// (it observes again for 10 s before handing over) passes in moments.
	var mu sync.Mutex
	fake := time.Now()
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		fake = fake.Add(4 * time.Second)
		return fake
	}
	e := newEngineWith(t, steps, 0, clock, "Open", "Send")
	e.task = strings.NewReplacer("Click A", "Click Open", "click B", "click Send").Replace(typeTask)
	if r := e.run(t, "first", nil, nil); r.Status != workflows.StatusSucceeded {
		t.Fatalf("first run: %+v", r)
	}
	rp, err := replayrun.Build(context.Background(), e.env.Client, e.env.Artifacts, "first", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		change   func()
		replayed int
		drift    string
	}{
		{name: "renamed", change: func() { e.dev.Elements[1].Name = "Send now" },
			replayed: 2, drift: `is not on the screen; push button "Send now" is at its place`},
		{name: "prefilled", change: func() { e.dev.Elements[1].Name, e.prefill = "Send", "draft: " },
			replayed: 2, drift: `the recording's focused text held "alpha"; the focused text holds "draft: alpha"`},
	} {
		c.change()
		before, acted := len(e.env.Model.Requests()), len(e.dev.Actions())
		r := e.run(t, c.name, nil, rp)
		if r.Status != workflows.StatusSucceeded || r.Replayed != c.replayed || len(r.HandedOver) != 1 ||
			!strings.Contains(r.HandedOver[0], "s step 3: ") || !strings.Contains(r.HandedOver[0], c.drift) {
			t.Errorf("%s: replay = %+v, want %d steps replayed, then the agent from step 3 (%s), and success", c.name, r, c.replayed, c.drift)
		}
		reqs := e.env.Model.Requests()[before:]
		if len(reqs) == 0 {
			t.Errorf("%s: no model request after the handover", c.name)
		}
		for _, q := range reqs {
			if q.Role == "decision" && q.Step < 3 {
				t.Errorf("%s: the agent decided step %d; the replay should have run steps 1 and 2", c.name, q.Step)
			}
		}
		// The agent clicked the button it found on the screen.
		acts := e.dev.Actions()[acted:]
		if last := acts[len(acts)-1]; last.Kind != "click" || last.Target != e.dev.Elements[1].Name {
			t.Errorf("%s: the last action = %+v, want the agent's click on %q", c.name, last, e.dev.Elements[1].Name)
		}
	}
}

// BenchmarkReplayVsFirstRun runs a 20-step task with the scripted model at
// a fixed latency (1 s, as BenchmarkDurableVsInProcess), then replays it:
// the wall time of both, the ratio and the model requests of each.
func BenchmarkReplayVsFirstRun(b *testing.B) {
	var steps []scripted.Step
	for i := 0; i < 19; i++ {
		steps = append(steps, scripted.Step{Action: "click", Target: []string{"A", "B"}[i%2]})
	}
	steps = append(steps, scripted.Step{Action: "done"})
	e := newEngine(b, steps, 1000)
	var first, replay time.Duration
	var firstCalls, replayCalls int
	for i := 0; i < b.N; i++ {
		n := len(e.env.Model.Requests())
		start := time.Now()
		id := fmt.Sprintf("first-%d", i)
		if r := e.run(b, id, nil, nil); r.Status != workflows.StatusSucceeded {
			b.Fatalf("first run: %+v", r)
		}
		first += time.Since(start)
		firstCalls += len(e.env.Model.Requests()) - n
		rp, err := replayrun.Build(context.Background(), e.env.Client, e.env.Artifacts, id, nil)
		if err != nil {
			b.Fatal(err)
		}
		n = len(e.env.Model.Requests())
		start = time.Now()
		if r := e.run(b, fmt.Sprintf("replay-%d", i), nil, rp); r.Status != workflows.StatusSucceeded || r.Replayed != 19 {
			b.Fatalf("replay: %+v", r)
		}
		replay += time.Since(start)
		replayCalls += len(e.env.Model.Requests()) - n
	}
	nf := float64(b.N)
	b.ReportMetric(first.Seconds()/nf, "s/first-run")
	b.ReportMetric(replay.Seconds()/nf, "s/replay")
	b.ReportMetric(float64(first)/float64(replay), "speedup")
	b.ReportMetric(float64(firstCalls)/nf, "model-calls/first-run")
	b.ReportMetric(float64(replayCalls)/nf, "model-calls/replay")
}
