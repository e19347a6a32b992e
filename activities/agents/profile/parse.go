package profile

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
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

func parseHermes(content string) (Answer, error) {
	idx := strings.Index(content, "<tool_call>")
	if idx < 0 {
		return Answer{Thought: strings.TrimSpace(content)}, fmt.Errorf(`no <tool_call>{"name": …, "arguments": {…}}</tool_call> in the answer`)
	}
	a := Answer{Thought: strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(content[:idx]), "Thought:"))}
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

// --- UI-TARS: Thought: … Action: click(start_box='(x,y)') ---

var uitarsAction = regexp.MustCompile(`(?m)^\s*Action:\s*[a-z_]+\(`)

func parseUITARS(content string) (Answer, error) {
	i := strings.LastIndex(content, "Action:")
	if i < 0 {
		return Answer{Thought: strings.TrimSpace(content)}, fmt.Errorf(`no "Action: name(arg='…')" in the answer; write Thought: … then Action: click(start_box='(x,y)')`)
	}
	a := Answer{Thought: uitarsThought(content[:i])}
	rest := content[i+len("Action:"):]
	for rest = strings.TrimSpace(rest); rest != ""; rest = strings.TrimSpace(rest) {
		name, kw, n, err := parseFuncCall(rest)
		if err != nil {
			return a, err
		}
		rest = rest[n:]
		c, err := uitarsCall(name, kw)
		if err != nil {
			return a, err
		}
		if c.Name == "ask_human" && c.Args["text"] == nil {
			// call_user() takes no argument: what the model needs from the
			// person is in its thought.
			q := a.Thought
			if q == "" {
				q = "The agent asks for your help (UI-TARS call_user) and said nothing more; look at the screen."
			}
			c.Args["text"] = q
		}
		a.Calls = append(a.Calls, c)
	}
	if len(a.Calls) == 0 {
		return a, fmt.Errorf(`"Action:" is followed by no action; write e.g. Action: click(start_box='(x,y)')`)
	}
	return a, nil
}

func uitarsThought(s string) string {
	s = strings.TrimSpace(s)
	if j := strings.Index(s, "Thought:"); j >= 0 {
		s = s[j+len("Thought:"):]
	}
	return strings.TrimSpace(s)
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

// parseFuncCall reads `name(k='v', k2="v2")` from the start of s and
// returns how many bytes it used.
func parseFuncCall(s string) (string, map[string]string, int, error) {
	open := strings.IndexByte(s, '(')
	if open <= 0 {
		return "", nil, 0, fmt.Errorf("action %q is not name(arg='…')", trunc(s, 60))
	}
	name := strings.TrimSpace(s[:open])
	if !isIdent(name) {
		return "", nil, 0, fmt.Errorf("action %q is not name(arg='…')", trunc(s, 60))
	}
	kw := map[string]string{}
	i := open + 1
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == ',' || s[i] == '\n' || s[i] == '\t') {
			i++
		}
		if i >= len(s) {
			return "", nil, 0, fmt.Errorf("action %s( is not closed with )", name)
		}
		if s[i] == ')' {
			return name, kw, i + 1, nil
		}
		eq := strings.IndexByte(s[i:], '=')
		if eq < 0 {
			return "", nil, 0, fmt.Errorf("argument of %s is not key='value': %s", name, trunc(s[i:], 60))
		}
		key := strings.TrimSpace(s[i : i+eq])
		i += eq + 1
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i >= len(s) || (s[i] != '\'' && s[i] != '"') {
			return "", nil, 0, fmt.Errorf("argument %s of %s must be quoted: %s=%s", key, name, key, trunc(s[i:], 40))
		}
		q := s[i]
		var b strings.Builder
		j := i + 1
		for ; j < len(s) && s[j] != q; j++ {
			if s[j] == '\\' && j+1 < len(s) {
				j++
				switch s[j] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				default:
					b.WriteByte(s[j])
				}
				continue
			}
			b.WriteByte(s[j])
		}
		if j >= len(s) {
			return "", nil, 0, fmt.Errorf("argument %s of %s: unterminated quote", key, name)
		}
		kw[key] = b.String()
		i = j + 1
	}
}

