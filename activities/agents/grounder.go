package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	openai "github.com/sashabaranov/go-openai"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/agents/profile"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/text"
)

// The grounder: the Decision agent may name an action's target by
// description (target, a drag's to) instead of a mark; the grounder — a
// model with a coordinate space, configured as the grounder role's
// profile — is asked where it is on the screenshot, its answer is mapped
// through that profile's space to the screen, and the point is checked
// against the screen before the action runs.

const groundSystem = `You are the grounder of pcflow, a computer-use agent: you see a screenshot and a description of one thing on it, and you give the point to click on that thing.
Answer with one click at the centre of what is described. Coordinates are {{.Coordinates}}.`

var tGroundSystem = mustTemplate("ground-system", groundSystem)

// groundUser is the grounder's prompt; the description is quoted as data.
const groundUser = `Find on the screenshot: %s
Screen: %dx%d image`

// maxGroundAnswer bounds the grounder's answer as history records it.
const maxGroundAnswer = 300

// ground places every description of a (its Grounded entries, as
// buildAction left them) on the screen: the grounder's point becomes the
// action's (X, Y), or a drag's end (X2, Y2) for its to. An error is the
// Decision agent's to mend (name a mark, describe differently).
func (c *Client) ground(ctx context.Context, in agent.DecisionInput, a *screen.Action, u *screen.Usage) error {
	for i := range a.Grounded {
		g := &a.Grounded[i]
		x, y, err := c.groundOne(ctx, in, g, u)
		if err != nil {
			return err
		}
		if a.Kind == screen.ActDrag && (i > 0 || a.Target == "") {
			a.X2, a.Y2 = x, y
		} else {
			a.X, a.Y = x, y
		}
	}
	return nil
}

// groundOne asks the grounder where g.Describe is and checks the point:
// on the screen, and not on a mark whose name says it is something else.
func (c *Client) groundOne(ctx context.Context, in agent.DecisionInput, g *screen.Grounding, u *screen.Usage) (int, int, error) {
	p := c.cfg.Roles[agent.RoleGrounder]
	if p.Name == "" {
		return 0, 0, fmt.Errorf("target %q names its element by description, but no grounder is configured; name an element id from the list or give x and y", g.Describe)
	}
	shot := in.Screenshot
	if shot == nil {
		shot = in.Image
	}
	s, err := c.encodeFor(p, shot)
	if err != nil {
		return 0, 0, fmt.Errorf("the screenshot for the grounder: %w", err)
	}
	f := s.frame
	w := wire{p: p, frame: f, img: s.data, mime: s.mime, hint: p.CoordinateHint(s.frame)}
	model := c.cfg.GrounderModel
	if model == "" {
		model = c.cfg.DecisionModel
	}
	if p.Model != "" {
		model = p.Model
	}
	g.Profile, g.Model = p.Name, model
	call := agent.Call{Role: agent.RoleGrounder, Subtask: in.Subtask, Step: in.Step, Profile: p.Name, Turn: &agent.TurnFacts{Describe: g.Describe}}
	sys := renderSystem(tGroundSystem, w.hint) + groundFormat(p)
	prompt := fmt.Sprintf(groundUser, strconv.Quote(g.Describe), f.ImageW, f.ImageH)
	var x, y int
	if w.computer() {
		gc := &Client{cfg: c.cfg, api: c.api}
		gc.cfg.DecisionModel = model
		// One turn, not re-asked: what is wrong with the answer is the
		// Decision agent's feedback.
		ans, _, err := reask(ctx, 0, gc.computerTransport(computerTurn{call: call, w: w, sys: sys, record: in.Record}, func(string) string { return prompt }, u),
			func(ans reply) (reply, error) { return ans, nil })
		if err == nil {
			err = ans.err
		}
		if err != nil {
			return 0, 0, groundErr(g, err)
		}
		a := ans.a
		b, _ := json.Marshal(a.Calls)
		g.Answer = text.Trunc(string(b), maxGroundAnswer)
		if x, y, err = w.groundPoint(a); err != nil {
			return 0, 0, fmt.Errorf("the grounder (%s) gave no point for %q: %v; name an element id or give x and y", p.Name, g.Describe, err)
		}
	} else {
		type placed struct {
			x, y   int
			answer string
		}
		pt, _, err := ask(ctx, c, exchange[placed]{
			call:   call,
			record: in.Record,
			request: func(feedback string) openai.ChatCompletionRequest {
				t := prompt
				if feedback != "" {
					t += "\nYour previous answer was invalid: " + feedback
				}
				req := openai.ChatCompletionRequest{
					Model: model, Temperature: c.cfg.Temperature, MaxTokens: c.cfg.MaxTokens,
					Messages: []openai.ChatCompletionMessage{
						{Role: openai.ChatMessageRoleSystem, Content: sys},
						{Role: openai.ChatMessageRoleUser, MultiContent: []openai.ChatMessagePart{
							{Type: openai.ChatMessagePartTypeText, Text: t},
							{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: dataURL(w.img, w.mime), Detail: openai.ImageURLDetailHigh}},
						}},
					},
				}
				if !w.text() {
					req.Tools = []openai.Tool{groundTool(w.hint)}
				}
				return req
			},
			parse: func(msg openai.ChatCompletionMessage) (placed, error) {
				ans := msg.Content
				for _, tc := range msg.ToolCalls {
					ans += " " + tc.Function.Name + tc.Function.Arguments
				}
				ans = text.Trunc(strings.TrimSpace(ans), maxGroundAnswer)
				a, err := w.answer(msg)
				if err != nil {
					a = profile.Answer{}
				}
				x, y, perr := w.groundPoint(a)
				if perr != nil {
					// A grounder that answers with a bare point,
					// "(x,y)", as grounding models are trained to.
					var ok bool
					if x, y, ok = barePoint(w, msg.Content); !ok {
						return placed{answer: ans}, perr
					}
				}
				return placed{x, y, ans}, nil
			},
		}, u)
		if err != nil {
			return 0, 0, groundErr(g, err)
		}
		x, y, g.Answer = pt.x, pt.y, pt.answer
	}
	g.X, g.Y = x, y
	if x < 0 || y < 0 || x >= f.ScreenW || y >= f.ScreenH {
		return 0, 0, fmt.Errorf("the grounder (%s) put %q at (%d,%d), outside the %dx%d screen; name an element id or describe it differently", p.Name, g.Describe, x, y, f.ScreenW, f.ScreenH)
	}
	if e, ok := markAt(in.Elements, x, y); ok && contradicts(g.Describe, e) {
		return 0, 0, fmt.Errorf("the grounder (%s) put %q at (%d,%d), on element [%d] %s %q, which is something else; click [%d] if that is what you meant, or describe the target differently", p.Name, g.Describe, x, y, e.ID, e.Role, e.Name, e.ID)
	}
	return x, y, nil
}

