package agents

import (
	"encoding/json"
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/pcflow/pcflow/activities/agents/profile"
	"github.com/pcflow/pcflow/internal/text"
)

// toolCall returns the name and arguments of the one tool the model called:
// a tool call, or a <tool_call>{…}</tool_call> in the text (a text profile,
// or a server without a tool parser). <think> blocks are left out of the
// thought.
func toolCall(msg openai.ChatCompletionMessage) (name string, args json.RawMessage, thought string, err error) {
	thought, _ = profile.StripThink(msg.Content)
	if len(msg.ToolCalls) == 0 && strings.Contains(thought, "<tool_call>") {
		a, err := profile.ParseText(profile.FormatHermes, thought)
		if err != nil {
			return "", nil, a.Thought, err
		}
		if len(a.Calls) != 1 {
			return "", nil, a.Thought, fmt.Errorf("%d tool calls in one answer; call exactly one tool", len(a.Calls))
		}
		b, err := json.Marshal(a.Calls[0].Args)
		if err != nil {
			return "", nil, a.Thought, err
		}
		return a.Calls[0].Name, b, a.Thought, nil
	}
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

// textToolPrompt describes a role's one tool to a text profile's model, at
// the end of the system prompt: its name, description, schema and name.
const textToolPrompt = `

You have one tool, %s: %s Its arguments (JSON Schema): %s
Answer with one short line of thought, then the call as JSON within <tool_call></tool_call> tags:
<tool_call>
{"name": %q, "arguments": {…}}
</tool_call>`

// roleRequest is the one-tool request of a role other than Decision,
// shaped as the role's profile wants it: as it is (openai-tools), or for
// a text profile without tools, the tool described at the end of the
// system prompt and the call asked for as a <tool_call> (what models
// served without a tool parser understand).
func (c *Client) roleRequest(role, model string, maxTokens int, system string, user openai.ChatCompletionMessage, t openai.Tool) openai.ChatCompletionRequest {
	req := openai.ChatCompletionRequest{
		Model: model, Temperature: c.cfg.Temperature, MaxTokens: maxTokens,
		Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: system}, user},
		Tools:    []openai.Tool{t},
	}
	if c.cfg.RoleProfile(role).Protocol != profile.ProtoText || t.Function == nil {
		return req
	}
	f := t.Function
	params, _ := json.Marshal(f.Parameters)
	req.Messages[0].Content += fmt.Sprintf(textToolPrompt, f.Name, f.Description, params, f.Name)
	req.Tools = nil
	return req
}
