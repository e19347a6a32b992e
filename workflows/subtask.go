package workflows

import (
	"errors"
	"fmt"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/text"
	"github.com/pcflow/pcflow/specs/plan"
)

// a is the nil receiver through which workflows name activities.
var a *activities.Activities

func deviceOptions(o Options, device string, deadline time.Time, now time.Time) workflow.ActivityOptions {
	s2c := deadline.Sub(now)
	if s2c < time.Second {
		s2c = time.Second
	}
	// Retries spend the time the user gave: the wait between attempts stays
	// a tenth of what is left (at most a minute), so the last attempt comes
	// shortly before the deadline instead of a long backoff giving up early.
	maxInterval := min(time.Minute, max(time.Second, s2c/10))
	return workflow.ActivityOptions{
		TaskQueue:              plan.DeviceQueue(o.physical(device)),
		ScheduleToStartTimeout: o.DeviceTimeout,
		ScheduleToCloseTimeout: s2c,
		StartToCloseTimeout:    o.ModelTimeout,
		HeartbeatTimeout:       15 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:    time.Second,
			BackoffCoefficient: 2,
			MaximumInterval:    maxInterval,
			NonRetryableErrorTypes: []string{
				agent.ErrTypeModelAuth, agent.ErrTypeModelNotFound, agent.ErrTypeModelRequest,
				agent.ErrTypeInvalidOutput, activities.ErrTypeSetup,
			},
		},
	}
}

func modelOptions(o Options, deadline, now time.Time) workflow.ActivityOptions {
	ao := deviceOptions(o, "", deadline, now)
	ao.TaskQueue = o.queue()
	ao.ScheduleToStartTimeout = 0
	return ao
}

func withSummary(ctx workflow.Context, summary string) workflow.Context {
	ao := workflow.GetActivityOptions(ctx)
	ao.Summary = summary
	return workflow.WithActivityOptions(ctx, ao)
}

// reasonFor maps an activity failure to a termination reason and a message
// a person can act on.
func reasonFor(err error, device string, o Options) (string, string) {
	var appErr *temporal.ApplicationError
	var toErr *temporal.TimeoutError
	isTimeout := errors.As(err, &toErr)
	switch {
	case temporal.IsCanceledError(err):
		return ReasonCancelled, "cancelled"
	case isTimeout && toErr.TimeoutType() == enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START:
		phys := o.physical(device)
		return ReasonDeviceError, fmt.Sprintf("device %s is offline: no worker took work from queue %s for %s; start one with `pcflow worker --device %s`",
			o.deviceLabel(device), plan.DeviceQueue(phys), o.DeviceTimeout, phys)
	case errors.As(err, &appErr) && appErr.Type() == agent.ErrTypeModelUnavailable:
		// The model endpoint kept failing: the agent's fault, not the device's.
		var actErr *temporal.ActivityError
		if isTimeout || errors.As(err, &actErr) && actErr.RetryState() == enumspb.RETRY_STATE_TIMEOUT {
			return ReasonAgentFailed, "model: " + appErr.Message() + " (retried until the subtask's time ran out)"
		}
		return ReasonAgentFailed, "model: " + appErr.Message()
	case isTimeout && toErr.TimeoutType() == enumspb.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE:
		return ReasonTimeout, "the subtask's time ran out while an activity was retrying: " + err.Error()
	case errors.As(err, &appErr):
		switch appErr.Type() {
		case agent.ErrTypeInvalidOutput:
			return ReasonInvalidOutput, appErr.Message()
		case agent.ErrTypeModelAuth, agent.ErrTypeModelNotFound, agent.ErrTypeModelRequest:
			return ReasonAgentFailed, "model: " + appErr.Message()
		}
		return ReasonDeviceError, appErr.Message()
	}
	return ReasonDeviceError, err.Error()
}

// failedUsage is what a failed model activity spent over all its attempts:
// the details of its last failure, or of its last heartbeat when it timed out.
func failedUsage(err error) screen.Usage {
	var u screen.Usage
	var toErr *temporal.TimeoutError
	var appErr *temporal.ApplicationError
	switch {
	case err == nil:
	case errors.As(err, &toErr) && toErr.HasLastHeartbeatDetails():
		_ = toErr.LastHeartbeatDetails(&u)
	case errors.As(err, &appErr) && appErr.HasDetails():
		_ = appErr.Details(&u)
	}
	return u
}

