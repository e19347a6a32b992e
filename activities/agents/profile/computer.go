package profile

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// SafetyCheck is a check OpenAI's computer tool attaches to a call: the
// action may only run once a person has acknowledged it.
type SafetyCheck struct {
	ID      string `json:"id"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

// AnthropicBlock is one content block of an Anthropic Messages API answer.
type AnthropicBlock struct {
	Type  string          `json:"type"` // "text", "thinking", "tool_use"
	Text  string          `json:"text,omitempty"`
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`
}

// AnthropicAnswer reads the computer tool's tool_use blocks (several per
// turn are several calls, in order) and pcflow's own tools (done, fail)
// offered beside it; text blocks are the thought.
func AnthropicAnswer(blocks []AnthropicBlock) (Answer, error) {
	var a Answer
	var thought []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			thought = append(thought, strings.TrimSpace(b.Text))
		case "tool_use":
			args := map[string]any{}
			if len(b.Input) > 0 {
				if err := json.Unmarshal(b.Input, &args); err != nil {
					return a, fmt.Errorf("input of %s is not a JSON object: %s", b.Name, trunc(string(b.Input), 120))
				}
			}
			if b.Name != "computer" {
				a.Calls = append(a.Calls, Call{Name: b.Name, Args: args})
				continue
			}
			c, err := computerCall("computer", args)
			if err != nil {
				return a, err
			}
			a.Calls = append(a.Calls, c)
		}
	}
	a.Thought = strings.TrimSpace(strings.Join(thought, "\n"))
	if len(a.Calls) == 0 {
		return a, fmt.Errorf("no tool_use in the answer: use the computer tool for the next action, or done / fail")
	}
	return a, nil
}

// ResponsesItem is one output item of an OpenAI Responses API answer.
type ResponsesItem struct {
	Type string `json:"type"` // "message", "reasoning", "computer_call", "function_call"
	// message
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content,omitempty"`
	// reasoning
	Summary []struct {
		Text string `json:"text"`
	} `json:"summary,omitempty"`
	// computer_call: one action, or the newer batch of actions.
	CallID              string            `json:"call_id,omitempty"`
	Action              json.RawMessage   `json:"action,omitempty"`
	Actions             []json.RawMessage `json:"actions,omitempty"`
	PendingSafetyChecks []SafetyCheck     `json:"pending_safety_checks,omitempty"`
	// function_call
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
}

// ResponsesAnswer reads computer_call items (an action, or actions[] in
// order) and function calls of pcflow's own tools; message and reasoning
// text is the thought. The safety checks of every call are returned: the
// caller must not act on them without a person's acknowledgement.
func ResponsesAnswer(items []ResponsesItem) (Answer, []SafetyCheck, error) {
	var a Answer
	var checks []SafetyCheck
	var thought []string
	for _, it := range items {
		switch it.Type {
		case "message":
			for _, c := range it.Content {
				thought = append(thought, strings.TrimSpace(c.Text))
			}
		case "reasoning":
			for _, s := range it.Summary {
				thought = append(thought, strings.TrimSpace(s.Text))
			}
		case "computer_call":
			checks = append(checks, it.PendingSafetyChecks...)
			raws := it.Actions
			if len(raws) == 0 && len(it.Action) > 0 {
				raws = []json.RawMessage{it.Action}
			}
			for _, raw := range raws {
				var in map[string]any
				if err := json.Unmarshal(raw, &in); err != nil {
					return a, checks, fmt.Errorf("computer_call action is not a JSON object: %s", trunc(string(raw), 120))
				}
				c, err := responsesCall(in)
				if err != nil {
					return a, checks, err
				}
				a.Calls = append(a.Calls, c)
			}
		case "function_call":
			args := map[string]any{}
			if s := strings.TrimSpace(it.Arguments); s != "" {
				if err := json.Unmarshal([]byte(s), &args); err != nil {
					return a, checks, fmt.Errorf("arguments of %s are not valid JSON: %s", it.Name, trunc(s, 120))
				}
			}
			a.Calls = append(a.Calls, Call{Name: it.Name, Args: args})
		}
	}
	a.Thought = strings.TrimSpace(strings.Join(thought, "\n"))
	if len(a.Calls) == 0 {
		return a, checks, fmt.Errorf("no computer_call in the answer: use the computer tool for the next action, or call done / fail")
	}
	return a, checks, nil
}

