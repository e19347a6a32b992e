package workflows

import (
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/text"
	"github.com/pcflow/pcflow/specs/plan"
)

// This file is a subtask's side of a person in the loop (issue 13): the
// control signals it receives, the approval or answer it waits for, and
// the policy gate between Decide and Act. Everything waits inside the
// workflow (workflow.Await), so a waiting subtask survives a restart of
// the worker, the server or the process that started it.

// Hold is the control state of a subtask, carried across continue-as-new.
type Hold struct {
	Paused    bool   `json:"paused,omitempty"`
	TakenOver bool   `json:"taken_over,omitempty"`
	By        string `json:"by,omitempty"` // who paused or took over
	// Since the agent last looked: a person had the device (TakeoverBy),
	// handed it back (ReleasedBy) with Note.
	HadTakeover bool   `json:"had_takeover,omitempty"`
	TakeoverBy  string `json:"takeover_by,omitempty"`
	ReleasedBy  string `json:"released_by,omitempty"`
	Note        string `json:"note,omitempty"`
	// Changes counts the signals applied, so a waiting loop notices each.
	Changes int `json:"changes,omitempty"`
}

// held reports whether the agent must not act.
func (h *Hold) held() bool { return h.Paused || h.TakenOver }

// apply applies a control signal. Signals cannot be refused; the CLI and
// the view page check the subtask's state first and say what is wrong.
func (h *Hold) apply(c Control) {
	h.Changes++
	switch c.Op {
	case ControlPause:
		if !h.TakenOver {
			h.Paused, h.By = true, c.By
		}
	case ControlTakeover:
		h.TakenOver, h.Paused, h.By = true, false, c.By
		h.HadTakeover, h.TakeoverBy = true, c.By
	case ControlResume, ControlRelease:
		if h.TakenOver {
			h.ReleasedBy = c.By
			if c.Note != "" {
				h.Note = c.Note
			}
		}
		h.Paused, h.TakenOver, h.By = false, false, ""
	}
}

// person is what the loop and its signal and update handlers share.
type person struct {
	hold *Hold // in the loop's state
	// waiting is what the loop waits for now (nil: it runs); decided is
	// set by the update that decides it.
	waiting  *Waiting
	approval *Approval
	answer   *Answer
	// where says where the loop is, for refusals.
	where func() string
	// tookFor is how long a person had the device in the last hold.
	tookFor time.Duration
	// approvers are who may approve, reject and answer (Options.Approvers).
	approvers []string
	// user starts the task's simulated user's answer or decision (nil: the
	// task has none; its result nil: it may not decide this one).
	user func(ctx workflow.Context, q userAsk) workflow.Future
}

// register installs the control signal's receiver and the approve and
// answer updates' handlers.
func (p *person) register(ctx workflow.Context) (workflow.ReceiveChannel, error) {
	ch := workflow.GetSignalChannel(ctx, ControlSignal)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var c Control
			ch.Receive(ctx, &c)
			p.hold.apply(c)
		}
	})
	err := workflow.SetUpdateHandlerWithOptions(ctx, ApproveUpdate,
		func(ctx workflow.Context, ap Approval) (string, error) {
			p.approval = &ap
			verb := "rejected"
			if ap.Approve {
				verb = "approved"
			}
			return fmt.Sprintf("%s %s (%s)", verb, p.waiting.Action, p.waiting.ID), nil
		},
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, ap Approval) error {
			if err := CheckApprover(p.approvers, ap.By, ap.UID); err != nil {
				return err
			}
			if reservedName(ap.By) {
				return fmt.Errorf("%q is the simulated user's name: a person decides under their own", ap.By)
			}
			return p.check(WaitApproval, ap.Request)
		}})
	if err != nil {
		return nil, err
	}
	err = workflow.SetUpdateHandlerWithOptions(ctx, AnswerUpdate,
		func(ctx workflow.Context, an Answer) (string, error) {
			p.answer = &an
			return fmt.Sprintf("answered %q (%s)", text.Trunc(p.waiting.Question, 60), p.waiting.ID), nil
		},
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, an Answer) error {
			if err := CheckApprover(p.approvers, an.By, an.UID); err != nil {
				return err
			}
			if reservedName(an.By) {
				return fmt.Errorf("%q is the simulated user's name: a person answers under their own", an.By)
			}
			if strings.TrimSpace(an.Text) == "" {
				return fmt.Errorf("the answer is empty: give the text the agent asked for")
			}
			return p.check(WaitAnswer, an.Request)
		}})
	return ch, err
}

