// Package agent is the agent's turn as plain data: what each model role
// (Decision, Reflection, Progress, Manager) is given and answers, and how a
// model failure is classified. It has no transport and imports neither the
// model client nor the task language: workflows carry its Turn from step to
// step, activities hand it to their Model, and activities/agents implements
// that Model over an OpenAI-compatible endpoint.
package agent

import (
	"encoding/json"
	"fmt"
	"image"

	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
)

// Role names, as recorded with every exchange and sent to the endpoint.
const (
	RoleDecision   = "decision"
	RoleReflection = "reflection"
	RoleProgress   = "progress"
	RoleManager    = "manager"
	// RoleGrounder places a target the Decision agent named by
	// description on the screenshot (a model with a coordinate space:
	// UI-TARS, Qwen-VL, a computer-use model).
	RoleGrounder = "grounder"
)

// Goal is what a subtask asks of the agent; it does not change between steps.
type Goal struct {
	Subtask     string        `json:"subtask"`
	Instruction string        `json:"instruction"` // rendered
	Knowledge   []string      `json:"knowledge,omitempty"`
	Outputs     []plan.Output `json:"outputs,omitempty"`
	MaxSteps    int           `json:"max_steps"`
}

// OutputKeys lists the declared outputs' keys, in declaration order.
func (g Goal) OutputKeys() []string {
	keys := make([]string, len(g.Outputs))
	for i, o := range g.Outputs {
		keys[i] = o.Key
	}
	return keys
}

// State is what the agent carries from one step to the next: the Progress
// agent's summary and memory and the last action's reflection.
type State struct {
	Progress    string `json:"progress,omitempty"`
	Memory      string `json:"memory,omitempty"`
	LastAction  string `json:"last_action,omitempty"`
	LastVerdict string `json:"last_verdict,omitempty"`
	LastReason  string `json:"last_reason,omitempty"`
	// LastThought is the Decision agent's thought on the last action,
	// kept by the pipelined loop only: the next Decision runs while
	// Reflection judges it, before Progress has folded it in.
	LastThought string `json:"last_thought,omitempty"`
	// Answers are the person's answers to the agent's ask_human questions,
	// oldest first ("You asked …; the person answered: …"), kept for the
	// rest of the subtask.
	Answers []string `json:"answers,omitempty"`
	// Zoom is the closer look the last step took (a zoom action): the
	// next decision sees it beside the screenshot.
	Zoom *Zoom `json:"zoom,omitempty"`
}

// Zoom is a region of a step's screenshot at full resolution.
type Zoom struct {
	Image  string      `json:"image"`  // artifact ref of the crop (PNG, redacted as its screenshot)
	Region screen.Rect `json:"region"` // in screen pixels
}

// MaxAnswers bounds State.Answers: the oldest are dropped.
const MaxAnswers = 5

// Reflected reports whether LastVerdict is a Reflection verdict (and not
// a policy's denial, a person's rejection or answer).
func (s State) Reflected() bool { return screen.Reflected(s.LastVerdict) }

// Turn is one step of the agent: the goal, the step number (1-based) and
// the state carried into it. Its JSON form is flat.
type Turn struct {
	Goal
	Step int `json:"step"`
	State
}

// Call names one model request: the role, and for a subtask its name and step.
type Call struct {
	Role    string
	Subtask string
	Step    int
	// Profile names the profile the request is spoken in (the Decision
	// agent's), so a test endpoint answers in it.
	Profile string
	// Turn is what the request's prompt says, as data, for pcflow's
	// scripted model (nil: nothing to tell).
	Turn *TurnFacts
}

// Exchange is one request/answer pair, for recording and replay. Request
// and Response are the endpoint's JSON (images replaced by their size).
type Exchange struct {
	Role     string          `json:"role"`
	Subtask  string          `json:"subtask,omitempty"`
	Step     int             `json:"step,omitempty"`
	Model    string          `json:"model,omitempty"` // the model asked
	Request  json.RawMessage `json:"request"`
	Response json.RawMessage `json:"response,omitempty"`
	Error    string          `json:"error,omitempty"`
}

// DecisionInput is everything the Decision agent sees.
type DecisionInput struct {
	Turn
	ActiveWindow string
	Windows      []string
	Clipboard    string
	Elements     []screen.Element
	Image        image.Image // annotated screenshot
	// Screenshot is the screen without marks (secrets painted over), for
	// the grounder; nil: the annotated one.
	Screenshot image.Image
	// Locate finds on-screen text for select (OCR); nil disables select.
	Locate func(text string) ([]screen.Rect, error)
	Record func(Exchange)
	// Acknowledged are the provider's safety checks a person approved on
	// the previous step; the request acknowledges them on their call.
	Acknowledged []SafetyCheck
	// Zoom is the region the agent zoomed into on the previous step, at
	// full resolution (nil: none), shown beside the screenshot.
	Zoom *ZoomView
	// InvalidBudget is how many invalid answers this call may take before
	// it fails (the subtask's max_invalid less the invalid answers in a
	// row before it); 0: the client's own bound (Config.MaxReasks + 1).
	InvalidBudget int
}

