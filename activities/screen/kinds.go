package screen

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/pcflow/pcflow/internal/text"
)

// Action kinds. Each has its row in kinds, the one table of action kinds:
// the tool schema and the text formats' action list
// (activities/agents), the names a policy may use (Kinds) and the
// summaries (Action.Summary) are derived from it; the profiles' mappings
// of foreign formats are checked against it by tests.
const (
	ActOpenApp      = "open_app"
	ActClick        = "click"
	ActDoubleClick  = "double_click"
	ActRightClick   = "right_click"
	ActType         = "type"
	ActSelect       = "select"
	ActDrag         = "drag"
	ActScroll       = "scroll"
	ActHotkey       = "hotkey"
	ActWait         = "wait"
	ActSwitchWindow = "switch_window"
	ActCopy         = "copy"
	ActPaste        = "paste"
	ActDone         = "done"
	ActFail         = "fail"
	// ActAskHuman asks the person for help (Text is the question); the
	// subtask waits for an answer (issue 13) and never sends it to a device.
	ActAskHuman = "ask_human"

	// Input primitives the computer-use protocols (Anthropic's and OpenAI's
	// computer tools, Qwen's computer_use) ask for beyond pcflow's own
	// action space. Coordinates are X and Y; keys are Keys; durations Seconds.
	ActMiddleClick = "middle_click"
	ActTripleClick = "triple_click"
	ActMouseMove   = "mouse_move"
	// ActMouseDown and ActMouseUp press and release the left button where
	// the pointer is (or at X, Y when given): a press-and-hold drag.
	ActMouseDown = "mouse_down"
	ActMouseUp   = "mouse_up"
	// ActHoldKey holds Keys down for Seconds, then releases them.
	ActHoldKey = "hold_key"
	// ActZoom is a closer look at the region (X, Y)–(X2, Y2) of the screen
	// (Anthropic's computer tool, computer_20251124 with enable_zoom): it
	// touches nothing; the next decision sees the region at full
	// resolution.
	ActZoom = "zoom"
)

// KindInfo is one action kind: what the Decision agent is told of it, its
// arguments, and how the engine treats it.
type KindInfo struct {
	// Kind is the name: Action.Kind, the tool's name, a policy rule's.
	Kind string
	// Offered says the kind is in pcflow's own action space: the tool
	// schema and the text formats' action list. The others come only from
	// a computer-use protocol's or a native format's actions.
	Offered bool
	// Doc describes the action to the model (the tool's description).
	Doc string
	// DocSpace says Doc ends by naming the coordinate space in
	// parentheses, which the tool schema fills in: "Drag from one point
	// to another (pixels of the image)."
	DocSpace bool
	// Params are the arguments the tool schema offers, in order.
	Params []Param
	// Point is where the action acts.
	Point Point
	// HoldsKeys says that Keys are modifiers held down while the action
	// runs (shift-click, ctrl-scroll), as the computer-use tools allow.
	HoldsKeys bool
	// Focused says that, where the action names no point, it acts on the
	// focused element (typing, keys, pasting).
	Focused bool
	// Device says the action reaches Device.Act; the others (done, fail,
	// ask_human, zoom) the subtask carries out itself.
	Device bool
	// Inert says the action touches nothing on the computer: a policy's
	// default does not apply to it (specs/plan.PolicyInertKinds).
	Inert bool
	// Alone says the action must be the only one of an answer: it ends
	// the subtask or waits for a person.
	Alone bool

	// summary is the one-line form after any held keys, given the target
	// Summary worked out; nil is the kind and the target.
	summary func(a Action, target string) string
}

// Point says where an action acts.
type Point int

const (
	// PointNone: nowhere in particular (keys, the clipboard, a window).
	PointNone Point = iota
	// PointAt: at (X, Y), an element's centre or a pixel; required.
	PointAt
	// PointOptional: at (X, Y) when given (over an element, into a field).
	PointOptional
	// PointSpan: from (X, Y) to (X2, Y2) (a drag, a selection).
	PointSpan
	// PointRegion: the region (X, Y)–(X2, Y2), touching nothing (zoom).
	PointRegion
)

// Param is one argument of an action's tool, named as Action's JSON field.
type Param struct {
	Name string
	// Type is the JSON Schema type (integer, number, string, boolean,
	// array), or TypeOutputs.
	Type string
	// Items is the type of an array's items.
	Items    string
	Doc      string
	Enum     []string
	Required bool
	// Coordinate says the argument is a coordinate on the axis its Name
	// is: the tool schema says it in the model's coordinate space before
	// Doc ("pixel x in the image, when no element fits").
	Coordinate bool
}

// TypeOutputs is the type of done's outputs: an object of the subtask's
// declared outputs, each a string, all required.
const TypeOutputs = "outputs"

