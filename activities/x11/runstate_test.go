package x11

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/activities/x11/procs"
)

// TestNextRunDoesNotRestoreTypedText: run 1 opens the real Mousepad on a
// desktop, types a secret and ends without saving (its applications are
// stopped, as a failed run's are) after Mousepad autosaved the document;
// run 2 on the same desktop opens Mousepad, which offers no restore of
// the earlier session (without the fix it does, and the restored document
// shows the secret once its offer is accepted), and the secret is not on
// its screen.
func TestNextRunDoesNotRestoreTypedText(t *testing.T) {
	dev := desktop(t)
	display := dev.display
	t.Cleanup(func() { StopApps(display) })
	ctx := context.Background()
	const secret = "Marlin4481hunter"
	start := func(run string) {
		t.Helper()
		if _, err := dev.StartRun(ctx, run); err != nil {
			t.Fatalf("StartRun(%s): %v", run, err)
		}
		if err := dev.Launch(ctx, []string{"mousepad"}); err != nil {
			t.Fatal(err)
		}
		waitWindow(t, dev, "Mousepad", 60*time.Second)
		settle(dev, 30*time.Second)
	}
	// shown says where the screen shows the secret: an element, a window
	// title or the words OCR reads.
	shown := func() string {
		t.Helper()
		s, err := dev.Observe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range s.Elements {
			if strings.Contains(e.Name+e.Value, secret) {
				return "element " + e.Label()
			}
		}
		for _, w := range s.Windows {
			if strings.Contains(w, secret) {
				return "window " + w
			}
		}
		words, err := dev.ReadText(ctx, s.Image)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, w := range words {
			b.WriteString(w.Text)
		}
		if strings.Contains(b.String(), "Marlin4481") {
			return "OCR text " + b.String()
		}
		return ""
	}

	start("run-1/a")
	if _, err := dev.Act(ctx, screen.Action{Kind: screen.ActType, Text: secret}); err != nil {
		t.Fatal(err)
	}
	// The typed text reaches the accessibility tree (and the pixels) a
	// moment after the keys: on a loaded machine the first look came too
	// early.
	for deadline := time.Now().Add(30 * time.Second); shown() == ""; {
		if time.Now().After(deadline) {
			t.Fatal("run 1: the typed secret is not seen on the screen within 30 s: this test could not see it in run 2 either")
		}
		time.Sleep(200 * time.Millisecond)
	}
	// Mousepad saves an unsaved document to an autosave file on a timer
	// (30 s by default); that file and its session restore it.
	data := os.Getenv("XDG_DATA_HOME")
	deadline := time.Now().Add(90 * time.Second)
	for !holds(data, secret) {
		if time.Now().After(deadline) {
			t.Fatalf("Mousepad wrote no autosave holding the typed text under %s in 90 s", data)
		}
		time.Sleep(500 * time.Millisecond)
	}
	// Run 1 ends without saving: its applications are stopped.
	procs.TermApps(display, 3*time.Second)
	waitNoWindow(t, dev, 10*time.Second)

	start("run-2/b")
	// Mousepad offers to restore "the previous session", which did not end
	// normally; an agent may well accept.
	if s, err := dev.Observe(ctx); err == nil {
		for _, e := range s.Elements {
			if strings.Contains(e.Name, "restore") {
				t.Errorf("run 2's Mousepad offers to restore run 1's session: %q", e.Name)
			}
		}
		for _, e := range s.Elements {
			if e.Role == "push button" && e.Name == "Yes" {
				if _, err := dev.Act(ctx, screen.Action{Kind: screen.ActClick, Element: e.ID, X: e.Box.X + e.Box.W/2, Y: e.Box.Y + e.Box.H/2}); err != nil {
					t.Fatal(err)
				}
				waitWindow(t, dev, "- Mousepad", 30*time.Second)
				settle(dev, 30*time.Second)
			}
		}
	}
	if where := shown(); where != "" {
		t.Errorf("run 2 shows what run 1 typed: %s", where)
	}
	if holds(data, secret) {
		t.Errorf("run 2's desktop still keeps run 1's typed text under %s", data)
	}
}

// holds reports whether a file under dir contains s.
func holds(dir, s string) bool {
	found := false
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(s)) {
				found = true
			}
		}
		return nil
	})
	return found
}

// waitNoWindow waits until the desktop shows no window.
func waitNoWindow(t *testing.T, dev *Device, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		wins, err := dev.Windows(context.Background())
		if err == nil && len(wins) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("windows still open %s after the applications were stopped: %q (%v)", d, wins, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
