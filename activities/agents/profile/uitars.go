package profile

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// --- UI-TARS: Thought: … Action: click(start_box='(x,y)') ---
//
// UI-TARS models write their answers with ASCII or full-width punctuation
// (Chinese-trained: "Action：", "（100，200）", ‘…’), and UI-TARS-1.5 and
// UI-TARS-desktop open with "Reflection: … Action_Summary: …" instead of
// "Thought: …". All of these read as the ASCII forms; quoted values (what
// to type, what was found) are kept exactly as written.

var (
	// uitarsAction is a line that starts an action: Action: name(.
	uitarsAction = regexp.MustCompile(`(?m)^\s*Action\s*[:：]\s*[A-Za-z_]+\s*[(（]`)
	// uitarsMarker is the "Action:" label at the start of a line.
	uitarsMarker = regexp.MustCompile(`(?m)^[ \t]*Action[ \t]*[:：]`)
	// uitarsLabel is a label of the reasoning: Thought, Reflection,
	// Action_Summary, with an ASCII or full-width colon.
	uitarsLabel = regexp.MustCompile(`(?m)^[ \t]*(?:Thought|Reflection|Action_Summary)[ \t]*[:：][ \t]*`)
)

func parseUITARS(content string) (Answer, error) {
	start, end := -1, -1
	if loc := uitarsMarker.FindStringIndex(content); loc != nil {
		start, end = loc[0], loc[1]
	} else if i := max(strings.LastIndex(content, "Action:"), strings.LastIndex(content, "Action：")); i >= 0 {
		_, n := utf8.DecodeRuneInString(content[i+len("Action"):])
		start, end = i, i+len("Action")+n
	}
	if start < 0 {
		return Answer{Thought: uitarsThought(content)}, fmt.Errorf(`no "Action: name(arg='…')" in the answer; write Thought: … then Action: click(start_box='(x,y)')`)
	}
	a := Answer{Thought: uitarsThought(content[:start])}
	rest := content[end:]
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

// uitarsThought is the reasoning before the action with its labels
// (Thought:, Reflection:, Action_Summary:) taken out and nothing else: a
// reflection and its action summary are both kept, one per line.
func uitarsThought(s string) string {
	var parts []string
	for _, p := range uitarsLabel.Split(s, -1) {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "\n")
}

// Full-width forms of the punctuation of a call, as UI-TARS writes it.
const (
	fwOpen  = '（'
	fwClose = '）'
	fwComma = '，'
	fwEqual = '＝'
)

// closingQuote is the quote that ends a value opened with r, or 0 when r
// opens none.
func closingQuote(r rune) rune {
	switch r {
	case '\'', '"':
		return r
	case '‘':
		return '’'
	case '“':
		return '”'
	case '＇', '＂':
		return r
	}
	return 0
}

// parseFuncCall reads `name(k='v', k2="v2")` from the start of s and
// returns how many bytes it used. Full-width parentheses, commas, equals
// signs and quotes (‘’ “” ＇ ＂) are read as their ASCII forms. A quote
// that is not followed by the end of the argument (a comma or the closing
// parenthesis) is part of the value: type(content='it's 84') types it's 84.
func parseFuncCall(s string) (string, map[string]string, int, error) {
	open := strings.IndexAny(s, "(（")
	if open <= 0 {
		return "", nil, 0, fmt.Errorf("action %q is not name(arg='…')", trunc(s, 60))
	}
	name := strings.TrimSpace(s[:open])
	if !isIdent(name) {
		return "", nil, 0, fmt.Errorf("action %q is not name(arg='…')", trunc(s, 60))
	}
	_, w := utf8.DecodeRuneInString(s[open:])
	kw := map[string]string{}
	i := open + w
	at := func(i int) (rune, int) { return utf8.DecodeRuneInString(s[i:]) }
	skip := func(i int, set string) int {
		for i < len(s) {
			r, n := at(i)
			if !strings.ContainsRune(set, r) {
				break
			}
			i += n
		}
		return i
	}
	// argEnd reports whether the value may end at i: only spaces, then a
	// comma or the closing parenthesis.
	argEnd := func(i int) bool {
		i = skip(i, " \t")
		if i >= len(s) {
			return true
		}
		r, _ := at(i)
		return r == ',' || r == fwComma || r == ')' || r == fwClose
	}
	for {
		i = skip(i, " ,\n\t\r"+string(fwComma))
		if i >= len(s) {
			return "", nil, 0, fmt.Errorf("action %s( is not closed with )", name)
		}
		if r, n := at(i); r == ')' || r == fwClose {
			return name, kw, i + n, nil
		}
		eq := strings.IndexAny(s[i:], "=＝")
		if eq < 0 {
			return "", nil, 0, fmt.Errorf("argument of %s is not key='value': %s", name, trunc(s[i:], 60))
		}
		key := strings.TrimSpace(s[i : i+eq])
		_, n := at(i + eq)
		i = skip(i+eq+n, " ")
		var q, closeQ rune
		if i < len(s) {
			q, n = at(i)
			closeQ = closingQuote(q)
		}
		if closeQ == 0 {
			return "", nil, 0, fmt.Errorf("argument %s of %s must be quoted: %s=%s", key, name, key, trunc(s[i:], 40))
		}
		var b strings.Builder
		j := i + n
		closed := false
		for j < len(s) {
			r, n := at(j)
			if r == '\\' && j+n < len(s) {
				e, m := at(j + n)
				switch e {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				default:
					b.WriteRune(e)
				}
				j += n + m
				continue
			}
			if r == closeQ && argEnd(j+n) {
				j += n
				closed = true
				break
			}
			b.WriteRune(r)
			j += n
		}
		if !closed {
			return "", nil, 0, fmt.Errorf("argument %s of %s: unterminated quote", key, name)
		}
		kw[key] = b.String()
		i = j
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

// narrowDigits writes full-width digits, points and minus signs in ASCII.
var narrowDigits = strings.NewReplacer("０", "0", "１", "1", "２", "2", "３", "3", "４", "4",
	"５", "5", "６", "6", "７", "7", "８", "8", "９", "9", "．", ".", "－", "-")

// boxPoint reads a UI-TARS box: (x,y), [x,y], <|box_start|>(x,y)<|box_end|>,
// <point>x y</point>, <bbox>x1 y1 x2 y2</bbox>, or any four-number box
// (whose centre is taken), with ASCII or full-width digits and punctuation.
func boxPoint(v string) (float64, float64, error) {
	v = strings.NewReplacer("<|box_start|>", "", "<|box_end|>", "", "<point>", "", "</point>", "", "<bbox>", "", "</bbox>", "").Replace(v)
	ns := number.FindAllString(narrowDigits.Replace(v), -1)
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
