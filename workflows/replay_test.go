package workflows_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/internal/enginetest"
	"github.com/pcflow/pcflow/internal/tracing"
	"github.com/pcflow/pcflow/internal/tracing/otlptest"
	pcworker "github.com/pcflow/pcflow/worker"
	"github.com/pcflow/pcflow/workflows"
)

var record = flag.Bool("record", false, "record new histories into testdata/")

// TestReplay replays histories recorded from real runs against the current
// workflow code: a change that would break running workflows fails here
// (guard it with workflow.GetVersion). Each replays with tracing too
// (internal/tracing): its interceptor must not change a command.
func TestReplay(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.json")
	if len(files) == 0 {
		t.Fatal("no recorded histories in testdata/ (go test ./workflows -run TestRecordHistories -record)")
	}
	tr, err := tracing.Start(context.Background(), tracing.Options{Endpoint: otlptest.Start(t).URL})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Shutdown(5 * time.Second)
	plain := worker.NewWorkflowReplayer()
	traced, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{Interceptors: tr.WorkerInterceptors()})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []worker.WorkflowReplayer{plain, traced} {
		pcworker.RegisterWorkflows(r)
		pcworker.RegisterMCP(r)
	}
	for _, f := range files {
		for _, r := range []worker.WorkflowReplayer{plain, traced} {
			replayFile(t, r, f, r == traced)
		}
	}
}

// replayFile replays the history in f with r.
func replayFile(t *testing.T, r worker.WorkflowReplayer, f string, traced bool) {
	name := filepath.Base(f)
	if traced {
		name += "/traced"
	}
	t.Run(name, func(t *testing.T) {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		h, err := client.HistoryFromJSON(fh, client.HistoryJSONOptions{})
		if err != nil {
			t.Fatal(err)
		}
		// Child ids derive from the parent's: replay under the recorded id.
		id := strings.ReplaceAll(strings.TrimSuffix(filepath.Base(f), ".json"), "_", "/")
		err = r.ReplayWorkflowHistoryWithOptions(nil, h, worker.ReplayWorkflowHistoryOptions{
			OriginalExecution: workflow.Execution{ID: id, RunID: "replay"},
		})
		if err != nil {
			t.Errorf("replay %s: %v", f, err)
		}
	})
}

// TestRecordHistories runs real workflows on the embedded server and saves
// their histories (parent and children) as replay fixtures.
func TestRecordHistories(t *testing.T) {
	if !*record {
		t.Skip("pass -record to record histories")
	}
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{
		"a": {Steps: []scripted.Step{click("Code"), done(map[string]any{"code": "4711"})}},
		"b": {Steps: []scripted.Step{click("Editor"), done(nil)}},
		"c": {Steps: []scripted.Step{step("type", map[string]any{"text": "4711", "enter": true}), click("Save"), done(nil)}, Reflections: []string{"no_effect"}},
	}})
	left, right := fakedevice.New("Code", "Close"), fakedevice.New("Editor", "Save")
	env.Serve("left", env.Activities(left, "left", env.ModelConfig()), true)
	env.Serve("right", env.Activities(right, "right", env.ModelConfig()), false)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := env.Run(ctx, "relay", mustPlan(t, threeSubtasks), workflows.Options{}); err != nil {
		t.Fatal(err)
	}
	saveHistories(t, env, "relay", workflows.ChildID("relay", "a"), workflows.ChildID("relay", "c"))
}

// TestRecordTracedHistory records a run made with tracing on (its
// workflows' and activities' headers carry the trace), so that TestReplay
// replays such a history without tracing as well as with it.
func TestRecordTracedHistory(t *testing.T) {
	if !*record {
		t.Skip("pass -record to record histories")
	}
	tr, err := tracing.Start(context.Background(), tracing.Options{Endpoint: otlptest.Start(t).URL})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Shutdown(5 * time.Second)
	env := enginetest.StartWith(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{
		"s": {Steps: []scripted.Step{click("A"), done(nil)}},
	}}, enginetest.Options{Interceptors: tr.ClientInterceptors()})
	env.Serve("desktop", env.Activities(fakedevice.New("A", "B"), "desktop", env.ModelConfig()), true)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := mustPlan(t, `task "traced" {
  max_steps = 5
  subtask "s" {
    instruction = "click A"
  }
}`)
	if _, err := env.Run(ctx, "traced", p, workflows.Options{}); err != nil {
		t.Fatal(err)
	}
	it := env.Client.GetWorkflowHistory(ctx, "traced", "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	first, err := it.Next()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := first.GetWorkflowExecutionStartedEventAttributes().GetHeader().GetFields()["_tracer-data"]; !ok {
		t.Fatal("the run's start carries no trace header: it was not traced")
	}
	saveHistories(t, env, "traced", workflows.ChildID("traced", "s"))
}

// saveHistories writes the workflows' histories into testdata/.
func saveHistories(t *testing.T, env *enginetest.Env, ids ...string) {
	t.Helper()
	ctx := context.Background()
	for _, id := range ids {
		it := env.Client.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		h := &historypb.History{}
		for it.HasNext() {
			e, err := it.Next()
			if err != nil {
				t.Fatal(err)
			}
			h.Events = append(h.Events, e)
		}
		b, err := protojson.MarshalOptions{Indent: "  "}.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		name := "testdata/" + strings.ReplaceAll(id, "/", "_") + ".json"
		if err := os.WriteFile(name, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRecordPlatformHistory records a run whose workflow asks its device's
// worker for the device's platform before setup (platformVersion), as
// testdata/platform.json; the fixtures above are runs from before it.
func TestRecordPlatformHistory(t *testing.T) {
	if !*record {
		t.Skip("pass -record to record histories")
	}
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{
		"x": {Steps: []scripted.Step{click("OK"), done(nil)}},
	}})
	acts := env.Activities(fakedevice.New("OK"), "desktop", env.ModelConfig())
	acts.Platform = "linux"
	env.Serve("desktop", acts, true)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := env.Run(ctx, "platform", mustPlan(t, `task "platform" {
  device "desktop" {
    platform = "linux"
  }
  subtask "x" {
    instruction = "press OK"
  }
}`), workflows.Options{})
	if err != nil || res.Reason != workflows.ReasonSuccess {
		t.Fatalf("run = %+v, %v; want success", res, err)
	}
	saveHistories(t, env, "platform")
}
