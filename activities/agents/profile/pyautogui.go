package profile

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/pcflow/pcflow/activities/screen"
)

// --- OpenCUA: ## Thought / ## Action / ## Code with pyautogui calls ---
//
// OpenCUA (xlang-ai/OpenCUA; OSWorld's mm_agents/opencua) answers
//
//	## Thought:
//	…
//	## Action:
//	Click the "File" menu.
//	## Code:
//	```python
//	pyautogui.click(x=123, y=456)
//	```
//
// The code is read, never run: each call of the last code block becomes
// one Call, in order (pycall.go reads the Python). The Thought and the
// Action sentence are the thought.

var (
	pySection = regexp.MustCompile(`(?m)^[ \t]*##[ \t]*(Observation|Thought|Action|Code)[ \t]*:?[ \t]*$`)
	pyFence   = regexp.MustCompile("(?s)```[ \t]*(?:python|py|code)?[ \t]*\n?(.*?)```")
)

// pyautoguiCalls are the calls the format reads: the pyautogui functions
// OpenCUA's training data and OSWorld agent use, OpenCUA's computer.*
// functions, and pcflow's actions pyautogui has no call for, as
// computer.* functions of the same kind.
var pyautoguiCalls = []string{
	"pyautogui.click", "pyautogui.doubleClick", "pyautogui.rightClick", "pyautogui.middleClick",
	"pyautogui.tripleClick", "pyautogui.moveTo", "pyautogui.dragTo", "pyautogui.write", "pyautogui.typewrite",
	"pyautogui.press", "pyautogui.hotkey", "pyautogui.scroll", "pyautogui.hscroll", "pyautogui.keyDown", "pyautogui.keyUp",
	"computer.triple_click", "computer.wait", "computer.terminate",
	"computer.open_app", "computer.switch_window", "computer.select", "computer.copy", "computer.paste", "computer.ask_human",
}

// pyParams are each call's positional parameters, as pyautogui names them
// (hotkey takes its keys as *args). Parameters that only pace the input
// (interval, duration, tween, …) are read and ignored.
var pyParams = map[string][]string{
	"click":       {"x", "y", "clicks", "interval", "button", "duration"},
	"doubleClick": {"x", "y", "interval", "button", "duration"},
	"tripleClick": {"x", "y", "interval", "button", "duration"},
	"rightClick":  {"x", "y", "duration"},
	"middleClick": {"x", "y", "duration"},
	"moveTo":      {"x", "y", "duration"},
	"dragTo":      {"x", "y", "duration", "button", "mouseDownUp"},
	"write":       {"message", "interval"},
	"typewrite":   {"message", "interval"},
	"press":       {"keys", "presses", "interval"},
	"hotkey":      {"interval"},
	"scroll":      {"clicks", "x", "y"},
	"hscroll":     {"clicks", "x", "y"},
	"keyDown":     {"key"},
	"keyUp":       {"key"},
	// computer.*
	"triple_click":  {"x", "y"},
	"wait":          {"seconds"},
	"terminate":     {"status", "answer"},
	"open_app":      {"app"},
	"switch_window": {"title"},
	"select":        {"start", "end"},
	"copy":          {},
	"paste":         {},
	"ask_human":     {"text"},
}

// pyIgnored are arguments that only pace or log the input.
var pyIgnored = map[string]bool{"interval": true, "duration": true, "tween": true, "logScreenshot": true,
	"_pause": true, "pause": true, "mouseDownUp": true}

// Limits of counts a call may ask for.
const (
	maxPresses = 50  // press(…, presses=N)
	maxScroll  = 100 // scroll(±N) wheel clicks
)

func pyKnown(fn string) bool { return slices.Contains(pyautoguiCalls, fn) }

// pyCallNames lists the calls for the "unknown call" error.
var pyCallNames = "pyautogui.click, doubleClick, rightClick, tripleClick, moveTo, dragTo, write, press, hotkey, scroll, hscroll, " +
	"keyDown/keyUp, or computer.wait, computer.terminate, computer.triple_click, computer.open_app, computer.switch_window, " +
	"computer.select, computer.copy, computer.paste, computer.ask_human"

