package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/text"
)

const decisionSystem = `You are the Decision agent of pcflow, operating a real computer (PC-Agent design).
Each turn you see the current subtask, a progress summary, your memory, the last reflection, the open windows,
the clipboard, a numbered list of on-screen elements (Set-of-Marks) and a screenshot with the same numbers drawn on it.
Think briefly about what to do next, then call exactly one tool: the single next action.
Prefer element ids from the list over coordinates. Coordinates, when you must use them, are {{.Coordinates}}.
When the subtask is complete call done with every declared output; if it cannot be completed call fail with the reason.
When you cannot go on without the person you work for (a value only they know, a choice only they can make), call ask_human with your question.`

const decisionUser = `Subtask: {{.Subtask}}
Step: {{.Step}} of {{.MaxSteps}}
Instruction: {{.Instruction}}
{{- if .Knowledge}}
Knowledge:
{{- range .Knowledge}}
- {{.}}{{end}}{{end}}
{{- if .Outputs}}
Outputs to report with done:
{{- range .Outputs}}
- {{.Key}}{{if .Description}}: {{.Description}}{{end}}{{end}}{{end}}
Progress so far: {{if .Progress}}{{.Progress}}{{else}}(nothing yet){{end}}
Memory: {{if .Memory}}{{.Memory}}{{else}}(empty){{end}}
{{- if .LastAction}}
Last action: {{.LastAction}} → {{if .Reflected}}reflection: {{end}}{{.LastVerdict}}{{if .LastReason}} ({{.LastReason}}){{end}}
{{- if .LastThought}}
Your thought on it: {{.LastThought}}{{end}}{{end}}
{{- if .Answers}}
The person's answers to your questions:
{{- range .Answers}}
- {{.}}{{end}}{{end}}
{{- if .Feedback}}
Your previous answer was invalid: {{.Feedback}}{{end}}
Active window: {{.ActiveWindow}}
Windows: {{join .Windows " | "}}
Clipboard: {{if .Clipboard}}{{.Clipboard}}{{else}}(empty){{end}}
Screen: {{.ImageWidth}}x{{.ImageHeight}} image
Elements:
{{- range .Elements}}
{{.}}{{else}}
(none found){{end}}`

var (
	tDecisionSystem = mustTemplate("decision-system", decisionSystem)
	tDecision       = mustTemplate("decision", decisionUser)
)

// decisionView is the Decision prompt's data.
type decisionView struct {
	agent.DecisionInput
	Feedback                string
	Clipboard               string
	ImageWidth, ImageHeight int
	Elements                []string
}

// DecisionPrompt renders the Decision agent's text prompt.
func DecisionPrompt(in agent.DecisionInput, imgW, imgH int, feedback string) string {
	v := decisionView{DecisionInput: in, Feedback: feedback, Clipboard: text.Trunc(in.Clipboard, 500), ImageWidth: imgW, ImageHeight: imgH}
	for _, e := range in.Elements {
		v.Elements = append(v.Elements, e.Label())
	}
	return render(tDecision, v)
}

