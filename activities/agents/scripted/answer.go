package scripted

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// roleAnswer calls tool with args as a model of the request's kind does: a
// tool call when the request declares tools; else (a text profile) in
// text, the way Qwen and Hermes models answer on a server without a tool
// parser — reasoning in <think>, then a <tool_call>.
func roleAnswer(rec Request, tool string, args map[string]any, fault *Fault) openai.ChatCompletionResponse {
	if len(rec.Tools) > 0 {
		return toolAnswer(rec, tool, args, "", fault)
	}
	b, _ := json.Marshal(map[string]any{"name": tool, "arguments": args})
	return toolAnswer(rec, "", nil, fmt.Sprintf("<think>\nThe %s agent answers with %s.\n</think>\nCalling %s.\n<tool_call>\n%s\n</tool_call>", rec.Role, tool, tool, b), fault)
}

// toolAnswer is a chat completion calling tool with args (none when tool
// is ""), with content, and the usage a model would report for the
// request's size; a fault may spoil the call.
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