func parsePyAutoGUI(content string) (Answer, error) {
	a := Answer{Thought: pyThought(content)}
	code, err := pyCode(content)
	if err != nil {
		return a, err
	}
	calls, err := pyCalls(code, pyKnown, pyCallNames)
	if err != nil {
		return a, err
	}
	if len(calls) == 0 {
		return a, fmt.Errorf("the code block has no call; write e.g. pyautogui.click(x=100, y=200)")
	}
	var held []any // keys a keyDown holds, released by its keyUp
	for _, pc := range calls {
		out, err := pyMap(pc, &held, &a)
		if err != nil {
			return a, fmt.Errorf("line %d of the code: %w", pc.line, err)
		}
		a.Calls = append(a.Calls, out...)
		if len(a.Calls) > maxPyCalls {
			return a, fmt.Errorf("the code asks for more than %d actions; give at most a few actions a step", maxPyCalls)
		}
	}
	if len(held) > 0 {
		return a, fmt.Errorf("pyautogui.keyDown(%q) has no keyUp in the code; hold keys only around a click, drag, scroll or key press", held[0])
	}
	return a, nil
}

// pyThought is the Thought and the Action sentence (OpenCUA's L2 and L3
// answers), or for an answer without sections the text before the code.
func pyThought(content string) string {
	locs := pySection.FindAllStringSubmatchIndex(content, -1)
	if len(locs) == 0 {
		before, _, _ := strings.Cut(content, "```")
		return strings.TrimSpace(before)
	}
	var parts []string
	for i, l := range locs {
		name := content[l[2]:l[3]]
		end := len(content)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		body := strings.TrimSpace(content[l[1]:end])
		if (name == "Thought" || name == "Action") && body != "" {
			parts = append(parts, body)
		}
	}
	return strings.Join(parts, "\n")
}

// pyCode is the last fenced code block (as OSWorld's agent reads it), or
// the text of the ## Code section when it has no fence.
func pyCode(content string) (string, error) {
	if ms := pyFence.FindAllStringSubmatch(content, -1); len(ms) > 0 {
		return ms[len(ms)-1][1], nil
	}
	if strings.Contains(content, "```") {
		return "", fmt.Errorf("the code block is not closed with ```")
	}
	locs := pySection.FindAllStringSubmatchIndex(content, -1)
	for i, l := range locs {
		if content[l[2]:l[3]] == "Code" {
			end := len(content)
			if i+1 < len(locs) {
				end = locs[i+1][0]
			}
			return content[l[1]:end], nil
		}
	}
	return "", fmt.Errorf("no code block in the answer; end with ## Code: and the call in a ```python block, e.g. pyautogui.click(x=100, y=200)")
}

// pyArgs binds a call's positional arguments to its parameter names and
// merges the keyword ones, refusing names the call does not take.
func pyArgs(pc pyCall) (map[string]any, error) {
	name := pc.fn[strings.IndexByte(pc.fn, '.')+1:]
	params := pyParams[name]
	in := map[string]any{}
	if name == "hotkey" {
		if len(pc.args) == 1 {
			in["keys"] = pc.args[0] // hotkey(['ctrl', 's'])
		} else if len(pc.args) > 0 {
			in["keys"] = pc.args // hotkey('ctrl', 's')
		}
		params = append([]string{"keys"}, params...)
	} else {
		// click((x, y)) is click(x, y).
		if len(pc.args) > 0 && len(params) > 1 && params[0] == "x" {
			if xy, ok := pc.args[0].([]any); ok && len(xy) == 2 {
				pc.args = append([]any{xy[0], xy[1]}, pc.args[1:]...)
			}
		}
		if len(pc.args) > len(params) {
			return nil, fmt.Errorf("%s takes at most %d positional arguments, not %d", pc.fn, len(params), len(pc.args))
		}
		for i, v := range pc.args {
			in[params[i]] = v
		}
	}
	for k, v := range pc.kw {
		if !slices.Contains(params, k) && !pyIgnored[k] {
			return nil, fmt.Errorf("%s has no argument %s", pc.fn, k)
		}
		if _, dup := in[k]; dup {
			return nil, fmt.Errorf("%s gives %s twice", pc.fn, k)
		}
		in[k] = v
	}
	for k := range pyIgnored {
		delete(in, k)
	}
	return in, nil
}

