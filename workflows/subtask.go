package workflows

import (
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/text"
	"github.com/pcflow/pcflow/specs/plan"
)

// SubtaskWorkflow runs the agent loop for one subtask on its device. A
// person can pause it, take the device over and hand it back (see
// person.go); the policy and a provider's safety checks may make an action
// wait for a person's approval, and the agent may ask a question.
func SubtaskWorkflow(ctx workflow.Context, in SubtaskInput) (*SubtaskResult, error) {
	l, err := newSubtaskLoop(ctx, in)
	if err != nil {
		return nil, err
	}
	for {
		if e := l.step(); e != nil {
			return e.res, e.err
		}
	}
}

// subtaskLoop is one run of SubtaskWorkflow (until it ends or continues
// as new): what it was given, the state it hands to the next run, what a
// progress query sees, and the steps of the agent loop as its methods.
type subtaskLoop struct {
	ctx workflow.Context
	// in is the workflow's input; its Deadline moves on by the time spent
	// waiting for a person, and a continue-as-new passes it on.
	in         SubtaskInput
	o          Options
	s          plan.Subtask
	st         *LoopState
	live       SubtaskLive
	pp         *person
	signals    workflow.ReceiveChannel
	pol        *plan.CompiledPolicy
	wfID       string
	goal       agent.Goal
	maxInvalid int
	res        *SubtaskResult
	// pipelined: the loop observes once after each action and runs
	// Reflection, Progress and the next Decision on it at once (pipeline.go).
	pipelined  bool
	reflection string
	// sameAction caches the cascade's same-action rule version (0: not
	// asked yet; cascade.go).
	sameAction int
}

// ending is how a step ends the subtask: with its result, or with an
// error (a continue-as-new). A step that returns nil goes on to the next.
type ending struct {
	res *SubtaskResult
	err error
}

// newSubtaskLoop takes up the state a previous run handed on, answers
// progress queries, listens for a person's signals and compiles the
// policy.
func newSubtaskLoop(ctx workflow.Context, in SubtaskInput) (*subtaskLoop, error) {
	st := in.State
	if st == nil {
		st = &LoopState{Verdicts: map[string]int{}}
	}
	if st.Verdicts == nil {
		st.Verdicts = map[string]int{}
	}
	st.Runs++
	s := in.Subtask
	l := &subtaskLoop{ctx: ctx, in: in, o: in.Options.withDefaults(), s: s, st: st, maxInvalid: in.MaxInvalid}
	if l.maxInvalid <= 0 {
		l.maxInvalid = 3
	}
	l.live = SubtaskLive{Subtask: s.Name, Device: s.Device, Step: st.Step, Done: st.Step, MaxSteps: s.MaxSteps, Phase: "starting",
		LastAction: st.LastAction, Verdict: st.LastVerdict, Progress: st.Progress, Tokens: st.Usage.Total()}
	if err := workflow.SetQueryHandler(ctx, ProgressQuery, func() (SubtaskLive, error) { return l.live, nil }); err != nil {
		return nil, err
	}
	l.pp = &person{hold: &st.Hold, approvers: l.o.Approvers, where: func() string {
		return fmt.Sprintf("subtask %s is at step %d, %s", s.Name, l.live.Step, l.live.Phase)
	}}
	l.pp.user = l.simulatedUser()
	var err error
	if l.signals, err = l.pp.register(ctx); err != nil {
		return nil, err
	}
	// The policy's patterns are compiled once, for every action it rules on.
	if l.pol, err = in.Policy.Compile(); err != nil {
		return nil, temporal.NewNonRetryableApplicationError("the policy does not hold: "+err.Error(), "invalid_policy", err)
	}
	l.wfID = workflow.GetInfo(ctx).WorkflowExecution.ID
	l.goal = agent.Goal{Subtask: s.Name, Instruction: in.Instruction, Knowledge: in.Knowledge, Outputs: s.Outputs, MaxSteps: s.MaxSteps}
	l.res = &SubtaskResult{Name: s.Name, Device: s.Device, Status: StatusFailed}
	l.choosePipeline()
	return l, nil
}