// check refuses an update that decides nothing pending.
func (p *person) check(kind, request string) error {
	what := map[string]string{WaitApproval: "pending approval", WaitAnswer: "pending question"}[kind]
	w := p.waiting
	if w == nil || w.Kind != kind || (kind == WaitApproval && p.approval != nil) || (kind == WaitAnswer && p.answer != nil) {
		return fmt.Errorf("no %s: %s", what, p.where())
	}
	if request != "" && request != w.ID {
		return fmt.Errorf("request %q is not pending; the %s is %q", request, what, w.ID)
	}
	return nil
}

// drain applies the control signals received but not yet handled, so
// none is lost at continue-as-new.
func (p *person) drain(ch workflow.ReceiveChannel) {
	for {
		var c Control
		if !ch.ReceiveAsync(&c) {
			return
		}
		p.hold.apply(c)
	}
}

// waitHold waits while the subtask is paused or taken over and returns how
// long it waited. live shows the hold.
func (p *person) waitHold(ctx workflow.Context, live *SubtaskLive, step int) (time.Duration, error) {
	h := p.hold
	if !h.held() {
		return 0, nil
	}
	start := workflow.Now(ctx)
	phase := live.Phase
	defer func() {
		p.waiting, live.Waiting, live.Phase = nil, nil, phase
		showDetails(ctx, nil)
	}()
	var took time.Time // since when a person has the device
	p.tookFor = 0
	for h.held() {
		kind, ph, since := WaitPaused, "paused", start
		if h.TakenOver {
			if took.IsZero() {
				took = workflow.Now(ctx)
			}
			kind, ph, since = WaitTakeover, "taken over", took
		}
		p.waiting = &Waiting{ID: fmt.Sprintf("%s-step-%d", kind, step), Kind: kind, Since: since, By: h.By}
		live.Waiting, live.Phase = p.waiting, ph
		showDetails(ctx, p.waiting)
		seen, wasTaken := h.Changes, h.TakenOver
		err := workflow.Await(ctx, func() bool { return h.Changes != seen })
		if wasTaken && !h.TakenOver {
			p.tookFor += workflow.Now(ctx).Sub(took)
			took = time.Time{}
		}
		if err != nil {
			return workflow.Now(ctx).Sub(start), err
		}
	}
	return workflow.Now(ctx).Sub(start), nil
}

// handedBack is what the agent is told after a person had the device, and
// clears it: the outcome for the Progress agent, and the line the next
// Decision sees as its last action.
func (p *person) handedBack() (agent.Outcome, bool) {
	h := p.hold
	if !h.HadTakeover {
		return agent.Outcome{}, false
	}
	by := h.TakeoverBy
	if by == "" {
		by = "a person"
	}
	what := fmt.Sprintf("%s had control of the device for %s and handed it back", by, p.tookFor.Round(time.Second))
	if h.ReleasedBy != "" && h.ReleasedBy != h.TakeoverBy {
		what += " (released by " + h.ReleasedBy + ")"
	}
	reason := "no note"
	if h.Note != "" {
		note := text.Trunc(oneLine(h.Note), maxPersonText)
		what += "; their note: " + note
		reason = "their note: " + note
	}
	h.HadTakeover, h.TakeoverBy, h.ReleasedBy, h.Note = false, "", "", ""
	return agent.Outcome{Action: "no action: a person had control of the device", Verdict: screen.VerdictHandedBack,
		Reason: reason, Person: what + ". Look at the screen afresh: it may have changed."}, true
}

// approvalRequest is one action that waits for a person.
type approvalRequest struct {
	id, action, rule, message, element, screenshot string
	timeout                                        time.Duration
	// step, and the bare name and source of the confirm rule that asks
	// (empty for a provider's safety check), for the simulated user.
	step             int
	ruleName, source string
}

