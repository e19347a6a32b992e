package agents

import (
	"encoding/json"

	openai "github.com/sashabaranov/go-openai"
)

// tool declares a function-calling tool with a JSON-schema parameter list.
func tool(name, desc, params string) openai.Tool {
	return openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
		Name: name, Description: desc, Parameters: json.RawMessage(params),
	}}
}
