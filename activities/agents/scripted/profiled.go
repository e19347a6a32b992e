package scripted

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	_ "image/jpeg" // screenshots may be sent as JPEG
	_ "image/png"
	"strconv"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/agents"
	"github.com/pcflow/pcflow/activities/agents/profile"
	"github.com/pcflow/pcflow/internal/calibrate"
)

// profiled answers a scripted Decision step as a model of profile p would:
// targets become points (the centre of the element's box in marks, the
// element list, which gives boxes in p's coordinate space) and the answer
// is in p's wire format. A fault "out_of_range" answers a point outside
// p's space, so the client's re-ask can be tested.
func profiled(p profile.Profile, rec Request, marks []agent.Mark, st Step, args map[string]any, thought string, fault *Fault) (openai.ChatCompletionResponse, error) {
	if id, ok := args["element"].(int); ok {
		x, y, err := elementPoint(marks, id)
		if err != nil {
			return openai.ChatCompletionResponse{}, err
		}
		delete(args, "element")
		args["x"], args["y"] = x, y
	}
	if fault != nil && fault.Kind == "out_of_range" {
		if _, ok := args["x"]; ok {
			args["x"] = 5000
		}
	}
	action := st.Action
	switch p.Protocol {
	case profile.ProtoOpenAITools, profile.ProtoAnthropicComputer, profile.ProtoOpenAIComputer:
		// The computer protocols are written from this answer by the
		// endpoint (see computer.go).
		return toolAnswer(rec, action, args, thought, fault), nil
	case profile.ProtoText:
		var content string
		switch p.Format {
		case profile.FormatUITARS:
			content = "Thought: " + thought + "\nAction: " + uitarsAction(action, args, p.Space == profile.SpaceRelative1000)
		case profile.FormatActionJSON:
			b, _ := json.Marshal(args)
			content = "Thought: " + thought + "\nAction: " + action + " " + string(b)
		case profile.FormatPyAutoGUI:
			content = opencuaAnswer(thought, opencuaAction(action, args), pyautoguiCode(action, args))
		default:
			call := qwenCall(action, args)
			b, _ := json.Marshal(call)
			content = thought + "\n<tool_call>\n" + string(b) + "\n</tool_call>"
			if p.Space == profile.SpaceRelative1000 { // Qwen3-VL thinks aloud
				content = "<think>\n" + thought + "\n</think>\n\n<tool_call>\n" + string(b) + "\n</tool_call>"
			}
			if p.Space == profile.SpaceRelative999 { // EvoCUA: a one-sentence Action, then the call
				content = "Action: " + thought + "\n<tool_call>\n" + string(b) + "\n</tool_call>"
			}
		}
		return toolAnswer(rec, "", nil, content, fault), nil
	}
	return openai.ChatCompletionResponse{}, fmt.Errorf("the scripted model does not speak the %s protocol over chat completions", p.Protocol)
}

