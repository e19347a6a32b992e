package x11

import (
	"context"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/term"

	"github.com/pcflow/pcflow/activities/screen"
)

// TestMain also serves as the terminal program of the grounding set: run
// inside xterm with PCFLOW_TUI set, it shows words and records the one a
// mouse click lands on.
func TestMain(m *testing.M) {
	if out := os.Getenv("PCFLOW_TUI"); out != "" {
		os.Exit(clickableWords(out))
	}
	os.Exit(m.Run())
}

// tuiWords are the terminal program's targets.
var tuiWords = []string{"alpha", "bravo", "charlie", "delta"}

// clickableWords is a small full-screen terminal program: it asks the
// terminal for mouse reports (xterm's mode 1000) and appends the word under
// each click to the file out.
func clickableWords(out string) int {
	old, err := term.MakeRaw(0)
	if err != nil {
		fmt.Println(err)
		time.Sleep(time.Minute)
		return 1
	}
	defer term.Restore(0, old)
	fmt.Print("\x1b[2J\x1b[?25l") // a cursor block beside a word spoils OCR
	for i, w := range tuiWords {
		fmt.Printf("\x1b[%d;6H%s", 3+3*i, w)
	}
	fmt.Print("\x1b[?1000h")
	var seq []byte
	b := make([]byte, 1)
	for {
		if _, err := io.ReadFull(os.Stdin, b); err != nil {
			return 0
		}
		switch {
		case b[0] == 0x1b:
			seq = []byte{0x1b}
			continue
		case len(seq) == 0:
			continue
		}
		seq = append(seq, b[0])
		if (len(seq) == 2 && seq[1] != '[') || (len(seq) == 3 && seq[2] != 'M') {
			seq = nil
			continue
		}
		if len(seq) < 6 {
			continue
		}
		button, col, row := int(seq[3])-32, int(seq[4])-32, int(seq[5])-32
		seq = nil
		if button&3 == 3 {
			continue // a release
		}
		for i, w := range tuiWords {
			if row == 3+3*i && col >= 6 && col < 6+len(w) {
				f, err := os.OpenFile(out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
				if err == nil {
					fmt.Fprintln(f, w)
					f.Close()
				}
			}
		}
	}
}

type groundingRow struct {
	target string
	role   string
	setup  []string                // element names clicked first (not counted)
	before func(dev *Device) error // other preparation: a right-click
	inside bool                    // inside an open menu, submenu, context menu, dropdown or dialog
	short  bool                    // kept in the short version (go test -short, as scripts/test.sh runs)
	effect func(dev *Device) error // the effect, read from the application's own state
}

// expectElement checks the application's own state, through its tree.
func expectElement(desc string, pred func(screen.Element) bool) func(*Device) error {
	return func(dev *Device) error {
		if _, e := find(dev, pred, 4*time.Second); e == nil {
			return fmt.Errorf("effect not seen: %s", desc)
		}
		return nil
	}
}

func expectNoElement(desc string, pred func(screen.Element) bool) func(*Device) error {
	return func(dev *Device) error {
		deadline := time.Now().Add(4 * time.Second)
		for time.Now().Before(deadline) {
			if _, e := find(dev, pred, 0); e == nil {
				return nil
			}
			time.Sleep(150 * time.Millisecond)
		}
		return fmt.Errorf("effect not seen: %s", desc)
	}
}

func display(want string) func(*Device) error {
	return expectElement("calculator display shows "+want, func(e screen.Element) bool {
		return e.Role == "text" && strings.TrimSpace(e.Value) == want
	})
}

func checked(name string) func(*Device) error {
	return expectElement(name+" is on", func(e screen.Element) bool { return e.Name == name && hasState(e, "checked") })
}

func focused(name string) func(*Device) error {
	return expectElement(name+" has the focus", func(e screen.Element) bool { return e.Name == name && hasState(e, "focused") })
}

// typedInto selects what the field holds and types text: the field the
// click landed in shows it (LibreOffice reports no focus for some dialog
// spin buttons, so focus alone cannot tell).
func typedInto(name, text string) func(*Device) error {
	return func(dev *Device) error {
		key(dev, "ctrl", "a")
		if _, err := dev.Act(context.Background(), screen.Action{Kind: screen.ActType, Text: text}); err != nil {
			return err
		}
		return expectElement(name+" shows "+text, func(e screen.Element) bool {
			return e.Name == name && strings.HasPrefix(e.Value, text)
		})(dev)
	}
}

func shows(name string) func(*Device) error {
	return expectElement(name+" is showing", named("", name))
}

func tabSelected(name string) func(*Device) error {
	return expectElement("tab "+name+" selected", func(e screen.Element) bool {
		return e.Role == "page tab" && e.Name == name && hasState(e, "selected")
	})
}

func windowOpen(title string) func(*Device) error {
	return func(dev *Device) error {
		deadline := time.Now().Add(6 * time.Second)
		for {
			wins, _ := dev.Windows(context.Background())
			for _, w := range wins {
				if strings.Contains(w, title) {
					return nil
				}
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("no window %q; windows: %q", title, wins)
			}
			time.Sleep(150 * time.Millisecond)
		}
	}
}

func windowGone(title string) func(*Device) error {
	return func(dev *Device) error {
		deadline := time.Now().Add(5 * time.Second)
		for {
			wins, _ := dev.Windows(context.Background())
			open := false
			for _, w := range wins {
				open = open || strings.Contains(w, title)
			}
			if !open {
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("window %q still open; windows: %q", title, wins)
			}
			time.Sleep(150 * time.Millisecond)
		}
	}
}

func nameBox(cell string) func(*Device) error {
	return expectElement("Name Box shows "+cell, func(e screen.Element) bool { return e.Role == "text" && e.Value == cell })
}

// rightClickOn right-clicks the centre of the first element of a role.
func rightClickOn(role, name string) func(*Device) error {
	return func(dev *Device) error {
		_, e := find(dev, func(e screen.Element) bool { return e.Role == role && (name == "" || e.Name == name) }, 5*time.Second)
		if e == nil {
			return fmt.Errorf("no %s %q to right-click", role, name)
		}
		return clickAt(dev, screen.ActRightClick, e)
	}
}

func lastLine(path, want string) func(*Device) error {
	return func(*Device) error {
		deadline := time.Now().Add(3 * time.Second)
		for {
			b, _ := os.ReadFile(path)
			lines := strings.Fields(string(b))
			if len(lines) > 0 && lines[len(lines)-1] == want {
				return nil
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("the terminal program recorded %q, want %q last", lines, want)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

const bookingPage = `<!doctype html><html><head><title>Booking</title>
<style>body{font:16px sans-serif} label,button,a,select,textarea{display:block;margin:8px}</style></head><body>
<h1>Book a flight</h1>
<label>City <input aria-label="City"></label>
<label>Email <input type="email" aria-label="Email"></label>
<label><input type="checkbox" onchange="note('news '+this.checked)"> Newsletter</label>
<label><input type="checkbox" onchange="note('insurance '+this.checked)"> Insurance</label>
<label><input type="radio" name="cls" onchange="note('economy')"> Economy</label>
<label><input type="radio" name="cls" onchange="note('business')"> Business</label>
<label>Seat <select aria-label="Seat" onchange="note('seat '+this.value)"><option value="window">Window</option><option value="aisle">Aisle</option><option value="middle">Middle</option></select></label>
<textarea aria-label="Notes"></textarea>
<a href="#terms" onclick="note('terms')">Terms</a>
<button onclick="note('searched')">Search</button>
<button onclick="document.getElementById('dlg').showModal()">Confirm booking</button>
<dialog id="dlg"><p>Book now?</p><button onclick="note('confirmed');this.parentNode.close()">Yes, book</button>
<button onclick="this.parentNode.close();note('kept')">No</button></dialog>
<script>function note(s){document.title='Booking: '+s}</script></body></html>`

// TestGrounding is PC-Agent's grounding set on real applications: find a
// target by the name an instruction would use, click its centre, and check
// the effect in the application's own state. A third of the targets are
// inside an open menu, submenu, context menu, drop-down list or dialog.
// With -short (scripts/test.sh) it clicks 16 of the 76 targets, one to
// three per application, among them a dialog control named only by its
// label in each of Writer, Calc and Impress; without, all of them.
func TestGrounding(t *testing.T) {
	dev := desktop(t)
	dev.OCRMode = OCRAuto // unnamed controls named by OCR; the terminal read by OCR
	profile := t.TempDir()
	if err := PrepareLibreOffice(profile); err != nil {
		t.Fatal(err)
	}
	lo := []string{"soffice", "-env:UserInstallation=file://" + profile, "--norestore", "--nologo"}
	page := filepath.Join(t.TempDir(), "page.html")
	os.WriteFile(page, []byte(bookingPage), 0o644)
	clicks := filepath.Join(t.TempDir(), "clicks.txt")
	self, _ := os.Executable()
	title := func(s string) func(*Device) error { return windowOpen("Booking: " + s) }
	doc := rightClickOn("document text", "")
	groups := []struct {
		name  string
		title string
		ready string // an element whose presence says the tree is complete
		// warm clicks the document once first: LibreOffice reports stale
		// boxes for toolbar buttons and cells until its document has had
		// input.
		warm bool
		env  []string
		argv []string
		rows []groundingRow
	}{
		{name: "chromium", title: "Booking", ready: "Search", argv: []string{"chromium", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
			"--disable-component-update", "--disable-sync", "--disable-quic", "--force-renderer-accessibility", "--disable-dev-shm-usage",
			"--user-data-dir=" + t.TempDir(), "file://" + page}, rows: []groundingRow{
			{target: "City", role: "entry", effect: focused("City")},
			{target: "Email", role: "entry", effect: focused("Email")},
			{target: "Newsletter", short: true, role: "check box", effect: title("news true")},
			{target: "Insurance", role: "check box", effect: title("insurance true")},
			{target: "Economy", role: "radio button", effect: title("economy")},
			{target: "Business", role: "radio button", effect: title("business")},
			{target: "Notes", effect: focused("Notes")},
			{target: "Terms", role: "link", effect: title("terms")},
			{target: "Search", role: "push button", effect: title("searched")},
			{target: "Seat", role: "combo box", effect: shows("Aisle")},
			{target: "Aisle", short: true, setup: []string{"combo box|Seat"}, inside: true, effect: title("seat aisle")},
			{target: "Middle", setup: []string{"combo box|Seat"}, inside: true, effect: title("seat middle")},
			{target: "Window", setup: []string{"combo box|Seat"}, inside: true, effect: title("seat window")},
			{target: "Confirm booking", role: "push button", effect: shows("Yes, book")},
			{target: "Yes, book", short: true, setup: []string{"Confirm booking"}, inside: true, effect: title("confirmed")},
			{target: "No", setup: []string{"Confirm booking"}, inside: true, effect: title("kept")},
		}},
		{name: "galculator", title: "galculator", ready: "7", argv: []string{"galculator"}, rows: []groundingRow{
			{target: "7", setup: []string{"AC"}, effect: display("7")},
			{target: "=", short: true, setup: []string{"AC", "2", "*", "3"}, effect: display("6")},
			{target: "sqrt", setup: []string{"AC", "9"}, effect: display("3")},
			{target: "+/-", setup: []string{"AC", "5"}, effect: display("-5")},
			{target: "AC", setup: []string{"4", "2"}, effect: display("0")},
			{target: "Scientific Mode", short: true, setup: []string{"View"}, inside: true, effect: shows("sin")},
			{target: "Basic Mode", setup: []string{"View"}, inside: true, effect: expectNoElement("sin gone", named("", "sin"))},
		}},
		{name: "mousepad", title: "Mousepad", ready: "File", argv: []string{"mousepad"}, rows: []groundingRow{
			{target: "File", short: true, role: "menu", effect: expectElement("File menu open (Save As item showing)", func(e screen.Element) bool {
				return e.Role == "menu item" && strings.Contains(e.Name, "Save As")
			})},
			{target: "Edit", role: "menu", effect: expectElement("Edit menu open (Undo item showing)", func(e screen.Element) bool {
				return e.Role == "menu item" && strings.Contains(e.Name, "Undo")
			})},
			{target: "Search", role: "menu", effect: expectElement("Search menu open (Find item showing)", func(e screen.Element) bool {
				return e.Role == "menu item" && strings.HasPrefix(e.Name, "Find")
			})},
			{target: "Save As...", setup: []string{"File"}, inside: true, effect: windowOpen("Save As")},
			{target: "Name", setup: []string{"File", "Save As..."}, inside: true, effect: focused("Name")},
			{target: "Cancel", short: true, setup: []string{"File", "Save As..."}, inside: true, effect: windowGone("Save As")},
			{target: "About", setup: []string{"Help"}, inside: true, effect: windowOpen("About")},
			{target: "Close", setup: []string{"Help", "About"}, inside: true, effect: windowGone("About")},
		}},
		{name: "writer", title: "LibreOffice Writer", ready: "Bold", warm: true, argv: append(append([]string(nil), lo...), "--writer"), rows: []groundingRow{
			{target: "Bold", short: true, effect: checked("Bold")},
			{target: "Italic", effect: checked("Italic")},
			{target: "Underline", effect: checked("Underline")},
			{target: "Strikethrough", effect: checked("Strikethrough")},
			{target: "Center", effect: checked("Center")},
			{target: "Right", effect: checked("Right")},
			{target: "Justified", effect: checked("Justified")},
			{target: "Left", effect: checked("Left")},
			{target: "Format", role: "menu", effect: shows("Character...")},
			{target: "Text", setup: []string{"Format"}, inside: true, effect: shows("UPPERCASE")},
			{target: "Subscript", role: "check menu item", setup: []string{"Format", "Text"}, inside: true, effect: checked("Subscript")},
			{target: "Character...", setup: []string{"Format"}, inside: true, effect: windowOpen("Character")},
			{target: "Font Effects", short: true, setup: []string{"Format", "Character..."}, inside: true, effect: tabSelected("Font Effects")},
			{target: "Position", setup: []string{"Format", "Character..."}, inside: true, effect: tabSelected("Position")},
			{target: "Borders", setup: []string{"Format", "Character..."}, inside: true, effect: tabSelected("Borders")},
			{target: "Cancel", setup: []string{"Format", "Character..."}, inside: true, effect: windowGone("Character")},
			{target: "Page Style...", before: doc, inside: true, effect: windowOpen("Page Style")},
			{target: "Formatting Marks", role: "check menu item", setup: []string{"View"}, inside: true, effect: checked("Formatting Marks")},
			{target: "Heading 1", setup: []string{"Styles"}, inside: true, effect: expectElement("paragraph style Heading 1", func(e screen.Element) bool {
				return e.Value == "Heading 1"
			})},
			{target: "Title", setup: []string{"Styles"}, inside: true, effect: expectElement("paragraph style Title", func(e screen.Element) bool {
				return e.Value == "Title"
			})},
			{target: "Save As...", setup: []string{"File"}, inside: true, effect: windowOpen("Save")},
			{target: "Cancel", setup: []string{"File", "Save As..."}, inside: true, effect: windowGone("Save")},
			// Dialog controls named only by the label beside or above them.
			{target: "Columns", role: "spin button", short: true, setup: []string{"Table", "Insert Table..."}, inside: true, effect: focused("Columns")},
			{target: "Rows", role: "spin button", setup: []string{"Table", "Insert Table..."}, inside: true, effect: focused("Rows")},
			{target: "Name", role: "text", setup: []string{"Table", "Insert Table..."}, inside: true, effect: focused("Name")},
		}},
		{name: "calc", title: "LibreOffice Calc", ready: "A1", warm: true, argv: append(append([]string(nil), lo...), "--calc"), rows: []groundingRow{
			{target: "C1", short: true, role: "table cell", effect: nameBox("C1")},
			{target: "B3", short: true, role: "table cell", effect: nameBox("B3")},
			{target: "E2", role: "table cell", effect: nameBox("E2")},
			{target: "Format Cells...", before: rightClickOn("table cell", "B5"), inside: true, effect: windowOpen("Format Cells")},
			{target: "Font", before: rightClickOn("table cell", "B5"), setup: []string{"Format Cells..."}, inside: true, effect: tabSelected("Font")},
			{target: "Borders", before: rightClickOn("table cell", "B5"), setup: []string{"Format Cells..."}, inside: true, effect: tabSelected("Borders")},
			{target: "Cancel", before: rightClickOn("table cell", "B5"), setup: []string{"Format Cells..."}, inside: true, effect: windowGone("Format Cells")},
			{target: "Decimal places", role: "spin button", short: true, before: rightClickOn("table cell", "B5"), setup: []string{"Format Cells...", "page tab|Numbers"}, inside: true, effect: typedInto("Decimal places", "3")},
			{target: "Delete...", before: rightClickOn("table cell", "C4"), inside: true, effect: windowOpen("Delete Cells")},
			{target: "Sort...", setup: []string{"Data"}, inside: true, effect: windowOpen("Sort")},
		}},
		{name: "impress", title: "LibreOffice Impress", ready: "Slide", warm: true, argv: append(append([]string(nil), lo...), "--impress"), rows: []groundingRow{
			{target: "Slide Properties...", setup: []string{"Slide"}, inside: true, effect: windowOpen("Slide Properties")},
			{target: "Width", role: "spin button", short: true, setup: []string{"Slide", "Slide Properties..."}, inside: true, effect: typedInto("Width", "9.5")},
			{target: "Height", role: "spin button", setup: []string{"Slide", "Slide Properties..."}, inside: true, effect: typedInto("Height", "4.5")},
			{target: "Portrait", setup: []string{"Slide", "Slide Properties..."}, inside: true, effect: checked("Portrait")},
			{target: "Background", setup: []string{"Slide", "Slide Properties..."}, inside: true, effect: tabSelected("Background")},
			{target: "Cancel", setup: []string{"Slide", "Slide Properties..."}, inside: true, effect: windowGone("Slide Properties")},
		}},
		{name: "terminal", title: "Terminal", ready: "alpha", env: []string{"PCFLOW_TUI=" + clicks},
			argv: []string{"xterm", "-T", "Terminal", "-fa", "DejaVu Sans Mono", "-fs", "16", "-geometry", "40x16+100+100", "-e", self}, rows: []groundingRow{
				{target: "alpha", short: true, effect: lastLine(clicks, "alpha")},
				{target: "charlie", short: true, effect: lastLine(clicks, "charlie")},
				{target: "bravo", effect: lastLine(clicks, "bravo")},
				{target: "delta", effect: lastLine(clicks, "delta")},
			}},
	}
	total, ok, inside, insideOK := 0, 0, 0, 0
	var stats []string
	var unnamed, namedAPI, byOCR, still, observations int
	only := os.Getenv("GROUNDING_ONLY")
	for _, g := range groups {
		if only != "" && !strings.Contains(only, g.name) {
			continue
		}
		if testing.Short() && !slices.ContainsFunc(g.rows, func(r groundingRow) bool { return r.short }) {
			continue
		}
		t.Run(g.name, func(t *testing.T) {
			for _, kv := range g.env {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			app(t, dev, g.title, g.argv...)
			if s, e := find(dev, named("", g.ready), 90*time.Second); e == nil {
				var names []string
				if s != nil {
					for _, e := range s.Elements {
						names = append(names, e.Label())
					}
				}
				shot(dev, g.name+"-fail")
				wins, _ := dev.Windows(context.Background())
				t.Fatalf("%s: %q never appeared (tree: %s; not answering: %q; windows %q); the screen shows:\n%s", g.name, g.ready, dev.LastStats().TreeError, dev.LastStats().NotAnswering, wins, strings.Join(names, "\n"))
			}
			// A first start may open a dialog (LibreOffice's tip of the day).
			key(dev, "esc")
			if g.warm {
				dev.Act(context.Background(), screen.Action{Kind: screen.ActClick, X: 700, Y: 500})
			}
			settle(dev, 10*time.Second)
			// LibreOffice's tree is walked live, every other
			// application's read from its cache (items: LibreOffice's
			// cache aborted Calc after its Delete Cells dialog closed).
			dev.tree.forget()
			if _, err := dev.Observe(context.Background()); err == nil {
				want := 0
				if g.argv[0] == "soffice" {
					want = 1
				}
				if st := dev.LastStats(); st.Walked != want {
					t.Errorf("%s: a full observation walked %d applications live, want %d", g.name, st.Walked, want)
				}
			}
			if g.name == "calc" {
				walkSparesTable(t, dev)
			}
			for _, r := range g.rows {
				if testing.Short() && !r.short {
					continue
				}
				total++
				if r.inside {
					inside++
				}
				label := fmt.Sprintf("%s: %q", g.name, r.target)
				if r.before != nil {
					if err := r.before(dev); err != nil {
						t.Errorf("%s: before: %v", label, err)
					}
					time.Sleep(300 * time.Millisecond)
				}
				for _, s := range r.setup {
					role, name, ok := strings.Cut(s, "|")
					if !ok {
						role, name = "", s
					}
					if !clickNamed(t, dev, role, name) {
						t.Errorf("%s: setup target %q not found", label, s)
					}
					time.Sleep(300 * time.Millisecond)
				}
				// Generous: under load a LibreOffice dialog can take seconds to
				// appear in the accessibility tree (CI: calc "Sort..." seen empty).
				_, e := find(dev, named(r.role, r.target), 20*time.Second)
				st := dev.LastStats()
				observations++
				unnamed, namedAPI, byOCR, still = unnamed+st.Unnamed, namedAPI+st.Named, byOCR+st.NamedByOCR, still+st.StillUnnamed
				stats = append(stats, fmt.Sprintf("%-28s elements %3d occluded %3d unnamed %2d → %2d (api %d, ocr %d)",
					label, st.Elements, st.Occluded, st.Unnamed, st.StillUnnamed, st.Named, st.NamedByOCR))
				if e == nil {
					shot(dev, g.name+"-"+r.target)
					t.Errorf("%s (%s) not found", label, r.role)
					escape(dev)
					continue
				}
				if err := clickAt(dev, screen.ActClick, e); err != nil {
					t.Errorf("%s: click: %v", label, err)
					continue
				}
				if err := r.effect(dev); err != nil {
					shot(dev, g.name+"-"+r.target+"-effect")
					t.Errorf("%s: clicked at %v: %v", label, e.Box, err)
					escape(dev)
					continue
				}
				ok++
				if r.inside {
					insideOK++
				}
				escape(dev)
			}
		})
	}
	t.Logf("unnamed elements per observation, before → after naming:\n%s", strings.Join(stats, "\n"))
	t.Logf("grounding recall: %d/%d targets found and effective (%d/%d inside menus, drop-downs and dialogs)", ok, total, insideOK, inside)
	if observations > 0 {
		t.Logf("unnamed over %d observations: %d before, %d after (named from the accessibility API %d, by OCR %d)", observations, unnamed, still, namedAPI, byOCR)
	}
}

// escape closes what a row opened: menus, drop-downs, dialogs.
func escape(dev *Device) {
	for i := 0; i < 3; i++ {
		key(dev, "esc")
		time.Sleep(120 * time.Millisecond)
	}
}

// shot saves the screen when SHOT is set, for looking at a failure.
func shot(dev *Device, name string) {
	if os.Getenv("SHOT") == "" {
		return
	}
	img, err := Capture(dev.display)
	if err != nil {
		return
	}
	f, err := os.Create(filepath.Join(os.TempDir(), "shot-"+strings.ReplaceAll(name, "/", "_")+".png"))
	if err != nil {
		return
	}
	png.Encode(f, img)
	f.Close()
}
