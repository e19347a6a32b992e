package workflows

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/internal/text"
	"github.com/pcflow/pcflow/specs/plan"
)

// SuiteWorkflowName is the registered name of SuiteWorkflow.
const SuiteWorkflowName = "pcflow.Suite"

// SuiteQuery returns a suite's live progress (SuiteLive).
const SuiteQuery = "suite"

// SuiteRestartSignal starts running task runs again from the beginning:
// `pcflow eval resume` sends it for the runs whose devices came back
// without their applications (an overlay sandbox goes with a killed eval).
const SuiteRestartSignal = "pcflow.suite.restart"

// SuiteRestart is SuiteRestartSignal's payload.
type SuiteRestart struct {
	Keys []string `json:"keys"`
	Why  string   `json:"why"`
}

// ReasonMissingRequirement ends a task whose device lacks a program it
// needs or is of another platform, or whose platform the pool lacks.
const ReasonMissingRequirement = "missing_requirement"

// Suite run statuses beyond the subtask ones.
const (
	StatusQueued = "queued"
)

// SuiteTask is one task run of a suite: which plan it runs, which repeat
// it is, and its tags. The plan itself travels once per distinct content in
// SuiteInput.Plans (PlanHash names it); a task's own Plan is for callers
// that build small suites by hand and for suites started before the plans
// were packed.
type SuiteTask struct {
	// Key is unique within the suite ("calc_add", "calc_add.r2"); the task
	// run's workflow id is SUITE/Key.
	Key    string   `json:"key"`
	File   string   `json:"file,omitempty"`
	Repeat int      `json:"repeat"`
	Tags   []string `json:"tags,omitempty"`
	// PlanHash names the task's plan in SuiteInput.Plans (PlanHash()).
	PlanHash string     `json:"plan_hash,omitempty"`
	Plan     *plan.Plan `json:"plan,omitempty"`
	// Requires is read only from suites started before the requirements
	// moved into the plan (plan.Plan.Requires, checked by the task's own
	// workflow): new suites leave it empty.
	Requires []string `json:"requires,omitempty"`
	// Vars are the values of the task's variables that are not sensitive
	// (InstructionInput.Vars).
	Vars map[string]string `json:"vars,omitempty"`
}

// SuiteInput starts a suite, or continues one as new.
type SuiteInput struct {
	Suite string      `json:"suite"`
	Tasks []SuiteTask `json:"tasks"`
	// Plans holds every distinct plan of the suite once, by content hash:
	// PackPlans' gzip-compressed JSON, so a suite of hundreds of tasks
	// stays far below Temporal's 2 MiB payload limit.
	Plans []byte `json:"plans,omitempty"`
	// Replays are the task runs' checked replays (pcflow eval
	// --replay-run), by task run key: PackReplays' gzip-compressed JSON.
	Replays []byte `json:"replays,omitempty"`
	// Devices is the pool: physical device names, each served by a worker
	// polling plan.DeviceQueue(name).
	Devices []string `json:"devices"`
	// Platforms: the pool devices' platforms, as their workers say them.
	Platforms map[string]string `json:"platforms,omitempty"`
	Options   Options           `json:"options"`
	// NoReset skips the reset between tasks.
	NoReset bool `json:"no_reset,omitempty"`
	// State is the progress a suite continued as new carries on; nil for
	// a new suite.
	State *SuiteState `json:"state,omitempty"`
}

// SuiteState is what a suite continued as new carries from its previous
// run: the task runs so far (finished ones with their compact results,
// the rest queued) and the pool. No task is running when it continues.
type SuiteState struct {
	Started time.Time       `json:"started"`
	Runs    []SuiteRun      `json:"runs"`
	Free    []string        `json:"free"`
	Removed []RemovedDevice `json:"removed,omitempty"`
	// Generation counts the runs before this one.
	Generation int `json:"generation"`
}

