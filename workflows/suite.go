package workflows

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/specs/plan"
)

// SuiteWorkflowName is the registered name of SuiteWorkflow.
const SuiteWorkflowName = "pcflow.Suite"

// SuiteQuery returns a suite's live progress (SuiteLive).
const SuiteQuery = "suite"

// ReasonMissingRequirement ends a task whose device lacks a program it needs.
const ReasonMissingRequirement = "missing_requirement"

// Suite run statuses beyond the subtask ones.
const (
	StatusQueued = "queued"
)

// SuiteTask is one task run of a suite: a compiled plan, which repeat it
// is, and its tags.
type SuiteTask struct {
	// Key is unique within the suite ("calc_add", "calc_add.r2"); the task
	// run's workflow id is SUITE/Key.
	Key    string    `json:"key"`
	File   string    `json:"file,omitempty"`
	Repeat int       `json:"repeat"`
	Tags   []string  `json:"tags,omitempty"`
	Plan   plan.Plan `json:"plan"`
	// Requires lists programs the task needs on each of its devices' PATH.
	Requires []string `json:"requires,omitempty"`
}

// SuiteInput starts a suite.
type SuiteInput struct {
	Suite string      `json:"suite"`
	Tasks []SuiteTask `json:"tasks"`
	// Devices is the pool: physical device names, each served by a worker
	// polling plan.DeviceQueue(name).
	Devices []string `json:"devices"`
	Options Options  `json:"options"`
	// NoReset skips the reset between tasks.
	NoReset bool `json:"no_reset,omitempty"`
}

// SuiteRun is the outcome of one task run of a suite.
type SuiteRun struct {
	Key      string   `json:"key"`
	Task     string   `json:"task"`
	File     string   `json:"file,omitempty"`
	Repeat   int      `json:"repeat"`
	Tags     []string `json:"tags,omitempty"`
	Workflow string   `json:"workflow,omitempty"`
	Status   string   `json:"status"`
	Reason   string   `json:"reason,omitempty"`
	Error    string   `json:"error,omitempty"`
	// Devices maps the task's logical devices to the physical ones leased.
	Devices map[string]string `json:"devices,omitempty"`
	// Queued, Started and Ended are workflow times; Started is when the
	// devices were leased, Ended when the task's result came back.
	Queued  time.Time          `json:"queued"`
	Started time.Time          `json:"started,omitempty"`
	Ended   time.Time          `json:"ended,omitempty"`
	Result  *InstructionResult `json:"result,omitempty"`
	// ResetMillis is the slowest of the device resets after the task.
	ResetMillis int64 `json:"reset_millis,omitempty"`
}

// RemovedDevice is a device taken out of the pool.
type RemovedDevice struct {
	Device string `json:"device"`
	After  string `json:"after"` // the task run whose reset failed
	Error  string `json:"error"`
}

// SuiteResult is the outcome of a suite.
type SuiteResult struct {
	Suite   string          `json:"suite"`
	Runs    []SuiteRun      `json:"runs"`
	Removed []RemovedDevice `json:"removed,omitempty"`
	Started time.Time       `json:"started"`
	Ended   time.Time       `json:"ended"`
}

// SuiteLive is what SuiteQuery returns.
type SuiteLive struct {
	Suite   string          `json:"suite"`
	Started time.Time       `json:"started"`
	Pool    []string        `json:"pool"`
	Free    []string        `json:"free"`
	Removed []RemovedDevice `json:"removed,omitempty"`
	Runs    []SuiteRun      `json:"runs"`
}

// Counts returns how many runs are queued, running and finished, and how
// many finished ones succeeded.
func (l SuiteLive) Counts() (queued, running, done, passed int) {
	for _, r := range l.Runs {
		switch r.Status {
		case StatusQueued:
			queued++
		case StatusRunning:
			running++
		default:
			done++
			if r.Status == StatusSucceeded {
				passed++
			}
		}
	}
	return
}

