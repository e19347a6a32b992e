package agent_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/screen"
)

// TestAnswerLine: the answer comes back out of its line whatever the
// question and the answer hold, the separator included.
func TestAnswerLine(t *testing.T) {
	tests := []struct {
		name, question, answer string
	}{
		{"plain", "Which file?", "memo.txt"},
		{"quotes", `Save as "a" or "b"?`, `"b", please`},
		{"separator in the question", `Say "; the person answered: " back?`, "no"},
		{"separator in the answer", "Which?", "this; the person answered: that"},
		{"empty answer", "Anything?", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := agent.AnswerLine(tt.question, tt.answer)
			got, ok := agent.Answer(line)
			if !ok || got != tt.answer {
				t.Errorf("Answer(%q) = %q, %v, want %q, true", line, got, ok, tt.answer)
			}
		})
	}
	for _, line := range []string{"Nobody answered.", `You asked "unterminated; the person answered: x`, `You asked "q" and got nothing`} {
		if got, ok := agent.Answer(line); ok {
			t.Errorf("Answer(%q) = %q, true, want false", line, got)
		}
	}
}

// TestMarksShowWhatTheListShows: a value equal to the name is left out
// and a long one cut, as screen.Element.Label lists them.
func TestMarksShowWhatTheListShows(t *testing.T) {
	long := strings.Repeat("x", 100)
	els := []screen.Element{
		{ID: 1, Role: "push button", Name: "OK", Value: "OK", Box: screen.Rect{X: 1, Y: 2, W: 3, H: 4}, Source: "a11y", States: []string{"focused"}},
		{ID: 2, Role: "text", Value: long},
	}
	want := []agent.Mark{
		{ID: 1, Role: "push button", Name: "OK", Box: screen.Rect{X: 1, Y: 2, W: 3, H: 4}},
		{ID: 2, Role: "text", Value: strings.Repeat("x", 80) + "…"},
	}
	got := agent.Marks(els)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Marks (-want +got):\n%s", diff)
	}
	for i, e := range els {
		if v := got[i].Value; v != "" && !strings.Contains(e.Label(), v) {
			t.Errorf("mark %d value %q is not what the list shows: %s", e.ID, v, e.Label())
		}
	}
}
