// Package scripted is an OpenAI-compatible chat server that plays scripts:
// for each subtask, the Decision agent's actions (targets named as an
// instruction would name them and resolved against the element list in the
// request), with Reflection, Progress and Manager answers. It speaks the
// real protocol over HTTP, reports token usage, refuses Decision requests
// without a screenshot and injects faults on request. Tests, benchmarks and
// the README example use it when no API key is configured.
package scripted

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/agents"
	"github.com/pcflow/pcflow/activities/agents/profile"
	"github.com/pcflow/pcflow/activities/screen"
)

// Script is what the server plays.
type Script struct {
	// LatencyMS delays every answer, to model a real endpoint.
	LatencyMS int `json:"latency_ms,omitempty"`
	// Subtasks maps a subtask name to its scripted steps.
	Subtasks map[string]SubtaskScript `json:"subtasks"`
	// Manager is the plan_subtasks answer for free-text instructions.
	Manager json.RawMessage `json:"manager,omitempty"`
	Faults  []Fault         `json:"faults,omitempty"`
}

// SubtaskScript is one subtask's answers, in order. The scripted agents
// keep their place in the script in the thought and the progress summary
// they answer (see observe.go), so a step can be done again.
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
	// question, read from the prompt.
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
	// prompt carries it (rendered, with other subtasks' outputs filled in):
	// argument → regular expression whose first group (or whole match)
	// becomes the argument, as a model would copy a value it was told.
	FromInstruction map[string]string `json:"from_instruction,omitempty"`
}

// reInstruction reads the instruction line of a Decision prompt.
var reInstruction = regexp.MustCompile(`(?m)^Instruction: (.*)$`)

// RoleModels names the model list (GET /models) in a Fault.
const RoleModels = "models"

// Fault makes the server misbehave for matching requests.
type Fault struct {
	Role    string `json:"role"`              // decision, reflection, progress, manager, models
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
	Text    string // the rest of the prompt's text
	Fault   string
	Status  int
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
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
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

// Patterns over the content the agents are sent: the element list (the
// observation) and the Progress agent's previous summary and memory. What a
// request is for comes from its X-Pcflow-* headers.
var (
	reElement    = regexp.MustCompile(`(?m)^\[(\d+)\] (.+?) ("(?:[^"\\]|\\.)*")`)
	rePrevMemory = regexp.MustCompile(`(?m)^Previous memory: (.*)$`)
	rePrevSum    = regexp.MustCompile(`(?m)^Previous summary: (.*)$`)
	reProgAction = regexp.MustCompile(`(?m)^Step \d+: (.*)$`)
	reVerdict    = regexp.MustCompile(`(?m)^Reflection: (\S+)`)
)

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models"):
		s.mu.Lock()
		fault := s.matchFault(Request{Role: RoleModels})
		s.mu.Unlock()
		if status, body, ok := faultStatus(fault, ""); ok {
			writeJSON(w, status, body)
			return
		}
		writeJSON(w, 200, map[string]any{"object": "list", "data": []any{map[string]any{"id": "scripted", "object": "model"}}})
		return
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions"):
	case r.Method == http.MethodPost && (strings.HasSuffix(r.URL.Path, "/messages") || strings.HasSuffix(r.URL.Path, "/responses")):
	default:
		writeErr(w, 404, "not found: "+r.URL.Path)
		return
	}
	proto, _ := protocolOf(r.URL.Path)
	var req openai.ChatCompletionRequest
	var ackedIDs []string
	if proto != "" {
		var cr computerRequest
		if err := json.NewDecoder(r.Body).Decode(&cr); err != nil {
			writeErr(w, 400, "bad request body: "+err.Error())
			return
		}
		req = cr.asChat()
		s.mu.Lock()
		if s.pending == nil {
			s.pending = map[string][]string{}
		}
		acked, err := cr.checkAcks(s.pending)
		s.mu.Unlock()
		if err != nil {
			writeErr(w, 400, err.Error())
			return
		}
		ackedIDs = acked
	} else if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeErr(w, 400, "bad request body: "+err.Error())
		return
	}
	rec := classify(agents.CallFromHeaders(r.Header), req)
	rec.Acknowledged = ackedIDs
	s.mu.Lock()
	fault := s.matchFault(rec)
	latency := s.script.LatencyMS
	s.mu.Unlock()
	if fault != nil {
		rec.Fault = fault.Kind
		if fault.DelayMS > 0 {
			time.Sleep(time.Duration(fault.DelayMS) * time.Millisecond)
		}
	}
	if latency > 0 {
		time.Sleep(time.Duration(latency) * time.Millisecond)
	}
	var status int
	var body any
	if s.replay != nil {
		status, body = s.replayed(rec)
	} else {
		status, body = s.answer(rec, req, fault)
	}
	rec.Status = status
	s.mu.Lock()
	s.requests = append(s.requests, rec)
	if status == 200 {
		resp := body.(openai.ChatCompletionResponse)
		s.promptTokens += resp.Usage.PromptTokens
		s.completionTokens += resp.Usage.CompletionTokens
		switch proto {
		case "messages":
			body = anthropicAnswer(resp)
		case "responses":
			s.calls++
			callID := fmt.Sprintf("call_cu_%d", s.calls)
			var checks []map[string]string
			if fault != nil && fault.Kind == "safety_check" {
				id := fmt.Sprintf("cu_sc_%d", s.calls)
				checks = []map[string]string{{"id": id, "code": "malicious_instructions", "message": "scripted safety check: the screen may carry instructions that are not the user's"}}
				if s.pending == nil {
					s.pending = map[string][]string{}
				}
				s.pending[callID] = []string{id}
			}
			body = responsesAnswer(resp, callID, checks)
		}
	}
	s.mu.Unlock()
	writeJSON(w, status, body)
}

