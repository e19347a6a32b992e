package activities

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.temporal.io/sdk/activity"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
)

// DecideInput is the turn the Decision agent decides on.
type DecideInput struct {
	agent.Turn
	// Acknowledged are the provider's safety checks a person approved on
	// the previous step: the request sends the call they were on and its
	// output with acknowledged_safety_checks (OpenAI's computer tool).
	Acknowledged []SafetyCheck `json:"acknowledged,omitempty"`
	// Profiles are the task's profiles block (agent → profile name).
	Profiles map[string]string `json:"profiles,omitempty"`
	// InvalidBudget is how many invalid answers the call may take before
	// it fails (see agent.DecisionInput); 0: the client's own bound.
	InvalidBudget int `json:"invalid_budget,omitempty"`
	// Observed is an observation this device already made (the pipelined
	// loop's, after the previous step): decide on it without observing
	// again. If this worker no longer holds it, Decide observes afresh.
	Observed *screen.Observation `json:"observed,omitempty"`
}

// DecideResult is one chosen action and the observation it was chosen on.
type DecideResult struct {
	Thought     string             `json:"thought"`
	Action      screen.Action      `json:"action"`
	Batch       []screen.Action    `json:"batch,omitempty"` // run after Action, in order, in the same step
	Observation screen.Observation `json:"observation"`
	Usage       screen.Usage       `json:"usage"`
	Invalid     int                `json:"invalid,omitempty"`
	Errors      []string           `json:"errors,omitempty"`
	PromptBytes int                `json:"prompt_bytes"`
	Exchanges   []string           `json:"exchanges,omitempty"`
	// Facts: what a policy sees of Action and of each Batch action, in
	// order (see plan.ActionFacts).
	Facts []plan.ActionFacts `json:"facts,omitempty"`
	// SafetyChecks are the provider's own pending safety checks (OpenAI's
	// computer tool): the action runs only after a person approves them,
	// and the next call acknowledges them.
	SafetyChecks []SafetyCheck `json:"safety_checks,omitempty"`
	// Escalated is why the cascade's large profiles made this decision
	// (set by the workflow; "": the task's own profiles did).
	Escalated string `json:"escalated,omitempty"`
}

// SafetyCheck is a provider's pending safety check on a proposed action.
type SafetyCheck = agent.SafetyCheck

// Decide observes the device and asks the Decision agent for one action.
func (a *Activities) Decide(ctx context.Context, in DecideInput) (*DecideResult, error) {
	m := a.startModelAttempt(ctx)
	defer m.stop()
	s, ann, obs, err := a.observeOr(ctx, in.Observed)
	if err != nil {
		return nil, err
	}
	res := &DecideResult{Observation: obs}
	var locate func(string) ([]screen.Rect, error)
	if _, ok := a.Device.(TextReader); ok || s.Words != nil {
		locate = func(text string) ([]screen.Rect, error) {
			w, err := a.words(ctx, s)
			return FindText(w, text), err
		}
	}
	// What a person typed (answers, notes, reasons) comes through the
	// workflow unredacted: a secret's value in it stops here.
	a.Redactor().Value(&in.Turn)
	model, err := a.model(in.Profiles)
	if err != nil {
		return nil, err
	}
	zoom, err := a.zoomView(in.Turn.Zoom)
	if err != nil {
		return nil, err
	}
	stepSpan(ctx, in.Turn.Goal.Subtask, in.Turn.Step)
	mctx, call := startModelCall(ctx, "decision", &res.Usage)
	d, err := model.Decide(mctx, agent.DecisionInput{
		Turn: in.Turn, ActiveWindow: s.ActiveWindow, Windows: s.Windows, Clipboard: s.Clipboard,
		Elements: s.Elements, Image: ann, Screenshot: s.Image, Locate: locate, Record: a.recorder(&res.Exchanges),
		Acknowledged: in.Acknowledged, Zoom: zoom, InvalidBudget: in.InvalidBudget,
	}, &res.Usage)
	if d != nil {
		res.Thought, res.Action, res.Invalid, res.Errors, res.PromptBytes = d.Thought, d.Action, d.Invalid, d.Errors, d.Prompt
		res.Batch, res.SafetyChecks = d.Batch, d.SafetyChecks
	}
	call.end(err, attribute.String(AttrAction, res.Action.Kind), attribute.Int(AttrInvalid, res.Invalid))
	if err := a.finish(m, &res.Usage, err); err != nil {
		return res, err
	}
	res.Facts = ActionFacts(s, a.Redactor(), append([]screen.Action{res.Action}, res.Batch...)...)
	return res, nil
}

// ActInput is one action to execute, with an id unique to its step.
type ActInput struct {
	ID     string        `json:"id"`
	Action screen.Action `json:"action"`
}

// ActResult says what became of the action.
type ActResult struct {
	Outcome string `json:"outcome"`
	Note    string `json:"note,omitempty"`
	Error   string `json:"error,omitempty"`
}

