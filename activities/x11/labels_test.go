package x11

import (
	"context"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pcflow/pcflow/activities/screen"
)

// TestNameByLabels: a control the accessibility API leaves unnamed takes
// the label beside it on its row, else the one above it, in its own
// window layer, and never a label that belongs to a nearer control.
func TestNameByLabels(t *testing.T) {
	box := func(x, y, w, h int) screen.Rect { return screen.Rect{X: x, Y: y, W: w, H: h} }
	els := []screen.Element{
		{Role: "label", Name: "Name:", Box: box(100, 100, 50, 20)},
		{Role: "entry", Box: box(160, 98, 200, 24)}, // beside "Name:"
		{Role: "label", Name: "Columns:", Box: box(100, 150, 80, 18)},
		{Role: "spin button", Value: "1", Box: box(100, 170, 90, 24)}, // below "Columns:"
		{Role: "label", Name: "Email", Box: box(400, 100, 50, 20)},
		{Role: "check box", Name: "Subscribe", Box: box(460, 100, 80, 20)},
		{Role: "entry", Box: box(560, 98, 100, 24)},                  // Subscribe lies between it and "Email"
		{Role: "entry", Box: box(160, 300, 100, 24)},                 // nothing near
		{Role: "entry", Name: "Search", Box: box(300, 300, 100, 24)}, // named already
		{Role: "label", Name: "Behind:", Box: box(100, 400, 60, 20)},
		{Role: "entry", Box: box(170, 398, 100, 24)}, // its label is in another layer
		{Role: "label", Name: "Untitled 1", Box: box(100, 480, 80, 20)},
		{Role: "text", Box: box(100, 502, 600, 300)}, // an editor's text area is no field
	}
	layers := []int{0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0}
	got := namedByLabels(t, els, layers, labelledRoles, 2)
	want := []string{"Name", "Columns", "", "", "Search", "", ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
}

// namedByLabels runs nameByLabels over els, which must name want of
// them, and returns the names of the elements of roles after it.
func namedByLabels(t *testing.T, els []screen.Element, layers []int, roles map[string]bool, want int) []string {
	t.Helper()
	ptrs := make([]*screen.Element, len(els))
	for i := range els {
		ptrs[i] = &els[i]
	}
	if n := nameByLabels(ptrs, layers); n != want {
		t.Errorf("nameByLabels named %d, want %d", n, want)
	}
	var got []string
	for _, e := range els {
		if roles[e.Role] {
			got = append(got, e.Name)
		}
	}
	return got
}

// A check box or radio button the accessibility API leaves unnamed takes
// the label that starts just after it on its row, never one past another
// control, one in another layer, or one to its left.
func TestChoiceNamedByTheTextAfterIt(t *testing.T) {
	box := func(x, y, w, h int) screen.Rect { return screen.Rect{X: x, Y: y, W: w, H: h} }
	els := []screen.Element{
		{Role: "check box", Box: box(26, 164, 13, 13)},
		{Role: "static", Name: "Gift wrap", Box: box(47, 162, 80, 19)},
		{Role: "check box", Box: box(135, 164, 13, 13)}, // the next on the row
		{Role: "static", Name: "Insured", Box: box(156, 162, 60, 19)},
		{Role: "radio button", Box: box(26, 204, 13, 13)},
		{Role: "push button", Name: "Help", Box: box(44, 200, 30, 20)}, // between it and its text
		{Role: "static", Name: "Express", Box: box(80, 202, 60, 19)},
		{Role: "check box", Box: box(26, 244, 13, 13)},
		{Role: "label", Name: "Behind", Box: box(45, 242, 60, 19)}, // another layer
		{Role: "label", Name: "Before:", Box: box(200, 284, 60, 19)},
		{Role: "check box", Box: box(266, 286, 13, 13)}, // only a label to its left
		{Role: "check box", Name: "Named", Box: box(26, 324, 13, 13)},
		{Role: "static", Name: "Other", Box: box(45, 322, 60, 19)},
	}
	layers := []int{0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0}
	got := namedByLabels(t, els, layers, choiceRoles, 2)
	want := []string{"Gift wrap", "Insured", "", "", "", "Named"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
}

// labelPage is a form whose fields have no label element, only text
// beside or above them, and check boxes and radio buttons with their
// text after them (Chromium then gives them no accessible name).
const labelPage = `<!doctype html><html><head><title>Labels</title></head><body style="font: 16px sans-serif">
<div style="position:absolute; left:40px; top:40px"><span>Full name:</span> <input id="n" size="20"></div>
<div style="position:absolute; left:40px; top:110px">Columns:</div>
<div style="position:absolute; left:40px; top:132px"><input id="c" type="number" value="1"></div>
<div style="position:absolute; left:40px; top:190px"><input type="checkbox"> <span>Gift wrap</span> <input type="checkbox"> <span>Insured</span></div>
<div style="position:absolute; left:40px; top:230px"><input type="radio" name="s"> Express <input type="radio" name="s"> Standard</div>
</body></html>`

// TestLabelBesideNamesAField: on a real page whose fields the
// accessibility API leaves unnamed, the field after "Full name:", the
// number field under "Columns:", and the check boxes and radio buttons
// before "Gift wrap", "Insured", "Express" and "Standard" (two on a row)
// are listed by those names.
func TestLabelBesideNamesAField(t *testing.T) {
	dev := desktop(t)
	page := filepath.Join(t.TempDir(), "labels.html")
	if err := os.WriteFile(page, []byte(labelPage), 0o644); err != nil {
		t.Fatal(err)
	}
	app(t, dev, "Labels", "chromium", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--disable-quic", "--force-renderer-accessibility", "--disable-dev-shm-usage",
		"--user-data-dir="+t.TempDir(), "file://"+page)
	for _, want := range []struct{ role, name string }{{"entry", "Full name"}, {"spin button", "Columns"},
		{"check box", "Gift wrap"}, {"check box", "Insured"}, {"radio button", "Express"}, {"radio button", "Standard"}} {
		if s, e := find(dev, named(want.role, want.name), 30*time.Second); e == nil {
			var names []string
			if s != nil {
				for _, e := range s.Elements {
					names = append(names, e.Label())
				}
			}
			t.Errorf("no %s named %q; the screen shows:\n%s", want.role, want.name, strings.Join(names, "\n"))
		}
	}
}

// A wide spin button's mark covers its text, not its − and + buttons; a
// narrow one (no room for both) keeps its box.
func TestSpinTextBoxes(t *testing.T) {
	els := []screen.Element{
		{Role: "spin button", Box: screen.Rect{X: 417, Y: 288, W: 144, H: 34}},
		{Role: "spin button", Box: screen.Rect{X: 10, Y: 10, W: 60, H: 24}},
		{Role: "entry", Box: screen.Rect{X: 10, Y: 50, W: 144, H: 34}},
	}
	ptrs := []*screen.Element{&els[0], &els[1], &els[2]}
	spinTextBoxes(ptrs)
	if got := els[0].Box; got.W != 76 || got.X != 417 {
		t.Errorf("wide spin button box = %+v, want its first 76 px", got)
	}
	if els[1].Box.W != 60 || els[2].Box.W != 144 {
		t.Errorf("narrow spin button or entry changed: %+v %+v", els[1].Box, els[2].Box)
	}
}

// TestOCRNamesRemembered observes Mousepad's Save As dialog, whose file
// list and places have controls the toolkit leaves unnamed, twice with
// the screen unchanged: the first observation names some by OCR, the
// second gives them the same names without running tesseract again.
func TestOCRNamesRemembered(t *testing.T) {
	dev := desktop(t)
	dev.OCRMode = OCRAuto
	app(t, dev, "Mousepad", "mousepad")
	ctx := context.Background()
	if _, err := dev.Act(ctx, screen.Action{Kind: screen.ActHotkey, Keys: []string{"ctrl", "s"}}); err != nil {
		t.Fatal(err)
	}
	waitWindow(t, dev, "Save As", 20*time.Second)
	settle(dev, 20*time.Second)
	first, err := dev.Observe(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st := dev.LastStats()
	if st.NamedByOCR == 0 {
		t.Fatalf("OCR named nothing in the Save As dialog (%d unnamed elements): nothing to remember", st.Unnamed)
	}
	// The second observation must not run tesseract when the boxes read
	// by OCR show the same pixels. Something in the dialog may redraw
	// between two observations (a caret, the file list still loading):
	// then the pair is taken again, up to ten times.
	var second *screen.Screen
	for try := 0; ; try++ {
		runs := tesseractRuns.Load()
		if second, err = dev.Observe(ctx); err != nil {
			t.Fatal(err)
		}
		n := tesseractRuns.Load() - runs
		if n == 0 {
			break
		}
		if same := ocrBoxesAlike(first, second); same || try == 9 {
			t.Errorf("the second observation ran tesseract %d times, want 0 (the boxes read by OCR unchanged: %v)", n, same)
			break
		}
		first, st = second, dev.LastStats()
	}
	if dev.LastStats().NamedByOCR != st.NamedByOCR {
		t.Errorf("named by OCR: %d the first time, %d the second", st.NamedByOCR, dev.LastStats().NamedByOCR)
	}
	names := func(s *screen.Screen) map[string]bool {
		m := map[string]bool{}
		for _, e := range s.Elements {
			if e.Source == "a11y+ocr" {
				m[e.Name] = true
			}
		}
		return m
	}
	if a, b := names(first), names(second); len(a) != len(b) {
		t.Errorf("names read by OCR: %v the first time, %v the second", a, b)
	}
}

// ocrBoxesAlike reports whether every box the second observation b gave
// to OCR (named by it, or left unnamed and caption-sized) was one the
// first observation a gave to OCR too, showing the same pixels in both
// images: only then may b have taken every text from the memo. A row the
// file list added, or an unnamed icon that redrew, is read anew, rightly.
func ocrBoxesAlike(a, b *screen.Screen) bool {
	ai, _ := a.Image.(*image.RGBA)
	bi, _ := b.Image.(*image.RGBA)
	if ai == nil || bi == nil || ai.Bounds() != bi.Bounds() {
		return false
	}
	read := func(e screen.Element) bool {
		return ocrSized(e.Box) && (e.Source == "a11y+ocr" || (e.Name == "" && e.Value == ""))
	}
	inA := map[screen.Rect]bool{}
	for _, e := range a.Elements {
		if read(e) {
			inA[e.Box] = true
		}
	}
	for _, e := range b.Elements {
		if !read(e) {
			continue
		}
		if !inA[e.Box] {
			return false
		}
		r := image.Rect(e.Box.X, e.Box.Y, e.Box.X+e.Box.W, e.Box.Y+e.Box.H).Add(ai.Rect.Min)
		if pixelHash(ai, r) != pixelHash(bi, r) {
			return false
		}
	}
	return true
}

// TestOCRReadsOnlyWhatChanged reads Mousepad's screen by OCR, types a
// second line, and reads it again: tesseract reads only the rows around
// the change (a band above and below), and the words are the new line's
// with the unchanged rest's (the menu bar, the first line). An unchanged
// screen is not read again at all. The lines are typed with a line break
// and a tab in the text, which the editor must hold as such.
func TestOCRReadsOnlyWhatChanged(t *testing.T) {
	dev := desktop(t)
	app(t, dev, "Mousepad", "mousepad")
	ctx := context.Background()
	// Keys typed before the editor has the focus go nowhere: wait for it.
	if _, e := find(dev, func(e screen.Element) bool { return e.Role == "text" && hasState(e, "focused") }, 30*time.Second); e == nil {
		t.Fatal("Mousepad's editor never had the focus")
	}
	typed := ""
	// typeText types s and waits until the editor holds it: with the cores
	// busy, Mousepad draws a line later than a fixed pause allows.
	typeText := func(s string) {
		t.Helper()
		if _, err := dev.Act(ctx, screen.Action{Kind: screen.ActType, Text: s}); err != nil {
			t.Fatal(err)
		}
		typed += s
		want := strings.TrimSpace(typed)
		if sc, e := find(dev, func(e screen.Element) bool { return e.Role == "text" && strings.TrimSpace(e.Value) == want }, 20*time.Second); e == nil {
			for _, e := range sc.Elements {
				if e.Role == "text" {
					t.Logf("a text element holds %q", e.Value)
				}
			}
			t.Fatalf("the editor does not hold %q 20 s after it was typed", want)
		}
		time.Sleep(300 * time.Millisecond)
	}
	read := func() ([]screen.Word, int, image.Rectangle) {
		t.Helper()
		img, err := Capture(dev.display)
		if err != nil {
			t.Fatal(err)
		}
		words, err := dev.ReadText(ctx, img)
		if err != nil {
			t.Fatal(err)
		}
		return words, dev.ocrLast.rowsRead, img.Bounds()
	}
	has := func(words []screen.Word, want ...string) {
		t.Helper()
		var got []string
		for _, w := range words {
			got = append(got, w.Text)
		}
		all := strings.Join(got, " ")
		for _, s := range want {
			if !strings.Contains(all, s) {
				t.Errorf("the words read lack %q: %s", s, all)
			}
		}
	}
	typeText("Alpha bravo quartz\n")
	words, rows, screenBox := read()
	if rows != screenBox.Dy() {
		t.Fatalf("the first read gave tesseract %d rows, want the whole screen's %d", rows, screenBox.Dy())
	}
	has(words, "File", "Alpha", "bravo")
	typeText("Charlie delta\twalnut")
	words, rows, _ = read()
	if rows == 0 || rows > screenBox.Dy()/2 {
		t.Errorf("after a line was typed tesseract read %d rows, want only those around the changes (at most half of %d)", rows, screenBox.Dy())
	}
	t.Logf("after a line was typed, tesseract read %d rows of %d", rows, screenBox.Dy())
	has(words, "File", "Alpha", "bravo", "Charlie", "delta", "walnut")
	// Mousepad's status bar (line and column) may redraw after the
	// second read on a loaded machine: let the screen settle, and read
	// what changed, before the screen that must be unchanged.
	settle(dev, 10*time.Second)
	read()
	runs := tesseractRuns.Load()
	again, rows, _ := read()
	if rows > 4*ocrBand || (rows == 0) != (tesseractRuns.Load() == runs) {
		// The caret blinks: its rows may differ, and only they are read:
		// the one or two bands it lies in (a caret across a band's edge),
		// and a band above and below.
		t.Errorf("an unchanged screen but for the caret gave tesseract %d rows", rows)
	}
	has(again, "File", "Alpha", "Charlie", "walnut")
}