// SubtaskWorkflow runs the agent loop for one subtask on its device. A
// person can pause it, take the device over and hand it back (see
// person.go); the policy and a provider's safety checks may make an action
// wait for a person's approval, and the agent may ask a question.
func SubtaskWorkflow(ctx workflow.Context, in SubtaskInput) (*SubtaskResult, error) {
	o := in.Options.withDefaults()
	st := in.State
	if st == nil {
		st = &LoopState{Verdicts: map[string]int{}}
	}
	if st.Verdicts == nil {
		st.Verdicts = map[string]int{}
	}
	st.Runs++
	s := in.Subtask
	maxInvalid := in.MaxInvalid
	if maxInvalid <= 0 {
		maxInvalid = 3
	}
	live := SubtaskLive{Subtask: s.Name, Device: s.Device, Step: st.Step, Done: st.Step, MaxSteps: s.MaxSteps, Phase: "starting",
		LastAction: st.LastAction, Verdict: st.LastVerdict, Progress: st.Progress, Tokens: st.Usage.Total()}
	if err := workflow.SetQueryHandler(ctx, ProgressQuery, func() (SubtaskLive, error) { return live, nil }); err != nil {
		return nil, err
	}
	pp := &person{hold: &st.Hold, approvers: o.Approvers, where: func() string {
		return fmt.Sprintf("subtask %s is at step %d, %s", s.Name, live.Step, live.Phase)
	}}
	signals, err := pp.register(ctx)
	if err != nil {
		return nil, err
	}
	// The policy's patterns are compiled once, for every action it rules on.
	pol, err := in.Policy.Compile()
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError("the policy does not hold: "+err.Error(), "invalid_policy", err)
	}
	wfID := workflow.GetInfo(ctx).WorkflowExecution.ID
	goal := agent.Goal{Subtask: s.Name, Instruction: in.Instruction, Knowledge: in.Knowledge, Outputs: s.Outputs, MaxSteps: s.MaxSteps}

	res := &SubtaskResult{Name: s.Name, Device: s.Device, Status: StatusFailed}
	finish := func(reason, msg string) (*SubtaskResult, error) {
		res.Reason, res.Error = reason, msg
		if reason == ReasonSuccess {
			res.Status = StatusSucceeded
		}
		res.Steps, res.Usage, res.Invalid, res.Verdicts, res.Summary, res.Held = st.Step, st.Usage, st.Invalid, st.Verdicts, st.Progress, st.Held
		live.Phase = reason
		return res, nil
	}
	// wait accounts for time spent waiting for a person: the subtask's
	// time limit does not run meanwhile.
	wait := func(d time.Duration) {
		in.Deadline = in.Deadline.Add(d)
		st.Held += d
	}
	// progress tells the Progress agent the step's outcome and keeps the
	// new summary and memory.
	progress := func(turn agent.Turn, out agent.Outcome) error {
		mctx := workflow.WithActivityOptions(ctx, modelOptions(o, in.Deadline, workflow.Now(ctx)))
		var pr activities.ProgressResult
		err := workflow.ExecuteActivity(withSummary(mctx, fmt.Sprintf("step %d: progress (%s)", turn.Step, out.Verdict)), a.Progress, activities.ProgressInput{
			Turn: turn, Outcome: out, Profiles: in.Profiles,
		}).Get(ctx, &pr)
		st.Usage.Add(pr.Usage)
		st.Usage.Add(failedUsage(err))
		if err != nil {
			return err
		}
		st.Progress, st.Memory = pr.Summary, pr.Memory
		live.Progress, live.Tokens = pr.Summary, st.Usage.Total()
		return nil
	}
	// boundary holds the loop while a person has paused it or has the
	// device; after a takeover the Progress agent is told what happened.
	boundary := func(step int) error {
		held, err := pp.waitHold(ctx, &live, step)
		wait(held)
		if err != nil {
			return err
		}
		out, ok := pp.handedBack()
		if !ok {
			return nil
		}
		if err := progress(agent.Turn{Goal: goal, Step: step, State: st.State}, out); err != nil {
			return err
		}
		st.LastAction, st.LastVerdict, st.LastReason = "a person had control of the device", out.Verdict, out.Reason
		live.LastAction, live.Verdict = st.LastAction, out.Verdict
		return nil
	}

	// gateAt runs the policy (and a provider's safety checks, on the
	// step's first action) over action i of decision d, waiting for a
	// person when it asks for one; it returns the safety checks it covered.
	gateAt := func(d activities.DecideResult, step, i int, act screen.Action) (ruling, []activities.SafetyCheck, error) {
		facts := factsOf(act, s.Device)
		if i < len(d.Facts) {
			// The device's facts, with the task's name of the device
			// (its worker does not know it).
			facts = d.Facts[i]
			facts.Device = s.Device
		}
		var checks []activities.SafetyCheck
		if i == 0 {
			checks = d.SafetyChecks
		}
		element := ""
		if facts.Target != "" {
			element = strings.TrimSpace(fmt.Sprintf("%s %q", facts.Role, facts.Target))
		}
		reqID := fmt.Sprintf("step-%d", step)
		if i > 0 {
			reqID += fmt.Sprintf("/%d", i+1)
		}
		g, err := pp.gate(ctx, &live, pol, act, facts, checks, approvalRequest{id: reqID, action: act.Summary(),
			element: element, screenshot: d.Observation.Annotated}, in.Deadline)
		wait(g.waited)
		return g, checks, err
	}

	for {
		if err := boundary(st.Step + 1); err != nil {
			if temporal.IsCanceledError(err) {
				return finish(ReasonCancelled, "cancelled")
			}
			reason, msg := reasonFor(err, s.Device, o)
			return finish(reason, msg)
		}
		now := workflow.Now(ctx)
		if !now.Before(in.Deadline) {
			return finish(ReasonTimeout, fmt.Sprintf("time limit reached after %d steps", st.Step))
		}
		if st.Step >= s.MaxSteps {
			return finish(ReasonStepLimit, fmt.Sprintf("used all %d steps without finishing", s.MaxSteps))
		}
		if in.TokenBudget > 0 && st.Usage.Total() >= in.TokenBudget {
			return finish(ReasonBudgetExceeded, fmt.Sprintf("used %d tokens of a budget of %d", st.Usage.Total(), in.TokenBudget))
		}
		if workflow.GetInfo(ctx).GetCurrentHistoryLength() >= o.ContinueAsNewEvents {
			pp.drain(signals)
			next := in
			next.State = st
			return nil, workflow.NewContinueAsNewError(ctx, SubtaskWorkflowName, next)
		}
		step := st.Step + 1
		dctx := workflow.WithActivityOptions(ctx, deviceOptions(o, s.Device, in.Deadline, now))
		live.Step, live.Phase = step, "deciding"

		turn := agent.Turn{Goal: goal, Step: step, State: st.State}
		var d activities.DecideResult
		err := workflow.ExecuteActivity(withSummary(dctx, fmt.Sprintf("step %d: observe and decide", step)), a.Decide,
			activities.DecideInput{Turn: turn, Acknowledged: st.Acknowledged, Profiles: in.Profiles}).Get(ctx, &d)
		st.Usage.Add(d.Usage)
		st.Usage.Add(failedUsage(err))
		live.Tokens = st.Usage.Total()
		if err != nil {
			reason, msg := reasonFor(err, s.Device, o)
			if reason == ReasonInvalidOutput {
				st.Invalid += maxInvalid
			}
			return finish(reason, msg)
		}
		st.Acknowledged = nil
		st.Zoom = nil // the decision has seen it
		if d.Invalid > 0 {
			st.Invalid += d.Invalid
			st.ConsecutiveBad += d.Invalid
		} else {
			st.ConsecutiveBad = 0
		}
		if st.ConsecutiveBad >= maxInvalid {
			return finish(ReasonInvalidOutput, fmt.Sprintf("%d invalid model answers in a row", st.ConsecutiveBad))
		}
		// Paused or taken over while deciding: the decision is dropped and
		// the step starts afresh once the person lets go.
		if st.Hold.held() {
			continue
		}
		st.Step = step
		act := d.Action
		summary := act.Summary()
		switch act.Kind {
		case screen.ActDone, screen.ActFail, screen.ActAskHuman, screen.ActZoom:
			// They touch nothing, yet a rule may name them (a person
			// approves the outputs before done, say).
			g, _, err := gateAt(d, step, 0, act)
			if err != nil {
				return finish(ReasonCancelled, "cancelled while waiting for approval")
			}
			if !g.run {
				out := agent.Outcome{Action: summary, Thought: d.Thought, Verdict: g.verdict, Reason: g.reason, Person: g.person}
				if err := step0(ctx, st, &live, summary, out, progress, turn); err != nil {
					reason, msg := reasonFor(err, s.Device, o)
					return finish(reason, msg)
				}
				continue
			}
		}
		switch act.Kind {
		case screen.ActDone:
			res.Outputs = act.Outputs
			st.LastAction = summary
			live.Phase = "checking"
			checks, ok := runChecks(ctx, s.Checks, withOutputs(in.Upstream, s.Name, act.Outputs), s.Device, o, in.Deadline)
			res.Checks = checks
			if !ok {
				return finish(ReasonCheckFailed, failedChecks(checks))
			}
			return finish(ReasonSuccess, "")
		case screen.ActFail:
			res.GaveUp = true
			return finish(ReasonAgentFailed, "the agent gave up: "+act.Reason)
		case screen.ActAskHuman:
			an, waited, err := pp.ask(ctx, &live, fmt.Sprintf("question-step-%d", step), act.Text, in.Deadline.Sub(workflow.Now(ctx)))
			wait(waited)
			if err != nil {
				return finish(ReasonCancelled, "cancelled while waiting for an answer")
			}
			out := agent.Outcome{Action: summary, Thought: d.Thought, Verdict: screen.VerdictUnanswered,
				Reason: fmt.Sprintf("nobody answered within %s", waited.Round(time.Second))}
			out.Person = "nobody answered the question: " + out.Reason
			if an != nil {
				by := an.By
				if by == "" {
					by = "a person"
				}
				out.Verdict, out.Reason = screen.VerdictAnswered, by+" answered: "+text.Trunc(oneLine(an.Text), maxPersonText)
				out.Person = out.Reason
				st.Answers = append(st.Answers, answerLine(act.Text, an.Text))
				if len(st.Answers) > agent.MaxAnswers {
					st.Answers = st.Answers[len(st.Answers)-agent.MaxAnswers:]
				}
			}
			if err := step0(ctx, st, &live, summary, out, progress, turn); err != nil {
				reason, msg := reasonFor(err, s.Device, o)
				return finish(reason, msg)
			}
			continue
		case screen.ActZoom:
			// A closer look: nothing reaches the device's input. The step's
			// screenshot is cropped on the device's worker (where it is
			// stored) and the next decision sees the crop; no reflection,
			// since the screen is unchanged by design.
			live.Phase = "zooming"
			var zr activities.ZoomResult
			zctx := withSummary(workflow.WithActivityOptions(ctx, deviceOptions(o, s.Device, in.Deadline, workflow.Now(ctx))), fmt.Sprintf("step %d: %s", step, summary))
			if err := workflow.ExecuteActivity(zctx, a.Zoom, activities.ZoomInput{Step: step, Screenshot: d.Observation.Screenshot, Action: act}).Get(ctx, &zr); err != nil {
				reason, msg := reasonFor(err, s.Device, o)
				return finish(reason, msg)
			}
			st.Zoom = &zr.Zoom
			out := agent.Outcome{Action: summary, Thought: d.Thought, Verdict: screen.VerdictLooked,
				Reason: "the agent looked closer; the screen is unchanged by design, and the next step sees the region enlarged"}
			if err := step0(ctx, st, &live, summary, out, progress, turn); err != nil {
				reason, msg := reasonFor(err, s.Device, o)
				return finish(reason, msg)
			}
			continue
		}

		live.Phase = "acting"
		// A batch runs in order, each action journaled under its own id (the
		// first keeps the step's id), and stops at the first that did not
		// finish, or that the policy or a person stopped; the summary tells
		// the next turn which ran.
		batch := append([]screen.Action{act}, d.Batch...)
		var ar activities.ActResult
		ran := 0
		var stop ruling
		var people []string
		for i, ba := range batch {
			id, label := fmt.Sprintf("%s/step-%d", wfID, step), fmt.Sprintf("step %d: %s", step, ba.Summary())
			if i > 0 {
				id += fmt.Sprintf("/%d", i+1)
			}
			if len(batch) > 1 {
				label = fmt.Sprintf("step %d (%d/%d): %s", step, i+1, len(batch), ba.Summary())
			}
			g, checks, err := gateAt(d, step, i, ba)
			if err != nil {
				return finish(ReasonCancelled, "cancelled while waiting for approval")
			}
			if g.person != "" {
				people = append(people, g.person)
			}
			if !g.run {
				stop = g
				break
			}
			if len(checks) > 0 {
				st.Acknowledged = checks
			}
			if g.waited > 0 {
				label += " (" + g.person + ")"
			}
			actOpts := deviceOptions(o, s.Device, in.Deadline, workflow.Now(ctx))
			actOpts.StartToCloseTimeout = 2 * time.Minute
			actOpts.RetryPolicy.MaximumAttempts = 5
			err = workflow.ExecuteActivity(withSummary(workflow.WithActivityOptions(ctx, actOpts), label),
				a.Act, activities.ActInput{ID: id, Action: ba}).Get(ctx, &ar)
			if err != nil {
				reason, msg := reasonFor(err, s.Device, o)
				return finish(reason, msg)
			}
			ran++
			if ar.Outcome != activities.OutcomeDone {
				break
			}
		}
		who := strings.Join(people, "; ")
		if ran == 0 && stop.verdict != "" {
			// Nothing ran: no reflection; the agent is told why.
			out := agent.Outcome{Action: summary, Thought: d.Thought, Verdict: stop.verdict, Reason: stop.reason, Person: who}
			if err := step0(ctx, st, &live, summary, out, progress, turn); err != nil {
				reason, msg := reasonFor(err, s.Device, o)
				return finish(reason, msg)
			}
			continue
		}
		if len(batch) > 1 {
			summary = batchSummary(batch, ran, ar)
			if stop.verdict != "" {
				summary += fmt.Sprintf("; action %d of %d was %s: %s", ran+1, len(batch), stop.verdict, stop.reason)
			}
			ar.Note = summary
		}

		now = workflow.Now(ctx)
		dctx = workflow.WithActivityOptions(ctx, deviceOptions(o, s.Device, in.Deadline, now))
		live.Phase = "reflecting"
		var r activities.ReflectResult
		err = workflow.ExecuteActivity(withSummary(dctx, fmt.Sprintf("step %d: reflect on %s", step, summary)), a.Reflect, activities.ReflectInput{
			Subtask: s.Name, Instruction: in.Instruction, Step: step, Action: act, Thought: d.Thought,
			Outcome: ar, Before: d.Observation, Profiles: in.Profiles,
		}).Get(ctx, &r)
		st.Usage.Add(r.Usage)
		st.Usage.Add(failedUsage(err))
		if err != nil {
			reason, msg := reasonFor(err, s.Device, o)
			return finish(reason, msg)
		}
		st.Verdicts[r.Verdict]++
		st.LastAction, st.LastVerdict, st.LastReason, st.LastObservation = summary, r.Verdict, r.Reason, r.After
		live.Verdict, live.LastAction, live.Done = r.Verdict, summary, step

		live.Phase = "updating progress"
		if err := progress(turn, agent.Outcome{Action: summary, Thought: d.Thought, Verdict: r.Verdict, Reason: r.Reason, Person: who}); err != nil {
			reason, msg := reasonFor(err, s.Device, o)
			return finish(reason, msg)
		}
	}
}

