package profile

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The Anthropic computer tool and Qwen's computer_use tool name their shared
// actions alike; one mapping gives pcflow the same action from either, and
// each form's own arguments (key text or list, scroll direction or pixels,
// a Qwen drag from where the mouse is, a typed final newline) keep their
// meaning.
func TestComputerToolsMapAlike(t *testing.T) {
	anthropic := func(input string) Call {
		t.Helper()
		a, err := AnthropicAnswer([]AnthropicBlock{{Type: "tool_use", Name: "computer", Input: json.RawMessage(input)}})
		if err != nil {
			t.Fatalf("anthropic %s: %v", input, err)
		}
		return a.Calls[0]
	}
	qwen := func(args string) Call {
		t.Helper()
		a, err := parseHermes(`<tool_call>{"name": "computer_use", "arguments": ` + args + `}</tool_call>`)
		if err != nil {
			t.Fatalf("qwen %s: %v", args, err)
		}
		return a.Calls[0]
	}
	same := []struct{ a, q string }{
		{`{"action":"left_click","coordinate":[10,20]}`, `{"action":"left_click","coordinate":[10,20]}`},
		{`{"action":"double_click","coordinate":[1,2]}`, `{"action":"double_click","coordinate":[1,2]}`},
		{`{"action":"key","text":"ctrl+s"}`, `{"action":"key","keys":["ctrl","s"]}`},
		{`{"action":"scroll","coordinate":[5,6],"scroll_direction":"down","scroll_amount":300}`, `{"action":"scroll","coordinate":[5,6],"pixels":-300}`},
		{`{"action":"left_click_drag","start_coordinate":[1,2],"coordinate":[3,4]}`, `{"action":"left_click_drag","start_coordinate":[1,2],"coordinate":[3,4]}`},
		{`{"action":"type","text":"hello\n"}`, `{"action":"type","text":"hello\n"}`},
		{`{"action":"wait","duration":2}`, `{"action":"wait","time":2}`},
	}
	for _, c := range same {
		if a, q := anthropic(c.a), qwen(c.q); !reflect.DeepEqual(a, q) {
			t.Errorf("anthropic %s gave %+v, qwen %s gave %+v", c.a, a, c.q, q)
		}
	}
	if c := qwen(`{"action":"left_click_drag","coordinate":[3,4]}`); c.Name != "left_click_drag" {
		t.Errorf("a Qwen drag without start_coordinate starts where the mouse is: got %+v", c)
	}
	if _, err := AnthropicAnswer([]AnthropicBlock{{Type: "tool_use", Name: "computer", Input: json.RawMessage(`{"action":"left_click_drag","coordinate":[3,4]}`)}}); err == nil {
		t.Error("an Anthropic drag without start_coordinate is accepted")
	}
	if c := qwen(`{"action":"terminate","status":"failure"}`); c.Name != "fail" {
		t.Errorf("terminate failure gave %+v", c)
	}
	if _, err := parseHermes(`<tool_call>{"name": "computer_use", "arguments": {"action":"scroll","coordinate":[1,1]}}</tool_call>`); err == nil {
		t.Error("a Qwen scroll without pixels is accepted")
	}
}
