package agent

import "image"

// The roles beside the agent loop's: the judge of a judge check and the
// simulated user.
const (
	RoleJudge = "judge"
	RoleUser  = "user"
)

// JudgeInput is what the judge of a judge check is shown: the task's
// rubric, the final screens of the devices it names and the text of the
// files it names.
type JudgeInput struct {
	Check  string // the check's name
	Rubric string
	// Score says the rubric asks for a score from 0 to 1.
	Score   bool
	Screens []JudgeScreen
	Files   []JudgeFile
	Record  func(Exchange)
}

// JudgeScreen is one device's final screen.
type JudgeScreen struct {
	Device       string
	ActiveWindow string
	Image        image.Image
}

// JudgeFile is one file's text as the judge reads it (Note says why there
// is none, or that it was cut).
type JudgeFile struct {
	Path string `json:"path"`
	Text string `json:"text,omitempty"`
	Note string `json:"note,omitempty"`
}

// Judgement is the judge's answer: pass or fail, its reasons and, when the
// rubric asked for one, a score from 0 to 1.
type Judgement struct {
	Pass    bool
	Score   *float64
	Reasons string
	Invalid int
	// PromptVersion names the judge prompt that was asked.
	PromptVersion string
}

// UserInput is what the simulated user is asked: their persona, and the
// agent's question or the action awaiting their approval.
type UserInput struct {
	Subtask string
	Step    int
	Persona UserPersona
	// Question is the agent's ask_human question; for an approval,
	// Action (the action's summary), Rule and Message say what is asked.
	Question              string
	Action, Rule, Message string
	// Answers are the earlier answers in this subtask (AnswerLine).
	Answers []string
	Record  func(Exchange)
}

// UserPersona is the simulated user the task describes.
type UserPersona struct {
	Persona string `json:"persona"`
	Knows   string `json:"knows,omitempty"`
	Wants   string `json:"wants,omitempty"`
	Style   string `json:"style,omitempty"`
}

// UserReply is the simulated user's answer, or their decision on an
// approval (Approve) with Text as the reason.
type UserReply struct {
	Text    string
	Approve bool
	Invalid int
	// PromptVersion names the simulated user's prompt that was asked.
	PromptVersion string
}