// PlanHash is the content hash a suite names a plan by.
func PlanHash(p plan.Plan) (string, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// PackPlans packs plans (by PlanHash) for SuiteInput.Plans.
func PackPlans(plans map[string]plan.Plan) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(plans); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// UnpackPlans reads SuiteInput.Plans.
func UnpackPlans(b []byte) (map[string]plan.Plan, error) {
	plans := map[string]plan.Plan{}
	if len(b) == 0 {
		return plans, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("suite plans: %w", err)
	}
	if err := json.NewDecoder(zr).Decode(&plans); err != nil {
		return nil, fmt.Errorf("suite plans: %w", err)
	}
	return plans, nil
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
	Queued  time.Time `json:"queued"`
	Started time.Time `json:"started,omitempty"`
	Ended   time.Time `json:"ended,omitempty"`
	// Result is the task run's result without its per-subtask and per-check
	// details, which stay in the task run's own workflow (pcflow report
	// reads them there).
	Result *InstructionResult `json:"result,omitempty"`
	// ResetMillis is the slowest of the device resets after the task.
	ResetMillis int64 `json:"reset_millis,omitempty"`
	// Retried is the device failure the task run was started again after,
	// on another device: its first device broke under it (the harness's
	// failure, never the agent's); or the start state its last start
	// failed (its devices reset, its setup run again).
	Retried string `json:"retried,omitempty"`
	// BadStarts counts the starts whose screen failed the task's start
	// checks (plan.Start) before this one.
	BadStarts int `json:"bad_starts,omitempty"`
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
	// Draining is set while the suite lets its running tasks finish before
	// it continues as new (its history is long); Generation counts the
	// runs it continued from.
	Draining   bool `json:"draining,omitempty"`
	Generation int  `json:"generation,omitempty"`
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

// suiteVersion marks suites that pack their plans, check requirements in
// the task's own workflow and continue as new; older histories replay the
// old way.
const suiteVersion = "suite-packed-plans"

// SuiteWorkflow runs a suite's tasks over a pool of devices. Devices are
// leased dynamically: a task starts as soon as as many devices are free as
// it has logical devices, which are bound to the leased ones (Options.Bind)
// for its run, a child InstructionWorkflow. After the task each leased
// device is reset (Reset on its queue); a device whose reset fails is taken
// out of the pool and reported (without resets, a task's device error
// makes the suite probe its devices, with the same effect). A task that fails, times out or cannot get
// what it needs never stops the suite. Tasks are leased in order, but a
// task that does not fit yet lets later, smaller tasks go first.
//
// Once its history reaches Options.ContinueAsNewEvents events, the suite
// leases no more tasks, lets the running ones finish, and continues as new
// with its progress (SuiteState), so a suite of any length keeps each
// run's history small.
func SuiteWorkflow(ctx workflow.Context, in SuiteInput) (*SuiteResult, error) {
	o := in.Options.withDefaults()
	v := workflow.GetVersion(ctx, suiteVersion, workflow.DefaultVersion, 1)
	plans, err := UnpackPlans(in.Plans)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), "SuitePlans", nil)
	}
	planOf := func(t SuiteTask) (plan.Plan, error) {
		if t.Plan != nil {
			return *t.Plan, nil
		}
		p, ok := plans[t.PlanHash]
		if !ok {
			return plan.Plan{}, fmt.Errorf("task run %s: its plan %s is not in the suite's plans", t.Key, t.PlanHash)
		}
		return p, nil
	}
	now := workflow.Now(ctx)
	live := SuiteLive{Suite: in.Suite, Started: now, Pool: append([]string(nil), in.Devices...), Free: append([]string(nil), in.Devices...)}
	if st := in.State; st != nil {
		live.Started, live.Runs, live.Free, live.Removed, live.Generation = st.Started, st.Runs, st.Free, st.Removed, st.Generation
	} else {
		for _, t := range in.Tasks {
			task := t.PlanHash
			if p, err := planOf(t); err == nil {
				task = p.Task
			}
			live.Runs = append(live.Runs, SuiteRun{Key: t.Key, Task: task, File: t.File, Repeat: t.Repeat, Tags: t.Tags, Status: StatusQueued, Queued: now})
		}
	}
	if err := workflow.SetQueryHandler(ctx, SuiteQuery, func() (SuiteLive, error) { return live, nil }); err != nil {
		return nil, err
	}
	suiteID := workflow.GetInfo(ctx).WorkflowExecution.ID
	// A restart cancels the run's task workflow; the run goes back to the
	// queue (below) saying why.
	cancels := map[string]workflow.CancelFunc{}
	restart := map[string]string{}
	workflow.Go(ctx, func(c workflow.Context) {
		ch := workflow.GetSignalChannel(c, SuiteRestartSignal)
		for {
			var sig SuiteRestart
			ch.Receive(c, &sig)
			for _, k := range sig.Keys {
				if cancel, ok := cancels[k]; ok {
					restart[k] = sig.Why
					cancel()
				}
			}
		}
	})
	var pending []int
	for i := range in.Tasks {
		if live.Runs[i].Status == StatusQueued {
			pending = append(pending, i)
		}
	}
	running := 0
	changed := false
	var requeue []int // runs started again (restarted, or their device broke)
	for {
		pending = append(pending, requeue...)
		requeue = nil
		if len(pending) == 0 && running == 0 {
			break
		}
		if v >= 1 && !live.Draining {
			info := workflow.GetInfo(ctx)
			live.Draining = info.GetCurrentHistoryLength() >= o.ContinueAsNewEvents || info.GetContinueAsNewSuggested()
		}
		var still []int
		for _, i := range pending {
			t := in.Tasks[i]
			r := &live.Runs[i]
			p, err := planOf(t)
			if err != nil {
				r.Status, r.Reason, r.Error, r.Ended = StatusFailed, ReasonDeviceError, err.Error(), workflow.Now(ctx)
				continue
			}
			need := logicalDevices(p)
			usable := len(live.Pool) - len(live.Removed)
			lease, fits := in.pickDevices(live.Free, need, p) // free devices of need's platforms
			switch {
			case len(need) > usable:
				r.Status, r.Reason = StatusFailed, ReasonDeviceError
				r.Error = fmt.Sprintf("the task needs %d devices (%s) and the pool has %d working", len(need), strings.Join(need, ", "), usable)
				r.Ended = workflow.Now(ctx)
				continue
			case in.unservedPlatform(&live, need, p) != "":
				r.Status, r.Reason, r.Error, r.Ended = StatusFailed, ReasonMissingRequirement, in.unservedPlatform(&live, need, p), workflow.Now(ctx)
				continue
			case live.Draining || !fits:
				still = append(still, i)
				continue
			}
			live.Free = slices.DeleteFunc(live.Free, func(d string) bool { return slices.Contains(lease, d) })
			bind := map[string]string{}
			for j, n := range need {
				bind[n] = lease[j]
			}
			r.Status, r.Devices, r.Started = StatusRunning, bind, workflow.Now(ctx)
			r.Workflow = suiteID + "/" + t.Key
			if r.Retried != "" {
				// An id of its own each time, whatever an earlier
				// attempt left behind (only runs started again have
				// Retried, so older histories never come here).
				r.Workflow = fmt.Sprintf("%s~%d", r.Workflow, workflow.Now(ctx).UnixMilli())
			}
			running++
			workflow.Go(ctx, func(gctx workflow.Context) {
				tctx, cancel := workflow.WithCancel(gctx)
				cancels[t.Key] = cancel
				runSuiteTask(tctx, in, o, v, t, p, r, lease)
				delete(cancels, t.Key)
				// A start that failed the task's start checks: its devices
				// are reset below and the task starts again, setup and
				// all, up to start { retries } times; while they reset it
				// is not over.
				bad := r.BadStarts
				startAgain := false
				if r.Reason == ReasonHarnessError && strings.HasPrefix(r.Error, StartStateError) {
					bad++
					if p.Start != nil && bad <= p.Start.Retries {
						startAgain, r.Status = true, StatusRunning
					}
				}
				switch {
				case !in.NoReset:
					resetDevices(gctx, o, &live, r, lease)
				case r.Reason == ReasonDeviceError && workflow.GetVersion(gctx, suiteProbeVersion, workflow.DefaultVersion, 1) >= 1:
					// No reset tells a dead device apart: ask each one.
					probeDevices(gctx, o, &live, r, lease)
				default:
					live.Free = append(live.Free, lease...)
				}
				// Started again: on a restart signal (its applications are
				// gone), or after a device error on a device that then left
				// the pool (the harness's failure), once, on working
				// devices, when the pool has enough.
				why, restarted := restart[t.Key]
				delete(restart, t.Key)
				if !restarted && r.Reason == ReasonDeviceError && r.Retried == "" && len(need) <= len(live.Pool)-len(live.Removed) &&
					slices.ContainsFunc(live.Removed, func(d RemovedDevice) bool { return d.After == r.Key && slices.Contains(lease, d.Device) }) &&
					workflow.GetVersion(gctx, suiteRetryVersion, workflow.DefaultVersion, 1) >= 1 {
					why, restarted = r.Error, true
				}
				// A run whose desktop was lost under it: once more, on the
				// device reset above (or on another).
				if !restarted && r.Reason == ReasonHarnessError && strings.HasPrefix(r.Error, DesktopLostError) &&
					!strings.HasPrefix(r.Retried, DesktopLostError) && len(need) <= len(live.Pool)-len(live.Removed) {
					why, restarted = r.Error, true
				}
				switch {
				case restarted || bad == r.BadStarts:
				case startAgain && len(need) <= len(live.Pool)-len(live.Removed):
					why, restarted = r.Error, true
				default: // the last bad start: the run ends there
					r.Status, r.BadStarts = StatusFailed, bad
					if bad > 1 {
						r.Error = fmt.Sprintf("%s (%d starts, the devices reset between them)", r.Error, bad)
					}
				}
				if restarted {
					*r = SuiteRun{Key: r.Key, Task: r.Task, File: r.File, Repeat: r.Repeat, Tags: r.Tags, Workflow: r.Workflow, Status: StatusQueued, Queued: r.Queued, Retried: why, BadStarts: bad}
					requeue = append(requeue, i)
				}
				running--
				changed = true
			})
		}
		pending = still
		if len(pending) == 0 && running == 0 {
			break
		}
		if live.Draining && running == 0 {
			// Nothing runs: carry the progress into a fresh history.
			next := in
			next.State = &SuiteState{Started: live.Started, Runs: live.Runs, Free: live.Free, Removed: live.Removed, Generation: live.Generation + 1}
			return nil, workflow.NewContinueAsNewError(ctx, SuiteWorkflowName, next)
		}
		changed = false
		if err := workflow.Await(ctx, func() bool { return changed }); err != nil {
			return nil, err
		}
	}
	res := &SuiteResult{Suite: in.Suite, Runs: live.Runs, Removed: live.Removed, Started: live.Started, Ended: workflow.Now(ctx)}
	return res, nil
}

