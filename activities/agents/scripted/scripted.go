// Package scripted is an OpenAI-compatible chat server that plays scripts:
// for each subtask, the Decision agent's actions (targets named as an
// instruction would name them and resolved against the element list the
// agent was shown), with Reflection, Progress and Manager answers. It
// speaks the real protocols over HTTP (chat completions, Anthropic's
// Messages and OpenAI's Responses APIs), reports token usage, refuses
// Decision requests without a screenshot and injects faults on request.
// Tests, benchmarks and the README example use it when no API key is
// configured.
//
// What a request asks it reads from headers, never from the prompt's
// wording: the role, subtask and step from X-Pcflow-Role, -Subtask and
// -Step, and what the prompt shows (the instruction, the element list, the
// state carried in) from X-Pcflow-Turn, agent.TurnFacts, which the client
// sends when its configuration says the endpoint is this model
// (agents.Config.Scripted). A request without it is refused with HTTP 400.
// From the request's body it reads only what the protocol itself says: the
// model, the tools declared and the images (their count, and a calibration
// screenshot's pixels). So the prompts can change without a script
// breaking.
//
// The files: scripted.go (the script, the server), serve.go (HTTP, the
// protocols' requests, faults, replay), decide.go (the Decision agent's
// steps), judge.go (Reflection and Progress, the place in the script),
// observe.go (probes over the screen shown), answer.go (answers in the
// openai-tools shape), profiled.go (answers in a profile's wire format,
// calibration), computer.go (the computer-use protocols).
package scripted

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/agents/profile"
)

// Script is what the server plays.
type Script struct {
	// LatencyMS delays every answer, to model a real endpoint.
	LatencyMS int `json:"latency_ms,omitempty"`
	// Subtasks maps a subtask name to its scripted steps.
	Subtasks map[string]SubtaskScript `json:"subtasks"`
	// Manager is the plan_subtasks answer for free-text instructions.
	Manager json.RawMessage `json:"manager,omitempty"`
	// Managers are plan_subtasks answers by the task's instruction, as the
	// Manager's request carries it: a suite of free-text tasks (an
	// imported benchmark's) holds one per task (eval merges the tasks'
	// Manager answers here). An instruction not among them gets Manager.
	Managers map[string]json.RawMessage `json:"managers,omitempty"`
	Faults   []Fault                    `json:"faults,omitempty"`
	// Judges decide judge checks, by the check's name (see evaluate.go).
	Judges map[string]JudgeScript `json:"judges,omitempty"`
	// User is how the task's simulated user answers, first rule first.
	User []UserRule `json:"user,omitempty"`
}

// SubtaskScript is one subtask's answers, in order. The scripted agents
// keep their place in the script in the thought and the progress summary
// they answer (see judge.go), so a step can be done again.
type SubtaskScript struct {
	Steps []Step `json:"steps"`
	// Reflections are verdicts by workflow step (1-based) for steps
	// without Expect; missing ones are "correct".
	Reflections []string `json:"reflections,omitempty"`
}

// Step is one scripted Decision answer.
type Step struct {
	Thought string `json:"thought,omitempty"`
	Action  string `json:"action"`
	// Args are the tool call's arguments; a string argument "$answer"
	// (AnswerArg) becomes the person's latest answer to an ask_human
	// question, as the turn carries it.
	Args map[string]any `json:"args,omitempty"`
	// Target names an element (by its accessible name); it becomes the
	// "element" argument. Role narrows the match.
	Target string `json:"target,omitempty"`
	Role   string `json:"role,omitempty"`
	// Memory is what the Progress agent will remember after this step.
	Memory string `json:"memory,omitempty"`
	// Batch makes the answer several actions at once (tool calls in one
	// message), in order, each target resolved against the same screen.
	Batch []Step `json:"batch,omitempty"`
	// Read takes outputs from the screen the step is decided on: output key
	// → probe, whose first group (or whole match) becomes the output of a
	// done step. A probe that finds nothing makes the step answer fail,
	// saying what it looked for: the screen did not carry the value.
	Read map[string]Probe `json:"read,omitempty"`
	// Expect is what the screen shows once the step worked. The scripted
	// Reflection judges the step by the screen after it: correct when the
	// probe finds it, no_effect when not; a step whose effect is missing is
	// done again (from RedoFrom, a 1-based step, when set), as a real
	// model would after no_effect.
	Expect   *Probe `json:"expect,omitempty"`
	RedoFrom int    `json:"redo_from,omitempty"`
	// FromInstruction takes arguments from the subtask's instruction as the
	// agent was given it (rendered, with other subtasks' outputs filled
	// in): argument → regular expression whose first group (or whole
	// match) becomes the argument, as a model would copy a value it was
	// told.
	FromInstruction map[string]string `json:"from_instruction,omitempty"`
}

// RoleModels names the model list (GET /models) in a Fault.
const RoleModels = "models"

