package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"reflect"
	"strings"
	"text/template"

	"golang.org/x/image/draw"

	openai "github.com/sashabaranov/go-openai"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/agents/profile"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/text"
)

// DecisionProfile is the profile the Decision agent speaks: Config.Profile,
// or (when unset) openai-tools with the legacy ImageMaxSide and
// TextActions settings.
func (c Config) DecisionProfile() profile.Profile {
	if c.Profile.Name != "" {
		return c.Profile
	}
	var p profile.Profile
	for _, b := range profile.Builtins() {
		if b.Name == profile.Default {
			p = b
		}
	}
	p.Sizing.MaxSide = c.ImageMaxSide
	if c.TextActions {
		p.Protocol, p.Format = profile.ProtoText, profile.FormatActionJSON
	}
	return p
}

var _ activities.ProfiledModel = (*Client)(nil)

// ForTask returns the client for a task whose profiles block names
// profiles by agent (decision, reflection, progress, manager, judge, user,
// grounder): each agent this worker was not given a profile of (by a flag
// or the environment) speaks the task's. Names are resolved by
// Config.Profiles, whose file is read once.
func (c *Client) ForTask(names map[string]string) (activities.Model, error) {
	cfg := c.cfg
	got, err := cfg.Profiles.Resolve(Chosen{Decision: cfg.Profile, Roles: cfg.Roles}, names, "the task's profiles block")
	if err != nil {
		return nil, err
	}
	cfg.Profile, cfg.Roles = got.Decision, got.Roles
	if reflect.DeepEqual(cfg, c.cfg) {
		return c, nil
	}
	return &Client{cfg: cfg, api: c.api}, nil
}

// wire is what a profile changes in one Decision request: the image sent,
// the frame its coordinates are read in, the words for those coordinates.
type wire struct {
	p     profile.Profile
	frame profile.Frame
	img   []byte
	mime  string
	hint  string
	zoom  *zoomPart // the previous step's zoom, sent beside the screenshot
	// grounded says a grounder is configured: targets may be named by
	// description.
	grounded bool
}

// zoomPart is a zoom's crop as sent: its label and image.
type zoomPart struct {
	label string
	img   []byte
	mime  string
}

// maxZoom bounds how much a zoom's crop is enlarged.
const maxZoom = 4.0

// withZoom adds the previous step's zoom to w: the crop scaled to fit the
// image size the profile sends (enlarged at most maxZoom times), labelled
// with its region in the model's coordinates.
func (c *Client) withZoom(w wire, z *agent.ZoomView) (wire, error) {
	if z == nil || z.Image == nil {
		return w, nil
	}
	b := z.Image.Bounds()
	k := min(float64(w.frame.ImageW)/float64(b.Dx()), float64(w.frame.ImageH)/float64(b.Dy()), maxZoom)
	img := z.Image
	if nw, nh := max(1, int(float64(b.Dx())*k)), max(1, int(float64(b.Dy())*k)); nw != b.Dx() || nh != b.Dy() {
		dst := image.NewRGBA(image.Rect(0, 0, nw, nh))
		draw.CatmullRom.Scale(dst, dst.Bounds(), z.Image, b, draw.Src, nil)
		img = dst
	}
	data, mime, _, _, _, err := EncodeImage(img, 0, c.cfg.ImageFormat, c.cfg.JPEGQuality)
	if err != nil {
		return w, fmt.Errorf("encode zoom: %w", err)
	}
	r, err := w.p.BoxFromScreen(z.Region, w.frame)
	if err != nil {
		return w, err
	}
	w.zoom = &zoomPart{img: data, mime: mime,
		label: fmt.Sprintf("The zoom you asked for on the previous step: the region (%d,%d)–(%d,%d) of that screen, enlarged (the screenshot above is the screen now):", r.X, r.Y, r.X+r.W, r.Y+r.H)}
	return w, nil
}

// newWire scales and encodes the screenshot as the profile wants it.
func (c *Client) newWire(shot image.Image) (wire, error) {
	p := c.cfg.DecisionProfile()
	s, err := c.encodeFor(p, shot)
	if err != nil {
		return wire{}, err
	}
	return wire{p: p, frame: s.frame, img: s.data, mime: s.mime, hint: p.CoordinateHint(s.frame), grounded: c.cfg.Roles[agent.RoleGrounder].Name != ""}, nil
}

// text reports whether the answer comes as text rather than tool calls.
func (w wire) text() bool { return w.p.Protocol == profile.ProtoText }

// computer reports whether the profile speaks a computer-use protocol
// rather than chat completions.
func (w wire) computer() bool {
	return w.p.Protocol == profile.ProtoAnthropicComputer || w.p.Protocol == profile.ProtoOpenAIComputer
}