// step0 ends a step in which no action reached the device (a question, a
// denied or rejected action): the outcome takes the reflection's place and
// the Progress agent folds it in.
func step0(ctx workflow.Context, st *LoopState, live *SubtaskLive, summary string, out agent.Outcome,
	progress func(agent.Turn, agent.Outcome) error, turn agent.Turn) error {
	st.Verdicts[out.Verdict]++
	st.LastAction, st.LastVerdict, st.LastReason = summary, out.Verdict, out.Reason
	live.Verdict, live.LastAction, live.Done = out.Verdict, summary, turn.Step
	live.Phase = "updating progress"
	return progress(turn, out)
}

// batchSummary says which actions of a batch ran and where it stopped.
func batchSummary(batch []screen.Action, ran int, last activities.ActResult) string {
	parts := make([]string, 0, ran)
	for _, b := range batch[:ran] {
		parts = append(parts, b.Summary())
	}
	s := fmt.Sprintf("batch of %d: ran %s", len(batch), strings.Join(parts, "; "))
	if last.Outcome != activities.OutcomeDone {
		why := last.Error
		if why == "" {
			why = last.Note
		}
		s += fmt.Sprintf("; stopped at action %d of %d (%s: %s); the rest did not run", ran, len(batch), last.Outcome, why)
	}
	return s
}