// classify reads what a request is for: role, subtask and step from its
// headers (the role from its tools when the header is missing).
func classify(call agent.Call, req openai.ChatCompletionRequest) Request {
	rec := Request{Model: req.Model, Role: call.Role, Subtask: call.Subtask, Step: call.Step, Profile: call.Profile}
	var text strings.Builder
	for _, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleSystem {
			rec.System += m.Content
			continue
		}
		text.WriteString(m.Content)
		for _, p := range m.MultiContent {
			if p.Type == openai.ChatMessagePartTypeImageURL && p.ImageURL != nil && strings.HasPrefix(p.ImageURL.URL, "data:image/") {
				rec.Images++
			}
			text.WriteString(p.Text)
		}
	}
	rec.Text = text.String()
	for _, t := range req.Tools {
		if t.Function != nil {
			rec.Tools = append(rec.Tools, t.Function.Name)
		}
	}
	if rec.Role != "" {
		return rec
	}
	switch {
	case hasTool(rec.Tools, "verdict"):
		rec.Role = agent.RoleReflection
	case hasTool(rec.Tools, "update_progress"):
		rec.Role = agent.RoleProgress
	case hasTool(rec.Tools, "plan_subtasks"):
		rec.Role = agent.RoleManager
	case hasTool(rec.Tools, "click"):
		rec.Role = agent.RoleDecision
	}
	return rec
}

func hasTool(tools []string, name string) bool {
	for _, t := range tools {
		if t == name {
			return true
		}
	}
	return false
}

func (s *Server) matchFault(rec Request) *Fault {
	for i, f := range s.script.Faults {
		if f.Role != rec.Role || (f.Subtask != "" && f.Subtask != rec.Subtask) || (f.Step != 0 && f.Step != rec.Step) {
			continue
		}
		if f.Times > 0 && s.fired[i] >= f.Times {
			continue
		}
		s.fired[i]++
		return &s.script.Faults[i]
	}
	return nil
}

type apiError struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    any    `json:"code"`
	} `json:"error"`
}

func errBody(status int, msg string) apiError {
	var e apiError
	e.Error.Message = msg
	e.Error.Type = "scripted_error"
	e.Error.Code = status
	return e
}

func writeErr(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, errBody(status, msg))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) replayed(rec Request) (int, any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := replayKey(rec)
	answers := s.replay[k]
	if len(answers) == 0 {
		return 400, errBody(400, fmt.Sprintf("the recording has no %s answer for subtask %q step %d: the run went another way than the recorded one", rec.Role, rec.Subtask, rec.Step))
	}
	i := s.served[k]
	if i >= len(answers) {
		i = len(answers) - 1
	}
	s.served[k]++
	return 200, answers[i]
}

