package agents

import (
	"encoding/json"
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/pcflow/pcflow/internal/text"
)

// toolCall returns the name and arguments of the one tool the model called
// (text formats are parsed by the profile package).
func toolCall(msg openai.ChatCompletionMessage) (name string, args json.RawMessage, thought string, err error) {
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
	return "", nil, thought, fmt.Errorf("no tool call in the answer; call exactly one tool")
}

// oneTool reads a call of the named tool into v.
func oneTool(msg openai.ChatCompletionMessage, want string, v any) (thought string, err error) {
	name, args, thought, err := toolCall(msg)
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
