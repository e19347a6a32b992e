package osworldapi

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"path"
	"runtime"
	"slices"
	"strings"

	"github.com/pcflow/pcflow/activities/agents/profile"
	"github.com/pcflow/pcflow/activities/screen"
)

// pointerState is what pyautogui keeps between calls and OSWorld's
// client relies on across /execute requests: where the pointer was last
// put (a click or dragTo without a point starts there) and the keys a
// keyDown holds until its keyUp.
type pointerState struct {
	x, y    int
	known   bool
	held    []string
	pressed bool // a call used the held keys since the last keyDown
}

// executeCalls are the calls /execute reads.
var executeCalls = []string{
	"pyautogui.click", "pyautogui.doubleClick", "pyautogui.tripleClick", "pyautogui.rightClick", "pyautogui.middleClick",
	"pyautogui.moveTo", "pyautogui.dragTo", "pyautogui.mouseDown", "pyautogui.mouseUp",
	"pyautogui.write", "pyautogui.typewrite", "pyautogui.press", "pyautogui.hotkey",
	"pyautogui.scroll", "pyautogui.vscroll", "pyautogui.hscroll", "pyautogui.keyDown", "pyautogui.keyUp",
	"time.sleep",
}

const executeNames = "pyautogui.click, doubleClick, tripleClick, rightClick, middleClick, moveTo, dragTo, mouseDown, mouseUp, " +
	"write, typewrite, press, hotkey, scroll, vscroll, hscroll, keyDown, keyUp, and time.sleep, with literal arguments"

// easing is a pyautogui tween function given as an argument: accepted,
// and ignored (pcflow moves the pointer its own way).
func easing(name string) bool {
	fn, ok := strings.CutPrefix(name, "pyautogui.")
	return ok && (strings.HasPrefix(fn, "ease") || fn == "linear") && !strings.Contains(fn, ".")
}

// prefixes are the statements OSWorld's client puts before every
// command (its pkgs_prefix), and the ones an agent's code block starts
// with: no-ops here.
var prefixes = []string{"import pyautogui", "import time", "pyautogui.FAILSAFE = False", "pyautogui.FAILSAFE=False"}

// stripPrefix removes the no-op statements at the start of code.
func stripPrefix(code string) string {
	for {
		t := strings.TrimLeft(code, " \t\r\n;")
		found := false
		for _, p := range prefixes {
			rest, ok := strings.CutPrefix(t, p)
			if ok && (rest == "" || strings.ContainsRune(";\n\r \t", rune(rest[0]))) {
				if rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
					r2 := strings.TrimLeft(rest, " \t")
					if r2 != "" && !strings.ContainsRune(";\n\r", rune(r2[0])) {
						continue // "import time as t", "import pyautogui, os"
					}
				}
				code, found = rest, true
				break
			}
		}
		if !found {
			return t
		}
	}
}

// queries are the fixed programs OSWorld's client sends to learn the
// machine (its get_vm_platform and get_vm_machine) with their output:
// compared as text, never run.
var queries = map[string]string{
	"import platform; print(platform.system())":  "Linux\n",
	"import platform; print(platform.machine())": map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[runtime.GOARCH] + "\n",
}

// refusal is an /execute request refused for good (403).
type refusal struct{ reason string }

func (e *refusal) Error() string { return e.reason }

func refusedf(format string, args ...any) error { return &refusal{fmt.Sprintf(format, args...)} }

// pythonCode is the code of an OSWorld command: ["python", "-c", CODE]
// (python3 too), and nothing else.
func pythonCode(command json.RawMessage, shell bool) (string, error) {
	if shell {
		return "", refusedf(`"shell": true is not served: pcflow runs no shell command; send ["python", "-c", "pyautogui.…"]`)
	}
	var argv []string
	if err := json.Unmarshal(command, &argv); err != nil {
		return "", refusedf(`command must be a list ["python", "-c", CODE] with pyautogui calls; a command line as one string is not served`)
	}
	if len(argv) != 3 || argv[1] != "-c" || !slices.Contains([]string{"python", "python3"}, path.Base(argv[0])) {
		return "", refusedf("command %q is not served: only [\"python\", \"-c\", CODE] with pyautogui calls is; pcflow runs no program it is sent", trunc(strings.Join(argv, " "), 60))
	}
	return argv[2], nil
}

// Actions reads code as /execute does and returns the actions it asks
// for, in order, against st (which it updates), or the reason it is
// refused.
func actions(code string, st *pointerState) ([]screen.Action, error) {
	calls, err := profile.ReadPyCalls(stripPrefix(code), func(fn string) bool { return slices.Contains(executeCalls, fn) }, executeNames, easing)
	if err != nil {
		return nil, &refusal{"the code is not served: " + err.Error()}
	}
	var out []screen.Action
	for _, c := range calls {
		as, err := mapCall(c, st)
		if err != nil {
			return nil, &refusal{fmt.Sprintf("line %d of the code: %v", c.Line, err)}
		}
		out = append(out, as...)
		if len(out) > 50 {
			return nil, refusedf("the code asks for more than 50 actions")
		}
	}
	return out, nil
}

