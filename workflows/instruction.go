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

// Search attribute keys (registered by the embedded server).
var (
	TaskAttr   = temporal.NewSearchAttributeKeyKeyword("PcflowTask")
	StatusAttr = temporal.NewSearchAttributeKeyKeyword("PcflowStatus")
)

// ChildID is the workflow id of a subtask's child workflow.
func ChildID(parent, subtask string) string { return parent + "/" + subtask }

// InstructionWorkflow is the Manager level of a run: setup, decomposition
// when the task has no subtasks, the subtask DAG as child workflows
// (independent subtasks in parallel, each on its device, instructions
// rendered with their predecessors' outputs), then the task's checks.
//
// With video asked for (Options.Video, the task's video = true) every
// device is recorded from before the setup to after the checks, however
// the run ends (video.go).
func InstructionWorkflow(ctx workflow.Context, in InstructionInput) (*InstructionResult, error) {
	o := in.Options.withDefaults()
	recs := startVideo(ctx, in, o, taskDeadline(ctx, in.Plan))
	res, err := instruction(ctx, in)
	if videos := stopVideo(ctx, o, recs); res != nil {
		res.Videos = videos
	}
	return res, err
}

// taskDeadline is when the task's time limit ends (a day without one).
func taskDeadline(ctx workflow.Context, p plan.Plan) time.Time {
	if p.Timeout == 0 {
		return workflow.Now(ctx).Add(24 * time.Hour)
	}
	return workflow.Now(ctx).Add(time.Duration(p.Timeout))
}

