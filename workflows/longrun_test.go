package workflows_test

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/converter"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/enginetest"
	"github.com/pcflow/pcflow/workflows"
)

// typingScript is n steps: n-1 each typing its own word ("w1 ", "w2 ",
// ...) into the focused field, then done. Step k's Progress answer
// remembers 24·k characters ("m<k>" padded, 2k times), as a model that
// appends to its memory instead of rewriting it would.
func typingScript(n int) []scripted.Step {
	var steps []scripted.Step
	for k := 1; k < n; k++ {
		s := step("type", map[string]any{"text": fmt.Sprintf("w%d ", k)})
		s.Memory = strings.Repeat(fmt.Sprintf("m%-10d ", k), 2*k)
		steps = append(steps, s)
	}
	return append(steps, done(nil))
}

// typingDevice is a device with a focused text field, which a type action
// fills.
func typingDevice() *fakedevice.Device {
	dev := fakedevice.New("A", "B")
	dev.Elements = append(dev.Elements, screen.Element{ID: 3, Role: "text", Name: "Field", States: []string{"focused"},
		Box: screen.Rect{X: 20, Y: 120, W: 300, H: 30}, Source: "a11y"})
	return dev
}

func typedWords(n int) string {
	var b strings.Builder
	for k := 1; k < n; k++ {
		fmt.Fprintf(&b, "w%d ", k)
	}
	return b.String()
}

func longTask(steps, maxTokens int) string {
	tokens := ""
	if maxTokens > 0 {
		tokens = fmt.Sprintf("max_tokens = %d", maxTokens)
	}
	return fmt.Sprintf(`task "long" {
  max_steps = %d
  timeout   = "2h"
  %s
  subtask "s" {
    instruction = "type the words, one a step"
  }
}`, steps, tokens)
}

// TestLongRunAcrossContinueAsNew runs a 90-step subtask that continues as
// new every couple of dozen steps, on the real server: every run's history
// stays under the threshold plus one step, the words typed come out once
// each and in order (the place in the script, kept in the Progress
// summary, survives every continue-as-new), the memory of the last step
// reaches the Progress agent, the Progress prompt stays flat although the
// model's memory grows by 12 characters a step, and a token budget set at
// 40% of what the run spent stops a second run mid-way across its
// continue-as-new boundaries.
func TestLongRunAcrossContinueAsNew(t *testing.T) {
	t.Parallel() // its own server (enginetest.Start); much of it waits
	const steps, threshold = 90, 600
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{"s": {Steps: typingScript(steps)}}})
	dev := typingDevice()
	env.Serve("desktop", env.Activities(dev, "desktop", env.ModelConfig()), true)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := env.Run(ctx, "long", mustPlan(t, longTask(steps+10, 0)), workflows.Options{ContinueAsNewEvents: threshold})
	if err != nil || res.Reason != workflows.ReasonSuccess || res.Steps != steps {
		t.Fatalf("run = %+v, %v; want success after %d steps", res, err, steps)
	}
	if got, want := dev.Elements[2].Value, typedWords(steps); got != want {
		t.Errorf("the field holds %q,\nwant %q: a step was lost or repeated across continue-as-new", got, want)
	}
	runs, events, _, _, _ := runHistories(t, env, workflows.ChildID("long", "s"))
	perRun := eventsPerRun(t, env, workflows.ChildID("long", "s"))
	if runs < 3 {
		t.Errorf("the subtask ran as %d runs, want ≥ 3 (continue-as-new at %d events)", runs, threshold)
	}
	for i, n := range perRun {
		if n > threshold+40 {
			t.Errorf("run %d of the subtask has %d events, want ≤ %d (the threshold and one step)", i+1, n, threshold+40)
		}
	}
	t.Logf("%d steps in %d runs, %d events (%v per run), %d tokens", res.Steps, runs, events, perRun, res.Usage.Total())

	// What the Progress agent was sent, step by step: the memory of a
	// step just before (across continue-as-new too), in a prompt whose
	// size stops growing once the memory reaches its bound.
	prompt := map[int]int{}
	for _, r := range env.Model.Requests() {
		if r.Role != agent.RoleProgress || r.Subtask != "s" || r.Turn == nil {
			continue
		}
		prompt[r.Step] = len(r.Text)
		if r.Step < 4 {
			continue
		}
		recent := false
		for k := r.Step - 3; k < r.Step; k++ {
			recent = recent || strings.Contains(r.Turn.Memory, fmt.Sprintf("m%-10d", k))
		}
		if !recent {
			t.Errorf("the Progress agent at step %d was given the memory %.40q…, not that of one of the 3 steps before", r.Step, r.Turn.Memory)
		}
	}
	lo, hi := 1<<30, 0
	for s := 40; s < steps; s++ {
		lo, hi = min(lo, prompt[s]), max(hi, prompt[s])
	}
	if lo == 0 || hi-lo > 64 {
		t.Errorf("Progress prompt from step 40 to %d: %d to %d bytes, want flat (within 64 bytes) while the memory the model answers grows by 24 bytes a step",
			steps-1, lo, hi)
	}
	t.Logf("Progress prompt: %d bytes at step 10, %d–%d bytes at steps 40–%d", prompt[10], lo, hi, steps-1)

	// The budget counts every run's tokens.
	budget := res.Usage.Total() * 4 / 10
	dev.Elements[2].Value = ""
	res2, err := env.Run(ctx, "budget", mustPlan(t, longTask(steps+10, budget)), workflows.Options{ContinueAsNewEvents: threshold})
	if err != nil || res2.Reason != workflows.ReasonBudgetExceeded {
		t.Fatalf("run with max_tokens = %d: %+v, %v; want budget_exceeded", budget, res2, err)
	}
	runs2, _, _, _, _ := runHistories(t, env, workflows.ChildID("budget", "s"))
	if runs2 < 2 || res2.Steps < steps/5 || res2.Steps > steps*3/5 {
		t.Errorf("budget run stopped after %d steps in %d runs, want about 40%% of %d steps across ≥ 2 runs", res2.Steps, runs2, steps)
	}
}