// params are each call's positional parameters, as pyautogui names them.
var params = map[string][]string{
	"click":       {"x", "y", "clicks", "interval", "button", "duration", "tween"},
	"doubleClick": {"x", "y", "interval", "button", "duration", "tween"},
	"tripleClick": {"x", "y", "interval", "button", "duration", "tween"},
	"rightClick":  {"x", "y", "interval", "duration", "tween"},
	"middleClick": {"x", "y", "interval", "duration", "tween"},
	"moveTo":      {"x", "y", "duration", "tween"},
	"dragTo":      {"x", "y", "duration", "tween", "button", "mouseDownUp"},
	"mouseDown":   {"x", "y", "button", "duration", "tween"},
	"mouseUp":     {"x", "y", "button", "duration", "tween"},
	"write":       {"message", "interval"},
	"typewrite":   {"message", "interval"},
	"press":       {"keys", "presses", "interval"},
	"hotkey":      {"interval"},
	"scroll":      {"clicks", "x", "y"},
	"vscroll":     {"clicks", "x", "y"},
	"hscroll":     {"clicks", "x", "y"},
	"keyDown":     {"key"},
	"keyUp":       {"key"},
	"sleep":       {"secs"},
}

// paced are arguments that only pace or log the input: read, ignored.
var paced = map[string]bool{"interval": true, "duration": true, "tween": true, "logScreenshot": true, "_pause": true, "mouseDownUp": true}

func bind(c profile.PyCall) (string, map[string]any, error) {
	name := c.Fn[strings.IndexByte(c.Fn, '.')+1:]
	ps := params[name]
	in := map[string]any{}
	args := c.Args
	if name == "hotkey" {
		if len(args) == 1 {
			in["keys"] = args[0]
		} else if len(args) > 0 {
			in["keys"] = args
		}
		ps = append([]string{"keys"}, ps...)
	} else {
		if len(args) > 0 && len(ps) > 1 && ps[0] == "x" {
			if xy, ok := args[0].([]any); ok && len(xy) == 2 {
				args = append([]any{xy[0], xy[1]}, args[1:]...)
			}
		}
		if len(args) > len(ps) {
			return "", nil, fmt.Errorf("%s takes at most %d positional arguments, not %d", c.Fn, len(ps), len(args))
		}
		for i, v := range args {
			in[ps[i]] = v
		}
	}
	for k, v := range c.Kw {
		if !slices.Contains(ps, k) && !paced[k] {
			return "", nil, fmt.Errorf("%s has no argument %s", c.Fn, k)
		}
		if _, dup := in[k]; dup {
			return "", nil, fmt.Errorf("%s gives %s twice", c.Fn, k)
		}
		in[k] = v
	}
	for k, v := range in {
		if _, isName := v.(profile.PyName); isName && k != "tween" {
			return "", nil, fmt.Errorf("%s: %s must be a literal, not the name %s", c.Fn, k, v)
		}
		if paced[k] {
			delete(in, k)
		}
	}
	return name, in, nil
}