func withOutputs(up plan.Outputs, name string, outs map[string]string) plan.Outputs {
	o := plan.Outputs{}
	for k, v := range up {
		o[k] = v
	}
	o[name] = outs
	return o
}

func failedChecks(rs []activities.CheckResult) string {
	var msg string
	for _, r := range rs {
		if !r.Passed && !r.Skipped {
			if msg != "" {
				msg += "; "
			}
			msg += fmt.Sprintf("check %s failed: %s", r.Name, r.Detail)
		}
	}
	return msg
}

// runChecks evaluates checks in graph order: a check whose `after`
// predecessors did not all pass is skipped (and counts as not passed).
// Device checks run on their device; expect checks are evaluated here.
func runChecks(ctx workflow.Context, checks []plan.Check, outs plan.Outputs, device string, o Options, deadline time.Time) ([]activities.CheckResult, bool) {
	if len(checks) == 0 {
		return nil, true
	}
	names, err := plan.CheckGraph(checks).Order()
	if err != nil {
		return []activities.CheckResult{{Name: "checks", Detail: err.Error()}}, false
	}
	byName := map[string]plan.Check{}
	for _, ck := range checks {
		byName[ck.Name] = ck
	}
	// Captured values join the outputs expressions read, as
	// check.NAME.value; the caller's map is left as it was.
	withValues := plan.Outputs{}
	for k, v := range outs {
		withValues[k] = v
	}
	outs = withValues
	passed := map[string]bool{}
	var results []activities.CheckResult
	all := true
	for _, name := range names {
		ck := byName[name]
		r := activities.CheckResult{Name: ck.Name, Kind: ck.Kind}
		blocked := ""
		for _, dep := range ck.After {
			if !passed[dep] {
				blocked = dep
				break
			}
		}
		switch {
		case blocked != "":
			r.Skipped, r.Detail = true, "skipped: check "+blocked+" did not pass"
		case ck.Kind == plan.CheckExpect:
			v, err := ck.Expect.Eval(outs)
			b, isBool := v.(bool)
			switch {
			case err != nil:
				r.Detail = err.Error()
			case !isBool:
				r.Detail = fmt.Sprintf("expect gave %s, not true/false", plan.ToString(v))
			default:
				r.Passed = b
				r.Detail = fmt.Sprintf("expect is %v", b)
			}
		default:
			in, err := activities.NewCheckInput(ck, outs)
			if err != nil {
				r.Detail = err.Error()
				break
			}
			dev := ck.Device
			if dev == "" {
				dev = device
			}
			now := workflow.Now(ctx)
			if !deadline.After(now.Add(time.Minute)) {
				deadline = now.Add(time.Minute)
			}
			cctx := workflow.WithActivityOptions(ctx, deviceOptions(o, dev, deadline, now))
			var cr activities.CheckResult
			if err := workflow.ExecuteActivity(withSummary(cctx, fmt.Sprintf("check %s (%s) on %s", ck.Name, ck.Kind, dev)), a.Check, in).Get(ctx, &cr); err != nil {
				_, msg := reasonFor(err, dev, o)
				r.Detail = msg
				break
			}
			r = cr
			if ck.Capture {
				outs[plan.CheckValueKey(ck.Name)] = map[string]string{"value": cr.Value}
			}
		}
		passed[ck.Name] = r.Passed
		if !r.Passed {
			all = false
		}
		results = append(results, r)
	}
	return results, all
}

// deviceLabel names a task's device for a person: under a suite's lease
// the physical device first, whose worker serves it.
func (o Options) deviceLabel(device string) string {
	phys := o.physical(device)
	if phys == device || strings.Contains(phys, "@") {
		// Unbound, or pcflow run's private lane (an internal queue name).
		return device
	}
	return fmt.Sprintf("%s (leased as the task's device %s)", phys, device)
}