func num(v any) string {
	switch x := v.(type) {
	case int:
		return strconv.Itoa(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

func quoteUITARS(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`).Replace(s) + "'"
}

// doneContent is the one output's value, or all outputs as JSON.
func doneContent(args map[string]any) string {
	outs, _ := args["outputs"].(map[string]any)
	if len(outs) == 1 {
		for _, v := range outs {
			if s, ok := v.(string); ok {
				return s
			}
		}
	}
	b, _ := json.Marshal(outs)
	return string(b)
}

// uitarsAction writes one action as UI-TARS does: boxes wrapped in
// <|box_start|> tokens for UI-TARS 1.0, plain (x,y) for 1.5.
func uitarsAction(action string, args map[string]any, tokens bool) string {
	box := func(xk, yk string) string {
		b := "(" + num(args[xk]) + "," + num(args[yk]) + ")"
		if tokens {
			b = "<|box_start|>" + b + "<|box_end|>"
		}
		return "'" + b + "'"
	}
	_, hasXY := args["x"]
	switch action {
	case "click", "double_click", "right_click":
		if hasXY {
			n := map[string]string{"click": "click", "double_click": "left_double", "right_click": "right_single"}[action]
			return n + "(start_box=" + box("x", "y") + ")"
		}
	case "drag":
		return "drag(start_box=" + box("x", "y") + ", end_box=" + box("x2", "y2") + ")"
	case "type":
		if !hasXY {
			t, _ := args["text"].(string)
			if e, _ := args["enter"].(bool); e {
				t += "\n"
			}
			return "type(content=" + quoteUITARS(t) + ")"
		}
	case "hotkey":
		var ks []string
		for _, k := range anyStrings(args["keys"]) {
			ks = append(ks, k)
		}
		return "hotkey(key=" + quoteUITARS(strings.Join(ks, " ")) + ")"
	case "scroll":
		d, _ := args["direction"].(string)
		if hasXY {
			return "scroll(start_box=" + box("x", "y") + ", direction='" + d + "')"
		}
	case "wait":
		return "wait()"
	case "done":
		return "finished(content=" + quoteUITARS(doneContent(args)) + ")"
	}
	b, _ := json.Marshal(args)
	return action + " " + string(b)
}

// qwenCall writes one action as Qwen's computer_use tool, or as pcflow's
// own tool where computer_use has no equivalent.
func qwenCall(action string, args map[string]any) map[string]any {
	cu := func(a map[string]any) map[string]any { return map[string]any{"name": "computer_use", "arguments": a} }
	_, hasXY := args["x"]
	switch action {
	case "click", "double_click", "right_click":
		if hasXY {
			n := map[string]string{"click": "left_click", "double_click": "double_click", "right_click": "right_click"}[action]
			return cu(map[string]any{"action": n, "coordinate": []any{args["x"], args["y"]}})
		}
	case "type":
		if e, _ := args["enter"].(bool); !e && !hasXY {
			return cu(map[string]any{"action": "type", "text": args["text"]})
		}
	case "hotkey":
		return cu(map[string]any{"action": "key", "keys": args["keys"]})
	case "wait":
		s, _ := args["seconds"].(float64)
		return cu(map[string]any{"action": "wait", "time": max(s, 1)})
	case "done":
		return cu(map[string]any{"action": "answer", "text": doneContent(args)})
	}
	return map[string]any{"name": action, "arguments": args}
}

func anyStrings(v any) []string {
	switch x := v.(type) {
	case []string:
		return x
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, fmt.Sprint(e))
		}
		return out
	}
	return nil
}

// requestImage decodes the first screenshot a request carries.
func requestImage(req openai.ChatCompletionRequest) (image.Image, error) {
	for _, m := range req.Messages {
		for _, p := range m.MultiContent {
			if p.ImageURL == nil {
				continue
			}
			_, b64, ok := strings.Cut(p.ImageURL.URL, ";base64,")
			if !ok {
				continue
			}
			data, err := base64.StdEncoding.DecodeString(b64)
			if err != nil {
				return nil, fmt.Errorf("screenshot is not base64: %w", err)
			}
			img, _, err := image.Decode(bytes.NewReader(data))
			if err != nil {
				return nil, fmt.Errorf("decode screenshot: %w", err)
			}
			return img, nil
		}
	}
	return nil, fmt.Errorf("the request carries no screenshot")
}

// imageToSpace takes a point in the pixels of the image received into
// p's coordinate space, as a model of that family answers (whole numbers).
func imageToSpace(p profile.Profile, iw, ih int, x, y float64) (int, int, error) {
	switch p.Space {
	case profile.SpaceRelative1000, profile.SpaceNormalized999:
		return int(x * 1000 / float64(iw)), int(y * 1000 / float64(ih)), nil
	case profile.SpaceRelative999:
		return int(x * 999 / float64(iw)), int(y * 999 / float64(ih)), nil
	case profile.SpaceSmartResize:
		rw, rh, err := p.Resize.Resize(iw, ih)
		if err != nil {
			return 0, 0, err
		}
		return int(x * float64(rw) / float64(iw)), int(y * float64(rh) / float64(ih)), nil
	}
	return int(x), int(y), nil
}

// calibration answers a calibration request for target N (the turn's
// Target) by looking: it finds target N by its colour in the screenshot
// and clicks its centre, in p's coordinate space and wire format.
func calibration(p profile.Profile, rec Request, req openai.ChatCompletionRequest, fault *Fault) (openai.ChatCompletionResponse, error) {
	n := rec.Turn.Target
	if n < 1 {
		return openai.ChatCompletionResponse{}, fmt.Errorf("calibration request names no target: %s has no target", agents.HeaderTurn)
	}
	img, err := requestImage(req)
	if err != nil {
		return openai.ChatCompletionResponse{}, err
	}
	ix, iy, ok := calibrate.Find(img, n)
	if !ok {
		return toolAnswer(rec, "fail", map[string]any{"reason": fmt.Sprintf("target %d is not on the screenshot", n)}, "", fault), nil
	}
	b := img.Bounds()
	x, y, err := imageToSpace(p, b.Dx(), b.Dy(), ix, iy)
	if err != nil {
		return openai.ChatCompletionResponse{}, err
	}
	return profiled(p, rec, nil, Step{Action: "click"}, map[string]any{"x": x, "y": y}, fmt.Sprintf("Target %d is at (%d,%d).", n, x, y), fault)
}