// step runs one step of the loop: the boundary (a person's hold, the
// limits), Decide, then what the chosen action asks for — a check of the
// outputs, a question, a zoom, or the actions on the device followed by
// Reflection and Progress.
func (l *subtaskLoop) step() *ending {
	if err := l.boundary(l.st.Step + 1); err != nil {
		if temporal.IsCanceledError(err) {
			return l.finish(ReasonCancelled, "cancelled")
		}
		return l.fail(err)
	}
	now := workflow.Now(l.ctx)
	if e := l.limits(now); e != nil {
		return e
	}
	if l.replaying() {
		return l.replayStep()
	}
	step := l.st.Step + 1
	l.live.Step, l.live.Phase = step, "deciding"
	turn := agent.Turn{Goal: l.goal, Step: step, State: l.st.State}
	d, e := l.decide(turn, now)
	if e != nil {
		return e
	}
	// Paused or taken over while deciding: the decision is dropped and
	// the step starts afresh once the person lets go.
	if l.st.Hold.held() {
		return nil
	}
	l.st.Step = step
	if d.Action.Kind == screen.ActDone && d.Escalated == "" && l.cascades(agent.RoleDecision) {
		// The milestone done: the large model decides on the same screen,
		// and what it decides stands.
		f, why := l.startDecide(l.ctx, turn, now, &d.Observation, fmt.Sprintf("step %d: decide again on the same screen", step), whyDone)
		var ld activities.DecideResult
		err := f.Get(l.ctx, &ld)
		ld.Escalated = why
		if e := l.decided(&ld, err); e != nil {
			return e
		}
		d = ld
	}
	act := d.Action
	summary := act.Summary()
	switch act.Kind {
	case screen.ActDone, screen.ActFail, screen.ActAskHuman, screen.ActZoom:
		// They touch nothing, yet a rule may name them (a person
		// approves the outputs before done, say).
		g, _, err := l.gateAt(d, step, 0, act)
		if err != nil {
			return l.finish(ReasonCancelled, "cancelled while waiting for approval")
		}
		if !g.run {
			return l.noAction(turn, summary, agent.Outcome{Action: summary, Thought: d.Thought, Verdict: g.verdict, Reason: g.reason, Person: g.person})
		}
	}
	switch act.Kind {
	case screen.ActDone:
		return l.done(act, summary)
	case screen.ActFail:
		l.res.GaveUp = true
		return l.finish(ReasonAgentFailed, "the agent gave up: "+act.Reason)
	case screen.ActAskHuman:
		return l.askHuman(turn, d, summary)
	case screen.ActZoom:
		return l.zoom(turn, d, summary)
	}
	b, e := l.act(d, step)
	if e != nil {
		return e
	}
	who := strings.Join(b.people, "; ")
	if b.ran == 0 && b.stop.verdict != "" {
		// Nothing ran: no reflection; the agent is told why.
		return l.noAction(turn, summary, agent.Outcome{Action: summary, Thought: d.Thought, Verdict: b.stop.verdict, Reason: b.stop.reason, Person: who})
	}
	if len(b.actions) > 1 {
		summary = batchSummary(b.actions, b.ran, b.last)
		if b.stop.verdict != "" {
			summary += fmt.Sprintf("; action %d of %d was %s: %s", b.ran+1, len(b.actions), b.stop.verdict, b.stop.reason)
		}
		b.last.Note = summary
	}
	l.noteAction(summary)
	if l.pipelined {
		return l.reflectAhead(turn, d, summary, b.last, who)
	}
	return l.reflect(turn, d, summary, b.last, who)
}

// finish ends the subtask with reason and the state so far.
func (l *subtaskLoop) finish(reason, msg string) *ending {
	res, st := l.res, l.st
	res.Reason, res.Error = reason, msg
	if reason == ReasonSuccess {
		res.Status = StatusSucceeded
	}
	res.Steps, res.Usage, res.Invalid, res.Verdicts, res.Summary, res.Held = st.Step, st.Usage, st.Invalid, st.Verdicts, st.Progress, st.Held
	res.Judged, res.Dropped = st.Judged, st.Dropped
	if l.in.Replay != nil {
		res.Replayed, res.HandedOver = min(st.Replayed, len(l.in.Replay.Steps)), st.HandedOver
	}
	l.live.Phase = reason
	return &ending{res: res}
}

