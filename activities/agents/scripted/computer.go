package scripted

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// The computer-use protocols: Anthropic's Messages API (POST /messages)
// and OpenAI's Responses API (POST /responses). The server reads their
// requests as the chat request they amount to, answers it as for chat,
// and writes the answer in the protocol's own shape: tool_use blocks of
// the computer tool, or a computer_call with its actions.

// computerRequest is the part of both protocols' requests the server reads.
type computerRequest struct {
	Model        string          `json:"model"`
	System       json.RawMessage `json:"system,omitempty"`       // Messages
	Instructions string          `json:"instructions,omitempty"` // Responses
	Messages     []struct {
		Role    string            `json:"role"`
		Content []json.RawMessage `json:"content"`
	} `json:"messages,omitempty"`
	Input []inputItem `json:"input,omitempty"`
	Tools []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tools"`
}

// inputItem is one item of a Responses API input: a message, or a
// computer_call and its computer_call_output (how a stateless request
// acknowledges safety checks).
type inputItem struct {
	Type         string            `json:"type,omitempty"`
	Role         string            `json:"role,omitempty"`
	Content      []json.RawMessage `json:"content,omitempty"`
	CallID       string            `json:"call_id,omitempty"`
	Acknowledged []struct {
		ID string `json:"id"`
	} `json:"acknowledged_safety_checks,omitempty"`
}

// checkAcks verifies, as the Responses API does, that each
// computer_call_output for a call that carried pending safety checks
// acknowledges exactly those checks. pending maps a call id to its
// checks' ids (a stateless request may send the same call again, on a
// re-ask). It returns the ids acknowledged, or why the request is rejected.
func (cr computerRequest) checkAcks(pending map[string][]string) ([]string, error) {
	var acked []string
	for _, it := range cr.Input {
		if it.Type != "computer_call_output" {
			continue
		}
		var ids []string
		for _, a := range it.Acknowledged {
			ids = append(ids, a.ID)
		}
		want, ok := pending[it.CallID]
		if !ok && len(ids) > 0 {
			return nil, fmt.Errorf("acknowledged_safety_checks %v on call %s, which has no pending safety checks", ids, it.CallID)
		}
		if strings.Join(ids, ",") != strings.Join(want, ",") {
			return nil, fmt.Errorf("computer_call_output for call %s acknowledges safety checks %v; the call's pending safety checks are %v and must be acknowledged exactly", it.CallID, ids, want)
		}
		acked = append(acked, ids...)
	}
	return acked, nil
}

// asChat turns a computer-protocol request into the chat request it
// amounts to: the text and images of its user messages, its tools' names.
func (cr computerRequest) asChat() openai.ChatCompletionRequest {
	req := openai.ChatCompletionRequest{Model: cr.Model}
	msgs := cr.Messages
	if len(msgs) == 0 {
		for _, it := range cr.Input {
			if it.Role != "" {
				msgs = append(msgs, struct {
					Role    string            `json:"role"`
					Content []json.RawMessage `json:"content"`
				}{it.Role, it.Content})
			}
		}
	}
	for _, m := range msgs {
		cm := openai.ChatCompletionMessage{Role: m.Role}
		for _, raw := range m.Content {
			var part struct {
				Type     string `json:"type"`
				Text     string `json:"text"`
				ImageURL string `json:"image_url"`
				Source   struct {
					MediaType string `json:"media_type"`
					Data      string `json:"data"`
				} `json:"source"`
			}
			if json.Unmarshal(raw, &part) != nil {
				continue
			}
			switch part.Type {
			case "text", "input_text":
				cm.MultiContent = append(cm.MultiContent, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: part.Text})
			case "image":
				cm.MultiContent = append(cm.MultiContent, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL,
					ImageURL: &openai.ChatMessageImageURL{URL: "data:" + part.Source.MediaType + ";base64," + part.Source.Data}})
			case "input_image":
				cm.MultiContent = append(cm.MultiContent, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL,
					ImageURL: &openai.ChatMessageImageURL{URL: part.ImageURL}})
			}
		}
		req.Messages = append(req.Messages, cm)
	}
	for _, t := range cr.Tools {
		name := t.Name
		if name == "" {
			name = t.Type
		}
		req.Tools = append(req.Tools, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: name}})
	}
	return req
}

// anthropicAnswer writes a chat answer as a Messages API message: the
// content as a text block, each pcflow action as a tool_use of the
// computer tool (done and fail as their own tools).
func anthropicAnswer(resp openai.ChatCompletionResponse) map[string]any {
	var blocks []any
	msg := resp.Choices[0].Message
	if msg.Content != "" {
		blocks = append(blocks, map[string]any{"type": "text", "text": msg.Content})
	}
	for i, tc := range msg.ToolCalls {
		var args map[string]any
		if json.Unmarshal([]byte(tc.Function.Arguments), &args) != nil {
			// A malformed answer stays malformed.
			blocks = append(blocks, map[string]any{"type": "tool_use", "id": "toolu_" + strconv.Itoa(i), "name": "computer", "input": json.RawMessage(`{"action":`)})
			continue
		}
		name, input := anthropicAction(tc.Function.Name, args)
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": "toolu_" + strconv.Itoa(i), "name": name, "input": input})
	}
	return map[string]any{"id": resp.ID, "type": "message", "role": "assistant", "model": resp.Model, "content": blocks,
		"stop_reason": "tool_use", "usage": map[string]int{"input_tokens": resp.Usage.PromptTokens, "output_tokens": resp.Usage.CompletionTokens}}
}