// faultStatus is the HTTP error a fault answers with, if it is one.
func faultStatus(fault *Fault, model string) (int, apiError, bool) {
	if fault == nil {
		return 0, apiError{}, false
	}
	switch fault.Kind {
	case "429":
		return 429, errBody(429, "rate limited (scripted fault)"), true
	case "500":
		return 500, errBody(500, "internal error (scripted fault)"), true
	case "401":
		return 401, errBody(401, "invalid api key (scripted fault)"), true
	case "404":
		return 404, errBody(404, fmt.Sprintf("model %s does not exist (scripted fault)", model)), true
	case "400":
		return 400, errBody(400, "bad request (scripted fault)"), true
	}
	return 0, apiError{}, false
}

// answer builds the response for a request.
func (s *Server) answer(rec Request, req openai.ChatCompletionRequest, fault *Fault) (int, any) {
	if status, body, ok := faultStatus(fault, req.Model); ok {
		return status, body
	}
	switch rec.Role {
	case agents.RoleCalibrate:
		p := profile.Profile{Name: "openai-tools", Protocol: profile.ProtoOpenAITools, Space: profile.SpaceImage}
		if prof := s.profileFor(rec); prof != nil {
			p = *prof
		}
		resp, err := calibration(p, rec, req, fault)
		if err != nil {
			return 400, errBody(400, err.Error())
		}
		return 200, resp
	case agent.RoleDecision:
		if rec.Images == 0 {
			return 400, errBody(400, "decision request carries no screenshot: the Decision agent must see the screen")
		}
		return 200, s.decision(rec, req, fault)
	case agent.RoleReflection:
		verdict, reason := s.reflection(rec)
		return 200, roleAnswer(rec, "verdict", map[string]any{"verdict": verdict, "reason": reason}, fault)
	case agent.RoleProgress:
		return 200, roleAnswer(rec, "update_progress", s.progress(rec), fault)
	case agent.RoleManager:
		if len(s.script.Manager) == 0 {
			return 200, toolAnswer(rec, "", nil, "The script has no manager answer.", fault)
		}
		var args map[string]any
		_ = json.Unmarshal(s.script.Manager, &args)
		return 200, roleAnswer(rec, "plan_subtasks", args, fault)
	}
	return 400, errBody(400, "the scripted model cannot tell which agent this request is for")
}