// Decide asks the Decision agent for one action, in its profile's
// protocol.
func (c *Client) Decide(ctx context.Context, in agent.DecisionInput, u *screen.Usage) (*agent.Decision, error) {
	if in.Image == nil {
		return nil, fmt.Errorf("decision needs a screenshot")
	}
	w, err := c.newWire(in.Image)
	if err != nil {
		return nil, err
	}
	if w, err = c.withZoom(w, in.Zoom); err != nil {
		return nil, err
	}
	outKeys := in.OutputKeys()
	sys := w.system(tDecisionSystem)
	view := in
	view.Elements = w.elements(in.Elements)
	d := &agent.Decision{}
	call := agent.Call{Role: agent.RoleDecision, Subtask: in.Subtask, Step: in.Step, Profile: c.cfg.Profile.Name, Turn: decisionTurn(view)}
	prompt := func(feedback string) string {
		p := DecisionPrompt(view, w.frame.ImageW, w.frame.ImageH, feedback)
		d.Prompt = len(p)
		return p
	}
	var send transport[reply]
	if w.computer() {
		send = c.computerTransport(computerTurn{call: call, w: w, sys: sys, outKeys: outKeys, acked: in.Acknowledged, record: in.Record}, prompt, u)
	} else {
		send = w.read(c.chat(call, func(feedback string) openai.ChatCompletionRequest {
			parts := []openai.ChatMessagePart{
				{Type: openai.ChatMessagePartTypeText, Text: prompt(feedback)},
				{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: dataURL(w.img, w.mime), Detail: openai.ImageURLDetailHigh}},
			}
			if z := w.zoom; z != nil {
				parts = append(parts, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: z.label},
					openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: dataURL(z.img, z.mime), Detail: openai.ImageURLDetailHigh}})
			}
			return openai.ChatCompletionRequest{
				Model: c.cfg.DecisionModel, Temperature: c.cfg.Temperature, MaxTokens: c.cfg.MaxTokens,
				Messages: []openai.ChatCompletionMessage{
					{Role: openai.ChatMessageRoleSystem, Content: sys},
					{Role: openai.ChatMessageRoleUser, MultiContent: parts},
				},
				Tools: w.tools(outKeys),
			}
		}, u, in.Record))
	}
	type choice struct {
		thought string
		actions []screen.Action
		checks  []agent.SafetyCheck
	}
	ch, inv, err := reask(ctx, c.reasks(in.InvalidBudget), send, func(r reply) (choice, error) {
		if r.err != nil {
			return choice{}, r.err
		}
		acts, err := w.actions(r.a, in, outKeys)
		for i := 0; err == nil && i < len(acts); i++ {
			err = c.ground(ctx, in, &acts[i], u)
		}
		return choice{r.a.Thought, acts, r.checks}, err
	})
	d.Thought, d.Invalid, d.Errors, d.SafetyChecks = ch.thought, inv.n, inv.errors, ch.checks
	if len(ch.actions) > 0 {
		d.Action, d.Batch = ch.actions[0], ch.actions[1:]
	}
	if len(d.SafetyChecks) > 0 && len(d.Batch) > 0 {
		// The checks are on the call (a computer-use protocol's): a
		// person approves the first action alone, and the model sees the
		// screen again before the rest.
		d.Batch = nil
	}
	return d, err
}

type rawArgs struct {
	Element   *int           `json:"element"`
	X         *float64       `json:"x"`
	Y         *float64       `json:"y"`
	X2        *float64       `json:"x2"`
	Y2        *float64       `json:"y2"`
	Text      *string        `json:"text"`
	Enter     bool           `json:"enter"`
	Keys      []string       `json:"keys"`
	Direction string         `json:"direction"`
	Amount    int            `json:"amount"`
	Start     string         `json:"start"`
	End       string         `json:"end"`
	App       string         `json:"app"`
	Title     string         `json:"title"`
	Seconds   float64        `json:"seconds"`
	Outputs   map[string]any `json:"outputs"`
	Reason    string         `json:"reason"`
	Target    string         `json:"target"`
	To        string         `json:"to"`
}

// BuildAction validates an action given as the Decision tool's kind and
// JSON arguments, in screen pixels, on a screen of w×h whose numbered
// elements are els: the checks a Decision answer passes (the MCP server's
// act, internal/mcpserver). A target named by description is refused
// (nothing grounds it here), and so is a point off the screen.
func BuildAction(kind string, args json.RawMessage, els []screen.Element, w, h int) (screen.Action, error) {
	if _, ok := screen.Lookup(kind); !ok {
		return screen.Action{}, fmt.Errorf("unknown action kind %q; the kinds are %s", kind, strings.Join(screen.Kinds(), ", "))
	}
	toScreen := func(x, y float64) (int, int, error) {
		px, py := int(math.Round(x)), int(math.Round(y))
		if w > 0 && h > 0 && (px < 0 || py < 0 || px >= w || py >= h) {
			return 0, 0, fmt.Errorf("point (%d, %d) is off the %dx%d screen", px, py, w, h)
		}
		return px, py, nil
	}
	a, err := buildAction(kind, args, agent.DecisionInput{Elements: els}, toScreen, nil)
	if err == nil && len(a.Grounded) > 0 {
		err = fmt.Errorf("%s names its target by description (%q): give an element id of the last observation, or x and y", kind, a.Grounded[0].Describe)
	}
	return a, err
}