func pair(args map[string]any, xk, yk string) []any { return []any{args[xk], args[yk]} }

func anthropicAction(action string, args map[string]any) (string, map[string]any) {
	_, hasXY := args["x"]
	switch action {
	case "click", "double_click", "right_click", "middle_click", "triple_click":
		if hasXY {
			n := map[string]string{"click": "left_click"}[action]
			if n == "" {
				n = action
			}
			return "computer", map[string]any{"action": n, "coordinate": pair(args, "x", "y")}
		}
	case "type":
		if !hasXY {
			return "computer", map[string]any{"action": "type", "text": withEnter(args)}
		}
	case "hotkey":
		return "computer", map[string]any{"action": "key", "text": strings.Join(anyStrings(args["keys"]), "+")}
	case "drag":
		return "computer", map[string]any{"action": "left_click_drag", "start_coordinate": pair(args, "x", "y"), "coordinate": pair(args, "x2", "y2")}
	case "wait":
		return "computer", map[string]any{"action": "wait", "duration": 1}
	case "zoom":
		return "computer", map[string]any{"action": "zoom", "region": []any{args["x"], args["y"], args["x2"], args["y2"]}}
	}
	return action, args
}

// responsesAnswer writes a chat answer as a Responses API response: the
// content as a message, the pcflow actions as one computer_call with a
// batch of actions (done and fail as function calls). checks are added as
// pending safety checks.
func responsesAnswer(resp openai.ChatCompletionResponse, callID string, checks []map[string]string) map[string]any {
	var out []any
	msg := resp.Choices[0].Message
	if msg.Content != "" {
		out = append(out, map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": msg.Content}}})
	}
	var actions []any
	for i, tc := range msg.ToolCalls {
		var args map[string]any
		if json.Unmarshal([]byte(tc.Function.Arguments), &args) != nil {
			out = append(out, map[string]any{"type": "function_call", "call_id": "call_" + strconv.Itoa(i), "name": tc.Function.Name, "arguments": tc.Function.Arguments})
			continue
		}
		if a := responsesAction(tc.Function.Name, args); a != nil {
			actions = append(actions, a)
			continue
		}
		out = append(out, map[string]any{"type": "function_call", "call_id": "call_" + strconv.Itoa(i), "name": tc.Function.Name, "arguments": tc.Function.Arguments})
	}
	if len(actions) > 0 {
		cc := map[string]any{"type": "computer_call", "id": "cu_" + resp.ID, "call_id": callID, "status": "completed", "pending_safety_checks": checks}
		if len(actions) == 1 {
			cc["action"] = actions[0]
		} else {
			cc["actions"] = actions
		}
		out = append(out, cc)
	}
	return map[string]any{"id": resp.ID, "object": "response", "model": resp.Model, "output": out,
		"usage": map[string]int{"input_tokens": resp.Usage.PromptTokens, "output_tokens": resp.Usage.CompletionTokens}}
}

func responsesAction(action string, args map[string]any) map[string]any {
	_, hasXY := args["x"]
	switch action {
	case "click", "right_click":
		if hasXY {
			b := map[string]string{"click": "left", "right_click": "right"}[action]
			return map[string]any{"type": "click", "button": b, "x": args["x"], "y": args["y"]}
		}
	case "double_click":
		if hasXY {
			return map[string]any{"type": "double_click", "x": args["x"], "y": args["y"]}
		}
	case "type":
		if !hasXY {
			return map[string]any{"type": "type", "text": withEnter(args)}
		}
	case "hotkey":
		var ks []any
		for _, k := range anyStrings(args["keys"]) {
			ks = append(ks, strings.ToUpper(k))
		}
		return map[string]any{"type": "keypress", "keys": ks}
	case "drag":
		return map[string]any{"type": "drag", "path": []any{map[string]any{"x": args["x"], "y": args["y"]}, map[string]any{"x": args["x2"], "y": args["y2"]}}}
	case "wait":
		return map[string]any{"type": "wait"}
	}
	return nil
}

func protocolOf(path string) (string, error) {
	switch {
	case strings.HasSuffix(path, "/messages"):
		return "messages", nil
	case strings.HasSuffix(path, "/responses"):
		return "responses", nil
	}
	return "", fmt.Errorf("not found: %s", path)
}

// withEnter is the text to type, with Enter as a final newline.
func withEnter(args map[string]any) string {
	t, _ := args["text"].(string)
	if e, _ := args["enter"].(bool); e {
		t += "\n"
	}
	return t
}
