package agents

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/agents/profile"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/text"
)

// The computer-use protocols, spoken with a small typed client of their
// documented HTTP APIs: Anthropic's Messages API with the computer tool
// (POST {base}/messages) and OpenAI's Responses API with the computer tool
// (POST {base}/responses). Their SDKs resolve, but anthropic-sdk-go pulls
// newer AWS SDK modules than the Temporal server links, and pcflow needs
// one request shape from each. Every Decision is one stateless turn, as
// with chat (after a person approved a flagged OpenAI call, preceded by
// that call and its output acknowledging the checks): the prompt and the
// screenshot, the computer tool declared at
// the size of the image sent, and pcflow's non-pointer actions (open_app,
// switch_window, select, copy, paste, done, fail, ask_human) as custom tools.

// customTools are pcflow's actions the computer tools have no word for.
var customTools = map[string]bool{"open_app": true, "switch_window": true, "select": true, "copy": true, "paste": true, "done": true, "fail": true, "ask_human": true}

type computerTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema"`
}

func (w wire) customTools(outKeys []string) []computerTool {
	var out []computerTool
	for _, t := range actionTools(outKeys) {
		if t.Function == nil || !customTools[t.Function.Name] {
			continue
		}
		ps, _ := t.Function.Parameters.(json.RawMessage)
		out = append(out, computerTool{Name: t.Function.Name, Description: t.Function.Description, Schema: ps})
	}
	return out
}

// computerTurn is what a computer-use request says besides its prompt.
type computerTurn struct {
	call    agent.Call
	w       wire
	sys     string
	outKeys []string
	acked   []agent.SafetyCheck // the safety checks a person approved
	record  func(agent.Exchange)
}

// computerTransport is the transport of the computer-use protocols: the
// turn with the prompt built from the feedback. A failed call is the
// ask's error; anything else wrong is the answer's.
func (c *Client) computerTransport(t computerTurn, prompt func(feedback string) string, u *screen.Usage) transport[reply] {
	return func(ctx context.Context, feedback string) (reply, error) {
		a, checks, err := c.computerAsk(ctx, t, prompt(feedback), u)
		if _, ok := err.(*agent.APIError); ok {
			return reply{}, err
		}
		return reply{a, checks, err}, nil
	}
}

