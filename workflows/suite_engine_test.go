package workflows_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/internal/enginetest"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/workflows"
)

// suiteOf builds n one-subtask tasks with distinct plans, packed as the
// CLI packs them.
func suiteOf(t *testing.T, n int) workflows.SuiteInput {
	t.Helper()
	in := workflows.SuiteInput{Suite: "big"}
	plans := map[string]plan.Plan{}
	for i := 0; i < n; i++ {
		p := mustPlan(t, fmt.Sprintf(`task "t%03d" {
  max_steps = 5
  subtask "s" {
    instruction = "Press the A button of the calculator and report that task %d is done; this sentence makes the plan as long as a real task's instruction is."
    output "n" {}
  }
  check "ran" {
    expect = subtask.s.output.n == "1"
  }
}`, i, i))
		h, err := workflows.PlanHash(p)
		if err != nil {
			t.Fatal(err)
		}
		plans[h] = p
		in.Tasks = append(in.Tasks, workflows.SuiteTask{Key: fmt.Sprintf("t%03d", i), PlanHash: h, Repeat: 1})
	}
	b, err := workflows.PackPlans(plans)
	if err != nil {
		t.Fatal(err)
	}
	in.Plans = b
	return in
}

// runHistories walks every run of a workflow id (its continue-as-new
// chain): events and bytes per run, and the largest event.
func runHistories(t *testing.T, env *enginetest.Env, id string) (runs, events, bytes, largest int, perRun []int) {
	t.Helper()
	ctx := context.Background()
	resp, err := env.Client.ListWorkflow(ctx, listReq("WorkflowId = '"+id+"'"))
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range resp.Executions {
		runs++
		size := 0
		it := env.Client.GetWorkflowHistory(ctx, id, ex.Execution.RunId, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			e, err := it.Next()
			if err != nil {
				t.Fatal(err)
			}
			n := payloadSize(e)
			events++
			size += n
			largest = max(largest, n)
		}
		bytes += size
		perRun = append(perRun, size)
	}
	return
}

// TestSuiteOf300Tasks runs a suite of 300 tasks with distinct plans on
// four fake devices. The plans travel once, packed by content hash, and
// the suite continues as new whenever its history grows long, so no
// event comes near Temporal's payload limit and no run's history grows
// with the suite: every task runs exactly once and succeeds.
func TestSuiteOf300Tasks(t *testing.T) {
	t.Parallel() // its own server (enginetest.Start); much of it waits
	// -short: the same on 40 tasks, continuing as new every 100 events.
	n, perRunEvents := 300, 1000
	if testing.Short() {
		n, perRunEvents = 40, 100
	}
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{
		"s": {Steps: []scripted.Step{done(map[string]any{"n": "1"})}},
	}})
	devices := []string{"p1", "p2", "p3", "p4"}
	for i, d := range devices {
		env.Serve(d, env.Activities(fakedevice.New("A"), d, env.ModelConfig()), i == 0)
	}
	in := suiteOf(t, n)
	in.Devices = devices
	in.NoReset = true // Reset acts on a real display; the fake devices have none
	in.Options = workflows.Options{ContinueAsNewEvents: perRunEvents}
	t.Logf("%d plans packed into %d bytes", n, len(in.Plans))

	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	start := time.Now()
	run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "big", TaskQueue: workflows.TaskQueue}, workflows.SuiteWorkflowName, in)
	if err != nil {
		t.Fatal(err)
	}
	var res workflows.SuiteResult
	if err := run.Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	if len(res.Runs) != n {
		t.Fatalf("%d task runs in the result, want %d", len(res.Runs), n)
	}
	for _, r := range res.Runs {
		if r.Status != workflows.StatusSucceeded || r.Result == nil || r.Result.Metrics.SR != 1 {
			t.Errorf("%s: %s (%s) %s", r.Key, r.Status, r.Reason, r.Error)
		}
	}
	// Every task's workflow ran once.
	for _, r := range res.Runs[:5] {
		resp, err := env.Client.ListWorkflow(ctx, listReq("WorkflowId = '"+r.Workflow+"'"))
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Executions) != 1 {
			t.Errorf("%s ran %d times", r.Workflow, len(resp.Executions))
		}
	}
	runs, events, size, largest, perRun := runHistories(t, env, "big")
	if runs < 3 {
		t.Errorf("the suite ran as %d runs; with %d tasks and %d events per run it should have continued as new at least twice", runs, n, perRunEvents)
	}
	for i, s := range perRun {
		if s > 2<<20 {
			t.Errorf("run %d of the suite holds %d bytes of history, want ≤ 2 MiB", i, s)
		}
	}
	if largest > 512<<10 {
		t.Errorf("largest suite history event = %d bytes, want ≤ 512 KiB (Temporal warns above)", largest)
	}
	t.Logf("%d tasks in %s: %d suite runs, %d events (%.1f per task), %d bytes (%.0f bytes per task), largest event %d bytes, per run %v",
		n, elapsed.Round(time.Second), runs, events, float64(events)/float64(n), size, float64(size)/float64(n), largest, perRun)
}

