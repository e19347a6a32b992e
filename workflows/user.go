package workflows

import (
	"slices"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/internal/text"
)

// This file is the task's simulated user (plan.User): a model playing a
// persona answers the agent's ask_human questions, and decides the
// approvals of the policy rules the task lets it decide, whenever no
// person does first. A person's answer or decision (the existing update)
// always wins the race; what the simulated user said is recorded as its
// own (the AnswerAsUser activity in history, "the simulated user" in the
// step's record), never as a person's.

// SimulatedUser names the simulated user in a step's record and in the
// agent's outcome. A person may not answer under this name.
const SimulatedUser = "the simulated user"

// userAsk is what the simulated user is asked: a question, or an action's
// approval under a rule.
type userAsk struct {
	step                                    int
	question, action, rule, source, message string
}

// simulatedUser returns the function that starts the simulated user's
// answer (nil when the task has none). For an approval it returns nil
// unless the task's own policy rule that asks for it is one the user
// block's approves names: an operator's rule of the same name, or a
// provider's safety check, always waits for a person.
func (l *subtaskLoop) simulatedUser() func(ctx workflow.Context, q userAsk) workflow.Future {
	u := l.in.User
	if u == nil {
		return nil
	}
	return func(ctx workflow.Context, q userAsk) workflow.Future {
		if q.question == "" {
			own := l.in.Policy
			if own == nil || q.source != own.Source || (own.Operator != nil && own.Operator.Source == q.source) || !slices.Contains(u.Approves, q.rule) {
				return nil
			}
		}
		in := activities.UserInput{Subtask: l.s.Name, Step: q.step, Question: q.question, Action: q.action, Rule: q.rule, Message: q.message,
			Persona: agent.UserPersona{Persona: u.Persona, Knows: u.Knows, Wants: u.Wants, Style: u.Style}, Answers: l.st.Answers, Profiles: l.in.Profiles}
		what := "question: " + text.Trunc(q.question, 60)
		if q.question == "" {
			what = "approval of " + q.action
		}
		uctx := withSummary(workflow.WithActivityOptions(ctx, modelOptions(l.o, l.in.Deadline, workflow.Now(ctx))), "simulated user, "+what)
		return workflow.ExecuteActivity(uctx, a.AnswerAsUser, in)
	}
}

// userReply reads the simulated user's reply once its future is ready.
func userReply(ctx workflow.Context, fut workflow.Future) (*activities.UserResult, string) {
	var r activities.UserResult
	if err := fut.Get(ctx, &r); err != nil {
		return nil, err.Error()
	}
	return &r, ""
}

// reservedName reports whether a person's name claims to be the simulated
// user's.
func reservedName(by string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(by)), SimulatedUser) || strings.EqualFold(strings.TrimSpace(by), "simulated user")
}