// ZoomView is a zoom's crop, ready to be sent.
type ZoomView struct {
	Image  image.Image
	Region screen.Rect // in screen pixels
}

// Decision is the Decision agent's choice, in screen coordinates.
type Decision struct {
	Thought string
	Action  screen.Action
	// Batch holds the actions the model gave after Action in the same
	// answer (computer-use models often give several); they run in order
	// after Action, in the same step.
	Batch []screen.Action
	// SafetyChecks are the provider's own pending checks on Action (OpenAI's
	// computer tool): the workflow runs Action only after a person approves.
	SafetyChecks []SafetyCheck
	Invalid      int      // answers that were invalid and re-asked
	Errors       []string // why they were invalid
	Prompt       int      // bytes of the text prompt, for the prompt-size benchmark
}

// ReflectionInput is what the Reflection agent compares.
type ReflectionInput struct {
	Subtask, Instruction, Action, Thought, Note string
	Step                                        int
	BeforeWindow, AfterWindow                   string
	Before, After                               []screen.Element
	BeforeImage, AfterImage                     image.Image
	Record                                      func(Exchange)
}

// Reflection is the verdict on one action.
type Reflection struct {
	Verdict string
	Reason  string
	Invalid int
}

// Outcome is one step as the Progress agent folds it in: the action, the
// thought behind it and the reflection on it.
type Outcome struct {
	Action  string `json:"action"`
	Thought string `json:"thought"`
	Verdict string `json:"verdict"`
	Reason  string `json:"reason,omitempty"`
	// Person says what a person did in this step: approved or rejected the
	// action, answered the agent's question, or had control of the device
	// (and what they said when they handed it back).
	Person string `json:"person,omitempty"`
	// Earlier is the previous step's Reflection verdict when it came in
	// after that step's Progress had started (the pipelined loop).
	Earlier string `json:"earlier,omitempty"`
}

// ProgressInput is what the Progress agent updates from: the turn just
// taken (its State holds the previous summary and memory) and its outcome.
type ProgressInput struct {
	Turn
	Outcome
	Record func(Exchange)
}

// Progress is the updated summary and memory.
type Progress struct {
	Summary, Memory string
	Prompt          int
	Invalid         int
}

// OutputSpec is a declared output as the Manager proposes it.
type OutputSpec struct {
	Key         string `json:"key"`
	Description string `json:"description,omitempty"`
}

// PlannedSubtask is one subtask as the Manager agent proposes it.
type PlannedSubtask struct {
	Name        string       `json:"name"`
	Instruction string       `json:"instruction"`
	Device      string       `json:"device"`
	DependsOn   []string     `json:"depends_on"`
	Outputs     []OutputSpec `json:"outputs"`
}

// ManagerInput is what the Manager decomposes.
type ManagerInput struct {
	Instruction string
	Devices     []string // "name: description"
	Knowledge   []string
	// Validate checks a proposal against the task language's rules; its
	// error is fed back to the model.
	Validate func([]PlannedSubtask) error
	Record   func(Exchange)
}

// Plan is the Manager's accepted proposal.
type Plan struct {
	Subtasks []PlannedSubtask
	Invalid  int
}

// Error types of model failures, as Temporal application error types;
// workflows branch on them. All but ErrTypeModelUnavailable are permanent.
const (
	ErrTypeModelAuth        = "ModelAuthRejected"
	ErrTypeModelNotFound    = "ModelNotFound"
	ErrTypeModelRequest     = "ModelBadRequest"
	ErrTypeInvalidOutput    = "InvalidModelOutput"
	ErrTypeModelUnavailable = "ModelUnavailable" // retried
)

// APIError is a classified model API failure.
type APIError struct {
	Type      string // one of the ErrType constants
	Retryable bool
	Status    int
	Msg       string
	Err       error
}

func (e *APIError) Error() string { return e.Msg }
func (e *APIError) Unwrap() error { return e.Err }

// InvalidOutputError is returned when every answer in a call was invalid.
type InvalidOutputError struct {
	Attempts int
	Last     string
}

func (e *InvalidOutputError) Error() string {
	return fmt.Sprintf("model gave %d invalid answer(s); last problem: %s", e.Attempts, e.Last)
}

// SafetyCheck is a provider's pending safety check on a proposed action.
type SafetyCheck struct {
	ID      string `json:"id"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
	// Call is the provider's call the check is on, as it gave it (OpenAI's
	// computer_call item): the acknowledgement is sent as that call's
	// output, after the call itself, so a stateless request carries both.
	Call json.RawMessage `json:"call,omitempty"`
}