// runSuiteTask runs the task as a child workflow, filling r. The task's
// own workflow checks what it requires of its devices (plan.Requires);
// suites from before version 1 checked SuiteTask.Requires here.
func runSuiteTask(ctx workflow.Context, in SuiteInput, o Options, v workflow.Version, t SuiteTask, p plan.Plan, r *SuiteRun, lease []string) {
	defer func() { r.Ended = workflow.Now(ctx) }()
	fail := func(reason, msg string) {
		r.Status, r.Reason, r.Error = StatusFailed, reason, msg
	}
	if v == workflow.DefaultVersion && len(t.Requires) > 0 {
		for _, dev := range sortedValues(r.Devices) {
			ao := deviceOptions(o, dev, workflow.Now(ctx).Add(2*time.Minute), workflow.Now(ctx))
			ao.StartToCloseTimeout = time.Minute
			ao.RetryPolicy.MaximumAttempts = 3
			ao.RetryPolicy.NonRetryableErrorTypes = append(ao.RetryPolicy.NonRetryableErrorTypes, activities.ErrTypeMissing)
			actx := withSummary(workflow.WithActivityOptions(ctx, ao), fmt.Sprintf("requires %s on %s", strings.Join(t.Requires, " "), dev))
			err := workflow.ExecuteActivity(actx, a.Requires, activities.RequiresInput{Task: p.Task, Programs: t.Requires}).Get(ctx, nil)
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
	if v >= 1 && len(t.Requires) > 0 {
		p.Requires = text.Uniq(append(append([]string(nil), p.Requires...), t.Requires...))
	}
	opts := in.Options
	opts.Bind = r.Devices
	co := workflow.ChildWorkflowOptions{
		WorkflowID:    r.Workflow,
		TaskQueue:     TaskQueue,
		StaticSummary: fmt.Sprintf("task %s on %s", t.Key, strings.Join(lease, ", ")),
		StaticDetails: p.Instruction,
	}
	if p.Timeout > 0 {
		// The task's own deadline ends it; this bounds a task stuck beyond it.
		co.WorkflowExecutionTimeout = time.Duration(p.Timeout) + 5*time.Minute
	}
	ii := InstructionInput{Plan: p, Options: opts, Vars: t.Vars}
	if len(in.Replays) > 0 {
		replays, err := UnpackReplays(in.Replays)
		if err != nil {
			fail(ReasonDeviceError, err.Error())
			return
		}
		ii.Replay = replays[t.Key]
	}
	var res InstructionResult
	err := workflow.ExecuteChildWorkflow(workflow.WithChildOptions(ctx, co), InstructionWorkflowName, ii).Get(ctx, &res)
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
	if v >= 1 {
		// The details stay in the task run's own history.
		res.Subtasks, res.Checks, res.PostRun = nil, nil, nil
	}
	r.Result = &res
	r.Status, r.Reason, r.Error = res.Status, res.Reason, res.Error
}

// suiteRetryVersion marks suites that start a task run again on working
// devices after a device error on a device that then left the pool.
const suiteRetryVersion = "suite-retry-after-broken-device"

// suiteProbeVersion marks suites that probe their devices after a device
// error when they do not reset them.
const suiteProbeVersion = "suite-probe-after-device-error"

// probeDevices asks every leased device whether its worker is there (the
// Requires activity, needing nothing) and returns those that answer to
// the pool; the others are taken out and reported.
func probeDevices(ctx workflow.Context, o Options, live *SuiteLive, r *SuiteRun, lease []string) {
	futures := make([]workflow.Future, len(lease))
	for i, dev := range lease {
		now := workflow.Now(ctx)
		ao := deviceOptions(o, dev, now.Add(o.DeviceTimeout+time.Minute), now)
		ao.StartToCloseTimeout = time.Minute
		ao.RetryPolicy.MaximumAttempts = 1
		futures[i] = workflow.ExecuteActivity(withSummary(workflow.WithActivityOptions(ctx, ao), "probe "+dev+" after "+r.Key), a.Requires, activities.RequiresInput{Task: r.Task})
	}
	for i, f := range futures {
		if err := f.Get(ctx, nil); err != nil {
			_, msg := reasonFor(err, lease[i], o)
			live.Removed = append(live.Removed, RemovedDevice{Device: lease[i], After: r.Key, Error: msg})
			continue
		}
		live.Free = append(live.Free, lease[i])
	}
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
