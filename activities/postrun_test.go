package activities_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/fakedevice"
)

// TestSetupPressesClosesAndRunsCommands: a post-run step runs several
// commands in order, brings a window to the front before pressing keys in
// it, closes the windows that match, and waits.
func TestSetupPressesClosesAndRunsCommands(t *testing.T) {
	dir := t.TempDir()
	dev := fakedevice.New("OK")
	ctx := context.Background()
	if err := dev.Launch(ctx, []string{"true"}); err != nil { // opens a window "true"
		t.Fatal(err)
	}
	a := &activities.Activities{Device: dev}
	res, err := a.Setup(ctx, activities.SetupInput{
		Name:        "save_and_close",
		Command:     []string{"mkdir", "-p", filepath.Join(dir, "a")},
		Commands:    [][]string{{"touch", filepath.Join(dir, "a", "b")}, {"sh", "-c", "ls " + dir + "/a > " + dir + "/ls.txt"}},
		Presses:     []activities.KeyPress{{Window: "^tr", Keys: []string{"ctrl", "s"}}},
		CloseWindow: "^true$",
		Sleep:       10 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "ls.txt")); string(b) != "b\n" {
		t.Errorf("commands ran out of order: ls gave %q", b)
	}
	var got []string
	for _, act := range dev.Actions() {
		got = append(got, act.Summary())
	}
	want := []string{`switch_window "true"`, "hotkey ctrl+s", `switch_window "true"`, "hotkey alt+F4"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("device actions (-want +got):\n%s\nnotes: %v", diff, res.Notes)
	}
	wins, _ := dev.Windows(ctx)
	for _, w := range wins {
		if w == "true" {
			t.Errorf("window still open after close_window: %v", wins)
		}
	}
	if !strings.Contains(strings.Join(res.Notes, "; "), `pressed ctrl+s in "^tr"`) {
		t.Errorf("notes = %v", res.Notes)
	}
	_, err = a.Setup(ctx, activities.SetupInput{Name: "p", Presses: []activities.KeyPress{{Window: "Calc", Keys: []string{"ctrl", "s"}}}})
	if err == nil || !strings.Contains(err.Error(), `no window matching "Calc" (open windows: Fake App`) {
		t.Errorf("press into a missing window: %v", err)
	}
}

// TestPostRunToleratesAClosedWindow: the agent may close the window a
// post_run step presses keys in (OSWorld's post-config carries on); the
// step skips that press and says so, and still does the rest. In setup the
// same press fails the step.
func TestPostRunToleratesAClosedWindow(t *testing.T) {
	dir := t.TempDir()
	dev := fakedevice.New("OK")
	ctx := context.Background()
	a := &activities.Activities{Device: dev}
	step := activities.SetupInput{
		Name:        "save",
		Presses:     []activities.KeyPress{{Window: "Calc$", Keys: []string{"ctrl", "s"}}},
		CloseWindow: "Calc$",
		Commands:    [][]string{{"touch", filepath.Join(dir, "after")}},
		AfterAgent:  true,
	}
	res, err := a.Setup(ctx, step)
	if err != nil {
		t.Fatalf("post_run with its window closed = %v, want it to carry on", err)
	}
	notes := strings.Join(res.Notes, "; ")
	if !strings.Contains(notes, `skipped pressing ctrl+s: no window matching "Calc$"`) || !strings.Contains(notes, "no window matching Calc$ was open: nothing to close") {
		t.Errorf("notes = %q, want the skipped press and the window that was not open named", notes)
	}
	if _, err := os.Stat(filepath.Join(dir, "after")); err != nil {
		t.Errorf("the step's command did not run: %v", err)
	}
	for _, act := range dev.Actions() {
		if act.Kind == "hotkey" {
			t.Errorf("a key was pressed with no window to take it: %s", act.Summary())
		}
	}
	step.AfterAgent = false
	if _, err := a.Setup(ctx, step); err == nil || !strings.Contains(err.Error(), `no window matching "Calc$"`) {
		t.Errorf("setup pressing into a missing window = %v, want it to fail naming the window", err)
	}
}