// physical returns the physical device a logical device is bound to.
func (o Options) physical(device string) string {
	if p, ok := o.Bind[device]; ok {
		return p
	}
	return device
}

// logicalDevices returns the devices a plan's steps run on.
func logicalDevices(p plan.Plan) []string {
	var names []string
	for _, d := range p.Devices {
		names = append(names, d.Name)
	}
	return names
}

// SuiteWorkflow runs a suite's tasks over a pool of devices. Devices are
// leased dynamically: a task starts as soon as as many devices are free as
// it has logical devices, which are bound to the leased ones (Options.Bind)
// for its run, a child InstructionWorkflow. After the task each leased
// device is reset (Reset on its queue); a device whose reset fails is taken
// out of the pool and reported. A task that fails, times out or cannot get
// what it needs never stops the suite. Tasks are leased in order, but a
// task that does not fit yet lets later, smaller tasks go first.
func SuiteWorkflow(ctx workflow.Context, in SuiteInput) (*SuiteResult, error) {
	o := in.Options.withDefaults()
	now := workflow.Now(ctx)
	live := SuiteLive{Suite: in.Suite, Started: now, Pool: append([]string(nil), in.Devices...), Free: append([]string(nil), in.Devices...)}
	for _, t := range in.Tasks {
		live.Runs = append(live.Runs, SuiteRun{Key: t.Key, Task: t.Plan.Task, File: t.File, Repeat: t.Repeat, Tags: t.Tags, Status: StatusQueued, Queued: now})
	}
	if err := workflow.SetQueryHandler(ctx, SuiteQuery, func() (SuiteLive, error) { return live, nil }); err != nil {
		return nil, err
	}
	suiteID := workflow.GetInfo(ctx).WorkflowExecution.ID
	pending := make([]int, len(in.Tasks))
	for i := range pending {
		pending[i] = i
	}
	running := 0
	changed := false
	for len(pending) > 0 || running > 0 {
		var still []int
		for _, i := range pending {
			t := in.Tasks[i]
			need := logicalDevices(t.Plan)
			usable := len(live.Pool) - len(live.Removed)
			switch {
			case len(need) > usable:
				r := &live.Runs[i]
				r.Status, r.Reason = StatusFailed, ReasonDeviceError
				r.Error = fmt.Sprintf("the task needs %d devices (%s) and the pool has %d working", len(need), strings.Join(need, ", "), usable)
				r.Ended = workflow.Now(ctx)
				continue
			case len(need) > len(live.Free):
				still = append(still, i)
				continue
			}
			lease := append([]string(nil), live.Free[:len(need)]...)
			live.Free = live.Free[len(need):]
			bind := map[string]string{}
			for j, n := range need {
				bind[n] = lease[j]
			}
			r := &live.Runs[i]
			r.Status, r.Devices, r.Started = StatusRunning, bind, workflow.Now(ctx)
			r.Workflow = suiteID + "/" + t.Key
			running++
			idx := i
			workflow.Go(ctx, func(gctx workflow.Context) {
				runSuiteTask(gctx, in, o, in.Tasks[idx], &live.Runs[idx], lease)
				if !in.NoReset {
					resetDevices(gctx, o, &live, &live.Runs[idx], lease)
				} else {
					live.Free = append(live.Free, lease...)
				}
				running--
				changed = true
			})
		}
		pending = still
		if len(pending) == 0 && running == 0 {
			break
		}
		changed = false
		if err := workflow.Await(ctx, func() bool { return changed }); err != nil {
			return nil, err
		}
	}
	res := &SuiteResult{Suite: in.Suite, Runs: live.Runs, Removed: live.Removed, Started: live.Started, Ended: workflow.Now(ctx)}
	return res, nil
}