// ruling is what became of an action at the gate.
type ruling struct {
	run     bool
	verdict string // denied, rejected ("" when it runs)
	reason  string // what the agent is told
	person  string // who decided, for history and the Progress agent
	waited  time.Duration
}

// gate decides whether an action runs: the policy's verdict on its facts,
// and a person's approval for a confirm verdict or a provider's safety
// checks. A confirm waits until an ApproveUpdate decides it or its timeout
// passes, which counts as a rejection.
func (p *person) gate(ctx workflow.Context, live *SubtaskLive, pol *plan.CompiledPolicy, act screen.Action, facts plan.ActionFacts,
	checks []activities.SafetyCheck, req approvalRequest, deadline time.Time) (ruling, error) {
	v := pol.Decide(facts) // a nil policy allows everything
	rule := v.Rule
	if rule == "" && v.Decision != plan.PolicyAllow {
		rule = "default"
	}
	// Which policy decided: the task file's, or the operator's
	// (--policy FILE, $PCFLOW_POLICY FILE).
	from := ""
	if v.Source != "" {
		from = " (" + v.Source + ")"
	}
	switch v.Decision {
	case plan.PolicyDeny:
		why := fmt.Sprintf("the policy's rule %q%s denies it", rule, from)
		if rule == "default" {
			why = "the policy" + from + " denies every action no rule allows"
		}
		if v.Message != "" {
			why += ": " + v.Message
		}
		return ruling{verdict: screen.VerdictDenied, reason: why + "; it was not run: choose another action"}, nil
	case plan.PolicyConfirm:
		req.rule, req.message = rule+from, v.Message
		req.ruleName, req.source = v.Rule, v.Source
		if v.Timeout > 0 {
			req.timeout = time.Duration(v.Timeout)
		}
	default:
		if len(checks) == 0 {
			return ruling{run: true}, nil
		}
	}
	if len(checks) > 0 {
		req.ruleName = "" // a provider's safety check is a person's to decide
		var msgs []string
		for _, c := range checks {
			msgs = append(msgs, strings.TrimSpace(c.Code+": "+c.Message))
		}
		if req.rule == "" {
			req.rule, req.message = "safety check", strings.Join(msgs, "; ")
		} else {
			req.message = strings.TrimSpace(req.message + "; provider safety check " + strings.Join(msgs, "; "))
		}
	}
	return p.askApproval(ctx, live, req, deadline)
}

