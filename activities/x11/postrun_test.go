package x11

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
)

// TestPostRunAndElementCheckOnMousepad: on a real desktop, the element
// check finds mousepad's editable text area (and names it as a near miss
// when asked for a state it lacks); then a post-run step presses ctrl+s in
// the editor's window and closes it, and the typed text is on disk.
func TestPostRunAndElementCheckOnMousepad(t *testing.T) {
	dev := desktop(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "note.txt")
	os.WriteFile(path, nil, 0o644)
	app(t, dev, "note.txt", "mousepad", path)
	_, text := find(dev, func(e screen.Element) bool { return e.Role == "text" && hasState(e, "editable") }, 10*time.Second)
	if text == nil {
		t.Fatal("no editable text area in mousepad")
	}
	x, y := text.Box.Center()
	const typed = "saved by post_run"
	act(t, dev, screen.Action{Kind: screen.ActType, Element: text.ID, X: x, Y: y, Text: typed})

	a := &activities.Activities{Device: dev}
	for _, tt := range []struct {
		states []string
		passed bool
		detail string
	}{
		{[]string{"editable", "enabled"}, true, "found"},
		{[]string{"checked"}, false, "near misses"},
	} {
		r, err := a.Check(ctx, activities.CheckInput{Name: "editor", Kind: plan.CheckElement, Role: "text", States: tt.states})
		if err != nil {
			t.Fatal(err)
		}
		if r.Passed != tt.passed || !strings.Contains(r.Detail, tt.detail) {
			t.Errorf("element text %v = passed=%v %q, want passed=%v with %q", tt.states, r.Passed, r.Detail, tt.passed, tt.detail)
		}
	}

	res, err := a.Setup(ctx, activities.SetupInput{
		Name:        "save_and_close",
		Presses:     []activities.KeyPress{{Window: "note.txt", Keys: []string{"ctrl", "s"}}},
		Sleep:       time.Second,
		CloseWindow: "note.txt",
		WaitTimeout: 20 * time.Second,
	})
	if err != nil {
		t.Fatalf("post-run step: %v", err)
	}
	if got, _ := os.ReadFile(path); strings.TrimRight(string(got), "\n") != typed {
		t.Errorf("after the post-run step the file holds %q, want %q (notes: %v)", got, typed, res.Notes)
	}
	wins, _ := dev.Windows(ctx)
	for _, w := range wins {
		if strings.Contains(w, "note.txt") {
			t.Errorf("mousepad still open after close_window: %v", wins)
		}
	}
}