func (s *Server) decision(rec Request, req openai.ChatCompletionRequest, fault *Fault) openai.ChatCompletionResponse {
	prof := s.profileFor(rec)
	sc, ok := s.script.Subtasks[rec.Subtask]
	if !ok {
		return toolAnswer(rec, "fail", map[string]any{"reason": fmt.Sprintf("the script has no subtask %q", rec.Subtask)}, "", fault)
	}
	// The place in the script: where the progress summary says to go on.
	k := marked(reNextMarker, rec.Text, rec.Step)
	if k < 1 || k > len(sc.Steps) {
		return toolAnswer(rec, "fail", map[string]any{"reason": fmt.Sprintf("the script for %q has %d steps, asked for step %d", rec.Subtask, len(sc.Steps), k)}, "", fault)
	}
	st := sc.Steps[k-1]
	if len(st.Batch) > 0 {
		return s.batch(rec, prof, k, st, fault)
	}
	args := map[string]any{}
	for k, v := range st.Args {
		args[k] = v
	}
	if err := fillAnswer(args, rec.Text, k); err != nil {
		return toolAnswer(rec, "fail", map[string]any{"reason": err.Error()}, "", fault)
	}
	if len(st.FromInstruction) > 0 {
		instr := ""
		if m := reInstruction.FindStringSubmatch(rec.Text); m != nil {
			instr = m[1]
		}
		for _, arg := range sortedKeys(st.FromInstruction) {
			re, err := regexp.Compile(st.FromInstruction[arg])
			if err != nil {
				return toolAnswer(rec, "fail", map[string]any{"reason": fmt.Sprintf("scripted step %d: from_instruction %q: %v", k, arg, err)}, "", fault)
			}
			m := re.FindStringSubmatch(instr)
			if m == nil {
				return toolAnswer(rec, "fail", map[string]any{"reason": fmt.Sprintf("scripted step %d takes %q from the instruction by /%s/, which the instruction %q does not match", k, arg, re, instr)}, "", fault)
			}
			v := m[0]
			if len(m) > 1 {
				v = m[1]
			}
			args[arg] = v
		}
	}
	if len(st.Read) > 0 {
		screen := observe(rec.Text, "Elements")
		outs := map[string]any{}
		if o, ok := args["outputs"].(map[string]any); ok {
			for k, v := range o {
				outs[k] = v
			}
		}
		keys := make([]string, 0, len(st.Read))
		for key := range st.Read {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		for _, key := range keys {
			p := st.Read[key]
			match, group, ok, err := screen.find(p)
			if err != nil || !ok {
				why := "the screen does not show it"
				if err != nil {
					why = err.Error()
				}
				return toolAnswer(rec, "fail", map[string]any{"reason": fmt.Sprintf("scripted step %d reads output %q as %s: %s", k, key, screen.describe(p), why)}, "", fault)
			}
			if group == "" {
				group = match
			}
			outs[key] = group
		}
		args["outputs"] = outs
	}
	if st.Target != "" || st.Role != "" {
		id, err := findElement(rec.Text, st.Target, st.Role)
		if err != nil {
			return toolAnswer(rec, "fail", map[string]any{"reason": err.Error()}, "", fault)
		}
		args["element"] = id
	}
	if fault != nil && fault.Kind == "unknown_element" {
		args["element"] = 99999
	}
	if id, ok := args["element"].(int); ok && st.Action == screen.ActZoom {
		// A zoom looks at the target's box (in the prompt's coordinates),
		// with a margin of a fifth of it on each side.
		b, err := elementBox(rec.Text, id)
		if err != nil {
			return toolAnswer(rec, "fail", map[string]any{"reason": err.Error()}, "", fault)
		}
		mx, my := max(1, b[2]/5), max(1, b[3]/5)
		delete(args, "element")
		args["x"], args["y"], args["x2"], args["y2"] = max(0, b[0]-mx), max(0, b[1]-my), b[0]+b[2]+mx, b[1]+b[3]+my
	}
	thought := st.Thought
	if thought == "" {
		thought = "Scripted step " + strconv.Itoa(k) + "."
	}
	thought = stepMarker(k) + " " + thought
	if prof != nil {
		resp, err := profiled(*prof, rec, st, args, thought, fault)
		if err != nil {
			return toolAnswer(rec, "fail", map[string]any{"reason": err.Error()}, "", fault)
		}
		return resp
	}
	if len(req.Tools) == 0 {
		// Text-fallback mode.
		b, _ := json.Marshal(args)
		return toolAnswer(rec, "", nil, thought+"\nAction: "+st.Action+" "+string(b), fault)
	}
	return toolAnswer(rec, st.Action, args, thought, fault)
}

// batch answers a batch step with one tool call per action.
func (s *Server) batch(rec Request, prof *profile.Profile, k int, st Step, fault *Fault) openai.ChatCompletionResponse {
	thought := strings.TrimSpace(stepMarker(k) + " " + st.Thought)
	if prof != nil {
		if p := *prof; p.Protocol == profile.ProtoText && p.Format == profile.FormatActionJSON {
			return toolAnswer(rec, "fail", map[string]any{"reason": fmt.Sprintf("the scripted model plays batch steps in the %s format not yet", p.Format)}, "", fault)
		}
	}
	resp := toolAnswer(rec, "", nil, thought, fault)
	msg := &resp.Choices[0].Message
	var text []string // a text format's actions
	for i, b := range st.Batch {
		args := map[string]any{}
		for k, v := range b.Args {
			args[k] = v
		}
		if err := fillAnswer(args, rec.Text, k); err != nil {
			return toolAnswer(rec, "fail", map[string]any{"reason": err.Error()}, "", fault)
		}
		if b.Target != "" || b.Role != "" {
			id, err := findElement(rec.Text, b.Target, b.Role)
			if err != nil {
				return toolAnswer(rec, "fail", map[string]any{"reason": err.Error()}, "", fault)
			}
			args["element"] = id
		}
		if prof != nil { // the profile's model answers points, not element ids
			if id, ok := args["element"].(int); ok {
				x, y, err := elementPoint(rec.Text, id)
				if err != nil {
					return toolAnswer(rec, "fail", map[string]any{"reason": err.Error()}, "", fault)
				}
				delete(args, "element")
				args["x"], args["y"] = x, y
			}
			if p := *prof; p.Protocol == profile.ProtoText {
				if p.Format == profile.FormatUITARS { // one action a line after "Action:"
					text = append(text, uitarsAction(b.Action, args, p.Space == profile.SpaceRelative1000))
					continue
				}
				c, _ := json.Marshal(qwenCall(b.Action, args)) // Hermes: one <tool_call> per action
				text = append(text, "<tool_call>\n"+string(c)+"\n</tool_call>")
				continue
			}
		}
		a, _ := json.Marshal(args)
		msg.ToolCalls = append(msg.ToolCalls, openai.ToolCall{ID: fmt.Sprintf("call_%d_%d", rec.Step, i+1), Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: b.Action, Arguments: string(a)}})
	}
	if len(text) > 0 {
		if prof.Format == profile.FormatUITARS {
			return toolAnswer(rec, "", nil, "Thought: "+thought+"\nAction: "+strings.Join(text, "\n"), fault)
		}
		return toolAnswer(rec, "", nil, thought+"\n"+strings.Join(text, "\n"), fault)
	}
	return resp
}