// fail ends the subtask for an activity's failure.
func (l *subtaskLoop) fail(err error) *ending {
	reason, msg := reasonFor(err, l.s.Device, l.o)
	return l.finish(reason, msg)
}

// wait accounts for time spent waiting for a person: the subtask's
// time limit does not run meanwhile.
func (l *subtaskLoop) wait(d time.Duration) {
	l.in.Deadline = l.in.Deadline.Add(d)
	l.st.Held += d
}

// limits ends the subtask when its time, steps or tokens are spent, and
// continues it as new before its history grows too long.
func (l *subtaskLoop) limits(now time.Time) *ending {
	st, s := l.st, l.s
	if !now.Before(l.in.Deadline) {
		return l.finish(ReasonTimeout, fmt.Sprintf("time limit reached after %d steps", st.Step))
	}
	if st.Step >= s.MaxSteps {
		return l.finish(ReasonStepLimit, fmt.Sprintf("used all %d steps without finishing", s.MaxSteps))
	}
	if l.in.TokenBudget > 0 && st.Usage.Total() >= l.in.TokenBudget {
		return l.finish(ReasonBudgetExceeded, fmt.Sprintf("used %d tokens of a budget of %d", st.Usage.Total(), l.in.TokenBudget))
	}
	if workflow.GetInfo(l.ctx).GetCurrentHistoryLength() >= l.o.ContinueAsNewEvents {
		l.pp.drain(l.signals)
		next := l.in
		next.State = st
		return &ending{err: workflow.NewContinueAsNewError(l.ctx, SubtaskWorkflowName, next)}
	}
	return nil
}

// progress tells the Progress agent the step's outcome and keeps the
// new summary and memory.
func (l *subtaskLoop) progress(turn agent.Turn, out agent.Outcome) error {
	return l.progressed(l.startProgress(turn, out))
}

func (l *subtaskLoop) startProgress(turn agent.Turn, out agent.Outcome) workflow.Future {
	mctx := workflow.WithActivityOptions(l.ctx, modelOptions(l.o, l.in.Deadline, workflow.Now(l.ctx)))
	profiles, why := l.profilesFor("", agent.RoleProgress)
	return workflow.ExecuteActivity(withSummary(mctx, fmt.Sprintf("step %d: progress (%s)%s", turn.Step, out.Verdict, largeLabel(why))), a.Progress, activities.ProgressInput{
		Turn: turn, Outcome: out, Profiles: profiles,
	})
}

func (l *subtaskLoop) progressed(f workflow.Future) error {
	st := l.st
	var pr activities.ProgressResult
	err := f.Get(l.ctx, &pr)
	st.Usage.Add(pr.Usage)
	st.Usage.Add(failedUsage(err))
	if err != nil {
		return err
	}
	st.Progress, st.Memory = pr.Summary, pr.Memory
	l.live.Progress, l.live.Tokens = pr.Summary, st.Usage.Total()
	return nil
}

// boundary holds the loop while a person has paused it or has the
// device; after a takeover the Progress agent is told what happened.
func (l *subtaskLoop) boundary(step int) error {
	held, err := l.pp.waitHold(l.ctx, &l.live, step)
	l.wait(held)
	if err != nil {
		return err
	}
	out, ok := l.pp.handedBack()
	if held > 0 || ok {
		// The screen may have changed meanwhile: decide afresh.
		l.st.Next, l.st.Ahead = nil, nil
	}
	if !ok {
		return nil
	}
	l.st.LastThought = ""
	if err := l.progress(agent.Turn{Goal: l.goal, Step: step, State: l.st.State}, out); err != nil {
		return err
	}
	l.st.LastAction, l.st.LastVerdict, l.st.LastReason = "a person had control of the device", out.Verdict, out.Reason
	l.live.LastAction, l.live.Verdict = l.st.LastAction, out.Verdict
	return nil
}