// pyMap maps one call to pcflow's calls (press with several keys or
// presses is several). held carries keyDown's keys to the calls they
// modify; a's last call may become a drag's start.
func pyMap(pc pyCall, held *[]any, a *Answer) ([]Call, error) {
	in, err := pyArgs(pc)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	point := func(required bool) error {
		xv, okx := in["x"]
		yv, oky := in["y"]
		if !okx && !oky && !required {
			return nil
		}
		x, okx := xv.(float64)
		y, oky := yv.(float64)
		if !okx || !oky {
			return fmt.Errorf("%s needs x and y as numbers, e.g. %s(x=100, y=200)", pc.fn, pc.fn)
		}
		if x >= 0 && x <= 1 && y >= 0 && y <= 1 && (x != math.Trunc(x) || y != math.Trunc(y)) {
			return fmt.Errorf("%s(x=%g, y=%g) reads as fractions of the screen; give pixels of the image you see", pc.fn, x, y)
		}
		out["x"], out["y"] = x, y
		return nil
	}
	str := func(key string, required bool) (string, error) {
		v, ok := in[key]
		if !ok && !required {
			return "", nil
		}
		s, isStr := v.(string)
		if !isStr {
			return "", fmt.Errorf("%s needs %s as a string", pc.fn, key)
		}
		return s, nil
	}
	count := func(key string, def, limit float64) (float64, error) {
		v, ok := in[key]
		if !ok {
			return def, nil
		}
		n, isNum := v.(float64)
		if !isNum || n != math.Trunc(n) || math.Abs(n) > limit {
			return 0, fmt.Errorf("%s needs %s as a whole number up to %g, not %v", pc.fn, key, limit, v)
		}
		return n, nil
	}
	// modified gives a call the keys a keyDown holds.
	modified := func(c Call) ([]Call, error) {
		if len(*held) == 0 {
			return []Call{c}, nil
		}
		switch {
		case c.Name == screen.ActHotkey:
			c.Args["keys"] = append(slices.Clone(*held), c.Args["keys"].([]any)...)
		case screen.HoldsKeys(c.Name):
			c.Args["keys"] = slices.Clone(*held)
		default:
			return nil, fmt.Errorf("%s while keyDown holds %v: hold keys only around a click, drag, scroll or key press", pc.fn, *held)
		}
		return []Call{c}, nil
	}
	name := pc.fn[strings.IndexByte(pc.fn, '.')+1:]
	switch name {
	case "click", "doubleClick", "tripleClick", "rightClick", "middleClick", "triple_click", "moveTo":
		if err := point(true); err != nil {
			return nil, err
		}
		kind := map[string]string{"click": screen.ActClick, "doubleClick": screen.ActDoubleClick, "tripleClick": screen.ActTripleClick,
			"triple_click": screen.ActTripleClick, "rightClick": screen.ActRightClick, "middleClick": screen.ActMiddleClick,
			"moveTo": screen.ActMouseMove}[name]
		button, err := str("button", false)
		if err != nil {
			return nil, err
		}
		clicks, err := count("clicks", 1, 3)
		if err != nil {
			return nil, err
		}
		if name == "click" {
			switch {
			case clicks < 1:
				return nil, fmt.Errorf("%s needs clicks 1, 2 or 3", pc.fn)
			case button == "right" && clicks == 1:
				kind = screen.ActRightClick
			case button == "middle" && clicks == 1:
				kind = screen.ActMiddleClick
			case button != "" && button != "left" && button != "primary":
				return nil, fmt.Errorf("%s(button=%q, clicks=%g) is not a click pcflow makes; use button='left', 'right' or 'middle'", pc.fn, button, clicks)
			case clicks == 2:
				kind = screen.ActDoubleClick
			case clicks == 3:
				kind = screen.ActTripleClick
			}
		} else if button != "" && button != "left" && button != "primary" {
			return nil, fmt.Errorf("%s(button=%q) is not a click pcflow makes; use pyautogui.rightClick or middleClick", pc.fn, button)
		}
		return modified(Call{Name: kind, Args: out})
	case "dragTo":
		if err := point(true); err != nil {
			return nil, err
		}
		if b, err := str("button", false); err != nil || (b != "" && b != "left" && b != "primary") {
			return nil, fmt.Errorf("%s drags with the left button only (button='left')", pc.fn)
		}
		n := len(a.Calls)
		if n == 0 || a.Calls[n-1].Name != screen.ActMouseMove {
			return nil, fmt.Errorf("%s needs its start: pyautogui.moveTo(x=…, y=…) right before it in the same code block", pc.fn)
		}
		from := a.Calls[n-1]
		a.Calls = a.Calls[:n-1] // the moveTo is the drag's start
		out["x2"], out["y2"] = out["x"], out["y"]
		out["x"], out["y"] = from.Args["x"], from.Args["y"]
		return modified(Call{Name: screen.ActDrag, Args: out})
	case "write", "typewrite":
		t, err := str("message", true)
		if err != nil {
			return nil, err
		}
		if len(*held) > 0 {
			return nil, fmt.Errorf("%s while keyDown holds %v: hold keys only around a click, drag, scroll or key press", pc.fn, *held)
		}
		if strings.HasSuffix(t, "\n") {
			t = strings.TrimRight(t, "\n")
			out["enter"] = true
		}
		out["text"] = t
		return []Call{{Name: screen.ActType, Args: out}}, nil
	case "press", "hotkey":
		keys, err := strs(in["keys"])
		if k, isStr := in["keys"].(string); isStr && name == "press" {
			keys = []string{k} // press('+') is the + key
		}
		if err != nil || len(keys) == 0 || slices.Contains(keys, "") {
			return nil, fmt.Errorf("%s needs keys as strings, e.g. %s('enter') or %s(['ctrl', 's'])", pc.fn, pc.fn, pc.fn)
		}
		if name == "hotkey" {
			return modified(Call{Name: screen.ActHotkey, Args: map[string]any{"keys": lowerKeys(keys)}})
		}
		presses, err := count("presses", 1, maxPresses)
		if err != nil || presses < 1 {
			return nil, fmt.Errorf("%s needs presses as a whole number from 1 to %d", pc.fn, maxPresses)
		}
		// pyautogui.press(['a', 'b']) presses a, then b: one key at a time.
		var cs []Call
		for range int(presses) {
			for _, k := range keys {
				c, err := modified(Call{Name: screen.ActHotkey, Args: map[string]any{"keys": lowerKeys([]string{k})}})
				if err != nil {
					return nil, err
				}
				cs = append(cs, c...)
			}
		}
		return cs, nil
	case "scroll", "hscroll":
		n, err := count("clicks", 0, maxScroll)
		if err != nil || n == 0 {
			return nil, fmt.Errorf("%s needs clicks as a non-zero whole number up to %d (positive scrolls up or right)", pc.fn, maxScroll)
		}
		if err := point(false); err != nil {
			return nil, err
		}
		dir := map[bool]string{true: "up", false: "down"}[n > 0]
		if name == "hscroll" {
			dir = map[bool]string{true: "right", false: "left"}[n > 0]
		}
		out["direction"], out["amount"] = dir, math.Abs(n)
		return modified(Call{Name: screen.ActScroll, Args: out})
	case "keyDown", "keyUp":
		k, err := str("key", true)
		if err != nil || k == "" {
			return nil, fmt.Errorf("%s needs a key, e.g. %s('shift')", pc.fn, pc.fn)
		}
		key := strings.ToLower(k)
		i := slices.Index(*held, any(key))
		if name == "keyDown" {
			if i < 0 {
				*held = append(*held, key)
			}
			return nil, nil
		}
		if i < 0 {
			return nil, fmt.Errorf("%s(%q) releases a key no keyDown holds", pc.fn, k)
		}
		*held = slices.Delete(*held, i, i+1)
		return nil, nil
	case "wait":
		s, err := count("seconds", 20, 30) // OpenCUA: "wait for 20 seconds"
		if err != nil || s < 1 {
			return nil, fmt.Errorf("%s takes seconds as a whole number from 1 to 30 (default 20)", pc.fn)
		}
		return []Call{{Name: screen.ActWait, Args: map[string]any{"seconds": s}}}, nil
	case "terminate":
		st, err := str("status", true)
		if err != nil {
			return nil, fmt.Errorf("%s needs status='success' or status='failure'", pc.fn)
		}
		switch st {
		case "success":
			if ans, ok := in["answer"]; ok && ans != nil {
				s, isStr := ans.(string)
				if !isStr {
					return nil, fmt.Errorf("%s needs answer as a string", pc.fn)
				}
				out["answer"] = s
			}
			return []Call{{Name: screen.ActDone, Args: out}}, nil
		case "failure", "fail":
			return []Call{{Name: screen.ActFail, Args: map[string]any{"reason": "the model gave up (terminate: failure)"}}}, nil
		}
		return nil, fmt.Errorf("%s needs status='success' or status='failure', not %q", pc.fn, st)
	case "open_app", "switch_window", "select", "ask_human":
		for _, k := range pyParams[name] {
			s, err := str(k, true)
			if err != nil {
				return nil, err
			}
			out[k] = s
		}
		return []Call{{Name: name, Args: out}}, nil
	case "copy", "paste":
		return []Call{{Name: name, Args: out}}, nil
	}
	return nil, fmt.Errorf("unknown call %s(…); use %s", pc.fn, pyCallNames)
}