// instruction is InstructionWorkflow's run of the task.
func instruction(ctx workflow.Context, in InstructionInput) (*InstructionResult, error) {
	o := in.Options.withDefaults()
	p := in.Plan
	deadline := taskDeadline(ctx, p)
	live := Live{Task: p.Task, Phase: "setup", Subtasks: map[string]string{}, Reasons: map[string]string{}, Children: map[string]string{}}
	if err := workflow.SetQueryHandler(ctx, ProgressQuery, func() (Live, error) { return live, nil }); err != nil {
		return nil, err
	}
	setStatus := func(s string) {
		if o.SearchAttributes {
			_ = workflow.UpsertTypedSearchAttributes(ctx, TaskAttr.ValueSet(p.Task), StatusAttr.ValueSet(s))
		}
	}
	setStatus("running")
	res := &InstructionResult{Task: p.Task, Status: StatusFailed}
	fail := func(reason, msg string) (*InstructionResult, error) {
		res.Reason, res.Error = reason, msg
		live.Phase = reason
		finalize(res, p)
		setStatus(res.Status)
		return res, nil
	}

	// The platform each device is (from platformVersion on) and the
	// programs the task needs, on every device, before anything runs.
	checkPlatform := workflow.GetVersion(ctx, platformVersion, workflow.DefaultVersion, 1) >= 1
	if checkPlatform || len(p.Requires) > 0 {
		for _, d := range p.Devices {
			ao := deviceOptions(o, d.Name, deadline, workflow.Now(ctx))
			ao.StartToCloseTimeout = time.Minute
			ao.RetryPolicy.MaximumAttempts = 3
			ao.RetryPolicy.NonRetryableErrorTypes = append(ao.RetryPolicy.NonRetryableErrorTypes, activities.ErrTypeMissing)
			in := activities.RequiresInput{Task: p.Task, Programs: p.Requires}
			what := fmt.Sprintf("requires %s on %s", strings.Join(p.Requires, " "), d.Name)
			if checkPlatform {
				in.Device, in.Platform = d.Name, d.PlatformOrDefault()
				what = fmt.Sprintf("%s is a %s device", d.Name, in.Platform)
				if len(p.Requires) > 0 {
					what += " with " + strings.Join(p.Requires, " ")
				}
			}
			actx := withSummary(workflow.WithActivityOptions(ctx, ao), what)
			err := workflow.ExecuteActivity(actx, a.Requires, in).Get(ctx, nil)
			if err != nil {
				var appErr *temporal.ApplicationError
				if errors.As(err, &appErr) && appErr.Type() == activities.ErrTypeMissing {
					return fail(ReasonMissingRequirement, fmt.Sprintf("device %s: %s", o.deviceLabel(d.Name), appErr.Message()))
				}
				reason, msg := reasonFor(err, d.Name, o)
				return fail(reason, msg)
			}
		}
	}

	// Setup steps, in order, each on its device. sessions are the worker
	// sessions the setup opened applications in, by device: a failed run
	// whose device shows an empty desktop in another session lost its
	// desktop (desktopLost).
	sessions := map[string]string{}
	if !in.SkipSetup {
		for _, su := range p.Setup {
			sr, reason, msg := runSetupStep(ctx, o, deadline, "setup", su)
			if reason != "" {
				return fail(reason, msg)
			}
			if sr.Session != "" && (len(su.Launch) > 0 || su.WaitForWindow != "") {
				sessions[su.Device] = sr.Session
			}
		}
		// The start the task states: a screen that fails it is the
		// harness's failure, before any agent step.
		if p.Start != nil && len(p.Start.Checks) > 0 {
			live.Phase = "start"
			checks, ok := runChecks(ctx, p.Start.Checks, plan.Outputs{}, defaultDevice(p), o, deadline, p.Profiles)
			res.StartChecks = checks
			if !ok {
				res.StartScreenshot = startScreenshot(ctx, o, deadline, defaultDevice(p))
				return fail(ReasonHarnessError, StartStateError+": "+failedChecks(checks))
			}
		}
	}

	// The Manager decomposes a free-text instruction (a replay takes the
	// subtasks the recorded run's Manager planned).
	if len(p.Subtasks) == 0 && in.Replay != nil && len(in.Replay.Plan) > 0 {
		p.Subtasks = in.Replay.Plan
	}
	if len(p.Subtasks) == 0 {
		live.Phase = "planning"
		var mr activities.ManageResult
		mctx := withSummary(workflow.WithActivityOptions(ctx, modelOptions(o, deadline, workflow.Now(ctx))), "manager: decompose the instruction")
		err := workflow.ExecuteActivity(mctx, a.Manage, activities.ManageInput{
			Instruction: p.Instruction, Devices: p.Devices, Knowledge: p.Knowledge, MaxSteps: p.MaxSteps, Profiles: p.Profiles,
		}).Get(ctx, &mr)
		res.Usage.Add(mr.Usage)
		res.Usage.Add(failedUsage(err))
		if err != nil {
			reason, msg := reasonFor(err, "", o)
			return fail(reason, "manager: "+msg)
		}
		p.Subtasks = mr.Subtasks
	}
	layers, err := plan.Layers(p.Subtasks)
	if err != nil {
		return fail(ReasonAgentFailed, err.Error())
	}
	live.Layers = layers

	// The communication hub: outputs of finished subtasks.
	outputs := plan.Outputs{}
	results := map[string]*SubtaskResult{}
	for _, s := range p.Subtasks {
		live.Subtasks[s.Name] = StatusPending
		if d, ok := in.Done[s.Name]; ok && d.Status == StatusSucceeded {
			d := d
			results[s.Name] = &d
			outputs[s.Name] = d.Outputs
			live.Subtasks[s.Name] = StatusSucceeded
			live.Reasons[s.Name] = "done in an earlier run"
		}
	}
	live.Phase = "running"
	parentID := workflow.GetInfo(ctx).WorkflowExecution.ID
	sel := workflow.NewSelector(ctx)
	running := 0
	stop := false // a subtask failed: start nothing new
	failReason, failMsg := "", ""
	for {
		if !stop && ctx.Err() == nil {
			for _, s := range p.Subtasks {
				if live.Subtasks[s.Name] != StatusPending || !depsDone(s, live.Subtasks) {
					continue
				}
				instr, err := s.Instruction.EvalString(outputs)
				if err != nil {
					r := &SubtaskResult{Name: s.Name, Device: s.Device, Status: StatusFailed, Reason: ReasonAgentFailed, Error: err.Error()}
					results[s.Name] = r
					live.Subtasks[s.Name] = StatusFailed
					stop, failReason, failMsg = true, r.Reason, fmt.Sprintf("subtask %s: %s", s.Name, err)
					break
				}
				sub := s
				if sub.MaxSteps == 0 {
					sub.MaxSteps = p.MaxSteps
				}
				sd := deadline
				if sub.Timeout > 0 {
					if t := workflow.Now(ctx).Add(time.Duration(sub.Timeout)); t.Before(sd) {
						sd = t
					}
				}
				budget := 0
				if p.MaxTokens > 0 {
					budget = p.MaxTokens - res.Usage.Total() - usedTokens(results)
					if budget < 1 {
						budget = 1
					}
				}
				if sub.MaxTokens > 0 && (budget == 0 || sub.MaxTokens < budget) {
					budget = sub.MaxTokens
				}
				childID := ChildID(parentID, s.Name)
				cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
					WorkflowID:    childID,
					TaskQueue:     o.queue(),
					StaticSummary: fmt.Sprintf("subtask %s on %s", s.Name, s.Device),
					StaticDetails: instr,
				})
				si := SubtaskInput{
					Subtask: sub, Instruction: instr, Knowledge: append(append([]string(nil), p.Knowledge...), s.Knowledge...),
					MaxInvalid: p.MaxInvalid, Deadline: sd, TokenBudget: budget, Upstream: upstream(outputs, s.DependsOn), Options: in.Options,
					Policy: p.Policy, Profiles: p.Profiles, User: p.User, Loop: p.Loop, Reflection: p.Reflection,
				}
				if in.Replay != nil {
					if rs, ok := in.Replay.Subtasks[s.Name]; ok {
						si.Replay, si.ReplayFrom, si.Vars = &rs, in.Replay.From, in.Vars
					}
				}
				f := workflow.ExecuteChildWorkflow(cctx, SubtaskWorkflowName, si)
				live.Subtasks[s.Name] = StatusRunning
				live.Children[s.Name] = childID
				running++
				name, device := s.Name, s.Device
				sel.AddFuture(f, func(f workflow.Future) {
					running--
					var r SubtaskResult
					if err := f.Get(ctx, &r); err != nil {
						reason, msg := reasonFor(err, device, o)
						r = SubtaskResult{Name: name, Device: device, Status: StatusFailed, Reason: reason, Error: msg}
					}
					results[name] = &r
					// Time a person held the subtask does not count against
					// the task's limit either.
					deadline = deadline.Add(r.Held)
					live.Subtasks[name] = r.Status
					live.Reasons[name] = r.Reason
					delete(live.Children, name)
					if r.Status == StatusSucceeded {
						outputs[name] = r.Outputs
						return
					}
					if !stop {
						stop, failReason, failMsg = true, r.Reason, fmt.Sprintf("subtask %s: %s", name, r.Error)
					}
				})
			}
		}
		if running == 0 {
			break
		}
		sel.Select(ctx)
	}
	for _, s := range p.Subtasks {
		if live.Subtasks[s.Name] == StatusPending {
			live.Subtasks[s.Name] = StatusSkipped
			results[s.Name] = &SubtaskResult{Name: s.Name, Device: s.Device, Status: StatusSkipped, Reason: ReasonSkipped}
		}
	}
	for _, s := range p.Subtasks {
		res.Subtasks = append(res.Subtasks, *results[s.Name])
	}
	if ctx.Err() != nil {
		return fail(ReasonCancelled, "cancelled")
	}
	if p.Infeasible {
		// The right answer to an infeasible task is the agent's fail.
		for _, s := range p.Subtasks {
			if r := results[s.Name]; r.GaveUp {
				res.Status, res.Reason, res.Error = StatusSucceeded, ReasonInfeasible, fmt.Sprintf("subtask %s: %s", s.Name, r.Error)
				live.Phase = ReasonInfeasible
				finalize(res, p)
				setStatus(res.Status)
				return res, nil
			}
		}
		if !stop {
			return fail(ReasonNotInfeasible, "the task is infeasible, but the agent reported it done instead of calling fail")
		}
	}
	if stop {
		if lost := desktopLost(ctx, o, deadline, failReason, sessions); lost != "" {
			return fail(ReasonHarnessError, lost+"; the run had failed: "+failMsg)
		}
		return fail(failReason, failMsg)
	}

	// Post-run steps: the harness saves, closes and waits on the devices
	// before the final state is checked.
	if len(p.PostRun) > 0 {
		live.Phase = "post_run"
		for _, su := range p.PostRun {
			sr, reason, msg := runSetupStep(ctx, o, deadline, "post_run", su)
			if reason != "" {
				return fail(reason, msg)
			}
			res.PostRun = append(res.PostRun, StepNotes{Name: su.Name, Notes: sr.Notes})
		}
	}

	// Task-level checks: the final state.
	live.Phase = "checking"
	checks, ok := runChecks(ctx, p.Checks, outputs, defaultDevice(p), o, deadline, p.Profiles)
	res.Checks = checks
	if !ok {
		if lost := desktopLost(ctx, o, deadline, ReasonCheckFailed, sessions); lost != "" {
			return fail(ReasonHarnessError, lost+"; the checks had failed: "+failedChecks(checks))
		}
		return fail(ReasonCheckFailed, failedChecks(checks))
	}
	res.Status, res.Reason = StatusSucceeded, ReasonSuccess
	live.Phase = ReasonSuccess
	finalize(res, p)
	setStatus(res.Status)
	return res, nil
}