// askApproval waits for a person to approve or reject, or the timeout.
// With a simulated user that may decide the rule (p.user), its decision is
// asked for at once and taken when it comes before a person's.
func (p *person) askApproval(ctx workflow.Context, live *SubtaskLive, req approvalRequest, deadline time.Time) (ruling, error) {
	now := workflow.Now(ctx)
	timeout := req.timeout
	if timeout <= 0 {
		timeout = deadline.Sub(now)
	}
	if timeout < time.Second {
		timeout = time.Second
	}
	rule := req.rule
	if req.message != "" {
		rule += ": " + req.message
	}
	sctx, cancel := workflow.WithCancel(ctx)
	defer cancel()
	var fut workflow.Future
	if p.user != nil && req.ruleName != "" {
		fut = p.user(sctx, userAsk{step: req.step, action: req.action, rule: req.ruleName, source: req.source, message: req.message})
	}
	var ap *Approval
	var sim *activities.UserResult
	simErr := ""
	var waited time.Duration
	for {
		left := timeout - workflow.Now(ctx).Sub(now)
		if left <= 0 {
			break
		}
		p.approval = nil
		w := &Waiting{ID: req.id, Kind: WaitApproval, Since: now, Action: req.action, Rule: rule,
			Element: req.element, Screenshot: req.screenshot, Deadline: now.Add(timeout)}
		ok, w2, err := p.await(ctx, live, w, "waiting for approval",
			fmt.Sprintf("approval %s: %s (%s)", req.id, req.action, req.rule), left,
			func() bool { ap = p.approval; return ap != nil || fut != nil && fut.IsReady() })
		waited = w2
		if err != nil {
			return ruling{waited: waited}, err
		}
		if !ok || ap != nil {
			break
		}
		if sim, simErr = userReply(ctx, fut); sim != nil {
			break
		}
		fut = nil // a person may still decide
	}
	if sim != nil {
		why := ""
		if t := text.Trunc(oneLine(sim.Text), maxPersonText); t != "" {
			why = ": " + t
		}
		if sim.Approve {
			return ruling{run: true, waited: waited, person: fmt.Sprintf("%s approved %s (%s)%s", SimulatedUser, req.action, req.rule, why)}, nil
		}
		return ruling{verdict: screen.VerdictRejected, waited: waited,
			reason: fmt.Sprintf("the user rejected it%s; it was not run: choose another action", why),
			person: fmt.Sprintf("%s rejected %s (%s)%s", SimulatedUser, req.action, req.rule, why)}, nil
	}
	if ap == nil {
		failed := ""
		if simErr != "" {
			failed = fmt.Sprintf(" (%s could not decide: %s)", SimulatedUser, text.Trunc(simErr, 300))
		}
		return ruling{verdict: screen.VerdictRejected, waited: waited,
			reason: fmt.Sprintf("a person had to approve it (%s) and nobody did within %s, which counts as a rejection; it was not run: choose another action", rule, timeout),
			person: fmt.Sprintf("nobody approved %s within %s: rejected%s", req.action, timeout, failed)}, nil
	}
	by := ap.By
	if by == "" {
		by = "a person"
	}
	if ap.Approve {
		return ruling{run: true, waited: waited, person: fmt.Sprintf("%s approved %s (%s)", by, req.action, req.rule)}, nil
	}
	why := ""
	if ap.Reason != "" {
		why = ": " + text.Trunc(oneLine(ap.Reason), maxPersonText)
	}
	return ruling{verdict: screen.VerdictRejected, waited: waited,
		reason: fmt.Sprintf("%s rejected it%s; it was not run: choose another action", by, why),
		person: fmt.Sprintf("%s rejected %s (%s)%s", by, req.action, req.rule, why)}, nil
}

// ask puts the agent's question to a person and waits for the answer, at
// most timeout. With a simulated user (p.user), its answer is asked for
// at once and taken when it comes before a person's; a person who answers
// first wins, and a simulated user that fails (its model unreachable)
// leaves the question to a person for the rest of the time, what went
// wrong in simErr. It returns the person's answer or the simulated user's
// (both nil: none came) and how long it waited.
func (p *person) ask(ctx workflow.Context, live *SubtaskLive, id, question string, step int, timeout time.Duration) (an *Answer, sim *activities.UserResult, simErr string, waited time.Duration, err error) {
	start := workflow.Now(ctx)
	if timeout < time.Second {
		timeout = time.Second
	}
	sctx, cancel := workflow.WithCancel(ctx)
	defer cancel()
	var fut workflow.Future
	if p.user != nil {
		fut = p.user(sctx, userAsk{step: step, question: question})
	}
	for {
		waited = workflow.Now(ctx).Sub(start)
		left := timeout - waited
		if left <= 0 {
			return nil, nil, simErr, waited, nil
		}
		p.answer = nil
		w := &Waiting{ID: id, Kind: WaitAnswer, Since: start, Question: question, Deadline: start.Add(timeout)}
		var got *Answer
		ok, w2, err := p.await(ctx, live, w, "waiting for an answer",
			fmt.Sprintf("question %s: %s", id, text.Trunc(question, 80)), left,
			func() bool { got = p.answer; return got != nil || fut != nil && fut.IsReady() })
		waited = w2
		switch {
		case err != nil || !ok:
			return nil, nil, simErr, waited, err
		case got != nil:
			copied := *got
			return &copied, nil, simErr, waited, nil
		}
		if sim, simErr = userReply(ctx, fut); sim != nil {
			return nil, sim, "", waited, nil
		}
		fut = nil // a person may still answer
	}
}