// findElement resolves an element by name against the list in the prompt:
// exact name first, then case-insensitive, then containment.
func findElement(prompt, target, role string) (int, error) {
	type el struct {
		id         int
		role, name string
	}
	var els []el
	for _, m := range reElement.FindAllStringSubmatch(prompt, -1) {
		id, _ := strconv.Atoi(m[1])
		name, err := strconv.Unquote(m[3])
		if err != nil {
			continue
		}
		els = append(els, el{id, m[2], name})
	}
	matchers := []func(string) bool{
		func(n string) bool { return n == target },
		func(n string) bool { return strings.EqualFold(n, target) },
		// Containment only for targets long enough not to match by accident
		// ("1" must not find "10:30").
		func(n string) bool {
			return len(target) >= 3 && strings.Contains(strings.ToLower(n), strings.ToLower(target))
		},
	}
	for _, match := range matchers {
		for _, e := range els {
			if match(e.name) && (role == "" || strings.EqualFold(e.role, role)) {
				return e.id, nil
			}
		}
	}
	return 0, fmt.Errorf("scripted target %q (role %q) is not in the element list of %d elements", target, role, len(els))
}

// reflection judges a step: by its Expect against the screen after it,
// else by the script's Reflections, else correct.
func (s *Server) reflection(rec Request) (verdict, reason string) {
	sc := s.script.Subtasks[rec.Subtask]
	k := marked(reStepMarker, rec.Text, rec.Step)
	if k >= 1 && k <= len(sc.Steps) && sc.Steps[k-1].Expect != nil {
		p := *sc.Steps[k-1].Expect
		after := observe(rec.Text, "Elements after")
		match, _, ok, err := after.find(p)
		switch {
		case err != nil:
			return screen.VerdictWrong, fmt.Sprintf("scripted step %d expects %s: %v", k, after.describe(p), err)
		case ok:
			return screen.VerdictCorrect, fmt.Sprintf("the screen shows %q", match)
		}
		return screen.VerdictNoEffect, fmt.Sprintf("the screen does not show %s", after.describe(p))
	}
	if rec.Step >= 1 && rec.Step <= len(sc.Reflections) && sc.Reflections[rec.Step-1] != "" {
		return sc.Reflections[rec.Step-1], "scripted reflection"
	}
	return screen.VerdictCorrect, "scripted reflection"
}

// progress keeps the last three steps as the summary and the place in the
// script to go on from: the next step after a correct one, else the same
// step again (or its RedoFrom).
func (s *Server) progress(rec Request) map[string]any {
	prevSum, prevMem := "", ""
	if m := rePrevSum.FindStringSubmatch(rec.Text); m != nil && m[1] != "(nothing yet)" {
		prevSum = strings.TrimSpace(reNextMarker.ReplaceAllString(m[1], ""))
	}
	if m := rePrevMemory.FindStringSubmatch(rec.Text); m != nil && m[1] != "(empty)" {
		prevMem = m[1]
	}
	action, verdict := "", ""
	if m := reProgAction.FindStringSubmatch(rec.Text); m != nil {
		action = m[1]
	}
	if m := reVerdict.FindStringSubmatch(rec.Text); m != nil {
		verdict = m[1]
	}
	// Keep the last three steps: a short summary, not a log.
	parts := strings.Split(prevSum, "; ")
	if prevSum == "" {
		parts = nil
	}
	parts = append(parts, fmt.Sprintf("step %d %s (%s)", rec.Step, action, verdict))
	if len(parts) > 3 {
		parts = parts[len(parts)-3:]
	}
	sc := s.script.Subtasks[rec.Subtask]
	k := marked(reStepMarker, rec.Text, rec.Step)
	next := k + 1
	mem := prevMem
	if verdict == screen.VerdictHandedBack {
		// A person had the device: no step of the script was taken; go on
		// where the summary said (the next decision looks afresh).
		return map[string]any{"summary": strings.Join(parts, "; ") + " " + nextMarker(marked(reNextMarker, rec.Text, rec.Step)), "memory": mem}
	}
	if k >= 1 && k <= len(sc.Steps) {
		st := sc.Steps[k-1]
		if st.Memory != "" {
			mem = st.Memory
		}
		// A denied or rejected action, or an answered question, moves on
		// to the script's next step: what a model told so would choose.
		if !movesOn(verdict) {
			next = k
			if st.RedoFrom > 0 {
				next = st.RedoFrom
			}
		}
	}
	return map[string]any{"summary": strings.Join(parts, "; ") + " " + nextMarker(next), "memory": mem}
}