// Act executes an action at most once per id (see the package doc).
func (a *Activities) Act(ctx context.Context, in ActInput) (*ActResult, error) {
	defer heartbeat(ctx)()
	actSpan(ctx, in.Action.Kind)
	// The log answers for this run only: the same action id in a later run
	// of a reused workflow id is a new action.
	run := ""
	if activity.IsActivity(ctx) {
		run = activity.GetInfo(ctx).WorkflowExecution.RunID
	}
	if e, ok := a.Log.Last(in.ID, run); ok {
		switch e.Phase {
		case PhaseFinished:
			return &ActResult{Outcome: OutcomeDone, Note: e.Note}, nil
		case PhaseFailed:
			return &ActResult{Outcome: OutcomeError, Error: e.Error}, nil
		default:
			a.logger().Warn("action outcome unknown: not repeating it", "action_id", in.ID, "action", e.Summary)
			return &ActResult{Outcome: OutcomeUnknown, Note: "the worker stopped while this action ran; it was not repeated"}, nil
		}
	}
	now := time.Now
	if a.Now != nil {
		now = a.Now
	}
	red := a.Redactor()
	logged := in.Action
	red.Value(&logged)
	act := in.Action
	for _, f := range []*string{&act.Text, &act.Start, &act.End} {
		v, err := red.Resolve(*f, a.Secrets)
		if err != nil {
			return nil, err
		}
		*f = v
	}
	if err := a.Log.Append(LogEntry{ID: in.ID, Run: run, Phase: PhaseStarted, Time: now(), Action: logged, Summary: in.Action.Summary()}); err != nil {
		return nil, err
	}
	note, err := a.Device.Act(ctx, act)
	// What the device says goes to history, logs and the model: never with
	// a secret in it.
	note = red.String(note)
	if err != nil {
		msg := red.String(err.Error())
		if lerr := a.Log.Append(LogEntry{ID: in.ID, Run: run, Phase: PhaseFailed, Time: now(), Action: logged, Error: msg, Summary: in.Action.Summary()}); lerr != nil {
			return nil, lerr
		}
		return &ActResult{Outcome: OutcomeError, Error: msg}, nil
	}
	if err := a.Log.Append(LogEntry{ID: in.ID, Run: run, Phase: PhaseFinished, Time: now(), Action: logged, Note: note, Summary: in.Action.Summary()}); err != nil {
		return nil, err
	}
	return &ActResult{Outcome: OutcomeDone, Note: note}, nil
}

// ReflectInput is one action to judge.
type ReflectInput struct {
	Subtask     string             `json:"subtask"`
	Instruction string             `json:"instruction"`
	Step        int                `json:"step"`
	Action      screen.Action      `json:"action"`
	Thought     string             `json:"thought"`
	Outcome     ActResult          `json:"outcome"`
	Before      screen.Observation `json:"before"`
	// Profiles are the task's profiles block (agent → profile name).
	Profiles map[string]string `json:"profiles,omitempty"`
	// After is the observation made after the step (the pipelined
	// loop's Observe): judge on it without waiting and observing again.
	After *screen.Observation `json:"after_observed,omitempty"`
}

// ReflectResult is the verdict and the observation after the action.
type ReflectResult struct {
	Verdict   string             `json:"verdict"`
	Reason    string             `json:"reason"`
	After     screen.Observation `json:"after"`
	Usage     screen.Usage       `json:"usage"`
	Exchanges []string           `json:"exchanges,omitempty"`
}

// Reflect observes the device again and asks the Reflection agent whether
// the action did what was intended.
func (a *Activities) Reflect(ctx context.Context, in ReflectInput) (*ReflectResult, error) {
	m := a.startModelAttempt(ctx)
	defer m.stop()
	if a.SettleDelay > 0 && in.After == nil {
		select {
		case <-time.After(a.SettleDelay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	after, afterImg, obs, err := a.observeOr(ctx, in.After)
	if err != nil {
		return nil, err
	}
	res := &ReflectResult{After: obs}
	beforeImg, before, err := a.loadObservation(in.Before)
	if err != nil {
		a.logger().Warn("before-observation unavailable; reflecting on the after screen only", "error", err)
	}
	note := in.Outcome.Note
	if in.Outcome.Error != "" {
		note = "the device reported an error: " + in.Outcome.Error
	}
	model, err := a.model(in.Profiles)
	if err != nil {
		return nil, err
	}
	stepSpan(ctx, in.Subtask, in.Step)
	mctx, call := startModelCall(ctx, "reflection", &res.Usage)
	r, err := model.Reflect(mctx, agent.ReflectionInput{
		Subtask: in.Subtask, Instruction: in.Instruction, Action: in.Action.Summary(), Thought: in.Thought,
		Note: note, Step: in.Step, BeforeWindow: in.Before.ActiveWindow, AfterWindow: after.ActiveWindow,
		Before: before.Elements, After: after.Elements, BeforeImage: beforeImg, AfterImage: afterImg,
		Record: a.recorder(&res.Exchanges),
	}, &res.Usage)
	if r != nil {
		call.end(err, attribute.String(AttrVerdict, r.Verdict))
	} else {
		call.end(err)
	}
	if err := a.finish(m, &res.Usage, err); err != nil {
		return res, err
	}
	res.Verdict, res.Reason = r.Verdict, r.Reason
	return res, nil
}