func responsesCall(in map[string]any) (Call, error) {
	typ, _ := in["type"].(string)
	out := map[string]any{}
	xy := func() error {
		x, okx := in["x"].(float64)
		y, oky := in["y"].(float64)
		if !okx || !oky {
			return fmt.Errorf("computer %s needs x and y", typ)
		}
		out["x"], out["y"] = x, y
		return nil
	}
	switch typ {
	case "click":
		if err := xy(); err != nil {
			return Call{}, err
		}
		b, _ := in["button"].(string)
		switch b {
		case "", "left":
			return Call{Name: "click", Args: out}, nil
		case "right":
			return Call{Name: "right_click", Args: out}, nil
		case "wheel", "middle":
			return Call{Name: "middle_click", Args: out}, nil
		}
		return Call{}, fmt.Errorf("click button %q is not available; use left, right or wheel", b)
	case "double_click", "move":
		if err := xy(); err != nil {
			return Call{}, err
		}
		return Call{Name: map[string]string{"double_click": "double_click", "move": "mouse_move"}[typ], Args: out}, nil
	case "drag":
		path, _ := in["path"].([]any)
		if len(path) < 2 {
			return Call{}, fmt.Errorf("computer drag needs a path of at least two points")
		}
		first, _ := path[0].(map[string]any)
		last, _ := path[len(path)-1].(map[string]any)
		out["x"], out["y"], out["x2"], out["y2"] = first["x"], first["y"], last["x"], last["y"]
		return Call{Name: "drag", Args: out}, nil
	case "keypress":
		ks, err := strs(in["keys"])
		if err != nil || len(ks) == 0 {
			return Call{}, fmt.Errorf("computer keypress needs keys")
		}
		out["keys"] = lowerKeys(ks)
		return Call{Name: "hotkey", Args: out}, nil
	case "type":
		typed(out, in["text"])
		return Call{Name: "type", Args: out}, nil
	case "scroll":
		if err := xy(); err != nil {
			return Call{}, err
		}
		sx, _ := in["scroll_x"].(float64)
		sy, _ := in["scroll_y"].(float64)
		// Pixels, as a browser scrolls; a wheel click is about 100 of them.
		switch {
		case sy > 0:
			out["direction"] = "down"
		case sy < 0:
			out["direction"] = "up"
		case sx > 0:
			out["direction"] = "right"
		case sx < 0:
			out["direction"] = "left"
		default:
			return Call{}, fmt.Errorf("computer scroll needs a non-zero scroll_x or scroll_y")
		}
		out["amount"] = max(1, math.Ceil(math.Max(math.Abs(sx), math.Abs(sy))/100))
		return Call{Name: "scroll", Args: out}, nil
	case "wait":
		return Call{Name: "wait", Args: map[string]any{"seconds": 2.0}}, nil
	case "screenshot":
		return Call{Name: "wait", Args: map[string]any{"seconds": 1.0}}, nil
	}
	return Call{}, fmt.Errorf("computer action %q is not available; use click, double_click, drag, keypress, move, scroll, type or wait", typ)
}

// typed sets the text to type; a final newline is pressing Enter, as the
// computer tools type it.
func typed(out map[string]any, v any) {
	t, _ := v.(string)
	if strings.HasSuffix(t, "\n") {
		t = strings.TrimRight(t, "\n")
		out["enter"] = true
	}
	out["text"] = t
}