// roleAnswer calls tool with args as a model of the request's kind does: a
// tool call when the request declares tools; else (a text profile) in
// text, the way Qwen and Hermes models answer on a server without a tool
// parser — reasoning in <think>, then a <tool_call> — and only for a tool
// the system prompt describes, since a model knows of no other.
func roleAnswer(rec Request, tool string, args map[string]any, fault *Fault) openai.ChatCompletionResponse {
	if len(rec.Tools) > 0 {
		return toolAnswer(rec, tool, args, "", fault)
	}
	if !strings.Contains(rec.System, "<tool_call>") || !strings.Contains(rec.System, tool) {
		return toolAnswer(rec, "", nil, "I was not told how to answer.", fault)
	}
	b, _ := json.Marshal(map[string]any{"name": tool, "arguments": args})
	return toolAnswer(rec, "", nil, fmt.Sprintf("<think>\nThe %s agent answers with %s.\n</think>\nCalling %s.\n<tool_call>\n%s\n</tool_call>", rec.Role, tool, tool, b), fault)
}

func toolAnswer(rec Request, tool string, args map[string]any, content string, fault *Fault) openai.ChatCompletionResponse {
	msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: content}
	argText := ""
	if tool != "" {
		b, _ := json.Marshal(args)
		argText = string(b)
		if fault != nil && fault.Kind == "malformed" {
			argText = `{"element": 3,` // truncated JSON
		}
		if fault != nil && fault.Kind == "wrong_tool" {
			tool = "wrong_tool"
		}
		if fault == nil || fault.Kind != "no_tool" {
			msg.ToolCalls = []openai.ToolCall{{ID: "call_" + strconv.Itoa(rec.Step), Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: tool, Arguments: argText}}}
		}
	}
	prompt := len(rec.Text)/4 + 765*rec.Images + 20*len(rec.Tools)
	completion := (len(content)+len(argText)+len(tool))/4 + 1
	return openai.ChatCompletionResponse{
		ID: "scripted-" + strconv.FormatInt(time.Now().UnixNano(), 36), Object: "chat.completion",
		Created: time.Now().Unix(), Model: "scripted",
		Choices: []openai.ChatCompletionChoice{{Index: 0, Message: msg, FinishReason: openai.FinishReasonToolCalls}},
		Usage:   openai.Usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion},
	}
}

// movesOn reports whether a step with this outcome moves the script on.
func movesOn(verdict string) bool {
	switch verdict {
	case screen.VerdictCorrect, screen.VerdictDenied, screen.VerdictRejected, screen.VerdictAnswered, screen.VerdictLooked:
		return true
	}
	return false
}

// AnswerArg in a scripted step's string argument stands for the person's
// latest answer to an ask_human question, as the Decision prompt shows it.
const AnswerArg = "$answer"

// reAnswer reads an answer line of the Decision prompt (see
// agent.State.Answers).
var reAnswer = regexp.MustCompile(`(?m)^- You asked ".*"; the person answered: (.*)$`)

// fillAnswer puts the latest answer the prompt carries in place of
// AnswerArg in args; an answer the prompt lacks is an error.
func fillAnswer(args map[string]any, prompt string, k int) error {
	for key, v := range args {
		if v != AnswerArg {
			continue
		}
		m := reAnswer.FindAllStringSubmatch(prompt, -1)
		if len(m) == 0 {
			return fmt.Errorf("scripted step %d types the person's answer, but the prompt carries no answer to a question", k)
		}
		args[key] = m[len(m)-1][1]
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
