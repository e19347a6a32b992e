package workflows_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/converter"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/internal/enginetest"
	"github.com/pcflow/pcflow/workflows"
)

// The pipelined loop decides step 2 while Reflection judges step 1. When
// Reflection says wrong, that decision (click B) never reaches the device:
// step 2 is decided again, told the verdict, and does step 1 over.
func TestPipelinedLoopNeverActsOnARejectedStep(t *testing.T) {
	t.Parallel()
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{
		"s": {Steps: []scripted.Step{click("A"), click("B"), done(nil)}, Reflections: []string{"wrong"}},
	}})
	dev := fakedevice.New("A", "B")
	env.Serve("desktop", env.Activities(dev, "desktop", env.ModelConfig()), true)
	p := mustPlan(t, `task "pipe" {
  loop = "pipelined"
  reflection = "always"
  subtask "s" {
    instruction = "click A, then B"
  }
}`)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := env.Run(ctx, "pipe-1", p, workflows.Options{})
	if err != nil || res.Reason != workflows.ReasonSuccess {
		t.Fatalf("run: %v %+v", err, res)
	}
	var got []string
	for _, a := range dev.Actions() {
		got = append(got, a.Summary())
	}
	if want := []string{`click #1 "A"`, `click #1 "A"`, `click #2 "B"`}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("actions on the device: %q, want %q", got, want)
	}
	s := res.Subtasks[0]
	if s.Dropped != 1 || s.Judged[activities.ByModel] != 3 || s.Verdicts["wrong"] != 1 {
		t.Fatalf("dropped %d, judged %v, verdicts %v: want 1 dropped decision and 3 model verdicts, one wrong", s.Dropped, s.Judged, s.Verdicts)
	}
	if *record {
		// A pipelined history, for TestReplay.
		saveHistories(t, env, "pipe-1/s")
	}
	// The history shows the decisions made ahead, and the one decided again.
	hist := scheduled(t, env, "pipe-1/s")
	for _, want := range []string{"step 2: decide ahead on the screen after step 1", "step 2: decide again (Reflection rejected the decision made ahead)"} {
		if !strings.Contains(hist, want) {
			t.Errorf("history lacks %q", want)
		}
	}
}

// A task with loop = "sequential" keeps today's loop: no decision is made
// ahead, no observation apart from the decision's.
func TestSequentialLoopOnRequest(t *testing.T) {
	t.Parallel()
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{
		"s": {Steps: []scripted.Step{click("A"), done(nil)}},
	}})
	env.Serve("desktop", env.Activities(fakedevice.New("A"), "desktop", env.ModelConfig()), true)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := env.Run(ctx, "seq-1", mustPlan(t, `task "seq" {
  loop = "sequential"
  subtask "s" {
    instruction = "click A"
  }
}`), workflows.Options{})
	if err != nil || res.Reason != workflows.ReasonSuccess {
		t.Fatalf("run: %v %+v", err, res)
	}
	if hist := scheduled(t, env, "seq-1/s"); strings.Contains(hist, "decide ahead") || strings.Contains(hist, "observe after") {
		t.Fatalf("a sequential run decided ahead:\n%s", hist)
	}
}

// scheduled are the summaries of the activities a workflow scheduled, a
// line each, as the Temporal UI shows them.
func scheduled(t *testing.T, env *enginetest.Env, id string) string {
	t.Helper()
	it := env.Client.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var b strings.Builder
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
		fmt.Fprintln(&b, sum)
	}
	return b.String()
}
