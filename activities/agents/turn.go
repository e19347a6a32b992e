package agents

import (
	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/internal/text"
)

// The facts each role's prompt shows, as data (agent.TurnFacts): what the
// scripted model reads instead of the prompt's wording. Each mirrors its
// prompt's data, cuts included, and nothing more.

// decisionTurn is what a Decision prompt rendered from view shows; view's
// element boxes are in the model's coordinates (wire.elements).
func decisionTurn(view agent.DecisionInput) *agent.TurnFacts {
	return &agent.TurnFacts{
		Instruction: view.Instruction,
		Screen:      &agent.ScreenFacts{ActiveWindow: view.ActiveWindow, Windows: view.Windows, Elements: agent.Marks(view.Elements)},
		Progress:    view.Progress, Memory: view.Memory,
		LastAction: view.LastAction, LastVerdict: view.LastVerdict, LastThought: view.LastThought,
		Answers: view.Answers,
	}
}

// reflectionTurn is what a Reflection prompt shows of the step and of the
// screen after it.
func reflectionTurn(in agent.ReflectionInput) *agent.TurnFacts {
	after := in.After
	if len(after) > reflectionElements {
		after = after[:reflectionElements]
	}
	return &agent.TurnFacts{
		Instruction: in.Instruction, Action: in.Action, Thought: in.Thought,
		Screen: &agent.ScreenFacts{ActiveWindow: in.AfterWindow, Elements: agent.Marks(after)},
	}
}

// progressTurn is what a Progress prompt shows: the previous summary and
// memory, the step and its verdict.
func progressTurn(in agent.ProgressInput) *agent.TurnFacts {
	return &agent.TurnFacts{
		Instruction: in.Instruction, Progress: in.Progress, Memory: in.Memory,
		Action: in.Action, Thought: text.Trunc(in.Thought, progressThought), Verdict: in.Verdict,
		Earlier: in.Earlier, Answers: in.Answers,
	}
}
