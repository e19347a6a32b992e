package scripted

import (
	"fmt"
	"sort"
	"strings"
)

// opencuaAnswer is an answer as OpenCUA writes it: the thought, a
// one-sentence action, and the calls in a ```python block.
func opencuaAnswer(thought, action string, code []string) string {
	return "## Thought:\n" + thought + "\n\n## Action:\n" + action + "\n\n## Code:\n```python\n" + strings.Join(code, "\n") + "\n```"
}

// pyStr writes s as a Python string literal.
func pyStr(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(s) + "'"
}

// pyautoguiCode writes one action as OpenCUA's pyautogui calls (text typed
// into a point is a click, then the text), or as the computer.*
// function pcflow's format offers for it.
func pyautoguiCode(action string, args map[string]any) []string {
	_, hasXY := args["x"]
	xy := func(xk, yk string) string { return "x=" + num(args[xk]) + ", y=" + num(args[yk]) }
	switch action {
	case "click", "double_click", "right_click", "triple_click", "middle_click", "mouse_move":
		if hasXY {
			fn := map[string]string{"click": "click", "double_click": "doubleClick", "right_click": "rightClick",
				"triple_click": "tripleClick", "middle_click": "middleClick", "mouse_move": "moveTo"}[action]
			return []string{"pyautogui." + fn + "(" + xy("x", "y") + ")"}
		}
	case "drag":
		return []string{"pyautogui.moveTo(" + xy("x", "y") + ")", "pyautogui.dragTo(" + xy("x2", "y2") + ", button='left')"}
	case "type":
		t, _ := args["text"].(string)
		var code []string
		if hasXY {
			code = append(code, "pyautogui.click("+xy("x", "y")+")")
		}
		if e, _ := args["enter"].(bool); e {
			t += "\n" // pyautogui types a newline as Enter
		}
		return append(code, "pyautogui.write(message="+pyStr(t)+")")
	case "hotkey":
		var ks []string
		for _, k := range anyStrings(args["keys"]) {
			ks = append(ks, pyStr(k))
		}
		if len(ks) == 1 {
			return []string{"pyautogui.press(" + ks[0] + ")"}
		}
		return []string{"pyautogui.hotkey(" + strings.Join(ks, ", ") + ")"}
	case "scroll":
		d, _ := args["direction"].(string)
		n := 3
		if a, ok := number(args["amount"]); ok && a > 0 {
			n = int(a)
		}
		if d == "down" || d == "left" {
			n = -n
		}
		fn := map[bool]string{true: "hscroll", false: "scroll"}[d == "left" || d == "right"]
		at := ""
		if hasXY {
			at = ", " + xy("x", "y")
		}
		return []string{fmt.Sprintf("pyautogui.%s(%d%s)", fn, n, at)}
	case "wait":
		s, _ := number(args["seconds"])
		return []string{fmt.Sprintf("computer.wait(seconds=%d)", max(int(s), 1))}
	case "done":
		return []string{"computer.terminate(status='success', answer=" + pyStr(doneContent(args)) + ")"}
	case "fail":
		return []string{"computer.terminate(status='failure')"}
	}
	// pcflow's other actions: computer.NAME(key='value', …).
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var kw []string
	for _, k := range keys {
		if s, ok := args[k].(string); ok {
			kw = append(kw, k+"="+pyStr(s))
		} else {
			kw = append(kw, k+"="+num(args[k]))
		}
	}
	return []string{"computer." + action + "(" + strings.Join(kw, ", ") + ")"}
}

// opencuaAction is the one-sentence Action of an OpenCUA answer.
func opencuaAction(action string, args map[string]any) string {
	s := strings.ToUpper(action[:1]) + strings.ReplaceAll(action[1:], "_", " ")
	if _, ok := args["x"]; ok {
		return fmt.Sprintf("%s at (%s, %s).", s, num(args["x"]), num(args["y"]))
	}
	return s + "."
}

// number reads an int or float64 argument.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}
