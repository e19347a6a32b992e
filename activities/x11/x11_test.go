package x11

import (
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities/screen"
)

// desktop starts a headless desktop for the test and points this process at it.
func desktop(t testing.TB) *Device {
	t.Helper()
	d, err := Up(context.Background(), DesktopOptions{StateDir: t.TempDir()})
	if err != nil {
		t.Fatalf("desktop: %v", err)
	}
	t.Cleanup(d.Down)
	for k, v := range d.Env {
		t.Setenv(k, v)
	}
	dev, err := New()
	if err != nil {
		t.Fatal(err)
	}
	dev.OCRMode = OCRNever
	t.Cleanup(dev.Close)
	return dev
}

// app starts a program in its own process group and stops it at cleanup.
func app(t testing.TB, dev *Device, titleHas string, argv ...string) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %v: %v", argv, err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	waitWindow(t, dev, titleHas, 60*time.Second)
	settle(dev, 30*time.Second)
}

// settle waits until the accessibility tree stops changing: applications
// publish it in pieces, and lay their windows out again, while they start.
func settle(dev *Device, d time.Duration) {
	deadline := time.Now().Add(d)
	last, stable := "", 0
	for time.Now().Before(deadline) && stable < 3 {
		n := ""
		if s, err := dev.Observe(context.Background()); err == nil {
			var b strings.Builder
			for _, e := range s.Elements {
				b.WriteString(e.Label())
			}
			n = b.String()
		}
		if n == last && n != "" {
			stable++
		} else {
			stable = 0
		}
		last = n
		time.Sleep(500 * time.Millisecond)
	}
}