// decide asks the Decision agent for the step's action: on the decision
// the pipelined loop made during the last step, if its Reflection let it
// stand; otherwise observing the device (or deciding on the observation
// the last step made), counting its tokens and its invalid answers.
func (l *subtaskLoop) decide(turn agent.Turn, now time.Time) (activities.DecideResult, *ending) {
	if next := l.st.Next; next != nil {
		l.st.Next = nil
		return *next, nil
	}
	ahead := l.st.Ahead
	l.st.Ahead = nil
	label := fmt.Sprintf("step %d: observe and decide", turn.Step)
	if ahead != nil {
		label = fmt.Sprintf("step %d: decide again (Reflection rejected the decision made ahead)", turn.Step)
	}
	var d activities.DecideResult
	f, why := l.startDecide(l.ctx, turn, now, ahead, label, "")
	err := f.Get(l.ctx, &d)
	d.Escalated = why
	return d, l.decided(&d, err)
}

// startDecide schedules the Decide activity in ctx; observed, when set,
// is the observation to decide on. It returns why the cascade's large
// profiles decide ("": they do not); why, when given, is a milestone's.
func (l *subtaskLoop) startDecide(ctx workflow.Context, turn agent.Turn, now time.Time, observed *screen.Observation, label, why string) (workflow.Future, string) {
	dctx := workflow.WithActivityOptions(ctx, deviceOptions(l.o, l.s.Device, l.in.Deadline, now))
	profiles, why := l.profilesFor(why, decisionRoles...)
	return workflow.ExecuteActivity(withSummary(dctx, label+largeLabel(why)), a.Decide,
		activities.DecideInput{Turn: turn, Acknowledged: l.st.Acknowledged, Profiles: profiles, Observed: observed,
			// The call may take what is left of max_invalid in a row.
			InvalidBudget: max(1, l.maxInvalid-l.st.ConsecutiveBad)}), why
}

// decided counts a decision's tokens and invalid answers; it ends the
// subtask when the decision failed or too many answers in a row were
// invalid.
func (l *subtaskLoop) decided(d *activities.DecideResult, err error) *ending {
	st := l.st
	st.Usage.Add(d.Usage)
	st.Usage.Add(failedUsage(err))
	l.live.Tokens = st.Usage.Total()
	if err != nil {
		reason, msg := reasonFor(err, l.s.Device, l.o)
		if reason == ReasonInvalidOutput {
			st.Invalid += l.maxInvalid
		}
		return l.finish(reason, msg)
	}
	st.Acknowledged = nil
	st.Zoom = nil // the decision has seen it
	if d.Invalid > 0 {
		st.Invalid += d.Invalid
		st.ConsecutiveBad += d.Invalid
	} else {
		st.ConsecutiveBad = 0
	}
	if st.ConsecutiveBad >= l.maxInvalid {
		return l.finish(ReasonInvalidOutput, fmt.Sprintf("%d invalid model answers in a row", st.ConsecutiveBad))
	}
	return nil
}

