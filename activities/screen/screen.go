// Package screen holds the vocabulary shared by perception, the agents and
// the engine: elements, observations, actions and model usage.
package screen

import (
	"fmt"
	"image"

	"github.com/pcflow/pcflow/internal/text"
)

// Rect is a screen rectangle in pixels.
type Rect struct {
	X int `json:"x"`
	Y int `json:"y"`
	W int `json:"w"`
	H int `json:"h"`
}

// Center returns the middle of r.
func (r Rect) Center() (int, int) { return r.X + r.W/2, r.Y + r.H/2 }

// Union is the smallest rectangle holding r and o.
func (r Rect) Union(o Rect) Rect {
	x0, y0 := min(r.X, o.X), min(r.Y, o.Y)
	x1, y1 := max(r.X+r.W, o.X+o.W), max(r.Y+r.H, o.Y+o.H)
	return Rect{X: x0, Y: y0, W: x1 - x0, H: y1 - y0}
}

// Overlaps reports whether r and o share any pixel.
func (r Rect) Overlaps(o Rect) bool {
	return r.X < o.X+o.W && o.X < r.X+r.W && r.Y < o.Y+o.H && o.Y < r.Y+r.H
}

// Element is one Set-of-Marks entry: an interactive element from the
// accessibility tree, or a text box found by OCR where the tree is silent.
type Element struct {
	ID     int      `json:"id"`
	Role   string   `json:"role"`
	Name   string   `json:"name"`
	Value  string   `json:"value,omitempty"`
	States []string `json:"states,omitempty"`
	Box    Rect     `json:"box"`
	Source string   `json:"source"` // "a11y" or "ocr"
}

// Label renders the element as the model sees it in the element list.
func (e Element) Label() string {
	s := fmt.Sprintf("[%d] %s %q", e.ID, e.Role, e.Name)
	if e.Value != "" && e.Value != e.Name {
		s += fmt.Sprintf(" value=%q", text.Trunc(e.Value, 80))
	}
	return s + fmt.Sprintf(" at (%d,%d %dx%d)", e.Box.X, e.Box.Y, e.Box.W, e.Box.H)
}

// Word is a word found by OCR, with its box in screen coordinates.
type Word struct {
	Text string  `json:"text"`
	Box  Rect    `json:"box"`
	Conf float64 `json:"conf"`
}

// Screen is a raw observation of a device.
type Screen struct {
	Image    image.Image
	Elements []Element // numbered Set-of-Marks, IDs from 1
	// Words are OCR words, when the device ran OCR during Observe; the
	// activities read them on demand through activities.TextReader.
	Words        []Word
	ActiveWindow string
	Windows      []string
	// TitleBars are the title bars the window manager draws, with the
	// titles they show: pixels no element and no OCR word may account
	// for, masked when a title holds a secret.
	TitleBars []TitleBar
	Clipboard string
	// App is the foreground application (its window's WM_CLASS class,
	// such as "Galculator" or "firefox"), for policies.
	App string
}

// TitleBar is a window's title bar on the screen.
type TitleBar struct {
	Title string
	Box   Rect
}

// Observation is what history carries about a Screen: references to the
// artifacts, never the pixels.
type Observation struct {
	Screenshot   string   `json:"screenshot"`          // artifact ref of the raw screenshot
	Annotated    string   `json:"annotated,omitempty"` // artifact ref of the Set-of-Marks image
	Elements     string   `json:"elements"`            // artifact ref of the element list (JSON)
	Width        int      `json:"width"`
	Height       int      `json:"height"`
	ActiveWindow string   `json:"active_window,omitempty"`
	Windows      []string `json:"windows,omitempty"`
	ElementCount int      `json:"element_count"`
}

