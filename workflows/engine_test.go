package workflows_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/enginetest"
	"github.com/pcflow/pcflow/specs"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/workflows"
)

func mustPlan(t testing.TB, src string) plan.Plan {
	t.Helper()
	res, diags := specs.Parse("test.hcl", []byte(src), specs.Options{})
	if diags.HasErrors() {
		t.Fatalf("spec: %v", diags)
	}
	return *res.Plan
}

func step(action string, args map[string]any) scripted.Step {
	return scripted.Step{Action: action, Args: args}
}

func click(target string) scripted.Step { return scripted.Step{Action: "click", Target: target} }

func done(outputs map[string]any) scripted.Step {
	return scripted.Step{Action: "done", Args: map[string]any{"outputs": outputs}}
}

const threeSubtasks = `
task "relay" {
  device "left" {}
  device "right" {}
  subtask "a" {
    device      = device.left
    instruction = "read the code"
    output "code" {}
  }
  subtask "b" {
    device      = device.right
    instruction = "open the editor"
  }
  subtask "c" {
    device      = device.right
    instruction = "type ${subtask.a.output.code} and save"
    depends_on  = [subtask.b]
    check "same" {
      expect = subtask.a.output.code == "4711"
    }
  }
  check "final" {
    expect = subtask.a.output.code != ""
  }
}`

func TestParallelSubtasksPassOutputs(t *testing.T) {
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{
		"a": {Steps: []scripted.Step{click("Code"), done(map[string]any{"code": "4711"})}},
		"b": {Steps: []scripted.Step{click("Editor"), done(nil)}},
		"c": {Steps: []scripted.Step{step("type", map[string]any{"text": "4711", "enter": true}), click("Save"), done(nil)}},
	}})
	left, right := fakedevice.New("Code", "Close"), fakedevice.New("Editor", "Save")
	env.Serve("left", env.Activities(left, "left", env.ModelConfig()), true)
	env.Serve("right", env.Activities(right, "right", env.ModelConfig()), false)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := env.Run(ctx, "relay-1", mustPlan(t, threeSubtasks), workflows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != workflows.StatusSucceeded || res.Reason != workflows.ReasonSuccess {
		t.Fatalf("run = %s/%s (%s), want succeeded/success", res.Status, res.Reason, res.Error)
	}
	if got := res.Subtasks[0].Outputs["code"]; got != "4711" {
		t.Errorf("a.code = %q, want 4711", got)
	}
	// c's Decision agent saw the instruction rendered with a's output.
	var sawRendered bool
	for _, r := range env.Model.Requests() {
		if r.Role == "decision" && r.Subtask == "c" && strings.Contains(r.Text, "Instruction: type 4711 and save") {
			sawRendered = true
		}
	}
	if !sawRendered {
		t.Error("subtask c's decision prompt does not carry a's output in its instruction")
	}
	// The devices executed what the script said, on the right device.
	if got := summaries(left.Actions()); strings.Join(got, "|") != `click #1 "Code"` {
		t.Errorf("left actions = %v", got)
	}
	if got := summaries(right.Actions()); strings.Join(got, "|") != `click #1 "Editor"|type "4711" ⏎|click #2 "Save"` {
		t.Errorf("right actions = %v", got)
	}
	// Token totals add up: what the server reported is what the run counted.
	p, c := env.Model.Usage()
	if res.Usage.PromptTokens != p || res.Usage.CompletionTokens != c {
		t.Errorf("run usage = %d+%d tokens, server reported %d+%d", res.Usage.PromptTokens, res.Usage.CompletionTokens, p, c)
	}
	if res.Metrics.SR != 1 || res.Metrics.SSR != 1 || res.Metrics.CR != 1 {
		t.Errorf("metrics = %+v, want SR=SSR=CR=1", res.Metrics)
	}
	if res.Steps != 7 {
		t.Errorf("steps = %d, want 7", res.Steps)
	}
	// a and b were started together, before either finished.
	events := history(t, env.Client, "relay-1")
	started, firstDone := 0, -1
	for i, e := range events {
		switch e.GetEventType() {
		case enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
			if firstDone < 0 {
				started++
			}
		case enumspb.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED:
			if firstDone < 0 {
				firstDone = i
			}
		}
	}
	if started != 2 {
		t.Errorf("%d children started before the first finished, want 2 (a and b in parallel)", started)
	}
}