// gateAt runs the policy (and a provider's safety checks, on the
// step's first action) over action i of decision d, waiting for a
// person when it asks for one; it returns the safety checks it covered.
func (l *subtaskLoop) gateAt(d activities.DecideResult, step, i int, act screen.Action) (ruling, []activities.SafetyCheck, error) {
	var facts plan.ActionFacts
	if i < len(d.Facts) {
		// The device's facts, with the task's name of the device
		// (its worker does not know it).
		facts = d.Facts[i]
		facts.Device = l.s.Device
	} else {
		facts = l.factsOf(act)
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
	g, err := l.pp.gate(l.ctx, &l.live, l.pol, act, facts, checks, approvalRequest{id: reqID, action: act.Summary(),
		element: element, screenshot: d.Observation.Annotated, step: step}, l.in.Deadline)
	l.wait(g.waited)
	return g, checks, err
}

// noAction ends a step in which no action reached the device (a
// question, a zoom, a denied or rejected action): the outcome takes the
// reflection's place and the Progress agent folds it in.
func (l *subtaskLoop) noAction(turn agent.Turn, summary string, out agent.Outcome) *ending {
	l.st.Verdicts[out.Verdict]++
	l.st.LastAction, l.st.LastVerdict, l.st.LastReason, l.st.LastThought = summary, out.Verdict, out.Reason, ""
	out.Earlier, l.st.Earlier = l.st.Earlier, ""
	l.live.finished(turn.Step, summary, out.Verdict)
	l.live.Phase = "updating progress"
	if err := l.progress(turn, out); err != nil {
		return l.fail(err)
	}
	return nil
}

// done runs the subtask's checks on the outputs the agent gave and ends
// the subtask.
func (l *subtaskLoop) done(act screen.Action, summary string) *ending {
	l.res.Outputs = act.Outputs
	l.st.LastAction = summary
	l.live.Phase = "checking"
	checks, ok := runChecks(l.ctx, l.s.Checks, withOutputs(l.in.Upstream, l.s.Name, act.Outputs), l.s.Device, l.o, l.in.Deadline, l.in.Profiles)
	l.res.Checks = checks
	if !ok {
		return l.finish(ReasonCheckFailed, failedChecks(checks))
	}
	return l.finish(ReasonSuccess, "")
}

// askHuman puts the agent's question to a person and waits, within the
// subtask's time, for an answer, which the next turns see.
func (l *subtaskLoop) askHuman(turn agent.Turn, d activities.DecideResult, summary string) *ending {
	act, st := d.Action, l.st
	an, sim, simErr, waited, err := l.pp.ask(l.ctx, &l.live, fmt.Sprintf("question-step-%d", turn.Step), act.Text, turn.Step, l.in.Deadline.Sub(workflow.Now(l.ctx)))
	l.wait(waited)
	if err != nil {
		return l.finish(ReasonCancelled, "cancelled while waiting for an answer")
	}
	out := agent.Outcome{Action: summary, Thought: d.Thought, Verdict: screen.VerdictUnanswered,
		Reason: fmt.Sprintf("nobody answered within %s", waited.Round(time.Second))}
	out.Person = "nobody answered the question: " + out.Reason
	if simErr != "" {
		out.Person += fmt.Sprintf(" (%s could not answer: %s)", SimulatedUser, text.Trunc(simErr, 300))
	}
	answer := ""
	switch {
	case sim != nil:
		answer = sim.Text
		out.Verdict, out.Reason = screen.VerdictAnswered, SimulatedUser+" answered: "+text.Trunc(oneLine(sim.Text), maxPersonText)
		out.Person = out.Reason
	case an != nil:
		by := an.By
		if by == "" {
			by = "a person"
		}
		answer = an.Text
		out.Verdict, out.Reason = screen.VerdictAnswered, by+" answered: "+text.Trunc(oneLine(an.Text), maxPersonText)
		out.Person = out.Reason
	}
	if out.Verdict == screen.VerdictAnswered {
		st.Answers = append(st.Answers, answerLine(act.Text, answer))
		if len(st.Answers) > agent.MaxAnswers {
			st.Answers = st.Answers[len(st.Answers)-agent.MaxAnswers:]
		}
	}
	return l.noAction(turn, summary, out)
}

// zoom takes a closer look: nothing reaches the device's input. The
// step's screenshot is cropped on the device's worker (where it is
// stored) and the next decision sees the crop; no reflection, since the
// screen is unchanged by design.
func (l *subtaskLoop) zoom(turn agent.Turn, d activities.DecideResult, summary string) *ending {
	l.live.Phase = "zooming"
	var zr activities.ZoomResult
	zctx := withSummary(workflow.WithActivityOptions(l.ctx, deviceOptions(l.o, l.s.Device, l.in.Deadline, workflow.Now(l.ctx))), fmt.Sprintf("step %d: %s", turn.Step, summary))
	if err := workflow.ExecuteActivity(zctx, a.Zoom, activities.ZoomInput{Step: turn.Step, Screenshot: d.Observation.Screenshot, Action: d.Action}).Get(l.ctx, &zr); err != nil {
		return l.fail(err)
	}
	l.st.Zoom = &zr.Zoom
	out := agent.Outcome{Action: summary, Thought: d.Thought, Verdict: screen.VerdictLooked,
		Reason: "the agent looked closer; the screen is unchanged by design, and the next step sees the region enlarged"}
	return l.noAction(turn, summary, out)
}

// batchRun is what became of a step's actions on the device.
type batchRun struct {
	actions []screen.Action
	ran     int                  // how many ran
	last    activities.ActResult // the result of the last that ran
	stop    ruling               // why the policy or a person stopped the batch, if they did
	people  []string             // what people decided on the way
}

// act runs the step's actions in order, each journaled under its own id
// (the first keeps the step's id), and stops at the first that did not
// finish, or that the policy or a person stopped.
func (l *subtaskLoop) act(d activities.DecideResult, step int) (batchRun, *ending) {
	l.live.Phase = "acting"
	b := batchRun{actions: append([]screen.Action{d.Action}, d.Batch...)}
	for i, ba := range b.actions {
		id, label := fmt.Sprintf("%s/step-%d", l.wfID, step), fmt.Sprintf("step %d: %s", step, ba.Summary())
		if i > 0 {
			id += fmt.Sprintf("/%d", i+1)
		}
		if len(b.actions) > 1 {
			label = fmt.Sprintf("step %d (%d/%d): %s", step, i+1, len(b.actions), ba.Summary())
		}
		g, checks, err := l.gateAt(d, step, i, ba)
		if err != nil {
			return b, l.finish(ReasonCancelled, "cancelled while waiting for approval")
		}
		if g.person != "" {
			b.people = append(b.people, g.person)
		}
		if !g.run {
			b.stop = g
			break
		}
		if len(checks) > 0 {
			l.st.Acknowledged = checks
		}
		if g.waited > 0 {
			label += " (" + g.person + ")"
		}
		actOpts := deviceOptions(l.o, l.s.Device, l.in.Deadline, workflow.Now(l.ctx))
		actOpts.StartToCloseTimeout = 2 * time.Minute
		actOpts.RetryPolicy.MaximumAttempts = 5
		err = workflow.ExecuteActivity(withSummary(workflow.WithActivityOptions(l.ctx, actOpts), label),
			a.Act, activities.ActInput{ID: id, Action: ba}).Get(l.ctx, &b.last)
		if err != nil {
			return b, l.fail(err)
		}
		b.ran++
		if b.last.Outcome != activities.OutcomeDone {
			break
		}
	}
	return b, nil
}

// reflect asks the Reflection agent whether the step's actions had the
// intended effect, then the Progress agent to fold the verdict in.
func (l *subtaskLoop) reflect(turn agent.Turn, d activities.DecideResult, summary string, ar activities.ActResult, who string) *ending {
	st, step := l.st, turn.Step
	dctx := workflow.WithActivityOptions(l.ctx, deviceOptions(l.o, l.s.Device, l.in.Deadline, workflow.Now(l.ctx)))
	l.live.Phase = "reflecting"
	var r activities.ReflectResult
	profiles, why := l.profilesFor("", agent.RoleReflection)
	err := workflow.ExecuteActivity(withSummary(dctx, fmt.Sprintf("step %d: reflect on %s%s", step, summary, largeLabel(why))), a.Reflect, activities.ReflectInput{
		Subtask: l.s.Name, Instruction: l.in.Instruction, Step: step, Action: d.Action, Thought: d.Thought,
		Outcome: ar, Before: d.Observation, Profiles: profiles,
	}).Get(l.ctx, &r)
	st.Usage.Add(r.Usage)
	st.Usage.Add(failedUsage(err))
	if err != nil {
		return l.fail(err)
	}
	st.Verdicts[r.Verdict]++
	l.noteVerdict(summary, r.Verdict)
	st.LastAction, st.LastVerdict, st.LastReason, st.LastObservation = summary, r.Verdict, r.Reason, r.After
	l.live.finished(step, summary, r.Verdict)

	l.live.Phase = "updating progress"
	if err := l.progress(turn, agent.Outcome{Action: summary, Thought: d.Thought, Verdict: r.Verdict, Reason: r.Reason, Person: who}); err != nil {
		return l.fail(err)
	}
	return nil
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
