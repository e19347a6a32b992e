package activities

import (
	"strings"
	"testing"

	"github.com/pcflow/pcflow/activities/screen"
)

// The recording saw a step's effect on its way (Save As still in front
// after its Save click, then a wait): a replay whose screen already shows
// where the recording settled after the wait confirms the step; a screen
// that shows neither drifted.
func TestReplayEffectMaySettleAhead(t *testing.T) {
	in := ReplayStepInput{Step: 7, Confirms: 6,
		Expect:  &ReplayExpect{Window: "Save As"},
		Settled: []ReplayExpect{{Window: "note.txt - Mousepad"}}}
	if msg, _ := drift(&screen.Screen{ActiveWindow: "Save As"}, in); msg != "" {
		t.Errorf("the recorded effect itself: drift %q", msg)
	}
	if msg, _ := drift(&screen.Screen{ActiveWindow: "note.txt - Mousepad"}, in); msg != "" {
		t.Errorf("where the recording settled after its wait: drift %q", msg)
	}
	msg, effect := drift(&screen.Screen{ActiveWindow: "Untitled 1 - Mousepad"}, in)
	if !effect || !strings.Contains(msg, `showed the window "Save As" in front`) {
		t.Errorf("neither: drift %q (effect %v), want the recorded effect named", msg, effect)
	}
	in.Settled = nil
	if msg, _ := drift(&screen.Screen{ActiveWindow: "note.txt - Mousepad"}, in); msg == "" {
		t.Error("without the wait's state, a screen past the recorded effect is a drift")
	}
}