func summaries(as []screen.Action) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Summary())
	}
	return out
}

type event interface{ GetEventType() enumspb.EventType }

func history(t *testing.T, c client.Client, id string) []event {
	t.Helper()
	it := c.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var out []event
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

const oneSubtask = `
task "one" {
  max_steps = 3
  subtask "s" {
    instruction = "press buttons"
    output "v" {}
  }
}`

func TestTerminationReasons(t *testing.T) {
	t.Parallel() // its servers are its own; most of its time is waiting (timeouts, retries)
	endless := scripted.SubtaskScript{Steps: []scripted.Step{click("A"), click("A"), click("A"), click("A"), click("A")}}
	tests := []struct {
		name     string
		spec     string
		script   scripted.Script
		opts     workflows.Options
		noWorker bool
		reason   string
		errHas   string
	}{
		{name: "success", spec: oneSubtask, script: scripted.Script{Subtasks: map[string]scripted.SubtaskScript{
			"s": {Steps: []scripted.Step{click("A"), done(map[string]any{"v": "1"})}}}}, reason: workflows.ReasonSuccess},
		{name: "step limit", spec: oneSubtask, script: scripted.Script{Subtasks: map[string]scripted.SubtaskScript{"s": endless}},
			reason: workflows.ReasonStepLimit, errHas: "3 steps"},
		{name: "agent gives up", spec: oneSubtask, script: scripted.Script{Subtasks: map[string]scripted.SubtaskScript{
			"s": {Steps: []scripted.Step{step("fail", map[string]any{"reason": "no such app"})}}}},
			reason: workflows.ReasonAgentFailed, errHas: "no such app"},
		{name: "invalid output", spec: oneSubtask, script: scripted.Script{Subtasks: map[string]scripted.SubtaskScript{"s": endless},
			Faults: []scripted.Fault{{Role: "decision", Kind: "malformed"}}}, reason: workflows.ReasonInvalidOutput, errHas: "not valid JSON"},
		{name: "done without outputs", spec: oneSubtask, script: scripted.Script{Subtasks: map[string]scripted.SubtaskScript{
			"s": {Steps: []scripted.Step{done(nil)}}}}, reason: workflows.ReasonInvalidOutput, errHas: "missing v"},
		{name: "api key rejected", spec: oneSubtask, script: scripted.Script{Subtasks: map[string]scripted.SubtaskScript{"s": endless},
			Faults: []scripted.Fault{{Role: "decision", Kind: "401"}}}, reason: workflows.ReasonAgentFailed, errHas: "API key rejected"},
		{name: "model not found", spec: oneSubtask, script: scripted.Script{Subtasks: map[string]scripted.SubtaskScript{"s": endless},
			Faults: []scripted.Fault{{Role: "decision", Kind: "404"}}}, reason: workflows.ReasonAgentFailed, errHas: "model scripted not found"},
		{name: "rate limited then fine", spec: oneSubtask, script: scripted.Script{Subtasks: map[string]scripted.SubtaskScript{
			"s": {Steps: []scripted.Step{click("A"), done(map[string]any{"v": "1"})}}},
			Faults: []scripted.Fault{{Role: "decision", Kind: "429", Times: 2}, {Role: "progress", Kind: "500", Times: 1}}}, reason: workflows.ReasonSuccess},
		{name: "device offline", spec: oneSubtask, script: scripted.Script{}, noWorker: true,
			opts: workflows.Options{DeviceTimeout: 2 * time.Second}, reason: workflows.ReasonDeviceError, errHas: "device desktop is offline"},
		{name: "check failed", spec: `task "t" {
  subtask "s" {
    instruction = "x"
    output "v" {}
    check "is_two" {
      expect = subtask.s.output.v == "2"
    }
  }
}`, script: scripted.Script{Subtasks: map[string]scripted.SubtaskScript{"s": {Steps: []scripted.Step{done(map[string]any{"v": "1"})}}}},
			reason: workflows.ReasonCheckFailed, errHas: "is_two"},
		{name: "timeout", spec: `task "t" {
  subtask "s" {
    instruction = "x"
    timeout     = "3s"
  }
}`, script: scripted.Script{LatencyMS: 700, Subtasks: map[string]scripted.SubtaskScript{"s": endless}}, reason: workflows.ReasonTimeout},
		{name: "token budget", spec: `task "t" {
  max_tokens = 1500
  subtask "s" {
    instruction = "x"
  }
}`, script: scripted.Script{Subtasks: map[string]scripted.SubtaskScript{"s": endless}}, reason: workflows.ReasonBudgetExceeded, errHas: "budget of"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel() // each its own server; several wait (timeouts, retries)
			env := enginetest.Start(t, tt.script)
			dev := fakedevice.New("A", "B")
			acts := env.Activities(dev, "desktop", env.ModelConfig())
			env.Serve("", acts, true)
			if !tt.noWorker {
				env.Serve("desktop", acts, false)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			res, err := env.Run(ctx, "run-"+strings.ReplaceAll(tt.name, " ", "-"), mustPlan(t, tt.spec), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.Reason != tt.reason {
				t.Fatalf("reason = %q (%s), want %q", res.Reason, res.Error, tt.reason)
			}
			if !strings.Contains(res.Error, tt.errHas) {
				t.Errorf("error = %q, want it to mention %q", res.Error, tt.errHas)
			}
			if tt.reason == workflows.ReasonSuccess && res.Metrics.SR != 1 {
				t.Errorf("SR = %v, want 1", res.Metrics.SR)
			}
		})
	}
}

func TestCancel(t *testing.T) {
	env := enginetest.Start(t, scripted.Script{LatencyMS: 200, Subtasks: map[string]scripted.SubtaskScript{
		"s": {Steps: []scripted.Step{click("A"), click("A"), click("A"), click("A"), click("A"), click("A")}}}})
	dev := fakedevice.New("A")
	acts := env.Activities(dev, "desktop", env.ModelConfig())
	env.Serve("desktop", acts, true)
	ctx := context.Background()
	run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "cancel-me", TaskQueue: workflows.TaskQueue},
		workflows.InstructionWorkflowName, workflows.InstructionInput{Plan: mustPlan(t, `task "t" {
  max_steps = 50
  subtask "s" {
    instruction = "x"
  }
}`)})
	if err != nil {
		t.Fatal(err)
	}
	for len(dev.Actions()) == 0 {
		time.Sleep(50 * time.Millisecond)
	}
	if err := env.Client.CancelWorkflow(ctx, "cancel-me", ""); err != nil {
		t.Fatal(err)
	}
	var res workflows.InstructionResult
	if err := run.Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	if res.Reason != workflows.ReasonCancelled {
		t.Errorf("reason = %q, want cancelled", res.Reason)
	}
	if n := len(dev.Actions()); n >= 6 {
		t.Errorf("device executed %d actions; cancel should stop the loop early", n)
	}
}