// Fault makes the server misbehave for matching requests.
type Fault struct {
	Role    string `json:"role"`              // decision, reflection, progress, manager, judge, user, models
	Subtask string `json:"subtask,omitempty"` // empty: any
	Step    int    `json:"step,omitempty"`    // 0: any
	// Kind: "429", "500", "401", "404", "400", "slow", "malformed",
	// "unknown_element", "no_tool", "out_of_range" (a point outside the
	// profile's space), "safety_check" (Responses API: the computer_call carries a
	// pending safety check; a later computer_call_output for that call must
	// acknowledge exactly it, else HTTP 400 as the real API), "wrong_tool" (answers with another
	// role's tool).
	Kind    string `json:"kind"`
	Times   int    `json:"times"` // how many matching requests (0: all)
	DelayMS int    `json:"delay_ms,omitempty"`
}

// Request is what the server saw, for contract tests.
type Request struct {
	Role    string
	Subtask string
	Step    int
	Model   string
	Images  int
	Tools   []string
	System  string // the system prompt
	Profile string // the profile the request says it is spoken in
	Text    string // the rest of the prompt's text (recorded, never read)
	// Turn is what the prompt shows, from the X-Pcflow-Turn header (nil:
	// the request had none).
	Turn   *agent.TurnFacts
	Fault  string
	Status int
	// Auth is the request's Authorization header: the key the client
	// sent.
	Auth string
	// Acknowledged are the safety check ids the request acknowledged
	// (Responses API acknowledged_safety_checks).
	Acknowledged []string
}

// Server serves a Script, or replays recorded exchanges.
type Server struct {
	mu       sync.Mutex
	script   Script
	replay   map[string][]openai.ChatCompletionResponse
	served   map[string]int
	fired    map[int]int
	requests []Request
	// Tokens totals the usage the server reported.
	promptTokens, completionTokens int
	srv                            *http.Server
	URL                            string
	// profile, when set, makes Decision and calibration answers come in its
	// wire format and coordinate space (see profiled.go).
	profile *profile.Profile
	// pending maps a Responses API call id to the ids of the safety
	// checks it carried, until a request acknowledges them.
	pending map[string][]string
	calls   int
	// ocr reads screenshots for the grounder (SetOCR; nil: it cannot).
	ocr OCR
}

// SetProfile makes the server answer as a model of profile p does: in its
// wire format, with points in its coordinate space. Call before Start.
func (s *Server) SetProfile(p profile.Profile) { s.profile = &p }

// profileFor is the profile to answer a request in: the built-in one its
// X-Pcflow-Profile header names (a task's profiles block reaches the
// server so), else the one SetProfile gave (nil: openai-tools).
func (s *Server) profileFor(rec Request) *profile.Profile {
	if rec.Profile != "" && (s.profile == nil || s.profile.Name != rec.Profile) {
		for _, b := range profile.Builtins() {
			if b.Name == rec.Profile {
				return &b
			}
		}
	}
	return s.profile
}

// Load reads a script file.
func Load(path string) (Script, error) {
	var s Script
	b, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("script %s: %w", path, err)
	}
	return s, nil
}

// New returns a server for s (not listening yet).
func New(s Script) *Server { return &Server{script: s, fired: map[int]int{}} }

// Recorded is one model exchange as a run recorded it (agent.Exchange).
type Recorded struct {
	Role     string                         `json:"role"`
	Subtask  string                         `json:"subtask,omitempty"`
	Step     int                            `json:"step,omitempty"`
	Request  openai.ChatCompletionRequest   `json:"request"`
	Response *openai.ChatCompletionResponse `json:"response,omitempty"`
}

// NewReplay returns a server that answers each request with the answer
// recorded for the same agent, subtask and step (in recorded order when a
// step was asked more than once), so a later run is driven by an earlier
// run's model.
func NewReplay(exchanges []Recorded) *Server {
	s := &Server{fired: map[int]int{}, replay: map[string][]openai.ChatCompletionResponse{}, served: map[string]int{}}
	for _, ex := range exchanges {
		if ex.Response == nil {
			continue
		}
		k := replayKey(classify(agent.Call{Role: ex.Role, Subtask: ex.Subtask, Step: ex.Step}, ex.Request))
		s.replay[k] = append(s.replay[k], *ex.Response)
	}
	return s
}

func replayKey(r Request) string { return fmt.Sprintf("%s/%s/%d", r.Role, r.Subtask, r.Step) }

// Start listens on addr ("127.0.0.1:0" picks a port) and serves in the
// background; URL is the base URL for OPENAI_BASE_URL.
func (s *Server) Start(addr string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("scripted model: %w", err)
	}
	s.URL = "http://" + l.Addr().String() + "/v1"
	// X-Pcflow-Turn carries the whole element list the agent was shown:
	// hundreds of elements make a header of tens of kilobytes, and a
	// crowded screen could pass the default limit of 1 MB.
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 8 << 20}
	go func() { _ = s.srv.Serve(l) }()
	return nil
}

// Close stops the server.
func (s *Server) Close() error {
	if s.srv == nil {
		return nil
	}
	return s.srv.Close()
}

// Requests returns a copy of what the server saw.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Usage returns the token totals the server reported.
func (s *Server) Usage() (prompt, completion int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.promptTokens, s.completionTokens
}
