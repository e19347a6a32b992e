package activities

import (
	"context"

	"go.temporal.io/sdk/temporal"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/screen"
)

// AnswerAsUserName is the registered name of AnswerAsUser.
const AnswerAsUserName = "AnswerAsUser"

// UserInput is what a task's simulated user is asked: the agent's question,
// or an action that waits for approval (Action, Rule, Message).
type UserInput struct {
	Subtask  string            `json:"subtask"`
	Step     int               `json:"step"`
	Persona  agent.UserPersona `json:"persona"`
	Question string            `json:"question,omitempty"`
	Action   string            `json:"action,omitempty"`
	Rule     string            `json:"rule,omitempty"`
	Message  string            `json:"message,omitempty"`
	Answers  []string          `json:"answers,omitempty"`
	// Profiles are the task's profiles block (agent → profile name).
	Profiles map[string]string `json:"profiles,omitempty"`
}

// UserResult is the simulated user's answer, or decision (Approve, with
// Text as the reason).
type UserResult struct {
	Text      string       `json:"text"`
	Approve   bool         `json:"approve,omitempty"`
	Usage     screen.Usage `json:"usage"`
	Exchanges []string     `json:"exchanges,omitempty"`
	// Prompt names the simulated user's prompt (its version).
	Prompt string `json:"prompt,omitempty"`
}

// AnswerAsUser asks the model that plays the task's simulated user (text
// only: the persona and what is asked). Secrets are hidden from it and
// from its answer.
func (a *Activities) AnswerAsUser(ctx context.Context, in UserInput) (*UserResult, error) {
	m := a.startModelAttempt(ctx)
	defer m.stop()
	r := a.Redactor()
	r.Value(&in)
	res := &UserResult{}
	model, err := a.model(in.Profiles)
	if err != nil {
		return nil, err
	}
	um, ok := model.(UserModel)
	if !ok {
		return nil, temporal.NewNonRetryableApplicationError("this worker's model cannot play a simulated user", agent.ErrTypeModelRequest, nil)
	}
	stepSpan(ctx, in.Subtask, in.Step)
	uctx, call := startModelCall(ctx, "user", &res.Usage)
	rep, err := um.AnswerAsUser(uctx, agent.UserInput{Subtask: in.Subtask, Step: in.Step, Persona: in.Persona, Question: in.Question,
		Action: in.Action, Rule: in.Rule, Message: in.Message, Answers: in.Answers, Record: a.recorder(&res.Exchanges)}, &res.Usage)
	call.end(err)
	if err := a.finish(m, &res.Usage, err); err != nil {
		return res, err
	}
	res.Text, res.Approve, res.Prompt = r.String(rep.Text), rep.Approve, rep.PromptVersion
	return res, nil
}