func TestManagerDecomposes(t *testing.T) {
	manager, _ := json.Marshal(map[string]any{"subtasks": []any{
		map[string]any{"name": "compute", "instruction": "compute 6*7", "outputs": []any{map[string]any{"key": "result"}}},
		map[string]any{"name": "write", "instruction": "write ${subtask.compute.output.result} into the file", "depends_on": []string{"compute"}},
	}})
	env := enginetest.Start(t, scripted.Script{Manager: manager, Subtasks: map[string]scripted.SubtaskScript{
		"compute": {Steps: []scripted.Step{click("A"), done(map[string]any{"result": "42"})}},
		"write":   {Steps: []scripted.Step{step("type", map[string]any{"text": "42"}), done(nil)}},
	}})
	dev := fakedevice.New("A")
	env.Serve("desktop", env.Activities(dev, "desktop", env.ModelConfig()), true)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := env.Run(ctx, "free", mustPlan(t, `task "free" {
  instruction = "compute 6*7 and write it down"
}`), workflows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != workflows.ReasonSuccess || len(res.Subtasks) != 2 {
		t.Fatalf("run = %s (%s), %d subtasks; want success with 2", res.Reason, res.Error, len(res.Subtasks))
	}
	var saw bool
	for _, r := range env.Model.Requests() {
		if r.Role == "decision" && r.Subtask == "write" && strings.Contains(r.Text, "write 42 into the file") {
			saw = true
		}
	}
	if !saw {
		t.Error("the Manager's second subtask did not receive the first one's output")
	}
}

func TestManagerInvalidPlanIsReasked(t *testing.T) {
	bad, _ := json.Marshal(map[string]any{"subtasks": []any{
		map[string]any{"name": "a", "instruction": "use ${subtask.b.output.x}", "depends_on": []string{"b"}},
		map[string]any{"name": "b", "instruction": "use ${subtask.a.output.y}", "depends_on": []string{"a"}},
	}})
	env := enginetest.Start(t, scripted.Script{Manager: bad})
	env.Serve("desktop", env.Activities(fakedevice.New("A"), "desktop", env.ModelConfig()), true)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := env.Run(ctx, "free-bad", mustPlan(t, `task "free" {
  instruction = "something"
}`), workflows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != workflows.ReasonInvalidOutput || !strings.Contains(res.Error, "declares no output") {
		t.Fatalf("run = %s (%s), want invalid_output naming the undeclared output", res.Reason, res.Error)
	}
	n := 0
	for _, r := range env.Model.Requests() {
		if r.Role == "manager" {
			n++
		}
	}
	if n != 3 {
		t.Errorf("manager asked %d times, want 3 (first answer plus 2 re-asks)", n)
	}
}

// TestLongRunHistoryStaysSmall runs 50 steps with continue-as-new and checks
// that no payload in any history is larger than 64 KiB: screenshots and
// element lists stay in the artifact store.
func TestLongRunHistoryStaysSmall(t *testing.T) {
	t.Parallel() // its own server (enginetest.Start); much of it waits
	var steps []scripted.Step
	for i := 0; i < 49; i++ {
		steps = append(steps, click("A"))
	}
	steps = append(steps, done(nil))
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{"s": {Steps: steps}}})
	names := []string{}
	for i := 0; i < 120; i++ {
		names = append(names, "button with a long accessible name number "+string(rune('A'+i%26)))
	}
	names[0] = "A"
	dev := fakedevice.New(names...)
	env.Serve("desktop", env.Activities(dev, "desktop", env.ModelConfig()), true)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := env.Run(ctx, "long", mustPlan(t, `task "t" {
  max_steps = 60
  subtask "s" {
    instruction = "click A 49 times"
  }
}`), workflows.Options{ContinueAsNewEvents: 300})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != workflows.ReasonSuccess || res.Steps != 50 {
		t.Fatalf("run = %s (%s) after %d steps, want success after 50", res.Reason, res.Error, res.Steps)
	}
	if n := len(dev.Actions()); n != 49 {
		t.Errorf("device executed %d actions, want 49", n)
	}
	// Walk every run of the child (continue-as-new chain) and the parent.
	runs := 0
	largest := 0
	for _, id := range []string{"long", workflows.ChildID("long", "s")} {
		resp, err := env.Client.ListWorkflow(ctx, listReq("WorkflowId = '"+id+"'"))
		if err != nil {
			t.Fatal(err)
		}
		for _, ex := range resp.Executions {
			runs++
			it := env.Client.GetWorkflowHistory(ctx, id, ex.Execution.RunId, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
			for it.HasNext() {
				e, err := it.Next()
				if err != nil {
					t.Fatal(err)
				}
				if n := payloadSize(e); n > largest {
					largest = n
				}
			}
		}
	}
	if runs < 3 {
		t.Errorf("found %d runs; the 50-step subtask should have continued as new at least once", runs)
	}
	if largest > 64<<10 {
		t.Errorf("largest history event payload = %d bytes, want ≤ 64 KiB", largest)
	}
	t.Logf("runs=%d largest event payload=%d bytes", runs, largest)
}
