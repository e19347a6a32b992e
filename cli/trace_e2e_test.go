package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/x11"
	"github.com/pcflow/pcflow/internal/testdisplay"
	"github.com/pcflow/pcflow/internal/tracing/otlptest"
	"github.com/pcflow/pcflow/workflows"
)

// The secret of TestTracesOfARun: typed by placeholder, repeated by the
// model in its thoughts.
const traceSecret = "otter-9132-plinth"

const tracedTask = `variable "token" {
  sensitive = true
}

task "traced" {
  max_steps = 6
  loop      = "sequential"
  device "desktop" {}

  setup "editor" {
    launch          = ["mousepad"]
    wait_for_window = "Mousepad"
  }

  subtask "first" {
    instruction = "Type the token ${var.token} into the editor."
  }

  subtask "second" {
    depends_on  = [subtask.first]
    instruction = "Type a friendly greeting after the token."
  }
}
`

// TestTracesOfARun runs a two-subtask task on a real desktop (Mousepad,
// the embedded Temporal server, the scripted model over HTTP) with
// --otel-endpoint pointing at an OTLP/HTTP receiver in this test (the real
// exporter, the real wire protocol: otlptest decodes OpenTelemetry's
// protobuf), and reads the trace: one trace id for the run; the run's
// span, two subtask spans under it, the steps' activity spans under each
// subtask (naming subtask and step), and under the steps the model calls'
// spans with the model, its tokens and Reflection's verdict. No attribute,
// event or status anywhere holds the sensitive variable's value, the text
// of an instruction or what the model said.
func TestTracesOfARun(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	w := newWorldOn(t, testdisplay.Reserve(t))
	rcv := otlptest.Start(t)
	dir := t.TempDir()
	spec := filepath.Join(dir, "traced.hcl")
	if err := os.WriteFile(spec, []byte(tracedTask), 0o644); err != nil {
		t.Fatal(err)
	}
	thought := "The editor shows " + traceSecret + " now."
	model := scripted.New(scripted.Script{Subtasks: map[string]scripted.SubtaskScript{
		"first": {Steps: []scripted.Step{
			{Thought: "Type the token.", Action: "type", Role: "text", Args: map[string]any{"text": "{{secret.token}}"}},
			{Thought: thought, Action: "done"},
		}},
		"second": {Steps: []scripted.Step{
			{Thought: "Greet.", Action: "type", Role: "text", Args: map[string]any{"text": " hello there"}},
			{Thought: "Greeted after " + traceSecret + ".", Action: "done"},
		}},
	}})
	if err := model.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	c := w.cmd(w.flags("run", spec, "--display", w.display, "--id", "traced", "--otel-endpoint", rcv.URL)...)
	c.Env = append(c.Env, "OPENAI_BASE_URL="+model.URL, "OPENAI_API_KEY=test", "PCFLOW_MODEL=scripted", "PCFLOW_MODEL_SCRIPTED=1",
		"PCFLOW_VAR_token="+traceSecret)
	out, _ := c.CombinedOutput()
	if code := c.ProcessState.ExitCode(); code != 0 || !strings.Contains(string(out), "SUCCEEDED") {
		t.Fatalf("pcflow run --otel-endpoint = %d, want 0 (SUCCEEDED):\n%s", code, out)
	}

	// The run's process sends its last spans before it exits; the
	// receiver may still be decoding them.
	runSpan, subSpan := "RunWorkflow:"+workflows.InstructionWorkflowName, "RunWorkflow:"+workflows.SubtaskWorkflowName
	spans := rcv.WaitFor(t, 30*time.Second, "the run's span and two subtask spans", func(ss []otlptest.Span) bool {
		return len(named(ss, runSpan)) == 1 && len(named(ss, subSpan)) == 2
	})
	tree := otlptest.TreeOf(spans)
	run := named(spans, runSpan)[0]
	if run.Attrs["temporalWorkflowID"] != "traced" || run.Resource["service.name"] != "pcflow" || run.Resource["pcflow.process"] != "run" {
		t.Errorf("the run's span = %+v, want workflow traced, service pcflow, process run", run)
	}
	// One trace: every span of the run's workflows, activities and
	// model calls carries the run's trace id.
	for _, s := range spans {
		wid := s.Attrs["temporalWorkflowID"]
		if (wid == "traced" || strings.HasPrefix(wid, "traced/") || strings.HasPrefix(s.Name, "model ")) && s.TraceID != run.TraceID {
			t.Errorf("span %s (%s) is in trace %s, want the run's %s", s.Name, wid, s.TraceID, run.TraceID)
		}
	}

	subtasks := map[string]bool{}
	for _, sub := range named(spans, subSpan) {
		name := strings.TrimPrefix(sub.Attrs["temporalWorkflowID"], "traced/")
		subtasks[name] = true
		if p, ok := tree.Ancestor(sub, runSpan); !ok || p.SpanID != run.SpanID {
			t.Errorf("subtask %s's span is not under the run's span (parent %s)", name, sub.ParentID)
		}
		// Each step's activities, named by subtask and step.
		decide, act, reflect, progress := "RunActivity:"+activities.DecideName, "RunActivity:"+activities.ActName, "RunActivity:"+activities.ReflectName, "RunActivity:"+activities.ProgressName
		for kind, least := range map[string]int{decide: 2, act: 1, reflect: 1, progress: 1} {
			got := tree.Below(sub, kind)
			if len(got) < least {
				t.Errorf("subtask %s has %d %s spans, want at least %d", name, len(got), kind, least)
			}
			for _, a := range got {
				if kind != act && (a.Attrs["pcflow.subtask"] != name || a.Attrs["pcflow.step"] == "") {
					t.Errorf("%s under subtask %s names subtask %q, step %q", kind, name, a.Attrs["pcflow.subtask"], a.Attrs["pcflow.step"])
				}
				if kind == act && a.Attrs["pcflow.action"] != "type" {
					t.Errorf("%s under subtask %s: pcflow.action = %q, want type", kind, name, a.Attrs["pcflow.action"])
				}
			}
		}
		// The model calls, each under its step's activity.
		for kind, call := range map[string]string{decide: "model decision", reflect: "model reflection", progress: "model progress"} {
			calls := tree.Below(sub, call)
			if len(calls) == 0 {
				t.Errorf("subtask %s has no %q span", name, call)
			}
			for _, m := range calls {
				if p := tree.ByID[m.ParentID]; p.Name != kind {
					t.Errorf("%q under subtask %s is under %q, want %q", call, name, p.Name, kind)
				}
				in, _ := strconv.Atoi(m.Attrs["gen_ai.usage.input_tokens"])
				outTok, _ := strconv.Atoi(m.Attrs["gen_ai.usage.output_tokens"])
				if m.Attrs["gen_ai.request.model"] != "scripted" || in <= 0 || outTok <= 0 || m.Attrs["pcflow.model.calls"] != "1" {
					t.Errorf("%q under subtask %s: attributes %v, want model scripted, its tokens and one request", call, name, m.Attrs)
				}
				if call == "model reflection" && m.Attrs["pcflow.verdict"] == "" {
					t.Errorf("%q under subtask %s has no verdict: %v", call, name, m.Attrs)
				}
			}
		}
	}
	if !subtasks["first"] || !subtasks["second"] {
		t.Errorf("the subtask spans are for %v, want first and second", keys(subtasks))
	}

	// Nothing that must stay out: the secret (in every form the secrets
	// test looks for), an instruction, what the model thought.
	never := append(leakForms(traceSecret), "Type the token", "friendly greeting", "The editor shows", "Greeted after")
	for _, s := range spans {
		var all bytes.Buffer
		fmt.Fprintf(&all, "%s %s %v %v", s.Name, s.StatusMessage, s.Attrs, s.Resource)
		for _, e := range s.Events {
			fmt.Fprintf(&all, " %s %v", e.Name, e.Attrs)
		}
		for _, f := range never {
			if strings.Contains(all.String(), f) {
				t.Errorf("span %s holds %q: %s", s.Name, f, all.String())
			}
		}
	}
}