// system is a system prompt (tDecisionSystem, tCalibrateSystem) rendered
// with the profile's coordinates and, for text protocols, its answer
// format.
func (w wire) system(t *template.Template) string {
	s := renderSystem(t, w.hint)
	if w.grounded {
		s += describedTargets
	}
	if w.text() {
		s += profile.FormatInstructions(w.p.Format, w.hint)
	}
	return s
}

// describedTargets is what the Decision system prompt adds when a grounder
// is configured.
const describedTargets = `
When no element in the list fits (a canvas, an icon the list does not name), name the target by description instead: give target (and, for a drag, to) in place of element or x and y, e.g. click {"target": "the bold B icon in the toolbar"}; a grounder model finds it on the screen.`

// elements lists the elements with their boxes in the model's space, so the
// list and the answers share one coordinate system.
func (w wire) elements(els []screen.Element) []screen.Element {
	out := make([]screen.Element, len(els))
	for i, e := range els {
		if b, err := w.p.BoxFromScreen(e.Box, w.frame); err == nil {
			e.Box = b
		}
		out[i] = e
	}
	return out
}

// tools is pcflow's action space with the profile's coordinate words, or
// nil when the profile answers in text.
func (w wire) tools(outKeys []string) []openai.Tool {
	if w.text() {
		return nil
	}
	return describedTools(outKeys, w.grounded, w.hint)
}

// reply is an answer of the Decision agent's kind (Decide, Point, the
// grounder's) as its protocol's transport read it: the actions, the
// safety checks on them, or what is wrong with it (an invalid answer, to
// be re-asked).
type reply struct {
	a      profile.Answer
	checks []agent.SafetyCheck
	err    error
}

// read is the chat transport send with its answers read in w's profile
// (tool calls, or text in its format).
func (w wire) read(send transport[openai.ChatCompletionMessage]) transport[reply] {
	return func(ctx context.Context, feedback string) (reply, error) {
		msg, err := send(ctx, feedback)
		if err != nil {
			return reply{}, err
		}
		a, err := w.answer(msg)
		return reply{a: a, err: err}, nil
	}
}

// answer reads the model's actions from a reply: tool calls, or text in
// the profile's format (also for a tools profile whose server returned the
// call as text, as vLLM does without a tool parser).
func (w wire) answer(msg openai.ChatCompletionMessage) (profile.Answer, error) {
	if len(msg.ToolCalls) > 0 {
		rest, think := profile.StripThink(msg.Content)
		a := profile.Answer{Thought: rest}
		if a.Thought == "" {
			a.Thought = think
		}
		for _, tc := range msg.ToolCalls {
			args := map[string]any{}
			s := strings.TrimSpace(tc.Function.Arguments)
			if s != "" {
				if err := json.Unmarshal([]byte(s), &args); err != nil {
					return a, fmt.Errorf("arguments of %s are not valid JSON: %s", tc.Function.Name, text.Trunc(s, 120))
				}
			}
			a.Calls = append(a.Calls, profile.Call{Name: tc.Function.Name, Args: args})
		}
		return a, nil
	}
	format := w.p.Format
	if format == "" {
		return profile.Answer{Thought: strings.TrimSpace(msg.Content)}, fmt.Errorf("no tool call in the answer; call exactly one tool")
	}
	a, err := profile.ParseText(format, msg.Content)
	if err != nil && !w.text() {
		return a, fmt.Errorf("no tool call in the answer; call exactly one tool (%v)", err)
	}
	return a, err
}

// actions builds every action of an answer, in order: the first is the
// step's action, the rest its batch. An action that must come alone
// (done, fail, ask_human) is the answer's only one.
func (w wire) actions(a profile.Answer, in agent.DecisionInput, outKeys []string) ([]screen.Action, error) {
	if len(a.Calls) == 0 {
		return nil, fmt.Errorf("no action in the answer; give at least one")
	}
	var out []screen.Action
	for i, c := range a.Calls {
		if k, _ := screen.Lookup(c.Name); k.Alone && len(a.Calls) > 1 {
			return nil, fmt.Errorf("%s must be the only action of an answer; it was action %d of %d", c.Name, i+1, len(a.Calls))
		}
		c = profile.DoneOutputs(c, outKeys)
		b, err := json.Marshal(c.Args)
		if err != nil {
			return nil, err
		}
		act, err := buildAction(c.Name, b, in, w.toScreen, outKeys)
		if err != nil {
			if len(a.Calls) > 1 {
				return nil, fmt.Errorf("action %d of %d: %w", i+1, len(a.Calls), err)
			}
			return nil, err
		}
		out = append(out, act)
	}
	return out, nil
}

// toScreen maps a point the model gave to the screen, or says why not.
func (w wire) toScreen(x, y float64) (int, int, error) { return w.p.ToScreen(x, y, w.frame) }