// computerBody is the request of w's protocol.
func (c *Client) computerBody(t computerTurn, prompt string) (url string, hdr http.Header, body map[string]any) {
	w, sys, outKeys, acked := t.w, t.sys, t.outKeys, t.acked
	b64 := base64.StdEncoding.EncodeToString(w.img)
	hdr = http.Header{"Content-Type": {"application/json"}}
	base := strings.TrimRight(c.cfg.BaseURL, "/")
	key := c.cfg.APIKey
	model := c.cfg.DecisionModel
	if w.p.Model != "" {
		model = w.p.Model
	}
	if w.p.BaseURL != "" {
		// The profile's own endpoint gets the key its api_key_env names.
		base, key = strings.TrimRight(w.p.BaseURL, "/"), ""
		if w.p.APIKeyEnv != "" && c.cfg.Getenv != nil {
			key = c.cfg.Getenv(w.p.APIKeyEnv)
		}
	}
	if w.p.Protocol == profile.ProtoAnthropicComputer {
		if c.cfg.AnthropicAPIKey != "" && w.p.BaseURL == "" {
			key, base = c.cfg.AnthropicAPIKey, strings.TrimRight(c.cfg.AnthropicBaseURL, "/")
		}
		hdr.Set("x-api-key", key)
		hdr.Set("anthropic-version", "2023-06-01")
		computer := map[string]any{"type": "computer_20250124", "name": "computer",
			"display_width_px": w.frame.ImageW, "display_height_px": w.frame.ImageH}
		hdr.Set("anthropic-beta", "computer-use-2025-01-24")
		if w.p.Zoom {
			// The tool version that has zoom (Claude Opus 4.5 and later).
			computer["type"], computer["enable_zoom"] = "computer_20251124", true
			hdr.Set("anthropic-beta", "computer-use-2025-11-24")
		}
		tools := []any{computer}
		for _, t := range w.customTools(outKeys) {
			tools = append(tools, map[string]any{"name": t.Name, "description": t.Description, "input_schema": t.Schema})
		}
		content := []any{
			map[string]any{"type": "text", "text": prompt},
			map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": w.mime, "data": b64}},
		}
		if z := w.zoom; z != nil {
			content = append(content, map[string]any{"type": "text", "text": z.label},
				map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": z.mime, "data": base64.StdEncoding.EncodeToString(z.img)}})
		}
		return base + "/messages", hdr, map[string]any{
			"model": model, "max_tokens": c.cfg.MaxTokens, "system": sys, "tools": tools,
			"messages": []any{map[string]any{"role": "user", "content": content}},
		}
	}
	hdr.Set("Authorization", "Bearer "+key)
	tools := []any{map[string]any{"type": "computer_use_preview", "display_width": w.frame.ImageW, "display_height": w.frame.ImageH, "environment": "linux"}}
	for _, t := range w.customTools(outKeys) {
		tools = append(tools, map[string]any{"type": "function", "name": t.Name, "description": t.Description, "parameters": t.Schema})
	}
	return base + "/responses", hdr, map[string]any{
		"model": model, "instructions": sys, "tools": tools, "truncation": "auto",
		"input": append(acknowledgements(acked, dataURL(w.img, w.mime)), map[string]any{"role": "user", "content": responsesContent(w, prompt)}),
	}
}

// acknowledgements are the input items that acknowledge the safety checks
// a person approved: per call they were on, the call as the model gave it
// and its computer_call_output (the screen after the action) carrying
// acknowledged_safety_checks, as OpenAI's Responses API documents for a
// request without previous_response_id.
func acknowledgements(acked []agent.SafetyCheck, shot string) []any {
	var items []any
	byCall := map[string]int{}
	for _, ch := range acked {
		var call struct {
			CallID string `json:"call_id"`
		}
		if len(ch.Call) == 0 || json.Unmarshal(ch.Call, &call) != nil || call.CallID == "" {
			continue
		}
		ack := map[string]any{"id": ch.ID, "code": ch.Code, "message": ch.Message}
		if i, ok := byCall[call.CallID]; ok {
			out := items[i].(map[string]any)
			out["acknowledged_safety_checks"] = append(out["acknowledged_safety_checks"].([]any), ack)
			continue
		}
		items = append(items, ch.Call)
		byCall[call.CallID] = len(items)
		items = append(items, map[string]any{"type": "computer_call_output", "call_id": call.CallID,
			"acknowledged_safety_checks": []any{ack},
			"output":                     map[string]any{"type": "computer_screenshot", "image_url": shot}})
	}
	return items
}

// computerAsk sends one turn and reads the answer into calls.
func (c *Client) computerAsk(ctx context.Context, t computerTurn, prompt string, u *screen.Usage) (profile.Answer, []agent.SafetyCheck, error) {
	call, w, record := t.call, t.w, t.record
	url, hdr, body := c.computerBody(t, prompt)
	data, err := json.Marshal(body)
	if err != nil {
		return profile.Answer{}, nil, err
	}
	req, err := http.NewRequestWithContext(context.WithValue(ctx, callKey{}, call), http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		return profile.Answer{}, nil, err
	}
	req.Header = hdr
	start := time.Now()
	resp, err := c.cfg.httpClient().Do(req)
	u.Calls++
	var raw []byte
	if err == nil {
		raw, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	u.LatencyMS += time.Since(start).Milliseconds()
	if record != nil {
		ex := agent.Exchange{Role: call.Role, Subtask: call.Subtask, Step: call.Step}
		ex.Model, _ = body["model"].(string)
		ex.Request, _ = json.Marshal(redactComputer(body, len(data)))
		if err == nil {
			ex.Response = raw
		} else {
			ex.Error = err.Error()
		}
		record(ex)
	}
	if err != nil {
		return profile.Answer{}, nil, &agent.APIError{Type: agent.ErrTypeModelUnavailable, Retryable: true, Err: err,
			Msg: fmt.Sprintf("model endpoint %s unreachable or timed out: %v", url, err)}
	}
	if resp.StatusCode != http.StatusOK {
		return profile.Answer{}, nil, statusError(url, c.cfg.DecisionModel, resp.StatusCode, raw)
	}
	var ans struct {
		Content []profile.AnthropicBlock `json:"content"`
		Output  []profile.ResponsesItem  `json:"output"`
		Usage   struct {
			InputTokens  int `json:"input_tokens"`
			OutputTokens int `json:"output_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(raw, &ans); err != nil {
		return profile.Answer{}, nil, &agent.APIError{Type: agent.ErrTypeModelUnavailable, Retryable: true, Err: err,
			Msg: fmt.Sprintf("model endpoint %s answered something that is not JSON: %s", url, text.Trunc(string(raw), 120))}
	}
	u.PromptTokens += ans.Usage.InputTokens
	u.CompletionTokens += ans.Usage.OutputTokens
	model, _ := body["model"].(string)
	u.AddModel(model, screen.ModelUsage{Calls: 1, PromptTokens: ans.Usage.InputTokens, CompletionTokens: ans.Usage.OutputTokens})
	if w.p.Protocol == profile.ProtoAnthropicComputer {
		a, err := profile.AnthropicAnswer(ans.Content)
		return a, nil, err
	}
	a, checks, err := profile.ResponsesAnswer(ans.Output)
	if len(checks) == 0 {
		return a, nil, err
	}
	// Each check keeps the call it is on, as the model gave it, so the
	// next request can acknowledge it there.
	var items struct {
		Output []json.RawMessage `json:"output"`
	}
	_ = json.Unmarshal(raw, &items)
	var out []agent.SafetyCheck
	for _, it := range items.Output {
		var cc profile.ResponsesItem
		if json.Unmarshal(it, &cc) != nil || cc.Type != "computer_call" {
			continue
		}
		for _, ch := range cc.PendingSafetyChecks {
			out = append(out, agent.SafetyCheck{ID: ch.ID, Code: ch.Code, Message: ch.Message, Call: it})
		}
	}
	return a, out, err
}

// statusError classifies a failed HTTP answer as classify does go-openai's.
func statusError(url, model string, status int, body []byte) error {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	detail := text.Trunc(strings.TrimSpace(string(body)), 200)
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		detail = e.Error.Message
	}
	switch {
	case status == 401 || status == 403:
		return &agent.APIError{Type: agent.ErrTypeModelAuth, Status: status,
			Msg: fmt.Sprintf("API key rejected by %s (HTTP %d): set the key for this endpoint (OPENAI_API_KEY, or ANTHROPIC_API_KEY for anthropic-computer)", url, status)}
	case status == 404:
		return &agent.APIError{Type: agent.ErrTypeModelNotFound, Status: status,
			Msg: fmt.Sprintf("model %s or endpoint %s not found (HTTP 404: %s): check PCFLOW_MODEL and the base URL", model, url, detail)}
	case status == 400 || status == 422:
		return &agent.APIError{Type: agent.ErrTypeModelRequest, Status: status, Msg: fmt.Sprintf("request rejected by %s (HTTP %d): %s", url, status, detail)}
	}
	return &agent.APIError{Type: agent.ErrTypeModelUnavailable, Retryable: true, Status: status,
		Msg: fmt.Sprintf("model endpoint %s is busy or failing (HTTP %d): %s", url, status, detail)}
}

// redactComputer drops the screenshot from a recorded request.
func redactComputer(body map[string]any, n int) map[string]any {
	out := map[string]any{}
	for k, v := range body {
		out[k] = v
	}
	note := fmt.Sprintf("(request with image, %d bytes)", n)
	if _, ok := out["messages"]; ok {
		out["messages"] = note
	}
	if _, ok := out["input"]; ok {
		out["input"] = note
	}
	return out
}

// responsesContent is the Responses API user content: the prompt, the
// screenshot and the previous step's zoom, if any.
func responsesContent(w wire, prompt string) []any {
	content := []any{
		map[string]any{"type": "input_text", "text": prompt},
		map[string]any{"type": "input_image", "image_url": dataURL(w.img, w.mime)},
	}
	if z := w.zoom; z != nil {
		content = append(content, map[string]any{"type": "input_text", "text": z.label},
			map[string]any{"type": "input_image", "image_url": dataURL(z.img, z.mime)})
	}
	return content
}
