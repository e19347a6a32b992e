package workflows

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
)

// TestFactsOfReadsAsDecide: an action Decide gave no facts for is seen as
// Decide sees one (activities.ActionFacts): select, done and fail carry
// their text, and a secret is a placeholder by the pattern the device
// refuses unresolved ones by, not any text that starts like one.
func TestFactsOfReadsAsDecide(t *testing.T) {
	ph := plan.SecretPlaceholder("pw")
	tests := []struct {
		name   string
		action screen.Action
		want   plan.ActionFacts
	}{
		{"select", screen.Action{Kind: screen.ActSelect, Start: "Dear", End: "regards"},
			plan.ActionFacts{Kind: "select", Text: "Dear…regards"}},
		{"done", screen.Action{Kind: screen.ActDone, Outputs: map[string]string{"b": "2", "a": "1"}},
			plan.ActionFacts{Kind: "done", Text: "a=1\nb=2"}},
		{"done with a secret", screen.Action{Kind: screen.ActDone, Outputs: map[string]string{"a": ph}},
			plan.ActionFacts{Kind: "done", Text: "a=" + ph, Sensitive: true}},
		{"fail", screen.Action{Kind: screen.ActFail, Reason: "no network"},
			plan.ActionFacts{Kind: "fail", Text: "no network"}},
		{"type a placeholder", screen.Action{Kind: screen.ActType, Element: 3, Target: "Password", Text: "pw: " + ph},
			plan.ActionFacts{Kind: "type", ElementID: 3, Target: "Password", Text: "pw: " + ph, Sensitive: true}},
		{"type what only starts like one", screen.Action{Kind: screen.ActType, Text: "{{secret.pw is typed as it is"},
			plan.ActionFacts{Kind: "type", Text: "{{secret.pw is typed as it is"}},
		{"click with a modifier", screen.Action{Kind: screen.ActClick, Element: 4, Target: "Send", Keys: []string{"ctrl"}},
			plan.ActionFacts{Kind: "click", ElementID: 4, Target: "Send", Text: "ctrl"}},
		{"open_app", screen.Action{Kind: screen.ActOpenApp, App: "xterm"},
			plan.ActionFacts{Kind: "open_app", Text: "xterm", App: "xterm"}},
	}
	for _, tt := range tests {
		tt.want.Device = "desk"
		if diff := cmp.Diff(tt.want, factsOf(tt.action, "desk")); diff != "" {
			t.Errorf("%s: factsOf(%s) mismatch (-want +got):\n%s", tt.name, tt.action.Summary(), diff)
		}
	}
}
