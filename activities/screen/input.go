package screen

// Input primitives the computer-use protocols (Anthropic's and OpenAI's
// computer tools, Qwen's computer_use) ask for beyond pcflow's first
// action space. Coordinates are X and Y; keys are Keys; durations Seconds.
const (
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

// Pointed reports whether an action of this kind acts at a point (X, Y).
func Pointed(kind string) bool {
	switch kind {
	case ActClick, ActDoubleClick, ActRightClick, ActMiddleClick, ActTripleClick, ActMouseMove:
		return true
	}
	return false
}

// HoldsKeys reports whether Keys on an action of this kind are modifiers
// held down while it runs (shift-click, ctrl-scroll), as the computer-use
// tools allow.
func HoldsKeys(kind string) bool {
	return Pointed(kind) || kind == ActScroll || kind == ActDrag || kind == ActMouseDown || kind == ActMouseUp
}