// runSuiteTask checks the task's requirements on its devices and runs it
// as a child workflow, filling r.
func runSuiteTask(ctx workflow.Context, in SuiteInput, o Options, t SuiteTask, r *SuiteRun, lease []string) {
	defer func() { r.Ended = workflow.Now(ctx) }()
	fail := func(reason, msg string) {
		r.Status, r.Reason, r.Error = StatusFailed, reason, msg
	}
	if len(t.Requires) > 0 {
		for _, dev := range sortedValues(r.Devices) {
			ao := deviceOptions(o, dev, workflow.Now(ctx).Add(2*time.Minute), workflow.Now(ctx))
			ao.StartToCloseTimeout = time.Minute
			ao.RetryPolicy.MaximumAttempts = 3
			ao.RetryPolicy.NonRetryableErrorTypes = append(ao.RetryPolicy.NonRetryableErrorTypes, activities.ErrTypeMissing)
			actx := withSummary(workflow.WithActivityOptions(ctx, ao), fmt.Sprintf("requires %s on %s", strings.Join(t.Requires, " "), dev))
			err := workflow.ExecuteActivity(actx, a.Requires, activities.RequiresInput{Task: t.Plan.Task, Programs: t.Requires}).Get(ctx, nil)
			if err != nil {
				var appErr *temporal.ApplicationError
				if errors.As(err, &appErr) && appErr.Type() == activities.ErrTypeMissing {
					fail(ReasonMissingRequirement, fmt.Sprintf("device %s: %s", dev, appErr.Message()))
					return
				}
				_, msg := reasonFor(err, dev, o)
				fail(ReasonDeviceError, msg)
				return
			}
		}
	}
	opts := in.Options
	opts.Bind = r.Devices
	co := workflow.ChildWorkflowOptions{
		WorkflowID:    r.Workflow,
		TaskQueue:     TaskQueue,
		StaticSummary: fmt.Sprintf("task %s on %s", t.Key, strings.Join(lease, ", ")),
		StaticDetails: t.Plan.Instruction,
	}
	if t.Plan.Timeout > 0 {
		// The task's own deadline ends it; this bounds a task stuck beyond it.
		co.WorkflowExecutionTimeout = time.Duration(t.Plan.Timeout) + 5*time.Minute
	}
	var res InstructionResult
	err := workflow.ExecuteChildWorkflow(workflow.WithChildOptions(ctx, co), InstructionWorkflowName, InstructionInput{Plan: t.Plan, Options: opts}).Get(ctx, &res)
	if err != nil {
		var toErr *temporal.TimeoutError
		switch {
		case temporal.IsCanceledError(err):
			fail(ReasonCancelled, "cancelled")
		case errors.As(err, &toErr):
			fail(ReasonTimeout, "the task ran past its timeout: "+err.Error())
		default:
			fail(ReasonDeviceError, err.Error())
		}
		return
	}
	r.Result = &res
	r.Status, r.Reason, r.Error = res.Status, res.Reason, res.Error
}

// resetDevices resets every leased device in parallel and returns the
// ones that reset to the pool.
func resetDevices(ctx workflow.Context, o Options, live *SuiteLive, r *SuiteRun, lease []string) {
	futures := make([]workflow.Future, len(lease))
	for i, dev := range lease {
		now := workflow.Now(ctx)
		ao := deviceOptions(o, dev, now.Add(3*time.Minute), now)
		ao.StartToCloseTimeout = time.Minute
		ao.RetryPolicy.MaximumAttempts = 3
		futures[i] = workflow.ExecuteActivity(withSummary(workflow.WithActivityOptions(ctx, ao), "reset "+dev+" after "+r.Key), a.Reset, activities.ResetInput{Device: dev})
	}
	for i, f := range futures {
		var rr activities.ResetResult
		if err := f.Get(ctx, &rr); err != nil {
			_, msg := reasonFor(err, lease[i], o)
			live.Removed = append(live.Removed, RemovedDevice{Device: lease[i], After: r.Key, Error: msg})
			continue
		}
		if rr.Millis > r.ResetMillis {
			r.ResetMillis = rr.Millis
		}
		live.Free = append(live.Free, lease[i])
	}
}

func sortedValues(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}