// startScreenshot is the screen of device after a start that failed its
// checks, as an artifact ("" when it cannot be had: the failure says why
// already).
func startScreenshot(ctx workflow.Context, o Options, deadline time.Time, device string) string {
	now := workflow.Now(ctx)
	if !deadline.After(now.Add(time.Minute)) {
		deadline = now.Add(time.Minute)
	}
	ao := deviceOptions(o, device, deadline, now)
	ao.RetryPolicy.MaximumAttempts = 2
	octx := withSummary(workflow.WithActivityOptions(ctx, ao), "the screen of "+device+" at the bad start")
	var or activities.ObserveResult
	if err := workflow.ExecuteActivity(octx, a.Observe, activities.ObserveInput{}).Get(ctx, &or); err != nil {
		return ""
	}
	return or.After.Screenshot
}

// platformVersion marks runs that ask each device's worker, before
// anything runs, whether its device is of the platform the task names
// (the Requires activity, asked even of a task that requires no program).
const platformVersion = "device-platform-check"

// desktopLostVersion marks runs that ask their devices, when the run
// failed, whether the desktop the setup prepared is still there.
const desktopLostVersion = "desktop-lost-probe"

// desktopLost asks each device the setup opened an application on, after
// the run failed with reason, whether that failure was the device's: a
// device that does not answer, or that shows an empty desktop (no window,
// no element) in another worker session than the setup's — the worker
// started again, its desktop brought back without the task's applications
// (an X server that died). It returns the failure, starting with
// DesktopLostError, or "" when every desktop is the setup's (an agent that
// closed the application itself keeps its failure).
func desktopLost(ctx workflow.Context, o Options, deadline time.Time, reason string, sessions map[string]string) string {
	switch reason {
	case ReasonAgentFailed, ReasonStepLimit, ReasonCheckFailed, ReasonTimeout, ReasonInvalidOutput:
	default:
		return ""
	}
	if len(sessions) == 0 || workflow.GetVersion(ctx, desktopLostVersion, workflow.DefaultVersion, 1) < 1 {
		return ""
	}
	devices := make([]string, 0, len(sessions))
	for d := range sessions {
		devices = append(devices, d)
	}
	sort.Strings(devices)
	for _, dev := range devices {
		now := workflow.Now(ctx)
		dl := deadline
		if !dl.After(now.Add(2 * time.Minute)) {
			dl = now.Add(2 * time.Minute)
		}
		ao := deviceOptions(o, dev, dl, now)
		ao.RetryPolicy.MaximumAttempts = 2
		octx := withSummary(workflow.WithActivityOptions(ctx, ao), "is the desktop of "+dev+" still the setup's?")
		var or activities.ObserveResult
		if err := workflow.ExecuteActivity(octx, a.Observe, activities.ObserveInput{}).Get(ctx, &or); err != nil {
			_, msg := reasonFor(err, dev, o)
			return fmt.Sprintf("%s: device %s does not answer (%s): the harness's failure, not the agent's", DesktopLostError, o.deviceLabel(dev), msg)
		}
		if or.Session != "" && or.Session != sessions[dev] && or.After.ElementCount == 0 && len(or.After.Windows) == 0 {
			return fmt.Sprintf("%s: device %s shows an empty desktop (no window, no element) on a worker started again since the setup: "+
				"its desktop was brought back without the task's applications (its X server died?), the harness's failure, not the agent's", DesktopLostError, o.deviceLabel(dev))
		}
	}
	return ""
}