// pointParams are the arguments of an action at an element or a pixel.
var pointParams = []Param{
	{Name: "element", Type: "integer", Doc: "id from the element list"},
	targetParam,
	{Name: "x", Type: "integer", Doc: "when no element fits", Coordinate: true},
	{Name: "y", Type: "integer", Coordinate: true},
}

// targetParam names an action's target by description, for a grounder
// model to place on the screen, where no element of the list fits.
var targetParam = Param{Name: "target", Type: "string", Doc: "a description of what to act on (\"the bold B icon in the toolbar\"), when no element fits; a grounder model finds it on the screen"}

// kinds is the one table of action kinds, pcflow's own action space first
// in the order the tool schema offers it. Read it through Table, Lookup
// and Kinds; it is never changed.
var kinds = []KindInfo{
	{Kind: ActOpenApp, Offered: true, Device: true,
		Doc:     "Open an application by name (desktop entry or program).",
		Params:  []Param{{Name: "app", Type: "string", Required: true}},
		summary: func(a Action, _ string) string { return "open_app " + a.App }},
	{Kind: ActClick, Offered: true, Device: true, Point: PointAt, HoldsKeys: true,
		Doc: "Left-click an element (or pixel).", Params: pointParams},
	{Kind: ActDoubleClick, Offered: true, Device: true, Point: PointAt, HoldsKeys: true,
		Doc: "Double-click an element (or pixel).", Params: pointParams},
	{Kind: ActRightClick, Offered: true, Device: true, Point: PointAt, HoldsKeys: true,
		Doc: "Right-click an element (or pixel).", Params: pointParams},
	{Kind: ActType, Offered: true, Device: true, Point: PointOptional, Focused: true,
		Doc: "Type text (a line break in it is Enter, a tab Tab), optionally into an element first clicked, optionally pressing Enter after.",
		Params: []Param{{Name: "text", Type: "string", Required: true}, {Name: "element", Type: "integer"}, targetParam,
			{Name: "enter", Type: "boolean"}},
		summary: func(a Action, target string) string {
			s := fmt.Sprintf("type %q%s", text.Trunc(a.Text, 40), target)
			if a.Enter {
				s += " ⏎"
			}
			return s
		}},
	{Kind: ActSelect, Offered: true, Device: true, Point: PointSpan,
		Doc: "Select on-screen text from the first occurrence of start to end (found by OCR).",
		Params: []Param{{Name: "start", Type: "string", Doc: "the first words of the text to select", Required: true},
			{Name: "end", Type: "string", Doc: "the last words", Required: true}},
		summary: func(a Action, _ string) string {
			return fmt.Sprintf("select %q…%q", text.Trunc(a.Start, 20), text.Trunc(a.End, 20))
		}},
	{Kind: ActDrag, Offered: true, Device: true, Point: PointSpan, HoldsKeys: true,
		Doc: "Drag from one point to another.", DocSpace: true,
		Params: []Param{{Name: "x", Type: "integer", Required: true}, {Name: "y", Type: "integer", Required: true},
			{Name: "x2", Type: "integer", Required: true}, {Name: "y2", Type: "integer", Required: true},
			{Name: "target", Type: "string", Doc: "a description of what to drag, instead of x and y; a grounder model finds it"},
			{Name: "to", Type: "string", Doc: "a description of where to drop it, instead of x2 and y2"}},
		summary: func(a Action, _ string) string {
			s := fmt.Sprintf("drag (%d,%d)→(%d,%d)", a.X, a.Y, a.X2, a.Y2)
			if a.Target != "" || a.To != "" {
				s += fmt.Sprintf(" %q→%q", text.Trunc(a.Target, 30), text.Trunc(a.To, 30))
			}
			return s
		}},
	{Kind: ActScroll, Offered: true, Device: true, Point: PointOptional, HoldsKeys: true,
		Doc: "Scroll, over an element if given.",
		Params: []Param{{Name: "direction", Type: "string", Enum: []string{"up", "down", "left", "right"}, Required: true},
			{Name: "amount", Type: "integer", Doc: "wheel clicks, default 3"}, {Name: "element", Type: "integer"}},
		summary: func(a Action, target string) string {
			return fmt.Sprintf("scroll %s %d%s", a.Direction, a.Amount, target)
		}},
	{Kind: ActHotkey, Offered: true, Device: true, Focused: true,
		Doc:     `Press a key or key combination, e.g. ["ctrl","s"] or ["enter"].`,
		Params:  []Param{{Name: "keys", Type: "array", Items: "string", Required: true}},
		summary: func(a Action, _ string) string { return "hotkey " + strings.Join(a.Keys, "+") }},
	{Kind: ActWait, Offered: true, Device: true, Inert: true,
		Doc:     "Wait for the screen to settle.",
		Params:  []Param{{Name: "seconds", Type: "number"}},
		summary: func(a Action, _ string) string { return fmt.Sprintf("wait %gs", a.Seconds) }},
	{Kind: ActSwitchWindow, Offered: true, Device: true,
		Doc:     "Bring the window whose title contains title to the front.",
		Params:  []Param{{Name: "title", Type: "string", Required: true}},
		summary: func(a Action, _ string) string { return fmt.Sprintf("switch_window %q", text.Trunc(a.Title, 40)) }},
	{Kind: ActCopy, Offered: true, Device: true, Doc: "Copy the selection to the clipboard."},
	{Kind: ActPaste, Offered: true, Device: true, Focused: true, Doc: "Paste the clipboard."},
	{Kind: ActDone, Offered: true, Inert: true, Alone: true,
		Doc:    "The subtask is complete; report every declared output.",
		Params: []Param{{Name: "outputs", Type: TypeOutputs}},
		summary: func(a Action, _ string) string {
			keys := make([]string, 0, len(a.Outputs))
			for k := range a.Outputs {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			return "done " + strings.Join(keys, ",")
		}},
	{Kind: ActFail, Offered: true, Inert: true, Alone: true,
		Doc:     "The subtask cannot be completed.",
		Params:  []Param{{Name: "reason", Type: "string", Required: true}},
		summary: func(a Action, _ string) string { return fmt.Sprintf("fail %q", text.Trunc(a.Reason, 40)) }},
	{Kind: ActAskHuman, Offered: true, Inert: true, Alone: true,
		Doc:     "Ask the person you work for a question and wait for their answer, when you cannot go on without them.",
		Params:  []Param{{Name: "text", Type: "string", Doc: "the question", Required: true}},
		summary: func(a Action, _ string) string { return fmt.Sprintf("ask_human %q", text.Trunc(a.Text, 60)) }},

	{Kind: ActMiddleClick, Device: true, Point: PointAt, HoldsKeys: true},
	{Kind: ActTripleClick, Device: true, Point: PointAt, HoldsKeys: true},
	{Kind: ActMouseMove, Device: true, Point: PointAt, HoldsKeys: true},
	{Kind: ActMouseDown, Device: true, Point: PointOptional, HoldsKeys: true},
	{Kind: ActMouseUp, Device: true, Point: PointOptional, HoldsKeys: true},
	{Kind: ActHoldKey, Device: true, Focused: true,
		summary: func(a Action, _ string) string {
			return fmt.Sprintf("hold_key %s %gs", strings.Join(a.Keys, "+"), a.Seconds)
		}},
	{Kind: ActZoom, Point: PointRegion, Inert: true,
		summary: func(a Action, _ string) string { return fmt.Sprintf("zoom (%d,%d)–(%d,%d)", a.X, a.Y, a.X2, a.Y2) }},
}

// Table returns the action kinds, pcflow's own action space first in the
// order the tool schema offers it.
func Table() []KindInfo { return slices.Clone(kinds) }

// Lookup returns the action kind named kind.
func Lookup(kind string) (KindInfo, bool) {
	for _, k := range kinds {
		if k.Kind == kind {
			return k, true
		}
	}
	return KindInfo{}, false
}

// Kinds returns every action kind a Decision agent may choose, sorted: the
// names a policy rule's kinds may list.
func Kinds() []string {
	k := make([]string, len(kinds))
	for i, ki := range kinds {
		k[i] = ki.Kind
	}
	sort.Strings(k)
	return k
}

// Offered returns the kinds of pcflow's own action space, in the order the
// tool schema offers them.
func Offered() []string {
	var k []string
	for _, ki := range kinds {
		if ki.Offered {
			k = append(k, ki.Kind)
		}
	}
	return k
}

// Pointed reports whether an action of this kind acts at a point (X, Y).
func Pointed(kind string) bool {
	k, _ := Lookup(kind)
	return k.Point == PointAt
}

// HoldsKeys reports whether Keys on an action of this kind are modifiers
// held down while it runs (shift-click, ctrl-scroll), as the computer-use
// tools allow.
func HoldsKeys(kind string) bool {
	k, _ := Lookup(kind)
	return k.HoldsKeys
}

// Summary is the one-line form shown in the Temporal UI and in history:
// `click #12 "Save"`.
func (a Action) Summary() string {
	k, _ := Lookup(a.Kind)
	target := ""
	if a.Element > 0 {
		target = fmt.Sprintf(" #%d", a.Element)
		if a.Target != "" {
			target += fmt.Sprintf(" %q", text.Trunc(a.Target, 30))
		}
	} else if len(a.Grounded) > 0 && k.Point != PointSpan {
		// Named by description and placed by a grounder.
		target = fmt.Sprintf(" %q at (%d,%d)", text.Trunc(a.Target, 40), a.X, a.Y)
	} else if k.Point == PointAt {
		target = fmt.Sprintf(" (%d,%d)", a.X, a.Y)
	}
	if len(a.Keys) > 0 && k.HoldsKeys {
		b := a
		b.Keys = nil
		return strings.Join(a.Keys, "+") + "+" + b.Summary()
	}
	if k.summary != nil {
		return k.summary(a, target)
	}
	return a.Kind + target
}
