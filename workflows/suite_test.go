package workflows_test

import (
	"context"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/workflows"
)

func oneTask(name string) string {
	return `task "` + name + `" {
  subtask "work" {
    instruction = "do it"
  }
}`
}

// TestSuiteLeasesResetsAndSurvivesFailures runs a suite over a pool of
// three devices with mocked device activities: a two-device task leases
// two devices bound to its logical names, every task is followed by a
// reset of each device it leased, a failing task and a task whose device
// lacks a program end with their reasons while the others succeed, and a
// device whose reset fails leaves the pool and takes no more tasks.
func TestSuiteLeasesResetsAndSurvivesFailures(t *testing.T) {
	env := unitEnv(t)
	env.RegisterWorkflowWithOptions(workflows.SuiteWorkflow, workflow.RegisterOptions{Name: workflows.SuiteWorkflowName})
	var a *activities.Activities
	env.RegisterActivity(a.Reset)

	var mu sync.Mutex
	queueOf := map[string][]string{} // task run → device queues it acted on
	var resets []string              // "queue after task"
	env.OnActivity(activities.DecideName, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.DecideInput) (*activities.DecideResult, error) {
			info := activity.GetInfo(ctx)
			parts := strings.Split(info.WorkflowExecution.ID, "/") // SUITE/RUN/SUBTASK
			run := parts[len(parts)-2]
			mu.Lock()
			queueOf[run] = append(queueOf[run], info.TaskQueue)
			mu.Unlock()
			act := screen.Action{Kind: screen.ActDone, Outputs: map[string]string{}}
			if in.Subtask == "a" {
				act.Outputs["code"] = "4711"
			}
			if run == "bad" {
				act = screen.Action{Kind: screen.ActFail, Reason: "the button is not there"}
			}
			return &activities.DecideResult{Action: act, Usage: screen.Usage{Calls: 1, PromptTokens: 10}}, nil
		})
	env.OnActivity(activities.RequiresName, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.RequiresInput) error {
			for _, p := range in.Programs {
				if p == "nosuchapp" {
					return temporal.NewNonRetryableApplicationError("task needs nosuchapp", activities.ErrTypeMissing, nil)
				}
			}
			return nil
		})
	env.OnActivity(activities.ResetName, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.ResetInput) (*activities.ResetResult, error) {
			q := activity.GetInfo(ctx).TaskQueue
			mu.Lock()
			resets = append(resets, q)
			mu.Unlock()
			if q == "device.p3" {
				return nil, temporal.NewNonRetryableApplicationError("windows still open", activities.ErrTypeDevice, nil)
			}
			return &activities.ResetResult{Millis: 5}, nil
		})

	in := workflows.SuiteInput{Suite: "s", Devices: []string{"p1", "p2", "p3"}}
	add := func(key, src string, requires ...string) {
		in.Tasks = append(in.Tasks, workflows.SuiteTask{Key: key, Plan: ptr(mustPlan(t, src)), Requires: requires})
	}
	add("relay", threeSubtasks)
	for _, k := range []string{"ok1", "ok2", "ok3", "ok4"} {
		add(k, oneTask(k))
	}
	add("bad", oneTask("bad"))
	add("needs", oneTask("needs"), "sh", "nosuchapp")
	env.ExecuteWorkflow(workflows.SuiteWorkflowName, in)
	if !env.IsWorkflowCompleted() || env.GetWorkflowError() != nil {
		t.Fatalf("suite workflow: %v", env.GetWorkflowError())
	}
	var res workflows.SuiteResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range res.Runs {
		got[r.Key] = r.Status + "/" + r.Reason
	}
	want := map[string]string{
		"relay": "succeeded/success", "ok1": "succeeded/success", "ok2": "succeeded/success", "ok3": "succeeded/success",
		"ok4": "succeeded/success", "bad": "failed/agent_failed", "needs": "failed/missing_requirement",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("run outcomes (-want +got):\n%s", d)
	}

	relay := res.Runs[0]
	if len(relay.Devices) != 2 || relay.Devices["left"] == relay.Devices["right"] {
		t.Fatalf("relay leased %v, want two distinct devices for left and right", relay.Devices)
	}
	relayQueues := append([]string(nil), queueOf["relay"]...)
	sort.Strings(relayQueues)
	wantQueues := []string{"device." + relay.Devices["left"], "device." + relay.Devices["right"], "device." + relay.Devices["right"]}
	sort.Strings(wantQueues)
	if d := cmp.Diff(wantQueues, relayQueues); d != "" {
		t.Errorf("relay's subtasks ran on (-want +got):\n%s", d)
	}

	// One reset per leased device per task run that got devices.
	leased := 0
	for _, r := range res.Runs {
		leased += len(r.Devices)
	}
	if len(resets) != leased {
		t.Errorf("%d resets for %d leases: %v", len(resets), leased, resets)
	}
	if len(res.Removed) != 1 || res.Removed[0].Device != "p3" {
		t.Fatalf("removed = %+v, want p3 taken out after its failed reset", res.Removed)
	}
	// After p3 left the pool, no task ran on it.
	var p3Runs []string
	for _, r := range res.Runs {
		for _, d := range r.Devices {
			if d == "p3" {
				p3Runs = append(p3Runs, r.Key)
			}
		}
	}
	if len(p3Runs) != 1 || p3Runs[0] != res.Removed[0].After {
		t.Errorf("tasks on p3: %v; want only %s, the one before its reset failed", p3Runs, res.Removed[0].After)
	}
	for _, r := range res.Runs {
		if r.Key == "needs" && (!strings.Contains(r.Error, "nosuchapp") || !strings.Contains(r.Error, "device "+r.Devices["desktop"]+" (leased as the task's device desktop)")) {
			t.Errorf("needs: error %q does not name the missing program and the leased device", r.Error)
		}
	}
}

