package activities

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
)

// TestActionFacts: each action's facts name the element it acts on (by
// id, by the smallest box holding its point, or the focused element for
// keys), the foreground window and application, and its text with secrets
// redacted and marked sensitive.
func TestActionFacts(t *testing.T) {
	s := &screen.Screen{
		ActiveWindow: "Compose: report", App: "Thunderbird", Windows: []string{"Compose: report", "Inbox - Mail"},
		Elements: []screen.Element{
			{ID: 1, Role: "panel", Name: "toolbar", Box: screen.Rect{X: 0, Y: 0, W: 400, H: 60}},
			{ID: 2, Role: "push button", Name: "Send", Box: screen.Rect{X: 10, Y: 10, W: 60, H: 30}},
			{ID: 3, Role: "text", Name: "To", States: []string{"editable", "focused"}, Box: screen.Rect{X: 0, Y: 100, W: 400, H: 30}},
		},
	}
	red := NewRedactor(map[string]string{"password": "hunter2hunter2"})
	ph := plan.SecretPlaceholder("password")
	tests := []struct {
		name   string
		action screen.Action
		want   plan.ActionFacts
	}{
		{"click by id", screen.Action{Kind: screen.ActClick, Element: 2, X: 40, Y: 25},
			plan.ActionFacts{Kind: "click", ElementID: 2, Target: "Send", Role: "push button"}},
		{"click at a point: the smallest box", screen.Action{Kind: screen.ActClick, X: 15, Y: 12},
			plan.ActionFacts{Kind: "click", ElementID: 2, Target: "Send", Role: "push button"}},
		{"click at a point in the panel only", screen.Action{Kind: screen.ActClick, X: 300, Y: 12},
			plan.ActionFacts{Kind: "click", ElementID: 1, Target: "toolbar", Role: "panel"}},
		{"click at a point on nothing", screen.Action{Kind: screen.ActClick, X: 700, Y: 500},
			plan.ActionFacts{Kind: "click"}},
		{"right edge is outside", screen.Action{Kind: screen.ActClick, X: 70, Y: 12},
			plan.ActionFacts{Kind: "click", ElementID: 1, Target: "toolbar", Role: "panel"}},
		{"type a placeholder into the focused field", screen.Action{Kind: screen.ActType, Text: "login " + ph},
			plan.ActionFacts{Kind: "type", ElementID: 3, Target: "To", Role: "text", Text: "login " + ph, Sensitive: true}},
		{"type the secret's value itself", screen.Action{Kind: screen.ActType, Element: 3, Text: "hunter2hunter2"},
			plan.ActionFacts{Kind: "type", ElementID: 3, Target: "To", Role: "text", Text: ph, Sensitive: true}},
		{"plain typing", screen.Action{Kind: screen.ActType, Element: 3, Text: "boss@example.com"},
			plan.ActionFacts{Kind: "type", ElementID: 3, Target: "To", Role: "text", Text: "boss@example.com"}},
		{"hotkey", screen.Action{Kind: screen.ActHotkey, Keys: []string{"ctrl", "Return"}},
			plan.ActionFacts{Kind: "hotkey", ElementID: 3, Target: "To", Role: "text", Text: "ctrl+Return"}},
		{"open_app: the app it starts", screen.Action{Kind: screen.ActOpenApp, App: "xterm"},
			plan.ActionFacts{Kind: "open_app", Text: "xterm", App: "xterm"}},
		{"switch_window: the window it brings up", screen.Action{Kind: screen.ActSwitchWindow, Title: "inbox"},
			plan.ActionFacts{Kind: "switch_window", Text: "inbox", Window: "Inbox - Mail"}},
		{"done with outputs", screen.Action{Kind: screen.ActDone, Outputs: map[string]string{"b": "2", "a": "hunter2hunter2"}},
			plan.ActionFacts{Kind: "done", Text: "a=" + ph + "\nb=2", Sensitive: true}},
		{"an unknown element id", screen.Action{Kind: screen.ActClick, Element: 99},
			plan.ActionFacts{Kind: "click"}},
		{"select: its span", screen.Action{Kind: screen.ActSelect, Start: "Dear", End: "hunter2hunter2", X: 5, Y: 105, X2: 90, Y2: 105},
			plan.ActionFacts{Kind: "select", ElementID: 3, Target: "To", Role: "text", Text: "Dear…" + ph, Sensitive: true}},
		{"fail: its reason", screen.Action{Kind: screen.ActFail, Reason: "the password HUNTER2 hunter2 was refused"},
			plan.ActionFacts{Kind: "fail", Text: "the password " + ph + " was refused", Sensitive: true}},
		{"only the start of a placeholder", screen.Action{Kind: screen.ActType, Element: 3, Text: "{{secret.password"},
			plan.ActionFacts{Kind: "type", ElementID: 3, Target: "To", Role: "text", Text: "{{secret.password"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ActionFacts(s, red, tt.action)
			if tt.want.Window == "" {
				tt.want.Window = "Compose: report"
			}
			if tt.want.App == "" {
				tt.want.App = "Thunderbird"
			}
			if diff := cmp.Diff([]plan.ActionFacts{tt.want}, got); diff != "" {
				t.Errorf("ActionFacts(%s) mismatch (-want +got):\n%s", tt.action.Summary(), diff)
			}
		})
	}
	// With no screen (the workflow's reading of an action Decide gave no
	// facts for): the element the action names, no window or application.
	got := ActionFacts(nil, nil, screen.Action{Kind: screen.ActClick, Element: 2, Target: "Send"}, screen.Action{Kind: screen.ActFail, Reason: "stuck"})
	if diff := cmp.Diff([]plan.ActionFacts{{Kind: "click", ElementID: 2, Target: "Send"}, {Kind: "fail", Text: "stuck"}}, got); diff != "" {
		t.Errorf("ActionFacts without a screen mismatch (-want +got):\n%s", diff)
	}
	// A batch gets one fact per action, in order.
	got = ActionFacts(s, red, screen.Action{Kind: screen.ActClick, Element: 3}, screen.Action{Kind: screen.ActType, Text: "x"}, screen.Action{Kind: screen.ActClick, Element: 2})
	if len(got) != 3 || got[0].Target != "To" || got[1].Kind != "type" || got[2].Target != "Send" {
		t.Errorf("batch facts = %+v", got)
	}
}