func depsDone(s plan.Subtask, status map[string]string) bool {
	for _, d := range s.DependsOn {
		if status[d] != StatusSucceeded {
			return false
		}
	}
	return true
}

func upstream(outs plan.Outputs, deps []string) plan.Outputs {
	u := plan.Outputs{}
	for _, d := range deps {
		if o, ok := outs[d]; ok {
			u[d] = o
		}
	}
	return u
}

func usedTokens(rs map[string]*SubtaskResult) int {
	n := 0
	for _, r := range rs {
		n += r.Usage.Total()
	}
	return n
}

func defaultDevice(p plan.Plan) string {
	if len(p.Devices) > 0 {
		return p.Devices[0].Name
	}
	return ""
}

// runSetupStep runs one setup or post-run step on its device; kind
// ("setup", "post_run") names it in the UI and in the failure message,
// which comes back with its reason when the step failed.
func runSetupStep(ctx workflow.Context, o Options, deadline time.Time, kind string, su plan.Setup) (*activities.SetupResult, string, string) {
	si, err := renderSetup(su)
	if err != nil {
		return nil, ReasonDeviceError, err.Error()
	}
	si.AfterAgent = kind == "post_run"
	ao := deviceOptions(o, su.Device, deadline, workflow.Now(ctx))
	ao.StartToCloseTimeout = 3*time.Minute + si.WaitTimeout + si.Sleep
	ao.RetryPolicy.MaximumAttempts = 3
	sctx := withSummary(workflow.WithActivityOptions(ctx, ao), fmt.Sprintf("%s %s on %s", kind, su.Name, su.Device))
	var sr activities.SetupResult
	if err := workflow.ExecuteActivity(sctx, a.Setup, si).Get(ctx, &sr); err != nil {
		reason, msg := reasonFor(err, su.Device, o)
		return nil, reason, fmt.Sprintf("%s %s: %s", kind, su.Name, msg)
	}
	return &sr, "", ""
}