// TestSuiteTaskLargerThanPool fails a task that needs more devices than the
// pool has, with a message that says so, and runs the rest.
func TestSuiteTaskLargerThanPool(t *testing.T) {
	env := unitEnv(t)
	env.RegisterWorkflowWithOptions(workflows.SuiteWorkflow, workflow.RegisterOptions{Name: workflows.SuiteWorkflowName})
	var a *activities.Activities
	env.RegisterActivity(a.Reset)
	env.OnActivity(activities.DecideName, mock.Anything, mock.Anything).Return(&activities.DecideResult{Action: screen.Action{Kind: screen.ActDone}}, nil)
	env.OnActivity(activities.ResetName, mock.Anything, mock.Anything).Return(&activities.ResetResult{}, nil)
	in := workflows.SuiteInput{Suite: "s", Devices: []string{"only"}, Tasks: []workflows.SuiteTask{
		{Key: "relay", Plan: ptr(mustPlan(t, threeSubtasks))}, {Key: "one", Plan: ptr(mustPlan(t, oneTask("one")))},
	}}
	env.ExecuteWorkflow(workflows.SuiteWorkflowName, in)
	var res workflows.SuiteResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if r := res.Runs[0]; r.Status != workflows.StatusFailed || !strings.Contains(r.Error, "needs 2 devices") {
		t.Errorf("relay = %s %q, want failed: needs 2 devices", r.Status, r.Error)
	}
	if r := res.Runs[1]; r.Status != workflows.StatusSucceeded {
		t.Errorf("one = %s (%s), want succeeded", r.Status, r.Error)
	}
}

func ptr[T any](v T) *T { return &v }

// TestSuiteRetriesOnAWorkingDevice: a task whose device breaks under it
// (the device fails every step, then its reset fails and it leaves the
// pool) is the harness's failure, not the agent's: the suite starts the
// task once more on a working device, where it succeeds, and the run
// records the failure it was retried after. A task that fails on a
// device that stays in the pool is not retried.
func TestSuiteRetriesOnAWorkingDevice(t *testing.T) {
	env := unitEnv(t)
	env.RegisterWorkflowWithOptions(workflows.SuiteWorkflow, workflow.RegisterOptions{Name: workflows.SuiteWorkflowName})
	var a *activities.Activities
	env.RegisterActivity(a.Reset)
	var mu sync.Mutex
	decided := map[string]int{} // device queue → Decide calls
	env.OnActivity(activities.DecideName, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.DecideInput) (*activities.DecideResult, error) {
			info := activity.GetInfo(ctx)
			mu.Lock()
			decided[info.TaskQueue]++
			mu.Unlock()
			if info.TaskQueue == "device.broken" {
				return nil, temporal.NewNonRetryableApplicationError("display :7: no X server answers", activities.ErrTypeDevice, nil)
			}
			if strings.Contains(info.WorkflowExecution.ID, "/bad/") {
				return nil, temporal.NewNonRetryableApplicationError("the window is gone", activities.ErrTypeDevice, nil)
			}
			return &activities.DecideResult{Action: screen.Action{Kind: screen.ActDone, Outputs: map[string]string{}}, Usage: screen.Usage{Calls: 1}}, nil
		})
	env.OnActivity(activities.ResetName, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.ResetInput) (*activities.ResetResult, error) {
			if activity.GetInfo(ctx).TaskQueue == "device.broken" {
				return nil, temporal.NewNonRetryableApplicationError("display :7 is gone", activities.ErrTypeDevice, nil)
			}
			return &activities.ResetResult{Millis: 5}, nil
		})
	in := workflows.SuiteInput{Suite: "s", Devices: []string{"broken", "good"}}
	in.Tasks = append(in.Tasks, workflows.SuiteTask{Key: "t", Plan: ptr(mustPlan(t, oneTask("t")))},
		workflows.SuiteTask{Key: "bad", Plan: ptr(mustPlan(t, oneTask("bad")))})
	env.ExecuteWorkflow(workflows.SuiteWorkflowName, in)
	if !env.IsWorkflowCompleted() || env.GetWorkflowError() != nil {
		t.Fatalf("suite workflow: %v", env.GetWorkflowError())
	}
	var res workflows.SuiteResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	byKey := map[string]workflows.SuiteRun{}
	for _, r := range res.Runs {
		byKey[r.Key] = r
	}
	r := byKey["t"]
	if r.Status != workflows.StatusSucceeded || r.Devices["desktop"] != "good" || !strings.Contains(r.Retried, "no X server answers") || !strings.Contains(r.Workflow, "/t~") {
		t.Errorf("t = %s/%s on %v, retried after %q, workflow %s; want it started again on good after the broken device's error", r.Status, r.Reason, r.Devices, r.Retried, r.Workflow)
	}
	if len(res.Removed) != 1 || res.Removed[0].Device != "broken" {
		t.Errorf("removed = %+v, want the broken device", res.Removed)
	}
	if b := byKey["bad"]; b.Status != workflows.StatusFailed || b.Reason != workflows.ReasonDeviceError || b.Retried != "" {
		t.Errorf("bad = %s/%s retried %q; want a device error on a device that stayed, not retried", b.Status, b.Reason, b.Retried)
	}
}