// pyautoguiInstructions is OpenCUA's L2 answer format (its system prompt
// for OpenCUA-7B/32B, SYSTEM_PROMPT_V1_L2 in OSWorld's
// mm_agents/opencua/prompts.py, condensed: without OSWorld's password),
// with pcflow's actions that pyautogui has no call for as computer.*
// functions of the same kind; the coordinate words follow.
const pyautoguiInstructions = `
You need to perform a series of pyautogui actions to complete the task. If the task is not possible to do, output the action computer.terminate(status='failure').

For each step, provide your response in this format:

## Thought:
  - Step by Step Progress Assessment: analyze completed task parts; reflect on errors or obstacles; if the previous action was incorrect, predict a logical recovery step
  - Next Action Analysis: list possible next actions, evaluate them, propose the most logical one and anticipate its consequences
  - For Text Input Actions: note the cursor position, consolidate repetitive keypresses, describe the expected text
  - Use first-person perspective in reasoning

## Action:
  One clear, concise, actionable instruction: describe the target without coordinates (its name, or shape, colour and position); for keyboard actions the keys or the expected text

## Code:
` + "```python\npyautogui.click(x=123, y=456)\n```" + `

Finally, output the action as PyAutoGUI code (pyautogui.click, doubleClick, rightClick, moveTo, dragTo after moveTo, write, press, hotkey, scroll, hscroll, keyDown/keyUp around a click) or the following functions:
- {"name": "computer.triple_click", "description": "Triple click on the screen", "parameters": {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}}, "required": ["x", "y"]}}
- {"name": "computer.wait", "description": "Make the computer wait for 20 seconds (or seconds, up to 30) for installation, loading, etc.", "parameters": {"type": "object", "properties": {"seconds": {"type": "number"}}, "required": []}}
- {"name": "computer.terminate", "description": "Terminate the current task and report its completion status; answer is the value of the declared output, or a JSON object of all outputs", "parameters": {"type": "object", "properties": {"status": {"type": "string", "enum": ["success", "failure"]}, "answer": {"type": "string"}}, "required": ["status"]}}
- {"name": "computer.open_app", "description": "Open an application by name", "parameters": {"type": "object", "properties": {"app": {"type": "string"}}, "required": ["app"]}}
- {"name": "computer.switch_window", "description": "Bring the window whose title contains title to the front", "parameters": {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}}
- {"name": "computer.select", "description": "Select on-screen text from the first occurrence of start to end", "parameters": {"type": "object", "properties": {"start": {"type": "string"}, "end": {"type": "string"}}, "required": ["start", "end"]}}
- {"name": "computer.copy", "description": "Copy the selection", "parameters": {"type": "object", "properties": {}, "required": []}}
- {"name": "computer.paste", "description": "Paste the clipboard", "parameters": {"type": "object", "properties": {}, "required": []}}
- {"name": "computer.ask_human", "description": "Ask the person you work for a question and wait for the answer", "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}
Coordinates are `