// mapCall maps one call to the device's actions.
func mapCall(c profile.PyCall, st *pointerState) ([]screen.Action, error) {
	name, in, err := bind(c)
	if err != nil {
		return nil, err
	}
	// point reads x and y, or the pointer's last place when both are
	// absent and none is required.
	point := func(required bool) (int, int, error) {
		xv, okx := in["x"]
		yv, oky := in["y"]
		if (!okx || xv == nil) && (!oky || yv == nil) {
			if required || !st.known {
				return 0, 0, fmt.Errorf("%s needs x and y (no earlier call put the pointer anywhere)", c.Fn)
			}
			return st.x, st.y, nil
		}
		x, okx := xv.(float64)
		y, oky := yv.(float64)
		if !okx || !oky || x < 0 || y < 0 || x > 1e5 || y > 1e5 {
			return 0, 0, fmt.Errorf("%s needs x and y as numbers of screen pixels", c.Fn)
		}
		st.x, st.y, st.known = int(math.Round(x)), int(math.Round(y)), true
		return st.x, st.y, nil
	}
	str := func(key string) (string, error) {
		s, ok := in[key].(string)
		if !ok {
			return "", fmt.Errorf("%s needs %s as a string", c.Fn, key)
		}
		return s, nil
	}
	count := func(key string, def, limit float64) (int, error) {
		v, ok := in[key]
		if !ok || v == nil {
			return int(def), nil
		}
		n, isNum := v.(float64)
		if !isNum || n != math.Trunc(n) || math.Abs(n) > limit {
			return 0, fmt.Errorf("%s needs %s as a whole number up to %g, not %v", c.Fn, key, limit, v)
		}
		return int(n), nil
	}
	button := func() (string, error) {
		v, ok := in["button"]
		if !ok || v == nil {
			return "left", nil
		}
		b, isStr := v.(string)
		switch b = strings.ToLower(b); {
		case !isStr:
			return "", fmt.Errorf("%s needs button as a string", c.Fn)
		case b == "primary":
			return "left", nil
		case b == "secondary":
			return "right", nil
		case b == "left" || b == "right" || b == "middle":
			return b, nil
		}
		return "", fmt.Errorf("%s(button=%q) is not a button; use 'left', 'right' or 'middle'", c.Fn, b)
	}
	held := func(a screen.Action) screen.Action {
		if len(st.held) > 0 {
			a.Keys = append(slices.Clone(st.held), a.Keys...)
			st.pressed = true
		}
		return a
	}
	switch name {
	case "click", "doubleClick", "tripleClick", "rightClick", "middleClick":
		x, y, err := point(false)
		if err != nil {
			return nil, err
		}
		b, err := button()
		if err != nil {
			return nil, err
		}
		clicks, err := count("clicks", 1, 3)
		if err != nil || clicks < 1 {
			return nil, fmt.Errorf("%s needs clicks 1, 2 or 3", c.Fn)
		}
		kind := map[string]string{"doubleClick": screen.ActDoubleClick, "tripleClick": screen.ActTripleClick,
			"rightClick": screen.ActRightClick, "middleClick": screen.ActMiddleClick}[name]
		if name == "click" {
			kind = map[string][3]string{
				"left":   {screen.ActClick, screen.ActDoubleClick, screen.ActTripleClick},
				"right":  {screen.ActRightClick, "", ""},
				"middle": {screen.ActMiddleClick, "", ""}}[b][clicks-1]
			if kind == "" {
				return nil, fmt.Errorf("%s(button=%q, clicks=%d) is not a click pcflow makes", c.Fn, b, clicks)
			}
		} else if b != "left" {
			return nil, fmt.Errorf("%s(button=%q) is not a click pcflow makes; use pyautogui.click(button=…)", c.Fn, b)
		}
		return []screen.Action{held(screen.Action{Kind: kind, X: x, Y: y})}, nil
	case "moveTo":
		if _, ok := in["x"]; !ok {
			if _, ok := in["y"]; !ok {
				return nil, nil // moveTo(): the pointer stays
			}
		}
		x, y, err := point(true)
		if err != nil {
			return nil, err
		}
		return []screen.Action{{Kind: screen.ActMouseMove, X: x, Y: y}}, nil
	case "dragTo":
		if !st.known {
			return nil, fmt.Errorf("%s needs its start: pyautogui.moveTo(x, y) before it", c.Fn)
		}
		fx, fy := st.x, st.y
		if b, err := button(); err != nil || b != "left" {
			return nil, fmt.Errorf("%s drags with the left button only", c.Fn)
		}
		x, y, err := point(true)
		if err != nil {
			return nil, err
		}
		return []screen.Action{held(screen.Action{Kind: screen.ActDrag, X: fx, Y: fy, X2: x, Y2: y})}, nil
	case "mouseDown", "mouseUp":
		x, y, err := point(false)
		if err != nil {
			return nil, err
		}
		if b, err := button(); err != nil || b != "left" {
			return nil, fmt.Errorf("%s presses the left button only", c.Fn)
		}
		kind := map[string]string{"mouseDown": screen.ActMouseDown, "mouseUp": screen.ActMouseUp}[name]
		return []screen.Action{held(screen.Action{Kind: kind, X: x, Y: y})}, nil
	case "write", "typewrite":
		t, ok := in["message"].(string)
		if !ok {
			if list, isList := in["message"].([]any); isList { // typewrite(['a', 'enter'])
				var as []screen.Action
				for _, k := range list {
					ks, isStr := k.(string)
					if !isStr || ks == "" {
						return nil, fmt.Errorf("%s needs message as a string or a list of key names", c.Fn)
					}
					as = append(as, screen.Action{Kind: screen.ActHotkey, Keys: []string{strings.ToLower(ks)}})
				}
				return as, nil
			}
			return nil, fmt.Errorf("%s needs message as a string", c.Fn)
		}
		if len(st.held) > 0 {
			return nil, fmt.Errorf("%s while keyDown holds %v: release them with keyUp first", c.Fn, st.held)
		}
		return []screen.Action{{Kind: screen.ActType, Text: t}}, nil
	case "press", "hotkey":
		var keys []string
		switch v := in["keys"].(type) {
		case string:
			keys = []string{v}
		case []any:
			for _, k := range v {
				ks, ok := k.(string)
				if !ok || ks == "" {
					return nil, fmt.Errorf("%s needs keys as strings, e.g. %s('enter')", c.Fn, c.Fn)
				}
				keys = append(keys, strings.ToLower(ks))
			}
		}
		if len(keys) == 0 {
			return nil, fmt.Errorf("%s needs keys as strings, e.g. %s('enter')", c.Fn, c.Fn)
		}
		if name == "hotkey" {
			return []screen.Action{held(screen.Action{Kind: screen.ActHotkey, Keys: keys})}, nil
		}
		presses, err := count("presses", 1, 50)
		if err != nil || presses < 1 {
			return nil, fmt.Errorf("%s needs presses as a whole number from 1 to 50", c.Fn)
		}
		var as []screen.Action
		for range presses {
			for _, k := range keys {
				as = append(as, held(screen.Action{Kind: screen.ActHotkey, Keys: []string{k}}))
			}
		}
		return as, nil
	case "scroll", "vscroll", "hscroll":
		n, err := count("clicks", 0, 100)
		if err != nil || n == 0 {
			return nil, fmt.Errorf("%s needs clicks as a non-zero whole number up to 100", c.Fn)
		}
		a := screen.Action{Kind: screen.ActScroll, Direction: map[bool]string{true: "up", false: "down"}[n > 0], Amount: max(n, -n)}
		if name == "hscroll" {
			a.Direction = map[bool]string{true: "right", false: "left"}[n > 0]
		}
		if _, ok := in["x"]; ok {
			if a.X, a.Y, err = point(true); err != nil {
				return nil, err
			}
		}
		return []screen.Action{held(a)}, nil
	case "keyDown", "keyUp":
		k, err := str("key")
		if err != nil || k == "" {
			return nil, fmt.Errorf("%s needs a key, e.g. %s('shift')", c.Fn, c.Fn)
		}
		k = strings.ToLower(k)
		i := slices.Index(st.held, k)
		if name == "keyDown" {
			if i < 0 {
				st.held = append(st.held, k)
				st.pressed = false
			}
			return nil, nil
		}
		if i < 0 {
			return nil, fmt.Errorf("%s(%q) releases a key no keyDown holds", c.Fn, k)
		}
		keys := slices.Clone(st.held)
		st.held = slices.Delete(st.held, i, i+1)
		if !st.pressed {
			// keyDown then keyUp with nothing between: a key press.
			st.pressed = len(st.held) > 0
			return []screen.Action{{Kind: screen.ActHotkey, Keys: keys}}, nil
		}
		return nil, nil
	case "sleep":
		s, ok := in["secs"].(float64)
		if !ok || s < 0 || s > 60 {
			return nil, fmt.Errorf("%s needs seconds as a number from 0 to 60", c.Fn)
		}
		return []screen.Action{{Kind: screen.ActWait, Seconds: s}}, nil
	}
	return nil, fmt.Errorf("unknown call %s(…); use %s", c.Fn, executeNames)
}