// Action is one typed action. Coordinates are in screen space by the time an
// action reaches a Device.
type Action struct {
	Kind      string            `json:"kind"`
	Element   int               `json:"element,omitempty"`
	X         int               `json:"x,omitempty"`
	Y         int               `json:"y,omitempty"`
	X2        int               `json:"x2,omitempty"`
	Y2        int               `json:"y2,omitempty"`
	Text      string            `json:"text,omitempty"`
	Enter     bool              `json:"enter,omitempty"`
	Keys      []string          `json:"keys,omitempty"`
	Direction string            `json:"direction,omitempty"`
	Amount    int               `json:"amount,omitempty"`
	Start     string            `json:"start,omitempty"`
	End       string            `json:"end,omitempty"`
	App       string            `json:"app,omitempty"`
	Title     string            `json:"title,omitempty"`
	Seconds   float64           `json:"seconds,omitempty"`
	Outputs   map[string]string `json:"outputs,omitempty"`
	Reason    string            `json:"reason,omitempty"`
	// Target is the element's label (for summaries), or, for an action
	// named by description, the description a grounder placed it by.
	Target string `json:"target,omitempty"`
	// To describes a drag's end when the drag is named by description.
	To string `json:"to,omitempty"`
	// Grounded says how a grounder model placed an action named by
	// description: one entry per description (a drag's start, then its
	// end), with its answer and the point on the screen.
	Grounded []Grounding `json:"grounded,omitempty"`
}

// Grounding is one description a grounder model placed on the screen.
type Grounding struct {
	Describe string `json:"describe"`
	Profile  string `json:"profile"`
	Model    string `json:"model"`
	// Answer is the grounder's answer, as it gave it (cut to 300 bytes).
	Answer string `json:"answer"`
	// X and Y are the point on the screen, mapped through the grounder's
	// coordinate space.
	X int `json:"x"`
	Y int `json:"y"`
}

// Usage is the token and latency account of model calls.
type Usage struct {
	Calls            int   `json:"calls"`
	PromptTokens     int   `json:"prompt_tokens"`
	CompletionTokens int   `json:"completion_tokens"`
	LatencyMS        int64 `json:"latency_ms"`
	// ByModel splits the calls and tokens by the model that answered
	// them (the model name each request asked for).
	ByModel map[string]ModelUsage `json:"by_model,omitempty"`
}

// ModelUsage is one model's share of a Usage.
type ModelUsage struct {
	Calls            int `json:"calls"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Add adds o to u.
func (u *Usage) Add(o Usage) {
	u.Calls += o.Calls
	u.PromptTokens += o.PromptTokens
	u.CompletionTokens += o.CompletionTokens
	u.LatencyMS += o.LatencyMS
	for m, mu := range o.ByModel {
		u.AddModel(m, mu)
	}
}

// AddModel accounts o to model m (and only to m's share: the totals are
// the caller's).
func (u *Usage) AddModel(m string, o ModelUsage) {
	if u.ByModel == nil {
		u.ByModel = map[string]ModelUsage{}
	}
	mu := u.ByModel[m]
	mu.Calls += o.Calls
	mu.PromptTokens += o.PromptTokens
	mu.CompletionTokens += o.CompletionTokens
	u.ByModel[m] = mu
}

// Total is prompt plus completion tokens.
func (u Usage) Total() int { return u.PromptTokens + u.CompletionTokens }

// Reflection verdicts.
const (
	VerdictCorrect  = "correct"
	VerdictWrong    = "wrong"
	VerdictNoEffect = "no_effect"
)

// Outcomes of a step whose action a person or the policy stopped, or that
// asked a person (issue 13); they take the reflection's place.
const (
	VerdictDenied     = "denied"      // the policy denied the action: it did not run
	VerdictRejected   = "rejected"    // a person rejected it (or nobody approved it in time): it did not run
	VerdictAnswered   = "answered"    // ask_human: the person answered
	VerdictUnanswered = "unanswered"  // ask_human: no answer in time
	VerdictHandedBack = "handed_back" // a person had control of the device and handed it back
	VerdictLooked     = "looked"      // zoom: the agent looked closer; the screen is unchanged by design
	// VerdictPending: the pipelined loop's Reflection is still judging
	// the step while the next Decision and this step's Progress run.
	VerdictPending = "pending"
)

// Reflected reports whether v is a Reflection agent's verdict (correct,
// wrong, no_effect), not one of the outcomes above.
func Reflected(v string) bool {
	return v == VerdictCorrect || v == VerdictWrong || v == VerdictNoEffect
}
