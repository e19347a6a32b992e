package agent

import (
	"strconv"
	"strings"

	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/text"
)

// TurnFacts is what one model request's prompt tells the model, as data:
// the instruction, the screen shown, the state carried in, the step under
// judgement. pcflow's scripted model reads it (the X-Pcflow-Turn header,
// sent only to an endpoint the configuration names as that model) instead
// of the prompt's wording, so the prompts can change without the scripts.
// It holds only what the prompt shows: the same redacted text, the element
// boxes in the coordinates of the model's answers.
type TurnFacts struct {
	// Instruction is the subtask's instruction, rendered (Decision,
	// Reflection, Progress), or the task's (Manager).
	Instruction string `json:"instruction,omitempty"`
	// Screen is the screen the request shows: the one to decide on
	// (Decision), the one after the action (Reflection).
	Screen *ScreenFacts `json:"screen,omitempty"`
	// Progress and Memory are the Progress agent's summary and memory the
	// turn carries (for Progress: the previous ones, to be replaced).
	Progress string `json:"progress,omitempty"`
	Memory   string `json:"memory,omitempty"`
	// LastAction and LastVerdict are the previous step and what became of
	// it (Decision).
	LastAction  string `json:"last_action,omitempty"`
	LastVerdict string `json:"last_verdict,omitempty"`
	// LastThought is the thought on the last action while its verdict is
	// pending (Decision, pipelined loop).
	LastThought string `json:"last_thought,omitempty"`
	// Answers are the person's answers to the agent's questions, oldest
	// first, as State.Answers holds them (see AnswerLine).
	Answers []string `json:"answers,omitempty"`
	// Action and Thought are the step judged (Reflection) or folded in
	// (Progress, with the Reflection's Verdict): the action's summary and
	// the Decision agent's thought, verbatim.
	Action  string `json:"action,omitempty"`
	Thought string `json:"thought,omitempty"`
	Verdict string `json:"verdict,omitempty"`
	// Earlier is the previous step's late verdict (Progress, pipelined
	// loop).
	Earlier string `json:"earlier,omitempty"`
	// Target is the calibration target asked for.
	Target int `json:"target,omitempty"`
	// Describe is what the grounder is asked to find on the screenshot
	// (the Decision agent's description of its target).
	Describe string `json:"describe,omitempty"`
	// Judge is what a judge is asked to decide (the judge role).
	Judge *JudgeFacts `json:"judge,omitempty"`
	// User is what the simulated user is asked (the user role).
	User *UserFacts `json:"user,omitempty"`
}

// JudgeFacts is a judge prompt's text: the check, the rubric, whether a
// score is asked, the devices whose screenshots are attached (in order)
// and the files' text as the prompt shows it. The screenshots themselves
// are the request's images, never text here.
type JudgeFacts struct {
	Check   string      `json:"check"`
	Rubric  string      `json:"rubric"`
	Score   bool        `json:"score,omitempty"`
	Devices []string    `json:"devices,omitempty"`
	Files   []JudgeFile `json:"files,omitempty"`
}

// UserFacts is a simulated user's prompt: the persona and what is asked.
type UserFacts struct {
	Persona  UserPersona `json:"persona"`
	Question string      `json:"question,omitempty"`
	Action   string      `json:"action,omitempty"`
	Rule     string      `json:"rule,omitempty"`
}

// ScreenFacts is a screen as a prompt shows it.
type ScreenFacts struct {
	ActiveWindow string   `json:"active_window,omitempty"`
	Windows      []string `json:"windows,omitempty"`
	Elements     []Mark   `json:"elements,omitempty"`
}

// Mark is one entry of the element list (Set-of-Marks) as the prompt shows
// it: the value only when it differs from the name, cut as the list cuts
// it (screen.Element.Label).
type Mark struct {
	ID    int         `json:"id"`
	Role  string      `json:"role"`
	Name  string      `json:"name"`
	Value string      `json:"value,omitempty"`
	Box   screen.Rect `json:"box"`
}

// Marks lists els as the element list shows them.
func Marks(els []screen.Element) []Mark {
	out := make([]Mark, len(els))
	for i, e := range els {
		m := Mark{ID: e.ID, Role: e.Role, Name: e.Name, Box: e.Box}
		if e.Value != e.Name {
			m.Value = text.Trunc(e.Value, 80)
		}
		out[i] = m
	}
	return out
}

// answered separates a question from its answer in an AnswerLine.
const answered = "; the person answered: "

// AnswerLine is how State.Answers records a question and the person's
// answer to it: You asked "…"; the person answered: ….
func AnswerLine(question, answer string) string {
	return "You asked " + strconv.Quote(question) + answered + answer
}

// Answer reads the answer out of an AnswerLine (ok false for another line).
func Answer(line string) (answer string, ok bool) {
	rest, found := strings.CutPrefix(line, "You asked ")
	if !found {
		return "", false
	}
	q, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return "", false
	}
	return strings.CutPrefix(rest[len(q):], answered)
}