// await shows w as what the subtask waits for (in its live state, as
// phase, and in the UI's details) and waits until done or the timeout,
// whose timer is named summary. It reports whether done came and how long
// it waited; whatever it waited for is cleared when it returns.
func (p *person) await(ctx workflow.Context, live *SubtaskLive, w *Waiting, phase, summary string, timeout time.Duration, done func() bool) (bool, time.Duration, error) {
	before := live.Phase
	p.waiting = w
	live.Waiting, live.Phase = w, phase
	showDetails(ctx, w)
	defer func() {
		p.waiting, p.approval, p.answer, live.Waiting, live.Phase = nil, nil, nil, nil, before
		showDetails(ctx, nil)
	}()
	ok, err := workflow.AwaitWithOptions(ctx, workflow.AwaitOptions{Timeout: timeout,
		TimerOptions: workflow.TimerOptions{Summary: summary}}, done)
	return ok, workflow.Now(ctx).Sub(w.Since), err
}

// oneFactsChange marks histories in which an action Decide gave no facts
// for is seen through activities.ActionFacts, the facts Decide gives
// (text for select, done and fail; secrets by the placeholder pattern),
// rather than legacyFactsOf.
const oneFactsChange = "one-source-of-facts"

// factsOf is what a policy sees of an action when Decide gave no facts
// for it: what the action itself says, read as Decide reads it.
func (l *subtaskLoop) factsOf(a screen.Action) plan.ActionFacts {
	if workflow.GetVersion(l.ctx, oneFactsChange, workflow.DefaultVersion, 1) < 1 {
		return legacyFactsOf(a, l.s.Device)
	}
	return factsOf(a, l.s.Device)
}

// factsOf is activities.ActionFacts of a on a screen not known, on device.
func factsOf(a screen.Action, device string) plan.ActionFacts {
	f := activities.ActionFacts(nil, nil, a)[0]
	f.Device = device
	return f
}

// legacyFactsOf is factsOf as histories before oneFactsChange read it;
// kept so that they replay.
func legacyFactsOf(a screen.Action, device string) plan.ActionFacts {
	f := plan.ActionFacts{Kind: a.Kind, Device: device, Target: a.Target, ElementID: a.Element}
	switch a.Kind {
	case screen.ActType:
		f.Text = a.Text
	case screen.ActHotkey:
		f.Text = strings.Join(a.Keys, "+")
	case screen.ActOpenApp:
		f.Text = a.App
	case screen.ActSwitchWindow:
		f.Text = a.Title
	}
	f.Sensitive = strings.Contains(f.Text, "{{secret.")
	return f
}

// maxPersonText bounds what a person's note, reason or answer puts in
// the agent's prompts (runes).
const maxPersonText = 1000

// answerLine is how an answer joins the agent's state.
func answerLine(question, answer string) string {
	return agent.AnswerLine(text.Trunc(oneLine(question), 300), text.Trunc(oneLine(answer), maxPersonText))
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// showDetails shows what the subtask waits for, and the command that
// decides it, as the workflow's current details in the Temporal UI.
func showDetails(ctx workflow.Context, w *Waiting) {
	if w == nil {
		workflow.SetCurrentDetails(ctx, "")
		return
	}
	run := workflow.GetInfo(ctx).WorkflowExecution.ID
	if pe := workflow.GetInfo(ctx).ParentWorkflowExecution; pe != nil {
		run = pe.ID
	}
	since := w.Since.UTC().Format("15:04:05 UTC")
	var d string
	switch w.Kind {
	case WaitApproval:
		d = fmt.Sprintf("**Waiting for approval** of `%s` (rule %s) since %s", w.Action, w.Rule, since)
		if !w.Deadline.IsZero() {
			d += fmt.Sprintf("; rejected at %s unless approved", w.Deadline.UTC().Format("15:04:05 UTC"))
		}
		d += fmt.Sprintf(".\n\n`pcflow approve %s` or `pcflow reject %s --reason TEXT`", run, run)
	case WaitAnswer:
		d = fmt.Sprintf("**The agent asks:** %s (since %s)\n\n`pcflow answer %s \"TEXT\"`", w.Question, since, run)
	case WaitTakeover:
		d = fmt.Sprintf("**Taken over** by %s since %s: the agent waits.\n\n`pcflow release %s --note \"what you did\"`", w.By, since, run)
	default:
		d = fmt.Sprintf("**Paused** by %s since %s.\n\n`pcflow resume %s`", w.By, since, run)
	}
	workflow.SetCurrentDetails(ctx, d)
}