// groundErr says a grounder call failed: a model error as it is (the
// activity's retries and failure types apply), an invalid answer as
// feedback for the Decision agent.
func groundErr(g *screen.Grounding, err error) error {
	if _, ok := err.(*agent.APIError); ok {
		return err
	}
	return fmt.Errorf("the grounder could not place %q: %v; name an element id or describe it differently", g.Describe, err)
}

// groundPoint is the point of the first call in a that has one, mapped to
// the screen through w's space (a point outside the space is an error).
func (w wire) groundPoint(a profile.Answer) (int, int, error) {
	for _, c := range a.Calls {
		x, okx := number(c.Args["x"])
		y, oky := number(c.Args["y"])
		if okx && oky {
			return w.toScreen(x, y)
		}
	}
	return 0, 0, fmt.Errorf("no point in the answer; answer with one click at the described target")
}

// number reads a JSON number (or a numeric string).
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
		return f, err == nil
	}
	return 0, false
}

// pointText is a bare point: (x,y), [x, y] or <point>x y</point>.
var pointText = regexp.MustCompile(`[(\[]\s*(\d+(?:\.\d+)?)\s*,\s*(\d+(?:\.\d+)?)\s*[)\]]|<point>\s*(\d+(?:\.\d+)?)\s+(\d+(?:\.\d+)?)\s*</point>`)

// barePoint reads the only point in a text answer, mapped through w's
// space; ok is false when there is none or more than one.
func barePoint(w wire, content string) (int, int, bool) {
	ms := pointText.FindAllStringSubmatch(content, 3)
	if len(ms) != 1 {
		return 0, 0, false
	}
	m := ms[0]
	xs, ys := m[1], m[2]
	if xs == "" {
		xs, ys = m[3], m[4]
	}
	x, _ := strconv.ParseFloat(xs, 64)
	y, _ := strconv.ParseFloat(ys, 64)
	sx, sy, err := w.toScreen(x, y)
	return sx, sy, err == nil
}

// groundTool is the grounder's one tool over function calling.
func groundTool(hint string) openai.Tool {
	return tool("click", "Click the described target.",
		`{"type":"object","properties":{"x":{"type":"integer","description":"x: `+hint+`"},"y":{"type":"integer","description":"y: `+hint+`"}},"required":["x","y"]}`)
}

// groundFormat is how a text profile's grounder writes its one click.
func groundFormat(p profile.Profile) string {
	if p.Protocol != profile.ProtoText {
		return ""
	}
	switch p.Format {
	case profile.FormatUITARS:
		return "\nAnswer in this format, with no other text:\nAction: click(start_box='(x,y)')"
	case profile.FormatActionJSON:
		return "\nAnswer with one line: Action: click {\"x\": X, \"y\": Y}"
	case profile.FormatPyAutoGUI:
		return "\nAnswer with the click in a code block:\n```python\npyautogui.click(x=X, y=Y)\n```"
	}
	return "\nAnswer with the call as JSON within <tool_call></tool_call> tags:\n<tool_call>\n{\"name\": \"click\", \"arguments\": {\"x\": X, \"y\": Y}}\n</tool_call>"
}

// markAt is the smallest element of the list whose box holds (x, y).
func markAt(els []screen.Element, x, y int) (screen.Element, bool) {
	var best screen.Element
	found := false
	for _, e := range els {
		b := e.Box
		if x < b.X || y < b.Y || x >= b.X+b.W || y >= b.Y+b.H {
			continue
		}
		if !found || b.W*b.H < best.Box.W*best.Box.H {
			best, found = e, true
		}
	}
	return best, found
}

// namedControls are the roles whose name says what the control is: a
// point on one whose name shares no word with the description landed on
// something else.
var namedControls = map[string]bool{
	"push button": true, "button": true, "toggle button": true, "menu item": true, "check box": true,
	"radio button": true, "link": true, "page tab": true, "check menu item": true, "radio menu item": true,
}

// contradicts reports whether element e, a named control, is not what
// desc describes: no word of its name is in the description.
func contradicts(desc string, e screen.Element) bool {
	if !namedControls[strings.ToLower(e.Role)] {
		return false
	}
	name := words(e.Name)
	if len(name) == 0 {
		return false
	}
	d := map[string]bool{}
	for _, w := range words(desc) {
		d[w] = true
	}
	for _, w := range name {
		if d[w] {
			return false
		}
	}
	return true
}

// words are the lower-case words of s (letters and digits).
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}
