package agents

import (
	"encoding/json"

	openai "github.com/sashabaranov/go-openai"
)

func tool(name, desc, params string) openai.Tool {
	return openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
		Name: name, Description: desc, Parameters: json.RawMessage(params),
	}}
}

const (
	pElementOrXY = `{"type":"object","properties":{
"element":{"type":"integer","description":"id from the element list"},
"x":{"type":"integer","description":"pixel x in the image, when no element fits"},
"y":{"type":"integer","description":"pixel y in the image"}}}`
	pNone = `{"type":"object","properties":{}}`
)

// actionTools is the action space as function-calling tools.
func actionTools(outputs []string) []openai.Tool {
	doneProps := `{}`
	if len(outputs) > 0 {
		b, _ := json.Marshal(outputs)
		props := map[string]any{}
		for _, o := range outputs {
			props[o] = map[string]string{"type": "string"}
		}
		pb, _ := json.Marshal(props)
		doneProps = `{"type":"object","properties":` + string(pb) + `,"required":` + string(b) + `}`
	}
	return []openai.Tool{
		tool("open_app", "Open an application by name (desktop entry or program).", `{"type":"object","properties":{"app":{"type":"string"}},"required":["app"]}`),
		tool("click", "Left-click an element (or pixel).", pElementOrXY),
		tool("double_click", "Double-click an element (or pixel).", pElementOrXY),
		tool("right_click", "Right-click an element (or pixel).", pElementOrXY),
		tool("type", "Type text, optionally into an element first clicked, optionally pressing Enter after.", `{"type":"object","properties":{
"text":{"type":"string"},"element":{"type":"integer"},"enter":{"type":"boolean"}},"required":["text"]}`),
		tool("select", "Select on-screen text from the first occurrence of start to end (found by OCR).", `{"type":"object","properties":{
"start":{"type":"string","description":"the first words of the text to select"},"end":{"type":"string","description":"the last words"}},"required":["start","end"]}`),
		tool("drag", "Drag from one point to another (pixels of the image).", `{"type":"object","properties":{
"x":{"type":"integer"},"y":{"type":"integer"},"x2":{"type":"integer"},"y2":{"type":"integer"}},"required":["x","y","x2","y2"]}`),
		tool("scroll", "Scroll, over an element if given.", `{"type":"object","properties":{
"direction":{"type":"string","enum":["up","down","left","right"]},"amount":{"type":"integer","description":"wheel clicks, default 3"},"element":{"type":"integer"}},"required":["direction"]}`),
		tool("hotkey", "Press a key or key combination, e.g. [\"ctrl\",\"s\"] or [\"enter\"].", `{"type":"object","properties":{"keys":{"type":"array","items":{"type":"string"}}},"required":["keys"]}`),
		tool("wait", "Wait for the screen to settle.", `{"type":"object","properties":{"seconds":{"type":"number"}}}`),
		tool("switch_window", "Bring the window whose title contains title to the front.", `{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}`),
		tool("copy", "Copy the selection to the clipboard.", pNone),
		tool("paste", "Paste the clipboard.", pNone),
		tool("done", "The subtask is complete; report every declared output.", `{"type":"object","properties":{"outputs":`+doneProps+`}}`),
		tool("fail", "The subtask cannot be completed.", `{"type":"object","properties":{"reason":{"type":"string"}},"required":["reason"]}`),
	}
}

var verdictTool = tool("verdict", "Judge the action's effect.", `{"type":"object","properties":{
"verdict":{"type":"string","enum":["correct","wrong","no_effect"]},"reason":{"type":"string"}},"required":["verdict","reason"]}`)

var progressTool = tool("update_progress", "Replace the progress summary and the memory.", `{"type":"object","properties":{
"summary":{"type":"string"},"memory":{"type":"string"}},"required":["summary","memory"]}`)

var managerTool = tool("plan_subtasks", "The subtasks that together do the instruction.", `{"type":"object","properties":{
"subtasks":{"type":"array","items":{"type":"object","properties":{
"name":{"type":"string"},"instruction":{"type":"string"},"device":{"type":"string"},
"depends_on":{"type":"array","items":{"type":"string"}},
"outputs":{"type":"array","items":{"type":"object","properties":{"key":{"type":"string"},"description":{"type":"string"}},"required":["key"]}}},
"required":["name","instruction"]}}},"required":["subtasks"]}`)