func isIdent(s string) bool {
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

var number = regexp.MustCompile(`-?\d+(?:\.\d+)?`)

// boxPoint reads a UI-TARS box: (x,y), <|box_start|>(x,y)<|box_end|>,
// <point>x y</point>, or a four-number box whose centre is taken.
func boxPoint(v string) (float64, float64, error) {
	v = strings.NewReplacer("<|box_start|>", "", "<|box_end|>", "", "<point>", "", "</point>", "", "<bbox>", "", "</bbox>", "").Replace(v)
	ns := number.FindAllString(v, -1)
	f := make([]float64, len(ns))
	for i, n := range ns {
		f[i], _ = strconv.ParseFloat(n, 64)
	}
	switch len(f) {
	case 2:
		return f[0], f[1], nil
	case 4:
		return (f[0] + f[2]) / 2, (f[1] + f[3]) / 2, nil
	}
	return 0, 0, fmt.Errorf("box %q is not (x,y) or (x1,y1,x2,y2)", v)
}

func uitarsCall(name string, kw map[string]string) (Call, error) {
	out := map[string]any{}
	pt := func(keys []string, xk, yk string) error {
		for _, k := range keys {
			if v, ok := kw[k]; ok {
				x, y, err := boxPoint(v)
				if err != nil {
					return fmt.Errorf("%s %s: %w", name, k, err)
				}
				out[xk], out[yk] = x, y
				return nil
			}
		}
		return fmt.Errorf("%s needs %s='(x,y)'", name, keys[0])
	}
	start := []string{"start_box", "point", "start_point"}
	end := []string{"end_box", "end_point"}
	switch name {
	case "click", "left_single", "left_double", "right_single", "middle_click", "triple_click", "mouse_move", "hover":
		if err := pt(start, "x", "y"); err != nil {
			return Call{}, err
		}
		n := map[string]string{"left_single": "click", "left_double": "double_click", "right_single": "right_click", "hover": "mouse_move"}[name]
		if n == "" {
			n = name
		}
		return Call{Name: n, Args: out}, nil
	case "drag", "select":
		if err := pt(start, "x", "y"); err != nil {
			return Call{}, err
		}
		if err := pt(end, "x2", "y2"); err != nil {
			return Call{}, err
		}
		return Call{Name: "drag", Args: out}, nil
	case "hotkey", "press", "keydown", "keyup":
		k := kw["key"]
		if k == "" {
			k = kw["hotkey"]
		}
		keys := strings.FieldsFunc(k, func(r rune) bool { return r == ' ' || r == '+' })
		if len(keys) == 0 {
			return Call{}, fmt.Errorf("%s needs key='ctrl c'", name)
		}
		out["keys"] = lowerKeys(keys)
		if name == "keydown" || name == "keyup" {
			return Call{Name: name, Args: out}, nil
		}
		return Call{Name: "hotkey", Args: out}, nil
	case "type":
		t, ok := kw["content"]
		if !ok {
			return Call{}, fmt.Errorf("type needs content='…'")
		}
		if strings.HasSuffix(t, "\n") {
			t = strings.TrimRight(t, "\n")
			out["enter"] = true
		}
		out["text"] = t
		return Call{Name: "type", Args: out}, nil
	case "scroll":
		d := strings.ToLower(strings.TrimSpace(kw["direction"]))
		switch d {
		case "up", "down", "left", "right":
		default:
			return Call{}, fmt.Errorf("scroll direction must be up, down, left or right, not %q", kw["direction"])
		}
		out["direction"] = d
		if _, ok := kw["start_box"]; ok {
			if err := pt(start, "x", "y"); err != nil {
				return Call{}, err
			}
		} else if _, ok := kw["point"]; ok {
			if err := pt(start, "x", "y"); err != nil {
				return Call{}, err
			}
		}
		return Call{Name: "scroll", Args: out}, nil
	case "wait":
		out["seconds"] = 5.0
		return Call{Name: "wait", Args: out}, nil
	case "finished":
		if c, ok := kw["content"]; ok && c != "" {
			out["answer"] = c
		}
		return Call{Name: "done", Args: out}, nil
	case "call_user":
		// UI-TARS hands over to the person (a login, a CAPTCHA, a choice
		// only they can make): pcflow's ask_human, which waits for an
		// answer instead of failing the subtask.
		out := map[string]any{}
		if q := strings.TrimSpace(kw["content"]); q != "" {
			out["text"] = q
		}
		return Call{Name: "ask_human", Args: out}, nil
	case "open_app":
		out["app"] = kw["app_name"]
		return Call{Name: "open_app", Args: out}, nil
	}
	return Call{}, fmt.Errorf("UI-TARS action %q is not one pcflow knows; use click, left_double, right_single, drag, hotkey, type, scroll, wait, finished or call_user", name)
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
