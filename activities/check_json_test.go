package activities_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/specs/plan"
)

// TestCheckJSON runs json checks on files as VS Code and a person leave
// them: subset holds when the file's object has each key with a value
// Python's == finds equal (50.0 is 50, true is 1; a nested object must
// have the same keys), has_item when an item of the file's list is equal,
// the list read past a first-line comment; a file that is not JSON (a
// comment in settings.json) fails, as the benchmark's json.load does; a
// Thunderbird prefs.js reads as an object of its user_pref lines, for
// subset, key_matches and excludes.
func TestCheckJSON(t *testing.T) {
	dir := t.TempDir()
	file := func(name, body string) *plan.Expr {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return &plan.Expr{Kind: plan.ExprLit, Lit: path}
	}
	const want = `{"editor.wordWrapColumn": 50, "files.exclude": {"**/__pycache__": true}, "debug.focusEditorOnBreak": false}`
	const prefs = "// Mozilla User Preferences\n\n" +
		`user_pref("extensions.activeThemeID", "thunderbird-compact-dark@mozilla.org");` + "\n" +
		`user_pref("mail.biff.interval", 5);` + "\n" +
		`user_pref("mail.identity.id1.auto_quote", false);` + "\n" +
		`user_pref("mail.identity.id1.htmlSigText", "Anonym\nXYZ Lab");` + "\n"
	const binding = `{"key": "ctrl+j", "command": "workbench.action.focusActiveEditorGroup", "when": "terminalFocus"}`
	for _, tt := range []struct {
		name, body string
		cond       plan.JSON
		pass       bool
		detail     string
	}{
		{"settings as wanted", `{"workbench.colorTheme": "Default Dark+", "editor.wordWrapColumn": 50.0, "files.exclude": {"**/__pycache__": 1}, "debug.focusEditorOnBreak": 0}`,
			plan.JSON{Subset: want}, true, "holds 3 keys as expected"},
		{"a key missing", `{"editor.wordWrapColumn": 50, "files.exclude": {"**/__pycache__": true}}`,
			plan.JSON{Subset: want}, false, `has no key "debug.focusEditorOnBreak" (want false)`},
		{"another value", `{"editor.wordWrapColumn": 80, "files.exclude": {"**/__pycache__": true}, "debug.focusEditorOnBreak": false}`,
			plan.JSON{Subset: want}, false, `"editor.wordWrapColumn" is 80, want 50`},
		{"nested object with a key more", `{"editor.wordWrapColumn": 50, "files.exclude": {"**/__pycache__": true, "**/.git": true}, "debug.focusEditorOnBreak": false}`,
			plan.JSON{Subset: want}, false, `"files.exclude" is {"**/.git":true,"**/__pycache__":true}, want {"**/__pycache__":true}`},
		{"a comment", "// mine\n" + `{"editor.wordWrapColumn": 50}`, plan.JSON{Subset: want}, false, "is not JSON"},
		{"a list", `[1]`, plan.JSON{Subset: want}, false, "holds a list, not an object"},
		{"binding after VS Code's comment", "// Place your key bindings in this file to override the defaults\n[" + binding + `, {"key": "ctrl+k", "command": "x"}]`,
			plan.JSON{HasItem: binding}, true, "holds"},
		{"binding with a key more", "[" + strings.TrimSuffix(binding, "}") + `, "args": 1}]`, plan.JSON{HasItem: binding}, false, "none of the 1 items"},
		{"no list", `{"key": "ctrl+j"}`, plan.JSON{HasItem: binding}, false, "holds an object, not a list, with or without its first line"},
		{"thunderbird prefs", prefs, plan.JSON{Format: "prefs", Subset: `{"mail.identity.id1.auto_quote": false}`,
			KeyMatches: `{"extensions.activeThemeID": "dark", "mail.identity.id1.htmlSigText": "(?s)Anonym.+XYZ Lab"}`,
			Excludes:   `{"mail.server.default.autosync_offline_stores": false}`}, true, "holds 4 keys as expected"},
		{"prefs with another value", prefs, plan.JSON{Format: "prefs", Subset: `{"mail.identity.id1.auto_quote": true}`}, false,
			`"mail.identity.id1.auto_quote" is false, want true`},
		{"prefs with an excluded value", prefs + "user_pref(\"mail.server.default.autosync_offline_stores\", false);\n",
			plan.JSON{Format: "prefs", Excludes: `{"mail.server.default.autosync_offline_stores": false}`}, false, "which it must not be"},
		{"prefs without the key", prefs, plan.JSON{Format: "prefs", KeyMatches: `{"browser.theme": "dark"}`}, false, `has no key "browser.theme"`},
		{"prefs with a number for a pattern", prefs, plan.JSON{Format: "prefs", KeyMatches: `{"mail.biff.interval": "5"}`}, false, "want a string matching"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cond := tt.cond
			in, err := activities.NewCheckInput(plan.Check{Name: "c", Kind: plan.CheckJSON, Path: file(strings.ReplaceAll(tt.name, " ", "_")+".json", tt.body), JSON: &cond}, nil)
			if err != nil {
				t.Fatal(err)
			}
			r, err := (&activities.Activities{Device: fakedevice.New()}).Check(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if r.Passed != tt.pass || !strings.Contains(r.Detail, tt.detail) {
				t.Errorf("json check on %s = %v %q, want %v with %q", tt.body, r.Passed, r.Detail, tt.pass, tt.detail)
			}
		})
	}
}
