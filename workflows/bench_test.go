package workflows_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/enginetest"
	"github.com/pcflow/pcflow/internal/replayrun"
	"github.com/pcflow/pcflow/workflows"
)

// BenchmarkDurableVsInProcess runs the same 20-step subtask with the
// scripted model at a fixed latency (PCFLOW_BENCH_LATENCY_MS, default
// 1000) twice: durably on the embedded Temporal server, and as a plain Go
// loop calling the same activity code. It reports both wall times, the
// ratio and the orchestration overhead per step.
func BenchmarkDurableVsInProcess(b *testing.B) {
	latency := benchLatency()
	const steps = 20
	var script []scripted.Step
	for i := 0; i < steps-1; i++ {
		script = append(script, click("A"))
	}
	script = append(script, done(nil))
	env := enginetest.Start(b, scripted.Script{LatencyMS: latency, Subtasks: map[string]scripted.SubtaskScript{"s": {Steps: script}}})
	dev := fakedevice.New("A", "B")
	acts := env.Activities(dev, "desktop", env.ModelConfig())
	env.Serve("desktop", acts, true)
	// The sequential loop, as the in-process loop below.
	spec := fmt.Sprintf(`task "bench" {
  max_steps = %d
  timeout   = "1h"
  loop      = "sequential"
  subtask "s" {
    instruction = "click A"
  }
}`, steps+5)
	p := mustPlan(b, spec)
	var durable, plain time.Duration
	for i := 0; i < b.N; i++ {
		ctx := context.Background()
		start := time.Now()
		res, err := env.Run(ctx, fmt.Sprintf("bench-%d", i), p, workflows.Options{})
		if err != nil || res.Reason != workflows.ReasonSuccess {
			b.Fatalf("durable run: %v %+v", err, res)
		}
		durable += time.Since(start)

		start = time.Now()
		if err := inProcess(ctx, acts, steps); err != nil {
			b.Fatal(err)
		}
		plain += time.Since(start)
	}
	n := float64(b.N)
	b.ReportMetric(durable.Seconds()/n, "s/durable")
	b.ReportMetric(plain.Seconds()/n, "s/in-process")
	b.ReportMetric(float64(durable)/float64(plain), "ratio")
	b.ReportMetric(float64(durable-plain)/n/steps/float64(time.Millisecond), "ms-overhead/step")
}

// inProcess is the agent loop without Temporal: the same activity methods,
// called in order.
func inProcess(ctx context.Context, a *activities.Activities, steps int) error {
	goal := agent.Goal{Subtask: "s", Instruction: "click A", MaxSteps: steps + 5}
	var st agent.State
	for step := 1; step <= steps; step++ {
		turn := agent.Turn{Goal: goal, Step: step, State: st}
		d, err := a.Decide(ctx, activities.DecideInput{Turn: turn})
		if err != nil {
			return err
		}
		if d.Action.Kind == screen.ActDone {
			return nil
		}
		ar, err := a.Act(ctx, activities.ActInput{ID: fmt.Sprintf("plain-%d-%d", time.Now().UnixNano(), step), Action: d.Action})
		if err != nil {
			return err
		}
		r, err := a.Reflect(ctx, activities.ReflectInput{Subtask: "s", Instruction: "click A", Step: step, Action: d.Action, Thought: d.Thought, Outcome: *ar, Before: d.Observation})
		if err != nil {
			return err
		}
		p, err := a.Progress(ctx, activities.ProgressInput{Turn: turn, Outcome: agent.Outcome{Action: d.Action.Summary(), Thought: d.Thought, Verdict: r.Verdict}})
		if err != nil {
			return err
		}
		st = agent.State{Progress: p.Summary, Memory: p.Memory, LastAction: d.Action.Summary(), LastVerdict: r.Verdict}
	}
	return fmt.Errorf("did not finish in %d steps", steps)
}

