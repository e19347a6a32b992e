package agents

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/pcflow/pcflow/internal/text"
)

// toolCall returns the name and arguments the model chose, from a tool call
// or, in text mode, from an "Action: NAME {json}" line.
func toolCall(msg openai.ChatCompletionMessage, textMode bool) (name string, args json.RawMessage, thought string, err error) {
	thought = strings.TrimSpace(msg.Content)
	if len(msg.ToolCalls) > 0 {
		if len(msg.ToolCalls) > 1 {
			return "", nil, thought, fmt.Errorf("%d tool calls in one answer; call exactly one tool", len(msg.ToolCalls))
		}
		tc := msg.ToolCalls[0]
		a := strings.TrimSpace(tc.Function.Arguments)
		if a == "" {
			a = "{}"
		}
		if !json.Valid([]byte(a)) {
			return tc.Function.Name, nil, thought, fmt.Errorf("arguments of %s are not valid JSON: %s", tc.Function.Name, text.Trunc(a, 120))
		}
		return tc.Function.Name, json.RawMessage(a), thought, nil
	}
	if !textMode {
		return "", nil, thought, fmt.Errorf("no tool call in the answer; call exactly one tool")
	}
	return parseTextAction(msg.Content)
}

// oneTool reads a call of the named tool into v.
func oneTool(msg openai.ChatCompletionMessage, want string, v any) (thought string, err error) {
	name, args, thought, err := toolCall(msg, false)
	if err != nil {
		return thought, err
	}
	if name != want {
		return thought, fmt.Errorf("call the %s tool, not %s", want, name)
	}
	if err := json.Unmarshal(args, v); err != nil {
		return thought, fmt.Errorf("arguments of %s: %w", want, err)
	}
	return thought, nil
}

var actionLine = regexp.MustCompile(`(?m)^\s*Action:\s*([a-z_]+)\s*(\{.*\})?\s*$`)

// parseTextAction is the fallback parser for models without tool calling.
func parseTextAction(content string) (string, json.RawMessage, string, error) {
	m := actionLine.FindAllStringSubmatchIndex(content, -1)
	if len(m) == 0 {
		return "", nil, strings.TrimSpace(content), fmt.Errorf(`no "Action: NAME {json}" line in the answer`)
	}
	last := m[len(m)-1]
	name := content[last[2]:last[3]]
	args := "{}"
	if last[4] >= 0 {
		args = content[last[4]:last[5]]
	}
	thought := strings.TrimSpace(content[:last[0]])
	thought = strings.TrimSpace(strings.TrimPrefix(thought, "Thought:"))
	if !json.Valid([]byte(args)) {
		return name, nil, thought, fmt.Errorf("arguments of %s are not valid JSON: %s", name, text.Trunc(args, 120))
	}
	return name, json.RawMessage(args), thought, nil
}
