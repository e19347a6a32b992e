package scripted

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/agents"
	"github.com/pcflow/pcflow/activities/agents/profile"
)

// noTurn is the answer to a request without X-Pcflow-Turn.
const noTurn = "the scripted model needs the " + agents.HeaderTurn + " header: set Scripted in the agents config"

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
	call, err := agents.CallFromHeaders(r.Header)
	if err != nil {
		writeErr(w, 400, err.Error())
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
	rec := classify(call, req)
	rec.Auth = r.Header.Get("Authorization")
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
		status, body = s.answer(r.Context(), rec, req, fault)
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

// classify reads what a request is for: role, subtask, step and turn from
// its headers (the role from its tools when the header is missing), and
// records what the body says.
func classify(call agent.Call, req openai.ChatCompletionRequest) Request {
	rec := Request{Model: req.Model, Role: call.Role, Subtask: call.Subtask, Step: call.Step, Profile: call.Profile, Turn: call.Turn}
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

// replayed answers with the recorded answer for the request's role,
// subtask and step; it needs no X-Pcflow-Turn.
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

// answer plays the script for a request: by its role, from its turn.
func (s *Server) answer(ctx context.Context, rec Request, req openai.ChatCompletionRequest, fault *Fault) (int, any) {
	if status, body, ok := faultStatus(fault, req.Model); ok {
		return status, body
	}
	if rec.Role == agent.RoleDecision && rec.Images == 0 {
		return 400, errBody(400, "decision request carries no screenshot: the Decision agent must see the screen")
	}
	if rec.Turn == nil {
		return 400, errBody(400, noTurn)
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
		return 200, s.decision(rec, fault)
	case agent.RoleGrounder:
		resp, err := s.grounder(ctx, rec, req, fault)
		if err != nil {
			return 400, errBody(400, err.Error())
		}
		return 200, resp
	case agent.RoleReflection:
		verdict, reason := s.reflection(rec)
		return 200, roleAnswer(rec, "verdict", map[string]any{"verdict": verdict, "reason": reason}, fault)
	case agent.RoleProgress:
		return 200, roleAnswer(rec, "update_progress", s.progress(rec), fault)
	case agent.RoleJudge, agent.RoleUser:
		play := func() (openai.ChatCompletionResponse, error) { return s.user(rec, fault) }
		if rec.Role == agent.RoleJudge {
			play = func() (openai.ChatCompletionResponse, error) { return s.judge(rec, req, fault) }
		}
		resp, err := play()
		if err != nil {
			return 400, errBody(400, err.Error())
		}
		return 200, resp
	case agent.RoleManager:
		answer := s.script.Manager
		if m, ok := s.script.Managers[rec.Turn.Instruction]; ok {
			answer = m
		}
		if len(answer) == 0 {
			return 200, toolAnswer(rec, "", nil, "The script has no manager answer.", fault)
		}
		var args map[string]any
		_ = json.Unmarshal(answer, &args)
		return 200, roleAnswer(rec, "plan_subtasks", args, fault)
	}
	return 400, errBody(400, "the scripted model cannot tell which agent this request is for")
}