// BenchmarkPipelinedLoop runs the same 20-step subtask with the scripted
// model at a fixed latency (PCFLOW_BENCH_LATENCY_MS, default 1000) in the
// sequential and the pipelined loop, and reports the median wall time per
// step of each (between one step's action and the next's, from the
// history), the share of verdicts the device gave and the decisions
// dropped; then it replays the pipelined run from its history (checked
// replay, no model) and reports the replay's wall time, model calls and
// speed-up over the run it replays. Every other step types new text into
// the focused field (the device can tell that worked); Reflection rejects
// two of the clicks.
func BenchmarkPipelinedLoop(b *testing.B) {
	latency := benchLatency()
	const steps = 20
	var script []scripted.Step
	for i := 0; i < steps-1; i++ {
		if i%2 == 0 {
			script = append(script, click("A"))
		} else {
			script = append(script, step("type", map[string]any{"text": fmt.Sprintf("w%d ", i)}))
		}
	}
	script = append(script, done(nil))
	wrong := make([]string, 12)
	wrong[4], wrong[11] = "wrong", "wrong"
	env := enginetest.Start(b, scripted.Script{LatencyMS: latency, Subtasks: map[string]scripted.SubtaskScript{"s": {Steps: script, Reflections: wrong}}})
	dev := fakedevice.New("A", "B")
	dev.Elements = append(dev.Elements, screen.Element{ID: 3, Role: "text", Name: "Field", States: []string{"focused"},
		Box: screen.Rect{X: 20, Y: 120, W: 300, H: 30}, Source: "a11y"})
	env.Serve("desktop", env.Activities(dev, "desktop", env.ModelConfig()), true)
	ctx := context.Background()
	var firstWall, replayWall time.Duration
	var replayCalls, replayed int
	for _, loop := range []string{"sequential", "pipelined"} {
		p := mustPlan(b, fmt.Sprintf(`task "bench" {
  max_steps = %d
  timeout   = "1h"
  loop      = %q
  subtask "s" {
    instruction = "click A and type"
  }
}`, steps+5, loop))
		var perStep []time.Duration
		var stepsRun, device, judged, dropped int
		for i := 0; i < b.N; i++ {
			dev.Elements[2].Value = ""
			id := fmt.Sprintf("bench-%s-%d", loop, i)
			start := time.Now()
			res, err := env.Run(ctx, id, p, workflows.Options{})
			if err != nil || res.Reason != workflows.ReasonSuccess {
				b.Fatalf("%s run: %v %+v", loop, err, res)
			}
			wall := time.Since(start)
			perStep = append(perStep, actIntervals(b, env, workflows.ChildID(id, "s"))...)
			s := res.Subtasks[0]
			stepsRun += s.Steps
			device += s.Judged[activities.ByDevice]
			for _, n := range s.Judged {
				judged += n
			}
			dropped += s.Dropped
			if loop != "pipelined" {
				continue
			}
			// The same task replayed from this run.
			rp, err := replayrun.Build(ctx, env.Client, env.Artifacts, id, nil)
			if err != nil {
				b.Fatal(err)
			}
			dev.Elements[2].Value = ""
			calls := len(env.Model.Requests())
			start = time.Now()
			run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id + "-replay", TaskQueue: workflows.TaskQueue},
				workflows.InstructionWorkflowName, workflows.InstructionInput{Plan: p, Replay: rp})
			if err != nil {
				b.Fatal(err)
			}
			var r workflows.InstructionResult
			if err := run.Get(ctx, &r); err != nil || r.Status != workflows.StatusSucceeded {
				b.Fatalf("replay: %v %+v", err, r)
			}
			replayWall += time.Since(start)
			firstWall += wall
			replayCalls += len(env.Model.Requests()) - calls
			replayed += r.Replayed
		}
		b.ReportMetric(median(perStep).Seconds(), "s/step-median-"+loop)
		b.ReportMetric(float64(stepsRun)/float64(b.N), "steps/run-"+loop)
		if loop == "pipelined" {
			b.ReportMetric(float64(device)/float64(max(1, judged)), "device-verdicts")
			b.ReportMetric(float64(dropped)/float64(b.N), "dropped/run")
		}
	}
	n := float64(b.N)
	b.ReportMetric(replayWall.Seconds()/n, "s/replay")
	b.ReportMetric(float64(replayed)/n, "steps-replayed")
	b.ReportMetric(float64(replayCalls)/n, "model-calls/replay")
	b.ReportMetric(float64(firstWall)/float64(replayWall), "replay-speedup")
}

// actIntervals are the times between one step's action and the next's in
// a subtask's history: the wall time of each step.
func actIntervals(tb testing.TB, env *enginetest.Env, id string) []time.Duration {
	tb.Helper()
	it := env.Client.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var at []time.Time
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			tb.Fatal(err)
		}
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == activities.ActName {
			at = append(at, e.GetEventTime().AsTime())
		}
	}
	var out []time.Duration
	for i := 1; i < len(at); i++ {
		out = append(out, at[i].Sub(at[i-1]))
	}
	return out
}

// median is the middle of ds (0 for none).
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// benchLatency is the scripted model's latency in milliseconds
// (PCFLOW_BENCH_LATENCY_MS, default 1000).
func benchLatency() int {
	if v, err := strconv.Atoi(os.Getenv("PCFLOW_BENCH_LATENCY_MS")); err == nil {
		return v
	}
	return 1000
}
