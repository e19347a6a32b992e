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
)

func act(t *testing.T, dev *Device, a screen.Action) string {
	t.Helper()
	note, err := dev.Act(context.Background(), a)
	if err != nil {
		t.Fatalf("%s: %v", a.Summary(), err)
	}
	return note
}

// TestActionsOnMousepad types accents and CJK, saves with a hotkey, selects
// text found by OCR, copies and pastes it, and switches windows: every
// effect is read back from the saved file, the clipboard or the window
// manager.
func TestActionsOnMousepad(t *testing.T) {
	dev := desktop(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "note.txt")
	os.WriteFile(path, nil, 0o644)
	app(t, dev, "note.txt", "mousepad", path)
	_, text := find(dev, func(e screen.Element) bool { return e.Role == "text" && hasState(e, "editable") }, 10*time.Second)
	if text == nil {
		t.Fatal("no editable text area in mousepad")
	}
	x, y := text.Box.Center()
	typed := "Crème brûlée über 東京 the quick brown fox"
	act(t, dev, screen.Action{Kind: screen.ActType, Element: text.ID, X: x, Y: y, Text: typed, Enter: true})
	act(t, dev, screen.Action{Kind: screen.ActHotkey, Keys: []string{"control", "s"}})
	deadline := time.Now().Add(5 * time.Second)
	var got []byte
	for time.Now().Before(deadline) {
		got, _ = os.ReadFile(path)
		if len(got) > 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if string(got) != typed+"\n" {
		t.Fatalf("saved file = %q, want %q", got, typed+"\n")
	}

	// select(text) by OCR, then copy: the clipboard holds the selection.
	// Under load mousepad may still be repainting after the save: read
	// the screen until the line shows (up to 10 s).
	dev.OCRMode = OCRNever
	var words []screen.Word
	var start, end []screen.Rect
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(300 * time.Millisecond) {
		s, err := dev.Observe(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if words, err = dev.ReadText(context.Background(), s.Image); err != nil {
			t.Fatal(err)
		}
		start, end = activities.FindText(words, "quick"), activities.FindText(words, "fox")
		if len(start) == 1 && len(end) == 1 || time.Now().After(deadline) {
			break
		}
	}
	if len(start) != 1 || len(end) != 1 {
		t.Fatalf("OCR found %d × 'quick' and %d × 'fox', want one each (words: %v)", len(start), len(end), words)
	}
	act(t, dev, screen.Action{Kind: screen.ActSelect, Start: "quick", End: "fox",
		X: start[0].X, Y: start[0].Y + start[0].H/2, X2: end[0].X + end[0].W, Y2: end[0].Y + end[0].H/2})
	act(t, dev, screen.Action{Kind: screen.ActCopy})
	time.Sleep(300 * time.Millisecond)
	if c := clipboard(dev.display); c != "quick brown fox" {
		t.Errorf("clipboard after select+copy = %q, want %q", c, "quick brown fox")
	}
	// paste at the end of the document and save again.
	act(t, dev, screen.Action{Kind: screen.ActHotkey, Keys: []string{"ctrl", "end"}})
	act(t, dev, screen.Action{Kind: screen.ActPaste})
	act(t, dev, screen.Action{Kind: screen.ActHotkey, Keys: []string{"ctrl", "s"}})
	time.Sleep(500 * time.Millisecond)
	if got, _ := os.ReadFile(path); !strings.HasSuffix(string(got), "\nquick brown fox") {
		t.Errorf("after paste the file is %q, want it to end with the pasted text", got)
	}

	// open_app by name, then switch_window back by title.
	act(t, dev, screen.Action{Kind: screen.ActOpenApp, App: "galculator"})
	waitWindow(t, dev, "galculator", 20*time.Second)
	time.Sleep(500 * time.Millisecond)
	act(t, dev, screen.Action{Kind: screen.ActSwitchWindow, Title: "note.txt"})
	time.Sleep(300 * time.Millisecond)
	if wins, _ := dev.Windows(context.Background()); len(wins) == 0 || !strings.Contains(wins[0], "note.txt") {
		t.Errorf("active window after switch_window = %v, want note.txt first", wins)
	}
	if _, err := dev.Act(context.Background(), screen.Action{Kind: screen.ActSwitchWindow, Title: "no such window"}); err == nil ||
		!strings.Contains(err.Error(), "no window title contains") {
		t.Errorf("switch_window to a missing window: err = %v", err)
	}
	if _, err := dev.Act(context.Background(), screen.Action{Kind: screen.ActOpenApp, App: "frobnicator"}); err == nil {
		t.Error("open_app of a missing application succeeded")
	}
}

// BenchmarkObserve measures a full observation (screenshot, window
// stacking, tree, naming and Set-of-Marks) on real applications, with a
// menu open too; OCR is off, as in the agent loop when the tree has
// elements (-ocr names the unnamed controls by OCR as well).
func BenchmarkObserve(b *testing.B) {
	dev := desktop(b)
	if os.Getenv("BENCH_OCR") != "" {
		dev.OCRMode = OCRAuto
	}
	profile := b.TempDir()
	PrepareLibreOffice(profile)
	for _, a := range []struct {
		name, title string
		argv        []string
		open        string // a menu opened before measuring
	}{
		{"galculator", "galculator", []string{"galculator"}, ""},
		{"mousepad", "Mousepad", []string{"mousepad"}, ""},
		{"writer", "LibreOffice Writer", []string{"soffice", "-env:UserInstallation=file://" + profile, "--norestore", "--writer"}, ""},
		{"writer-format-menu", "LibreOffice Writer", []string{"soffice", "-env:UserInstallation=file://" + profile, "--norestore", "--writer"}, "Format"},
	} {
		b.Run(a.name, func(b *testing.B) {
			app(b, dev, a.title, a.argv...)
			if a.open != "" {
				if !clickNamed(b, dev, "menu", a.open) {
					b.Fatalf("no %s menu", a.open)
				}
				if _, e := find(dev, named("", "Character..."), 10*time.Second); e == nil {
					b.Fatalf("the %s menu did not open", a.open)
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s, err := dev.Observe(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				activities.Annotate(s.Image, s.Elements)
			}
			st := dev.LastStats()
			b.ReportMetric(float64(st.Elements), "elements")
			b.ReportMetric(float64(st.Occluded), "occluded")
			b.ReportMetric(float64(st.Unnamed), "unnamed-before")
			b.ReportMetric(float64(st.StillUnnamed), "unnamed-after")
			b.ReportMetric(float64(st.Requests), "a11y-requests")
		})
	}
}
