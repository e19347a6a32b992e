package profile

import (
	"fmt"
	"math"
	"strings"
)

// computerCall maps one action of a provider's computer tool to pcflow's
// actions: Anthropic's "computer" tool and Qwen's "computer_use" tool (Hermes
// tool calls) share their action names; where their arguments differ
// (key: "text" or "keys"; scroll: direction and amount or signed pixels;
// wait: "duration" or "time"), the arguments present say which form it is.
func computerCall(tool string, in map[string]any) (Call, error) {
	action, _ := in["action"].(string)
	out := map[string]any{}
	point := func(key, xk, yk string, required bool) error {
		v, ok := in[key]
		if !ok {
			if required {
				return fmt.Errorf("%s %s needs %s [x, y]", tool, action, key)
			}
			return nil
		}
		xy, err := numbers(v)
		if err != nil || len(xy) != 2 {
			return fmt.Errorf("%s %s: %s must be [x, y], not %v", tool, action, key, v)
		}
		out[xk], out[yk] = xy[0], xy[1]
		return nil
	}
	splitKeys := func(s string) []any {
		return lowerKeys(strings.FieldsFunc(s, func(r rune) bool { return r == '+' || r == ' ' }))
	}
	if t, ok := in["text"].(string); ok && t != "" && action != "type" && action != "key" && action != "hold_key" && action != "answer" {
		out["keys"] = splitKeys(t) // Anthropic: modifiers held during the action
	}
	switch action {
	case "left_click", "right_click", "middle_click", "double_click", "triple_click", "mouse_move":
		if err := point("coordinate", "x", "y", true); err != nil {
			return Call{}, err
		}
		n := map[string]string{"left_click": "click"}[action]
		if n == "" {
			n = action
		}
		return Call{Name: n, Args: out}, nil
	case "left_click_drag":
		if err := point("coordinate", "x2", "y2", true); err != nil {
			return Call{}, err
		}
		if _, ok := in["start_coordinate"]; ok {
			if err := point("start_coordinate", "x", "y", true); err != nil {
				return Call{}, err
			}
			return Call{Name: "drag", Args: out}, nil
		}
		if tool == "computer" {
			return Call{}, fmt.Errorf("computer left_click_drag needs start_coordinate [x, y]")
		}
		return Call{Name: "left_click_drag", Args: out}, nil // from where the mouse is
	case "left_mouse_down", "left_mouse_up":
		if err := point("coordinate", "x", "y", false); err != nil {
			return Call{}, err
		}
		return Call{Name: map[string]string{"left_mouse_down": "mouse_down", "left_mouse_up": "mouse_up"}[action], Args: out}, nil
	case "type":
		typed(out, in["text"])
		return Call{Name: "type", Args: out}, nil
	case "key":
		if v, ok := in["keys"]; ok {
			keys, err := strs(v)
			if err != nil || len(keys) == 0 {
				return Call{}, fmt.Errorf(`%s key needs "keys", e.g. ["ctrl", "s"]`, tool)
			}
			out["keys"] = lowerKeys(keys)
			return Call{Name: "hotkey", Args: out}, nil
		}
		t, _ := in["text"].(string)
		if t == "" {
			return Call{}, fmt.Errorf(`%s key needs text, e.g. "ctrl+s"`, tool)
		}
		out["keys"] = splitKeys(t)
		return Call{Name: "hotkey", Args: out}, nil
	case "key_down", "key_up":
		// EvoCUA: keys held down or released (Shift while clicking).
		keys, err := strs(in["keys"])
		if err != nil || len(keys) == 0 {
			return Call{}, fmt.Errorf(`%s %s needs "keys", e.g. ["shift"]`, tool, action)
		}
		out["keys"] = lowerKeys(keys)
		return Call{Name: map[string]string{"key_down": "keydown", "key_up": "keyup"}[action], Args: out}, nil
	case "hold_key":
		t, _ := in["text"].(string)
		d, _ := in["duration"].(float64)
		out["keys"], out["seconds"] = splitKeys(t), d
		return Call{Name: "hold_key", Args: out}, nil
	case "scroll", "hscroll":
		if err := point("coordinate", "x", "y", false); err != nil {
			return Call{}, err
		}
		if _, ok := in["pixels"]; ok || tool == "computer_use" || action == "hscroll" { // Qwen: signed pixels
			px, _ := in["pixels"].(float64)
			if px == 0 {
				return Call{}, fmt.Errorf("%s %s needs a non-zero pixels", tool, action)
			}
			dir := map[bool]string{true: "up", false: "down"}[px > 0]
			if action == "hscroll" {
				dir = map[bool]string{true: "right", false: "left"}[px > 0]
			}
			out["direction"], out["amount"] = dir, math.Abs(px)
			return Call{Name: "scroll", Args: out}, nil
		}
		out["direction"], _ = in["scroll_direction"].(string)
		if n, ok := in["scroll_amount"].(float64); ok {
			out["amount"] = n
		}
		return Call{Name: "scroll", Args: out}, nil
	case "wait":
		if t, ok := in["time"].(float64); ok { // Qwen: seconds as given
			out["seconds"] = t
			return Call{Name: "wait", Args: out}, nil
		}
		d, _ := in["duration"].(float64)
		out["seconds"] = max(d, 1)
		return Call{Name: "wait", Args: out}, nil
	case "zoom":
		// Anthropic's computer_20251124 with enable_zoom: a closer look.
		v, ok := in["region"]
		r, err := numbers(v)
		if !ok || err != nil || len(r) != 4 {
			return Call{}, fmt.Errorf("%s zoom needs region [x1, y1, x2, y2], not %v", tool, v)
		}
		if r[2] <= r[0] || r[3] <= r[1] {
			return Call{}, fmt.Errorf("%s zoom region [x1, y1, x2, y2] needs x2 > x1 and y2 > y1, not %v", tool, v)
		}
		out["x"], out["y"], out["x2"], out["y2"] = r[0], r[1], r[2], r[3]
		return Call{Name: "zoom", Args: out}, nil
	case "screenshot":
		// pcflow shows a fresh screenshot every step: let the screen settle.
		return Call{Name: "wait", Args: map[string]any{"seconds": 1.0}}, nil
	case "terminate":
		if s, _ := in["status"].(string); s == "failure" {
			return Call{Name: "fail", Args: map[string]any{"reason": "the model gave up (terminate: failure)"}}, nil
		}
		return Call{Name: "done", Args: map[string]any{}}, nil
	case "answer":
		out["answer"] = in["text"]
		return Call{Name: "done", Args: out}, nil
	}
	return Call{}, fmt.Errorf("%s action %q is not one pcflow knows; use left_click, double_click, right_click, type, key, scroll, left_click_drag, mouse_move, wait, zoom, answer or terminate", tool, action)
}
