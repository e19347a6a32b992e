package x11

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/specs/plan"
)

// TestScreenTextOfOneTerminal: two xterms side by side show different
// build results. screen_text with window reads only the named terminal
// (xterm has no accessibility tree: OCR of its client area), so "FAILED"
// shown by the other one does not count; the whole screen's text holds
// both; a window that is not open fails, naming the open ones.
func TestScreenTextOfOneTerminal(t *testing.T) {
	dev := desktop(t)
	ctx := context.Background()
	term := func(title, out, geometry string) {
		appWindow(t, dev, title, "xterm", "-T", title, "-fa", "DejaVu Sans Mono", "-fs", "14", "-geometry", geometry,
			"-e", "sh", "-c", "printf '%s\\n' '"+out+"'; sleep 600")
	}
	term("Build One", "make: build SUCCEEDED", "36x8+40+80")
	term("Build Two", "make: build FAILED", "36x8+720+80")

	a := &activities.Activities{Device: dev}
	check := func(window string, contains, notContains *string) *activities.CheckResult {
		t.Helper()
		r, err := a.Check(ctx, activities.CheckInput{Name: "out", Kind: plan.CheckScreenText, Window: window, Contains: contains, NotContains: notContains})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	s := func(v string) *string { return &v }
	// Each terminal has drawn its line (a window can show before its text).
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		if check("Build One", s("SUCCEEDED"), nil).Passed && check("Build Two", s("FAILED"), nil).Passed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the terminals' text never showed")
		}
	}
	for _, tt := range []struct {
		window, contains, notContains string
		passed                        bool
		detail                        string
	}{
		{"build one", "SUCCEEDED", "FAILED", true, "ok"},
		{"Build Two", "SUCCEEDED", "", false, "does not contain"},
		{"Build Two", "FAILED", "SUCCEEDED", true, "ok"},
		{"", "SUCCEEDED", "FAILED", false, "contains"}, // the whole screen shows both
		{"Build Three", "SUCCEEDED", "", false, `no window title contains "Build Three" (open: `},
	} {
		var c, nc *string
		if tt.contains != "" {
			c = s(tt.contains)
		}
		if tt.notContains != "" {
			nc = s(tt.notContains)
		}
		r := check(tt.window, c, nc)
		if r.Passed != tt.passed || !strings.Contains(r.Detail, tt.detail) {
			t.Errorf("screen_text window=%q contains=%q not_contains=%q = passed=%v %q, want passed=%v with %q",
				tt.window, tt.contains, tt.notContains, r.Passed, r.Detail, tt.passed, tt.detail)
		}
	}
}