// TestSuitePoolDeviceOffline leases a task to a pool device no worker
// serves: the device leaves the pool once the device timeout passes, with
// an error naming the pool device and how to start its worker, and the
// task, which failed through no fault of the agent, runs again on the live
// device; every task succeeds there.
func TestSuitePoolDeviceOffline(t *testing.T) {
	t.Parallel() // its own server (enginetest.Start); much of it waits
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{
		"s": {Steps: []scripted.Step{click("A"), done(map[string]any{"n": "1"})}},
	}})
	env.Serve("p1", env.Activities(fakedevice.New("A"), "p1", env.ModelConfig()), true)
	in := suiteOf(t, 4)
	in.Devices = []string{"p1", "ghost"}
	in.NoReset = true
	in.Options = workflows.Options{DeviceTimeout: 2 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "pool", TaskQueue: workflows.TaskQueue}, workflows.SuiteWorkflowName, in)
	if err != nil {
		t.Fatal(err)
	}
	var res workflows.SuiteResult
	if err := run.Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	want := "device ghost (leased as the task's device desktop) is offline: no worker took work from queue device.ghost for 2s; start one with `pcflow worker --device ghost`"
	retried := 0
	for _, r := range res.Runs {
		if r.Status != workflows.StatusSucceeded || r.Devices["desktop"] != "p1" {
			t.Errorf("%s: %s (%s) on %v, want success on p1", r.Key, r.Status, r.Error, r.Devices)
		}
		if r.Retried != "" {
			retried++
			if !strings.Contains(r.Retried, want) {
				t.Errorf("%s was retried after %q, want %q", r.Key, r.Retried, want)
			}
		}
	}
	if retried != 1 || len(res.Removed) != 1 || res.Removed[0].Device != "ghost" || !strings.Contains(res.Removed[0].Error, "offline") {
		t.Errorf("%d tasks retried after ghost, removed %+v; want one, and ghost taken out of the pool as offline", retried, res.Removed)
	}
}

// TestRecordSuiteHistory records a suite's history (three tasks leased
// over two fake devices, the third waiting for a free one) as a replay
// fixture.
func TestRecordSuiteHistory(t *testing.T) {
	if !*record {
		t.Skip("pass -record to record histories")
	}
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{
		"s": {Steps: []scripted.Step{click("A"), done(map[string]any{"n": "1"})}},
	}})
	env.Serve("p1", env.Activities(fakedevice.New("A"), "p1", env.ModelConfig()), true)
	env.Serve("p2", env.Activities(fakedevice.New("A"), "p2", env.ModelConfig()), false)
	in := suiteOf(t, 3)
	in.Devices = []string{"p1", "p2"}
	in.NoReset = true
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run, err := env.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "suite", TaskQueue: workflows.TaskQueue}, workflows.SuiteWorkflowName, in)
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Get(ctx, nil); err != nil {
		t.Fatal(err)
	}
	saveHistories(t, env, "suite")
}
