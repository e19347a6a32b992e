package profile

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/pcflow/pcflow/internal/text"
)

// Call is one action a model asked for, in pcflow's vocabulary (click,
// double_click, type, …) with pcflow's argument names. Coordinates (x, y,
// x2, y2) are still in the model's space: float64 values the caller maps
// with ToScreen. A native action pcflow has no equivalent for keeps its
// native name, so the caller's "unknown action" re-ask names it.
type Call struct {
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

// Answer is a parsed text answer: the reasoning and the actions, in order.
type Answer struct {
	Thought string
	Calls   []Call
}

// ParseText parses a model's text answer in the given format. <think>
// blocks are stripped first (their text becomes the thought when nothing
// else is said).
func ParseText(format, content string) (Answer, error) {
	text, think := StripThink(content)
	var a Answer
	var err error
	switch format {
	case FormatHermes:
		a, err = parseHermes(text)
	case FormatUITARS:
		if !uitarsAction.MatchString(text) && actionJSONLine.MatchString(text) {
			a, err = parseActionJSON(text) // pcflow's actions UI-TARS has no name for
		} else {
			a, err = parseUITARS(text)
		}
	case FormatActionJSON, "":
		a, err = parseActionJSON(text)
	case FormatPyAutoGUI:
		a, err = parsePyAutoGUI(text)
	case FormatAuto:
		switch {
		case strings.Contains(text, "<tool_call>"):
			a, err = parseHermes(text)
		case actionJSONLine.MatchString(text):
			a, err = parseActionJSON(text)
		case uitarsAction.MatchString(text):
			a, err = parseUITARS(text)
		default:
			err = fmt.Errorf(`no action in the answer: give one as <tool_call>{"name": …, "arguments": {…}}</tool_call> or as a line "Action: NAME {json}"`)
		}
	default:
		err = fmt.Errorf("unknown text format %q", format)
	}
	if a.Thought == "" {
		a.Thought = think
	}
	return a, err
}

var (
	thinkBlock = regexp.MustCompile(`(?s)<think>(.*?)</think>`)
	thinkOpen  = regexp.MustCompile(`(?s)^(.*?)</think>`) // template opened <think>; only its end is in the answer
)

// StripThink removes <think>…</think> blocks (and a leading block whose
// opening tag was in the chat template) and returns the rest and the
// reasoning.
func StripThink(s string) (rest, think string) {
	var th []string
	s = thinkBlock.ReplaceAllStringFunc(s, func(m string) string {
		th = append(th, strings.TrimSpace(thinkBlock.FindStringSubmatch(m)[1]))
		return ""
	})
	if m := thinkOpen.FindStringSubmatch(s); m != nil {
		th = append([]string{strings.TrimSpace(m[1])}, th...)
		s = s[len(m[0]):]
	}
	return strings.TrimSpace(s), strings.TrimSpace(strings.Join(th, "\n"))
}

// --- pcflow's own: Action: NAME {json} ---

var actionJSONLine = regexp.MustCompile(`(?m)^\s*Action:\s*([a-z_]+)\s*(\{.*\})?\s*$`)

func parseActionJSON(content string) (Answer, error) {
	m := actionJSONLine.FindAllStringSubmatchIndex(content, -1)
	if len(m) == 0 {
		return Answer{Thought: strings.TrimSpace(content)}, fmt.Errorf(`no "Action: NAME {json}" line in the answer`)
	}
	last := m[len(m)-1]
	name := content[last[2]:last[3]]
	args := "{}"
	if last[4] >= 0 {
		args = content[last[4]:last[5]]
	}
	thought := strings.TrimSpace(content[:last[0]])
	thought = strings.TrimSpace(strings.TrimPrefix(thought, "Thought:"))
	a := Answer{Thought: thought}
	var am map[string]any
	if err := json.Unmarshal([]byte(args), &am); err != nil {
		return a, fmt.Errorf("arguments of %s are not a valid JSON object: %s", name, trunc(args, 120))
	}
	a.Calls = []Call{{Name: name, Args: am}}
	return a, nil
}

// --- Hermes: <tool_call>{…}</tool_call> ---

var toolCallBlock = regexp.MustCompile(`(?s)<tool_call>(.*?)(?:</tool_call>|$)`)

// hermesThought is the text before the first <tool_call> without its
// label: "Thought:", or EvoCUA's "Action:" (a one-sentence description of
// the call that follows).
func hermesThought(s string) string {
	s = strings.TrimSpace(s)
	for _, l := range []string{"Thought:", "Action:"} {
		if strings.HasPrefix(s, l) {
			return strings.TrimSpace(s[len(l):])
		}
	}
	return s
}

func parseHermes(content string) (Answer, error) {
	idx := strings.Index(content, "<tool_call>")
	if idx < 0 {
		return Answer{Thought: strings.TrimSpace(content)}, fmt.Errorf(`no <tool_call>{"name": …, "arguments": {…}}</tool_call> in the answer`)
	}
	a := Answer{Thought: hermesThought(content[:idx])}
	for _, m := range toolCallBlock.FindAllStringSubmatch(content[idx:], -1) {
		body := strings.TrimSpace(m[1])
		var tc struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal([]byte(body), &tc); err != nil {
			return a, fmt.Errorf("a <tool_call> is not valid JSON: %s", trunc(body, 120))
		}
		if tc.Name == "" {
			return a, fmt.Errorf(`a <tool_call> has no "name": %s`, trunc(body, 120))
		}
		args := map[string]any{}
		raw := []byte(tc.Arguments)
		var s string
		if json.Unmarshal(raw, &s) == nil { // arguments encoded as a JSON string
			raw = []byte(s)
		}
		if len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &args); err != nil {
				return a, fmt.Errorf("arguments of %s are not a JSON object: %s", tc.Name, trunc(string(raw), 120))
			}
		}
		c := Call{Name: tc.Name, Args: args} // one of pcflow's own tools
		if tc.Name == "computer_use" || tc.Name == "computer" {
			var err error
			if c, err = computerCall("computer_use", args); err != nil {
				return a, err
			}
		}
		a.Calls = append(a.Calls, c)
	}
	return a, nil
}

// DoneOutputs gives a done call from a native format (UI-TARS's
// finished(content=…), Qwen's answer) the outputs pcflow's done carries:
// a JSON object answer is the outputs; any other answer is the one
// declared output's value.
func DoneOutputs(c Call, keys []string) Call {
	if c.Name != "done" {
		return c
	}
	if _, ok := c.Args["outputs"]; ok {
		return c
	}
	ans, ok := c.Args["answer"].(string)
	if !ok {
		return c
	}
	var obj map[string]any
	switch {
	case json.Unmarshal([]byte(ans), &obj) == nil:
		c.Args["outputs"] = obj
	case len(keys) == 1:
		c.Args["outputs"] = map[string]any{keys[0]: ans}
	}
	return c
}

func numbers(v any) ([]float64, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("not an array")
	}
	out := make([]float64, len(arr))
	for i, e := range arr {
		f, ok := e.(float64)
		if !ok {
			return nil, fmt.Errorf("not a number: %v", e)
		}
		out[i] = f
	}
	return out, nil
}

func strs(v any) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		if s, ok := v.(string); ok {
			return strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '+' }), nil
		}
		return nil, fmt.Errorf("not an array")
	}
	var out []string
	for _, e := range arr {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("not a string: %v", e)
		}
		out = append(out, s)
	}
	return out, nil
}

func lowerKeys(keys []string) []any {
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = strings.ToLower(k)
	}
	return out
}

func trunc(s string, n int) string { return text.Trunc(s, n) }