type executeRequest struct {
	Command json.RawMessage `json:"command"`
	Shell   bool            `json:"shell"`
}

func (s *Server) execute(w http.ResponseWriter, r *http.Request) {
	var req executeRequest
	if !readJSON(w, r, &req) {
		return
	}
	code, err := pythonCode(req.Command, req.Shell)
	if out, ok := queries[strings.TrimSpace(stripPrefix(code))]; ok && err == nil {
		writeJSON(w, http.StatusOK, map[string]any{"status": "success", "output": out, "error": "", "returncode": 0})
		return
	}
	if err == nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		st := s.state
		var as []screen.Action
		if as, err = actions(code, &st); err == nil {
			s.state = st
			err = s.run(r.Context(), as)
		}
	}
	if err != nil {
		code := http.StatusInternalServerError
		if _, ok := err.(*refusal); ok {
			code = http.StatusForbidden
		}
		s.o.Logger.Warn("osworld api execute refused", "status", code, "err", err)
		writeJSON(w, code, map[string]any{"status": "error", "message": err.Error(), "output": "", "error": err.Error(), "returncode": 1})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "success", "output": "", "error": "", "returncode": 0})
}

// run executes the actions in order on the device.
func (s *Server) run(ctx context.Context, as []screen.Action) error {
	for _, a := range as {
		if _, err := s.o.Device.Act(ctx, a); err != nil {
			return fmt.Errorf("%s: %w", a.Kind, err)
		}
		s.o.Logger.Info("osworld api act", "kind", a.Kind)
	}
	return nil
}

func trunc(s string, n int) string {
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
