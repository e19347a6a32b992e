package x11

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities/screen"
)

// TestLayers: an element belongs to the window whose box matches its
// accessible window, and a window stacked above it hides it.
func TestLayers(t *testing.T) {
	stack := []xwin{
		{ID: 1, Box: screen.Rect{X: 0, Y: 0, W: 1440, H: 900}},                   // the main window's frame
		{ID: 2, Box: screen.Rect{X: 387, Y: 184, W: 667, H: 572}},                // a dialog above it
		{ID: 3, Box: screen.Rect{X: 181, Y: 44, W: 299, H: 630}, Override: true}, // an open menu on top
	}
	for _, tc := range []struct {
		name string
		box  screen.Rect
		tol  int
		want int
	}{
		{"frame with decorations", screen.Rect{X: 0, Y: 19, W: 1440, H: 881}, frameTolerance, 0},
		{"dialog", screen.Rect{X: 388, Y: 205, W: 665, H: 550}, frameTolerance, 1},
		{"popup menu exactly", screen.Rect{X: 181, Y: 44, W: 299, H: 630}, popupTolerance, 2},
		{"menu bar entry is no popup", screen.Rect{X: 181, Y: 19, W: 62, H: 25}, popupTolerance, -1},
	} {
		if got := windowFor(stack, tc.box, tc.tol); got != tc.want {
			t.Errorf("windowFor(%s) = %d, want %d", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		name string
		z    int
		x, y int
		want bool
	}{
		{"toolbar button under the menu", 0, 200, 60, true},
		{"toolbar button beside the menu", 0, 600, 60, false},
		{"document under the dialog", 0, 700, 400, true},
		{"dialog button under the menu", 1, 400, 300, true},
		{"dialog button beside the menu", 1, 900, 700, false},
		{"menu item on top", 2, 200, 60, false},
	} {
		if got := covered(stack, tc.z, tc.x, tc.y); got != tc.want {
			t.Errorf("covered(%s) = %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := popupHolding(stack, screen.Rect{X: 181, Y: 171, W: 299, H: 25}); got != 2 {
		t.Errorf("popupHolding(menu item) = %d, want 2", got)
	}
	if got := popupHolding(stack, screen.Rect{X: 0, Y: 19, W: 39, H: 25}); got != -1 {
		t.Errorf("popupHolding(menu bar entry) = %d, want -1", got)
	}
	if got, want := clip(screen.Rect{X: -10, Y: 5, W: 30, H: 10}, screen.Rect{W: 1440, H: 900}), (screen.Rect{X: 0, Y: 5, W: 20, H: 10}); got != want {
		t.Errorf("clip at the screen's edge = %v, want %v", got, want)
	}
}

// TestNameCleaning: names taken from tooltips and labels lose the key
// binding and the colon; generic action descriptions name nothing.
func TestNameCleaning(t *testing.T) {
	for in, want := range map[string]string{
		"Properties (Ctrl+Alt+1)": "Properties",
		"Family:":                 "Family",
		" Save ":                  "Save",
		"Zoom (50%)":              "Zoom (50%)",
	} {
		if got := clean(in); got != want {
			t.Errorf("clean(%q) = %q, want %q", in, got, want)
		}
	}
	if !genericPhrase.MatchString("Clicks the button") || genericPhrase.MatchString("Close Document") {
		t.Error("genericPhrase: want Clicks the button generic, Close Document not")
	}
}

// TestChromiumMadeAccessible: a launched Chromium gets the flag without
// which its pages stay out of the accessibility tree.
func TestChromiumMadeAccessible(t *testing.T) {
	got := accessible([]string{"/usr/bin/chromium", "https://example.org"})
	if len(got) != 3 || got[1] != "--force-renderer-accessibility" {
		t.Errorf("accessible(chromium) = %q, want the renderer accessibility flag", got)
	}
	if got := accessible([]string{"mousepad", "a.txt"}); len(got) != 2 {
		t.Errorf("accessible(mousepad) = %q, want it unchanged", got)
	}
}

// TestLaunchFailsLater: a program that fails after Launch returned is
// remembered with its exit status and error output.
func TestLaunchFailsLater(t *testing.T) {
	dev := &Device{}
	if err := dev.Launch(context.Background(), []string{"sh", "-c", "sleep 1.3; echo cannot open display >&2; exit 4"}); err != nil {
		t.Fatalf("Launch = %v, want the program still running when it returns", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if f := dev.LaunchFailures(); len(f) == 1 {
			if !strings.Contains(f[0], "exit status 4") || !strings.Contains(f[0], "cannot open display") {
				t.Errorf("LaunchFailures = %q, want the exit status and the error output", f)
			}
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("LaunchFailures = %q after the program failed, want it", dev.LaunchFailures())
}

// TestBackgroundTabLeftOut: Chromium lists a background tab's page too,
// showing, detached from its window, with boxes as if at the window's
// corner (where the tab strip is). A second page opened in the same
// browser goes to a new tab: the first page's button is not listed (a
// click on it would land on the tab strip), the second page's is, and
// the first tab still is (a click on it brings its page back).
func TestBackgroundTabLeftOut(t *testing.T) {
	dev := desktop(t)
	dir := t.TempDir()
	pages := map[string]string{"first": "Alpha", "second": "Bravo"}
	for page, button := range pages {
		html := fmt.Sprintf(`<!doctype html><html><head><title>%s page</title></head><body><button>%s</button></body></html>`, page, button)
		if err := os.WriteFile(filepath.Join(dir, page+".html"), []byte(html), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	argv := []string{"chromium", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--disable-quic", "--force-renderer-accessibility", "--disable-dev-shm-usage",
		"--user-data-dir=" + t.TempDir()}
	app(t, dev, "first page", append(argv, "file://"+filepath.Join(dir, "first.html"))...)
	if _, e := find(dev, named("push button", "Alpha"), 60*time.Second); e == nil {
		t.Fatal("the first page's button never appeared")
	}
	// The same browser opens the second page in a new tab and exits.
	if out, err := exec.Command(argv[0], append(argv[1:], "file://"+filepath.Join(dir, "second.html"))...).CombinedOutput(); err != nil {
		t.Fatalf("second page: %v: %s", err, out)
	}
	if _, e := find(dev, named("push button", "Bravo"), 60*time.Second); e == nil {
		t.Fatal("the second page's button never appeared")
	}
	// Read every tree afresh: the answer is the tree's, not the cache's.
	dev.tree.forget()
	s, err := dev.Observe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !hasElement(s, named("push button", "Bravo")) {
		t.Error("the front tab's button is not listed")
	}
	if hasElement(s, named("push button", "Alpha")) {
		t.Error("the background tab's button is listed")
	}
	if !hasElement(s, func(e screen.Element) bool { return e.Role == "page tab" && strings.HasPrefix(e.Name, "first page") }) {
		t.Error("the background tab itself is not listed")
	}
}