// named returns the spans called name, one per span id (a span sent
// twice, by two processes that replayed a workflow, is one).
func named(spans []otlptest.Span, name string) []otlptest.Span {
	var out []otlptest.Span
	seen := map[string]bool{}
	for _, s := range spans {
		if s.Name == name && !seen[s.SpanID] {
			seen[s.SpanID] = true
			out = append(out, s)
		}
	}
	return out
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestTraceEnvForDeviceWorkers: eval's device workers are told
// --otel-endpoint by the variable that says the same, which replaces the
// ones they would otherwise inherit; without the flag their environment
// is left as it is.
func TestTraceEnvForDeviceWorkers(t *testing.T) {
	environ := []string{"DISPLAY=:7", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://old:4318/v1/traces", "OTEL_EXPORTER_OTLP_ENDPOINT=http://old:4318"}
	f := engineFlags{otel: "http://collector:4318"}
	got := f.traceEnv(environ)
	want := []string{"DISPLAY=:7", "OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("traceEnv with --otel-endpoint = %q, want %q", got, want)
	}
	if got := (&engineFlags{}).traceEnv(environ); strings.Join(got, " ") != strings.Join(environ, " ") {
		t.Errorf("traceEnv without the flag = %q, want %q", got, environ)
	}
}

const twoProcessTask = `task "relayed" {
  max_steps = 4
  loop      = "sequential"
  device "alice" {}
  device "bob" {}

  subtask "look" {
    device      = device.alice
    instruction = "Look at the screen."
  }

  subtask "answer" {
    device      = device.bob
    depends_on  = [subtask.look]
    instruction = "Answer on the other screen."
  }
}
`

// TestTracesAcrossProcesses: the trace crosses processes. `pcflow run`
// serves alice and the workflows; a `pcflow worker` process serves bob.
// Both send to the receiver in this test; bob's steps come from the
// worker's process (pcflow.process = worker) and still hang under bob's
// subtask span, in the run's trace: the trace went to the worker in
// Temporal's headers.
func TestTracesAcrossProcesses(t *testing.T) {
	t.Parallel() // its own desktops, state folder and ports (see newWorld)
	w := newWorldOn(t, testdisplay.Reserve(t))
	d2, err := x11.Up(context.Background(), x11.DesktopOptions{Display: testdisplay.Reserve(t), StateDir: w.state})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { killApps(d2.Display); d2.Down() })
	rcv := otlptest.Start(t)
	spec := filepath.Join(t.TempDir(), "relayed.hcl")
	if err := os.WriteFile(spec, []byte(twoProcessTask), 0o644); err != nil {
		t.Fatal(err)
	}
	wait := scripted.Step{Thought: "Look.", Action: "wait", Args: map[string]any{"seconds": 0.2}}
	model := scripted.New(scripted.Script{Subtasks: map[string]scripted.SubtaskScript{
		"look":   {Steps: []scripted.Step{wait, {Action: "done"}}},
		"answer": {Steps: []scripted.Step{wait, {Action: "done"}}},
	}})
	if err := model.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	modelEnv := []string{"OPENAI_BASE_URL=" + model.URL, "OPENAI_API_KEY=test", "PCFLOW_MODEL=scripted", "PCFLOW_MODEL_SCRIPTED=1"}
	run := w.cmd(w.flags("run", spec, "--display", w.display, "--device", "alice", "--id", "relayed", "--otel-endpoint", rcv.URL)...)
	run.Env = append(run.Env, modelEnv...)
	var out bytes.Buffer
	run.Stdout, run.Stderr = &out, &out
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	waitPort(t, w.port)
	// The worker is told by the variable, as a worker on another machine
	// would be.
	wk := w.cmd("worker", "--device", "bob", "--display", d2.Display, "--state", w.state, "--temporal", fmt.Sprintf("127.0.0.1:%d", w.port), "--workflows=false")
	wk.Env = append(wk.Env, append(modelEnv, "OTEL_EXPORTER_OTLP_ENDPOINT="+rcv.URL)...)
	var wout bytes.Buffer
	wk.Stdout, wk.Stderr = &wout, &wout
	if err := wk.Start(); err != nil {
		t.Fatal(err)
	}
	err = run.Wait()
	// The worker sends its last spans as it stops.
	wk.Process.Signal(syscall.SIGTERM)
	wk.Wait()
	if err != nil || !strings.Contains(out.String(), "SUCCEEDED") {
		t.Fatalf("pcflow run: %v\n%s\nworker:\n%s", err, out.String(), wout.String())
	}
	decide := "RunActivity:" + activities.DecideName
	spans := rcv.WaitFor(t, 30*time.Second, "bob's steps from the worker's process", func(ss []otlptest.Span) bool {
		for _, s := range ss {
			if s.Name == decide && s.Resource["pcflow.process"] == "worker" {
				return len(named(ss, "RunWorkflow:"+workflows.SubtaskWorkflowName)) == 2
			}
		}
		return false
	})
	tree := otlptest.TreeOf(spans)
	run0 := named(spans, "RunWorkflow:"+workflows.InstructionWorkflowName)
	if len(run0) != 1 {
		t.Fatalf("%d run spans, want 1: %s", len(run0), otlptest.Names(spans))
	}
	byProcess := map[string]int{}
	for _, s := range named(spans, decide) {
		sub, ok := tree.Ancestor(s, "RunWorkflow:"+workflows.SubtaskWorkflowName)
		if !ok || s.TraceID != run0[0].TraceID {
			t.Errorf("a Decide span of process %s is not under a subtask of the run's trace", s.Resource["pcflow.process"])
			continue
		}
		want := map[string]string{"relayed/look": "run", "relayed/answer": "worker"}[sub.Attrs["temporalWorkflowID"]]
		if got := s.Resource["pcflow.process"]; got != want {
			t.Errorf("a Decide of %s came from process %q, want %q", sub.Attrs["temporalWorkflowID"], got, want)
		}
		if len(tree.Below(s, "model decision")) != 1 {
			t.Errorf("a Decide of %s has no model call under it", sub.Attrs["temporalWorkflowID"])
		}
		byProcess[s.Resource["pcflow.process"]]++
	}
	if byProcess["run"] < 2 || byProcess["worker"] < 2 {
		t.Errorf("Decide spans by process = %v, want two steps each from run (alice) and worker (bob)", byProcess)
	}
}