// eventsPerRun counts the history events of every run of a workflow id.
func eventsPerRun(t testing.TB, env *enginetest.Env, id string) []int {
	var out []int
	for _, h := range runEvents(t, env, id) {
		out = append(out, len(h))
	}
	return out
}

var reStepSummary = regexp.MustCompile(`^step (\d+):`)

// runEvents reads every run's history of a workflow id, oldest run first.
func runEvents(t testing.TB, env *enginetest.Env, id string) [][]event {
	t.Helper()
	ctx := context.Background()
	resp, err := env.Client.ListWorkflow(ctx, listReq("WorkflowId = '"+id+"'"))
	if err != nil {
		t.Fatal(err)
	}
	exs := resp.Executions
	sort.Slice(exs, func(i, j int) bool { return exs[i].StartTime.AsTime().Before(exs[j].StartTime.AsTime()) })
	var out [][]event
	for _, ex := range exs {
		var h []event
		it := env.Client.GetWorkflowHistory(ctx, id, ex.Execution.RunId, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			e, err := it.Next()
			if err != nil {
				t.Fatal(err)
			}
			h = append(h, e)
		}
		out = append(out, h)
	}
	return out
}

// stepStarts is when each step's first activity was scheduled, over every
// run of a workflow id (the summaries read "step N: ...").
func stepStarts(t testing.TB, env *enginetest.Env, id string) map[int]time.Time {
	t.Helper()
	starts := map[int]time.Time{}
	ctx := context.Background()
	resp, err := env.Client.ListWorkflow(ctx, listReq("WorkflowId = '"+id+"'"))
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range resp.Executions {
		it := env.Client.GetWorkflowHistory(ctx, id, ex.Execution.RunId, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			e, err := it.Next()
			if err != nil {
				t.Fatal(err)
			}
			if e.GetEventType() != enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED || e.GetUserMetadata().GetSummary() == nil {
				continue
			}
			var sum string
			if err := converter.GetDefaultDataConverter().FromPayload(e.GetUserMetadata().GetSummary(), &sum); err != nil {
				t.Fatal(err)
			}
			m := reStepSummary.FindStringSubmatch(sum)
			if m == nil {
				continue
			}
			n, _ := strconv.Atoi(m[1])
			if at := e.GetEventTime().AsTime(); starts[n].IsZero() || at.Before(starts[n]) {
				starts[n] = at
			}
		}
	}
	return starts
}

// BenchmarkLongRun500 runs a 500-step subtask (the scripted model answering
// at PCFLOW_BENCH_LATENCY_MS, here default 0) with the default
// continue-as-new threshold, or PCFLOW_BENCH_CAN_EVENTS, and reports the
// history events per run (mean and largest), the number of runs, and the
// wall time per step around the 1st, 250th and 500th step (the mean of
// the ten steps from there: one step alone is noise). Skipped with -short.
func BenchmarkLongRun500(b *testing.B) {
	if testing.Short() {
		b.Skip("500 steps: run without -short")
	}
	const steps = 500
	latency := 0
	if v, err := strconv.Atoi(os.Getenv("PCFLOW_BENCH_LATENCY_MS")); err == nil {
		latency = v
	}
	can, _ := strconv.Atoi(os.Getenv("PCFLOW_BENCH_CAN_EVENTS"))
	env := enginetest.Start(b, scripted.Script{LatencyMS: latency, Subtasks: map[string]scripted.SubtaskScript{"s": {Steps: typingScript(steps)}}})
	dev := typingDevice()
	env.Serve("desktop", env.Activities(dev, "desktop", env.ModelConfig()), true)
	p := mustPlan(b, longTask(steps+10, 0))
	var at1, at250, at500, wall time.Duration
	var runs, events, largest int
	for i := 0; i < b.N; i++ {
		dev.Elements[2].Value = ""
		id := fmt.Sprintf("long-%d", i)
		start := time.Now()
		res, err := env.Run(context.Background(), id, p, workflows.Options{ContinueAsNewEvents: can})
		if err != nil || res.Reason != workflows.ReasonSuccess || res.Steps != steps {
			b.Fatalf("run = %+v, %v; want success after %d steps", res, err, steps)
		}
		wall += time.Since(start)
		child := workflows.ChildID(id, "s")
		for _, n := range eventsPerRun(b, env, child) {
			runs++
			events += n
			largest = max(largest, n)
		}
		st := stepStarts(b, env, child)
		window := func(from int) time.Duration { return st[from+10].Sub(st[from]) / 10 }
		at1 += window(1)
		at250 += window(250)
		// The last ten steps: from step 490 to the end of the run.
		at500 += st[steps].Sub(st[steps-10]) / 10
	}
	n := float64(b.N)
	b.ReportMetric(float64(runs)/n, "runs/op")
	b.ReportMetric(float64(events)/float64(runs), "events/run")
	b.ReportMetric(float64(largest), "max-events/run")
	b.ReportMetric(at1.Seconds()*1000/n, "ms/step@1")
	b.ReportMetric(at250.Seconds()*1000/n, "ms/step@250")
	b.ReportMetric(at500.Seconds()*1000/n, "ms/step@500")
	b.ReportMetric(wall.Seconds()/n/steps*1000, "ms/step")
}