func waitWindow(t testing.TB, dev *Device, titleHas string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		wins, werr := dev.Windows(context.Background())
		if werr != nil && time.Now().After(deadline) {
			t.Logf("windows: %v", werr)
		}
		for _, w := range wins {
			if strings.Contains(w, titleHas) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no window with %q after %s; windows: %v", titleHas, d, wins)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// find waits for an element matching pred.
func find(dev *Device, pred func(screen.Element) bool, d time.Duration) (*screen.Screen, *screen.Element) {
	deadline := time.Now().Add(d)
	for {
		s, err := dev.Observe(context.Background())
		if err == nil {
			for i := range s.Elements {
				if pred(s.Elements[i]) {
					return s, &s.Elements[i]
				}
			}
		}
		if time.Now().After(deadline) {
			return s, nil
		}
		time.Sleep(150 * time.Millisecond)
	}
}

func named(role, name string) func(screen.Element) bool {
	return func(e screen.Element) bool { return e.Name == name && (role == "" || e.Role == role) }
}

func hasState(e screen.Element, st string) bool {
	for _, s := range e.States {
		if s == st {
			return true
		}
	}
	return false
}

// clickNamed finds an element by name the way an instruction names it and
// clicks its centre.
func clickNamed(t testing.TB, dev *Device, role, name string) bool {
	_, e := find(dev, named(role, name), 5*time.Second)
	if e == nil {
		return false
	}
	x, y := e.Box.Center()
	if _, err := dev.Act(context.Background(), screen.Action{Kind: screen.ActClick, X: x, Y: y}); err != nil {
		t.Errorf("click %q: %v", name, err)
		return false
	}
	return true
}

func key(dev *Device, keys ...string) {
	dev.Act(context.Background(), screen.Action{Kind: screen.ActHotkey, Keys: keys})
}

type groundingRow struct {
	target string
	role   string
	setup  []string // element names clicked first (not counted)
	effect func(dev *Device) error
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

func display(want string) func(*Device) error {
	return expectElement("calculator display shows "+want, func(e screen.Element) bool {
		return e.Role == "text" && strings.TrimSpace(e.Value) == want
	})
}

// TestGrounding is PC-Agent's grounding set on real applications: find a
// target by the name an instruction would use, click its centre, and check
// the effect in the application's own state.
func TestGrounding(t *testing.T) {
	dev := desktop(t)
	profile := t.TempDir()
	if os.Getenv("NOPREP") == "" {
		if err := PrepareLibreOffice(profile); err != nil {
			t.Fatal(err)
		}
	}
	lo := []string{"soffice", "-env:UserInstallation=file://" + profile, "--norestore", "--nologo"}
	page := filepath.Join(t.TempDir(), "page.html")
	os.WriteFile(page, []byte(`<!doctype html><html><head><title>Search page</title></head><body>
<h1>Find a flight</h1><label>City <input id="q" aria-label="City"></label>
<button onclick="document.getElementById('out').textContent='Searching'; document.title='Clicked Go'">Go</button>
<p id="out">Idle</p></body></html>`), 0o644)
	groups := []struct {
		name  string
		title string
		ready string // an element whose presence says the tree is complete
		// warm clicks the document once first: LibreOffice reports stale
		// boxes for toolbar buttons and cells until its document has had
		// input.
		warm bool
		argv []string
		rows []groundingRow
	}{
		{"chromium", "Search page", "Go", false, []string{"chromium", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
			"--disable-component-update", "--disable-sync", "--disable-quic", "--force-renderer-accessibility", "--disable-dev-shm-usage",
			"--user-data-dir=" + t.TempDir(), "file://" + page}, []groundingRow{
			{target: "City", role: "entry", effect: expectElement("City field focused", func(e screen.Element) bool {
				return e.Name == "City" && hasState(e, "focused")
			})},
			{target: "Go", role: "push button", effect: func(dev *Device) error {
				waitWindow(t, dev, "Clicked Go", 5*time.Second)
				return nil
			}},
		}},
		{"galculator", "galculator", "7", false, []string{"galculator"}, []groundingRow{
			{target: "7", setup: []string{"AC"}, effect: display("7")},
			{target: "=", setup: []string{"AC", "2", "*", "3"}, effect: display("6")},
			{target: "sqrt", setup: []string{"AC", "9"}, effect: display("3")},
			{target: "+/-", setup: []string{"AC", "5"}, effect: display("-5")},
			{target: "AC", setup: []string{"4", "2"}, effect: display("0")},
		}},
		{"mousepad", "Mousepad", "File", false, []string{"mousepad"}, []groundingRow{
			{target: "File", role: "menu", effect: expectElement("File menu open (Save As item showing)", func(e screen.Element) bool {
				return e.Role == "menu item" && strings.Contains(e.Name, "Save As")
			})},
			{target: "Edit", role: "menu", effect: expectElement("Edit menu open (Undo item showing)", func(e screen.Element) bool {
				return e.Role == "menu item" && strings.Contains(e.Name, "Undo")
			})},
			{target: "Search", role: "menu", effect: expectElement("Search menu open (Find item showing)", func(e screen.Element) bool {
				return e.Role == "menu item" && strings.HasPrefix(e.Name, "Find")
			})},
		}},
		{"writer", "LibreOffice Writer", "Bold", true, append(append([]string(nil), lo...), "--writer"), []groundingRow{
			{target: "Bold", effect: expectElement("Bold is on", func(e screen.Element) bool { return e.Name == "Bold" && hasState(e, "checked") })},
			{target: "Italic", effect: expectElement("Italic is on", func(e screen.Element) bool { return e.Name == "Italic" && hasState(e, "checked") })},
			{target: "Center", effect: expectElement("Center is on", func(e screen.Element) bool { return e.Name == "Center" && hasState(e, "checked") })},
			{target: "Right", effect: expectElement("Right is on", func(e screen.Element) bool { return e.Name == "Right" && hasState(e, "checked") })},
			{target: "Strikethrough", effect: expectElement("Strikethrough is on", func(e screen.Element) bool {
				return e.Name == "Strikethrough" && hasState(e, "checked")
			})},
		}},
		{"calc", "LibreOffice Calc", "A1", true, append(append([]string(nil), lo...), "--calc"), []groundingRow{
			{target: "C1", role: "table cell", effect: nameBox("C1")},
			{target: "B3", role: "table cell", effect: nameBox("B3")},
			{target: "E2", role: "table cell", effect: nameBox("E2")},
		}},
	}
	total, ok := 0, 0
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			app(t, dev, g.title, g.argv...)
			if s, e := find(dev, named("", g.ready), 40*time.Second); e == nil {
				var names []string
				for _, e := range s.Elements {
					names = append(names, e.Label())
				}
				_, terr := dev.tree.elements(1440, 900, "")
				img, _ := Capture()
				f, _ := os.Create("/tmp/shot-fail-" + g.name + ".png")
				png.Encode(f, img)
				f.Close()
				wins, _ := dev.Windows(context.Background())
				t.Logf("windows: %q", wins)
				t.Fatalf("%s: %q never appeared in the tree (%v); it shows:\n%s", g.name, g.ready, terr, strings.Join(names, "\n"))
			}
			// A first start may open a dialog (LibreOffice's tip of the day).
			key(dev, "esc")
			if g.warm {
				dev.Act(context.Background(), screen.Action{Kind: screen.ActClick, X: 700, Y: 500})
			}
			settle(dev, 10*time.Second)
			if os.Getenv("SHOT") != "" {
				img, _ := Capture()
				f, _ := os.Create("/tmp/shot-" + g.name + ".png")
				png.Encode(f, img)
				f.Close()
			}
			for _, r := range g.rows {
				total++
				for _, s := range r.setup {
					if !clickNamed(t, dev, "", s) {
						t.Errorf("%s: setup target %q not found", g.name, s)
					}
					time.Sleep(100 * time.Millisecond)
				}
				if !clickNamed(t, dev, r.role, r.target) {
					t.Errorf("%s: target %q (%s) not found in the tree", g.name, r.target, r.role)
					continue
				}
				if os.Getenv("SHOT") != "" {
					img, _ := Capture()
					f, _ := os.Create("/tmp/shot-after-" + r.target + ".png")
					png.Encode(f, img)
					f.Close()
				}
				if err := r.effect(dev); err != nil {
					t.Errorf("%s: clicked %q: %v", g.name, r.target, err)
					key(dev, "esc")
					continue
				}
				ok++
				key(dev, "esc")
				time.Sleep(150 * time.Millisecond)
			}
		})
	}
	t.Logf("grounding recall: %d/%d targets found and effective", ok, total)
}

func nameBox(cell string) func(*Device) error {
	return expectElement("Name Box shows "+cell, func(e screen.Element) bool { return e.Role == "text" && e.Value == cell })
}