func renderSetup(su plan.Setup) (activities.SetupInput, error) {
	in := activities.SetupInput{
		Name: su.Name, WaitForWindow: su.WaitForWindow, WaitTimeout: time.Duration(su.WaitTimeout),
		CloseWindow: su.CloseWindow, Sleep: time.Duration(su.Sleep),
	}
	for _, pr := range su.Presses {
		in.Presses = append(in.Presses, activities.KeyPress{Window: pr.Window, Keys: pr.Keys})
	}
	for _, cmd := range su.Commands {
		var argv []string
		for _, x := range cmd {
			v, err := x.EvalString(nil)
			if err != nil {
				return in, fmt.Errorf("setup %s: %w", su.Name, err)
			}
			argv = append(argv, v)
		}
		in.Commands = append(in.Commands, argv)
	}
	for _, w := range su.WriteFiles {
		path, err := w.Path.EvalString(nil)
		if err != nil {
			return in, fmt.Errorf("setup %s: %w", su.Name, err)
		}
		content, err := w.Content.EvalString(nil)
		if err != nil {
			return in, fmt.Errorf("setup %s: %w", su.Name, err)
		}
		in.WriteFiles = append(in.WriteFiles, activities.FileWrite{Path: path, Content: content})
	}
	for _, list := range []struct {
		src []plan.Expr
		dst *[]string
	}{{su.Command, &in.Command}, {su.Launch, &in.Launch}} {
		for _, x := range list.src {
			v, err := x.EvalString(nil)
			if err != nil {
				return in, fmt.Errorf("setup %s: %w", su.Name, err)
			}
			*list.dst = append(*list.dst, v)
		}
	}
	return in, nil
}

// finalize totals steps and tokens and computes the metrics.
func finalize(res *InstructionResult, p plan.Plan) {
	succeeded, checks, passed := 0, 0, 0
	for _, s := range res.Subtasks {
		res.Steps += s.Steps
		res.Usage.Add(s.Usage)
		res.Dropped += s.Dropped
		res.Replayed += s.Replayed
		if s.HandedOver != "" {
			res.HandedOver = append(res.HandedOver, s.Name+" "+s.HandedOver)
		}
		for by, n := range s.Judged {
			if res.Judged == nil {
				res.Judged = map[string]int{}
			}
			res.Judged[by] += n
		}
		if s.Status == StatusSucceeded {
			succeeded++
		}
	}
	// CR counts every check node of the task: subtask checks (those of
	// subtasks that never ran count as not passed) and task checks.
	for _, s := range p.Subtasks {
		checks += len(s.Checks)
	}
	for _, s := range res.Subtasks {
		for _, c := range s.Checks {
			if c.Passed {
				passed++
			}
		}
	}
	checks += len(p.Checks)
	for _, c := range res.Checks {
		if c.Passed {
			passed++
		}
	}
	if res.Status == StatusSucceeded {
		res.Metrics.SR = 1
	}
	if n := len(res.Subtasks); n > 0 {
		res.Metrics.SSR = float64(succeeded) / float64(n)
	}
	switch {
	case checks > 0:
		res.Metrics.CR = float64(passed) / float64(checks)
	case len(res.Subtasks) > 0:
		// No checks declared: completion is the share of subtasks done.
		res.Metrics.CR = res.Metrics.SSR
	}
	res.Metrics.PC = res.Metrics.CR
	if pc, ok := partialCredit(res, p); ok {
		res.Metrics.PC = pc
	}
	infeasibleCredit(res, p)
	if res.Steps > 0 {
		res.Metrics.EE = res.Metrics.CR / float64(res.Steps)
	}
	if t := res.Usage.Total(); t > 0 {
		res.Metrics.CE = res.Metrics.CR / (float64(t) / 1000)
	}
}