// buildAction validates the model's tool call and maps it to screen space.
func buildAction(name string, args json.RawMessage, in agent.DecisionInput, toScreen func(x, y float64) (int, int, error), outKeys []string) (screen.Action, error) {
	var r rawArgs
	dec := json.NewDecoder(bytes.NewReader(args))
	if err := dec.Decode(&r); err != nil {
		return screen.Action{}, fmt.Errorf("arguments of %s: %w", name, err)
	}
	a := screen.Action{Kind: name}
	byID := map[int]screen.Element{}
	for _, e := range in.Elements {
		byID[e.ID] = e
	}
	point := func(required bool) error {
		if r.Element != nil {
			e, ok := byID[*r.Element]
			if !ok {
				return fmt.Errorf("element %d is not in the element list (ids 1–%d)", *r.Element, len(in.Elements))
			}
			a.Element = e.ID
			a.Target = e.Name
			a.X, a.Y = e.Box.Center()
			return nil
		}
		if r.X != nil && r.Y != nil {
			var err error
			a.X, a.Y, err = toScreen(*r.X, *r.Y)
			return err
		}
		if d := strings.TrimSpace(r.Target); d != "" {
			// Named by description: the grounder places it (ground).
			a.Target = d
			a.Grounded = []screen.Grounding{{Describe: d}}
			return nil
		}
		if required {
			return fmt.Errorf("%s needs an element id or x and y", name)
		}
		return nil
	}
	// span reads the two points of a drag or a zoom region; needs says
	// what is missing without them.
	span := func(needs string) error {
		if r.X == nil || r.Y == nil || r.X2 == nil || r.Y2 == nil {
			return fmt.Errorf("%s x, y, x2 and y2", needs)
		}
		var err error
		if a.X, a.Y, err = toScreen(*r.X, *r.Y); err != nil {
			return err
		}
		a.X2, a.Y2, err = toScreen(*r.X2, *r.Y2)
		return err
	}
	if k, _ := screen.Lookup(name); k.Point == screen.PointAt {
		a.Keys = r.Keys // modifiers held while clicking
		return a, point(true)
	}
	switch name {
	case screen.ActMouseDown, screen.ActMouseUp:
		a.Keys = r.Keys
		return a, point(false)
	case screen.ActHoldKey:
		if len(r.Keys) == 0 {
			return a, fmt.Errorf("hold_key needs keys, e.g. [\"shift\"]")
		}
		if r.Seconds <= 0 || r.Seconds > 30 {
			return a, fmt.Errorf("hold_key needs seconds between 0 and 30, not %g", r.Seconds)
		}
		a.Keys, a.Seconds = r.Keys, r.Seconds
		return a, nil
	case screen.ActType:
		if r.Text == nil {
			return a, fmt.Errorf("type needs text")
		}
		a.Text, a.Enter = *r.Text, r.Enter
		return a, point(false)
	case screen.ActScroll:
		switch r.Direction {
		case "up", "down", "left", "right":
		default:
			return a, fmt.Errorf("scroll direction must be up, down, left or right, not %q", r.Direction)
		}
		a.Direction, a.Amount, a.Keys = r.Direction, r.Amount, r.Keys
		if a.Amount <= 0 {
			a.Amount = 3
		}
		return a, point(false)
	case screen.ActDrag:
		from, to := strings.TrimSpace(r.Target), strings.TrimSpace(r.To)
		if from == "" && to == "" {
			return a, span("drag needs")
		}
		// Named by description, one end or both: the grounder places
		// what is described, in order (ground).
		if (from == "") != (r.X != nil && r.Y != nil) || (to == "") != (r.X2 != nil && r.Y2 != nil) {
			return a, fmt.Errorf("drag needs its start as target or x and y, and its end as to or x2 and y2")
		}
		var err error
		a.Target, a.To = from, to
		if from == "" {
			a.X, a.Y, err = toScreen(*r.X, *r.Y)
		} else {
			a.Grounded = append(a.Grounded, screen.Grounding{Describe: from})
		}
		if err != nil {
			return a, err
		}
		if to == "" {
			a.X2, a.Y2, err = toScreen(*r.X2, *r.Y2)
		} else {
			a.Grounded = append(a.Grounded, screen.Grounding{Describe: to})
		}
		return a, err
	case screen.ActZoom:
		if err := span("zoom needs a region:"); err != nil {
			return a, err
		}
		if a.X2 <= a.X || a.Y2 <= a.Y {
			return a, fmt.Errorf("zoom region needs x2 > x and y2 > y")
		}
		return a, nil
	case screen.ActSelect:
		if r.Start == "" || r.End == "" {
			return a, fmt.Errorf("select needs start and end text")
		}
		a.Start, a.End = r.Start, r.End
		if in.Locate == nil {
			return a, fmt.Errorf("select is unavailable: no OCR on this device; click and drag instead")
		}
		s, err := locateOne(in.Locate, r.Start, "start")
		if err != nil {
			return a, err
		}
		e, err := locateOne(in.Locate, r.End, "end")
		if err != nil {
			return a, err
		}
		a.X, a.Y = s.X, s.Y+s.H/2
		a.X2, a.Y2 = e.X+e.W, e.Y+e.H/2
		return a, nil
	case screen.ActHotkey:
		if len(r.Keys) == 0 {
			return a, fmt.Errorf("hotkey needs keys, e.g. [\"ctrl\", \"s\"]")
		}
		a.Keys = r.Keys
		return a, nil
	case screen.ActWait:
		a.Seconds = r.Seconds
		if a.Seconds <= 0 || a.Seconds > 30 {
			a.Seconds = 1
		}
		return a, nil
	case screen.ActOpenApp:
		if r.App == "" {
			return a, fmt.Errorf("open_app needs app")
		}
		a.App = r.App
		return a, nil
	case screen.ActSwitchWindow:
		if r.Title == "" {
			return a, fmt.Errorf("switch_window needs title")
		}
		a.Title = r.Title
		return a, nil
	case screen.ActCopy, screen.ActPaste:
		return a, nil
	case screen.ActDone:
		a.Outputs = map[string]string{}
		for k, v := range r.Outputs {
			switch x := v.(type) {
			case string:
				a.Outputs[k] = x
			case nil:
			default:
				b, _ := json.Marshal(x)
				a.Outputs[k] = string(b)
			}
		}
		var missing []string
		for _, k := range outKeys {
			if strings.TrimSpace(a.Outputs[k]) == "" {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			return a, fmt.Errorf("done must report the declared outputs; missing %s", strings.Join(missing, ", "))
		}
		return a, nil
	case screen.ActFail:
		a.Reason = r.Reason
		return a, nil
	case screen.ActAskHuman:
		if r.Text == nil || strings.TrimSpace(*r.Text) == "" {
			return a, fmt.Errorf("ask_human needs text: the question")
		}
		a.Text = *r.Text
		return a, nil
	}
	return a, fmt.Errorf("unknown action %q; use one of the offered tools", name)
}

// locateOne applies Mobile-Agent's rule for text targets: no hit, ask again;
// one hit, act; a few, show the candidates and ask; many, ask for more text.
func locateOne(locate func(string) ([]screen.Rect, error), target, which string) (screen.Rect, error) {
	hits, err := locate(target)
	if err != nil {
		return screen.Rect{}, fmt.Errorf("select %s text %q: OCR failed: %w; click and drag instead", which, target, err)
	}
	switch {
	case len(hits) == 0:
		return screen.Rect{}, fmt.Errorf("select %s text %q is not on screen (OCR found no match); choose text that is visible", which, target)
	case len(hits) == 1:
		return hits[0], nil
	case len(hits) <= 4:
		var c []string
		for _, h := range hits {
			c = append(c, fmt.Sprintf("(%d,%d)", h.X, h.Y))
		}
		return screen.Rect{}, fmt.Errorf("select %s text %q appears %d times, at %s; give longer text that occurs once", which, target, len(hits), strings.Join(c, ", "))
	default:
		return screen.Rect{}, fmt.Errorf("select %s text %q appears %d times; give a more specific target", which, target, len(hits))
	}
}
