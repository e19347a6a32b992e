// Package x11 is the device side on a Linux X11 desktop: actions through
// robotgo, observation (screenshot, window titles, clipboard), the
// accessibility tree over AT-SPI2 as Set-of-Marks elements, OCR with
// tesseract, and headless desktops under Xvfb.
package x11

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-vgo/robotgo"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgbutil"
	"github.com/jezek/xgbutil/ewmh"
	"github.com/jezek/xgbutil/icccm"
	"github.com/jezek/xgbutil/xwindow"
	"golang.org/x/image/draw"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/screen"
)

var (
	_ activities.Device         = (*Device)(nil)
	_ activities.TextReader     = (*Device)(nil)
	_ activities.LaunchReporter = (*Device)(nil)
)

// OCR modes.
const (
	OCRAuto   = "auto"   // OCR adds text boxes when the tree is nearly silent
	OCRAlways = "always" // OCR adds text boxes where no element covers them
	OCRNever  = "never"  // OCR only on demand (select, screen_text checks)
)

// Device drives the X display named by $DISPLAY.
type Device struct {
	OCRMode string
	// Warn, when set, receives a line whenever the accessibility tree
	// becomes unavailable (observations then carry OCR boxes only).
	Warn func(msg string)
	// Settle is how long to let the screen settle after an action (the
	// Reflect activity waits too; this is for direct use).
	Settle time.Duration
	mu     sync.Mutex
	tree   a11y
	xu     *xgbutil.XUtil
	// last is the account of the latest observation.
	last ObserveStats
	// exits are the launched programs that failed after Launch returned.
	exits []string
	// treeDown is the tree error last warned about.
	treeDown string
}

// ObserveStats is the account of one observation's element list.
type ObserveStats struct {
	Elements int // in the Set-of-Marks
	Occluded int // left out: a window stacked above hides them
	// Unnamed elements had neither name nor value in the tree; Named of
	// them got a name from other accessibility properties, NamedByOCR from
	// the text their box shows; StillUnnamed kept none.
	Unnamed, Named, NamedByOCR, StillUnnamed int
	TreeError                                string // why the tree was unavailable
}

// LastStats returns the account of the latest observation.
func (d *Device) LastStats() ObserveStats {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.last
}

// New returns a device for the current $DISPLAY, after checking that an X
// server answers there (robotgo's Xlib would end the process otherwise).
func New() (*Device, error) {
	display := os.Getenv("DISPLAY")
	if display == "" {
		return nil, errors.New("DISPLAY is not set: start a desktop with `pcflow desktop up` and pass --display :N")
	}
	xu, err := connectDisplay(display)
	if err != nil {
		return nil, err
	}
	return &Device{OCRMode: OCRAuto, xu: xu}, nil
}

// Close releases the device's connections. Call it before the X server
// goes away: Xlib ends the process on a connection whose server died.
func (d *Device) Close() {
	robotgo.CloseMainDisplay()
	d.tree.close()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.xu != nil {
		d.xu.Conn().Close()
		d.xu = nil
	}
}

func (d *Device) x() (*xgbutil.XUtil, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.xu != nil {
		return d.xu, nil
	}
	xu, err := connectDisplay(os.Getenv("DISPLAY"))
	if err != nil {
		return nil, err
	}
	d.xu = xu
	return xu, nil
}

// ready checks, before any robotgo call, that the X server still answers:
// Xlib ends the whole process on a connection whose server went away.
func (d *Device) ready(ctx context.Context) error {
	xu, err := d.x()
	if err != nil {
		return err
	}
	if err := alive(xu); err != nil {
		return d.diagnose(ctx, err)
	}
	return nil
}

// Capture takes a screenshot with the alpha channel fixed (robotgo returns
// X's padding byte, 0 on a 24-bit display, as alpha).
func Capture() (*image.RGBA, error) {
	img, err := robotgo.CaptureImg()
	if err != nil {
		return nil, fmt.Errorf("screenshot: %w", err)
	}
	rgba, ok := img.(*image.RGBA)
	if !ok {
		rgba = image.NewRGBA(img.Bounds())
		draw.Copy(rgba, image.Point{}, img, img.Bounds(), draw.Src, nil)
	}
	for i := 3; i < len(rgba.Pix); i += 4 {
		rgba.Pix[i] = 255
	}
	return rgba, nil
}

// Observe captures the screen, the accessibility elements, windows and
// clipboard; OCR per OCRMode.
func (d *Device) Observe(ctx context.Context) (*screen.Screen, error) {
	if err := d.ready(ctx); err != nil {
		return nil, err
	}
	// The window list is a root property that outlives the window
	// manager: without this check a dead one shows stale windows.
	xu, err := d.x()
	if err != nil {
		return nil, err
	}
	if err := wmRunning(xu, os.Getenv("DISPLAY")); err != nil {
		return nil, err
	}
	img, err := Capture()
	if err != nil {
		return nil, d.diagnose(ctx, err)
	}
	s := &screen.Screen{Image: img}
	wins, active, err := d.windows()
	if err != nil {
		return nil, d.diagnose(ctx, err)
	}
	s.Windows, s.ActiveWindow = wins, active
	s.App = activeApp(xu)
	b := img.Bounds()
	stack, err := stacking(xu)
	if err != nil {
		return nil, d.diagnose(ctx, err)
	}
	var st ObserveStats
	obs, err := d.tree.elements(b.Dx(), b.Dy(), active, stack, func(title string) (int, int, bool) { return clientOrigin(xu, title) })
	if err != nil {
		// The tree is the primary source, but a desktop without it still
		// works through OCR: say so once, loudly.
		st.TreeError = err.Error()
		obs = &observation{}
		if cerr := a11yBus(); cerr != nil {
			st.TreeError = cerr.Error()
		}
	}
	d.mu.Lock()
	warn := d.Warn != nil && st.TreeError != "" && st.TreeError != d.treeDown
	d.treeDown = st.TreeError
	d.mu.Unlock()
	if warn {
		d.Warn("warning: " + st.TreeError + "; observations carry OCR text boxes only")
	}
	s.Elements = obs.elements
	st.Occluded, st.Unnamed, st.Named = obs.Occluded, obs.Unnamed, obs.Named
	if d.OCRMode != OCRNever && st.Unnamed > st.Named {
		if n, err := nameByOCR(ctx, img, s.Elements); err == nil {
			st.NamedByOCR = n
		}
	}
	for _, e := range s.Elements {
		if e.Name == "" && e.Value == "" {
			st.StillUnnamed++
		}
	}
	s.Clipboard = clipboard()
	if d.OCRMode == OCRAlways || (d.OCRMode == OCRAuto && len(s.Elements) < 5) {
		words, err := OCR(ctx, img)
		if err == nil {
			s.Words = words
			s.Elements = MergeOCR(s.Elements, words)
		}
	}
	st.Elements = len(s.Elements)
	d.mu.Lock()
	d.last = st
	d.mu.Unlock()
	return s, nil
}

func clipboard() string {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	out, err := exec.CommandContext(ctx, "xclip", "-o", "-selection", "clipboard").Output()
	if err != nil {
		return ""
	}
	if len(out) > 2000 {
		out = out[:2000]
	}
	return string(out)
}

// MergeOCR adds OCR text lines that overlap no tree element, as PC-Agent
// does, and renumbers.
func MergeOCR(els []screen.Element, words []screen.Word) []screen.Element {
	out := append([]screen.Element(nil), els...)
	for _, l := range lines(words) {
		covered := false
		for _, e := range els {
			if e.Box.Overlaps(l.Box) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, screen.Element{Role: "text", Name: l.Text, Box: l.Box, Source: "ocr"})
		}
	}
	for i := range out {
		out[i].ID = i + 1
	}
	return out
}

// lines joins consecutive words on one line (close together) into one box.
func lines(words []screen.Word) []screen.Word {
	var out []screen.Word
	for _, w := range words {
		if n := len(out); n > 0 {
			last := &out[n-1]
			sameLine := abs(last.Box.Y-w.Box.Y) < max(last.Box.H, w.Box.H)/2+2
			near := w.Box.X-(last.Box.X+last.Box.W) < 2*max(w.Box.H, 8)
			if sameLine && near && w.Box.X >= last.Box.X {
				last.Text += " " + w.Text
				last.Box = last.Box.Union(w.Box)
				continue
			}
		}
		out = append(out, w)
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// OCR runs tesseract on a 2× upscaled grayscale copy of img (which more
// than doubles its recall of small UI text) and returns word boxes in
// screen coordinates.
func OCR(ctx context.Context, img image.Image) ([]screen.Word, error) {
	b := img.Bounds()
	gray := image.NewGray(image.Rect(0, 0, b.Dx()*2, b.Dy()*2))
	draw.BiLinear.Scale(gray, gray.Bounds(), img, b, draw.Src, nil)
	words, err := tesseract(ctx, gray, "11")
	if err != nil {
		return nil, err
	}
	for i := range words {
		r := words[i].Box
		words[i].Box = screen.Rect{X: r.X/2 + b.Min.X, Y: r.Y/2 + b.Min.Y, W: (r.W + 1) / 2, H: (r.H + 1) / 2}
	}
	return words, nil
}

// ReadText reads the words img shows with tesseract (see OCR).
func (d *Device) ReadText(ctx context.Context, img image.Image) ([]screen.Word, error) {
	return OCR(ctx, img)
}

// windows lists window titles, the active one first.
func (d *Device) windows() ([]string, string, error) {
	xu, err := d.x()
	if err != nil {
		return nil, "", err
	}
	ids, err := ewmh.ClientListGet(xu)
	if err != nil {
		return nil, "", fmt.Errorf("list windows (is a window manager running? `pcflow desktop up` starts one): %w", err)
	}
	active := ""
	if aw, err := ewmh.ActiveWindowGet(xu); err == nil && aw != 0 {
		active = windowTitle(xu, aw)
	}
	var titles []string
	for _, id := range ids {
		if t := windowTitle(xu, id); t != "" {
			titles = append(titles, t)
		}
	}
	return titles, active, nil
}

// clientOrigin is where the client area of the window with a title lies
// on the screen.
func clientOrigin(xu *xgbutil.XUtil, title string) (int, int, bool) {
	ids, err := ewmh.ClientListGet(xu)
	if err != nil {
		return 0, 0, false
	}
	for _, id := range ids {
		if windowTitle(xu, id) != title {
			continue
		}
		r, err := xproto.TranslateCoordinates(xu.Conn(), id, xu.RootWin(), 0, 0).Reply()
		if err != nil {
			return 0, 0, false
		}
		return int(r.DstX), int(r.DstY), true
	}
	return 0, 0, false
}

// activeApp names the application of the active window: its WM_CLASS
// class ("Galculator", "firefox", "libreoffice-writer"), else its instance.
func activeApp(xu *xgbutil.XUtil) string {
	aw, err := ewmh.ActiveWindowGet(xu)
	if err != nil || aw == 0 {
		return ""
	}
	c, err := icccm.WmClassGet(xu, aw)
	if err != nil {
		return ""
	}
	if c.Class != "" {
		return c.Class
	}
	return c.Instance
}

// windowTitle is a window's title: _NET_WM_NAME, or the legacy WM_NAME that
// programs such as xterm set alone.
func windowTitle(xu *xgbutil.XUtil, w xproto.Window) string {
	if t, err := ewmh.WmNameGet(xu, w); err == nil && t != "" {
		return t
	}
	t, _ := icccm.WmNameGet(xu, w)
	return t
}

// Windows lists the open window titles, the active one first.
func (d *Device) Windows(ctx context.Context) ([]string, error) {
	wins, active, err := d.windows()
	if err != nil {
		return nil, err
	}
	if active == "" {
		return wins, nil
	}
	out := []string{active}
	for _, w := range wins {
		if w != active {
			out = append(out, w)
		}
	}
	return out, nil
}

// launchGrace is how long Launch watches a new program for an exit at
// once (a bad option, a missing library, no display).
const launchGrace = time.Second

// Launch starts a program in its own session, detached from the worker, so
// it survives the worker's restart. A program that fails at once is an
// error that carries its exit status and the end of its error output.
func (d *Device) Launch(ctx context.Context, argv []string) error {
	if len(argv) == 0 {
		return errors.New("launch: empty command")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Errorf("launch %s: not found on PATH", argv[0])
	}
	argv = accessible(argv)
	keepInheritedFiles()
	// Error output goes to a file, not a pipe: the program must not get
	// SIGPIPE when the worker stops.
	errf, err := os.CreateTemp("", "pcflow-launch-*.log")
	if err != nil {
		return fmt.Errorf("launch %s: %w", argv[0], err)
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if run := activities.LaunchedBy(ctx); run != "" {
		// Marks the application (and what it starts) as the run's.
		cmd.Env = append(os.Environ(), activities.RunEnv+"="+run)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, errf
	if err := cmd.Start(); err != nil {
		errf.Close()
		os.Remove(errf.Name())
		return fmt.Errorf("launch %s: %w", argv[0], err)
	}
	exited := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		errf.Close()
		exited <- err
	}()
	select {
	case err := <-exited:
		tail := errorOutput(errf.Name(), 600)
		os.Remove(errf.Name())
		if err != nil {
			return fmt.Errorf("launch %s: it exited at once (%v)%s", strings.Join(argv, " "), err, tail)
		}
	case <-time.After(launchGrace):
		go func() {
			if err := <-exited; err != nil {
				d.noteExit(fmt.Sprintf("%s exited (%v)%s", strings.Join(argv, " "), err, errorOutput(errf.Name(), 600)))
			}
			os.Remove(errf.Name())
		}()
	case <-ctx.Done():
		go func() { <-exited; os.Remove(errf.Name()) }()
		return ctx.Err()
	}
	return nil
}

// maxExits is how many failed launches LaunchFailures remembers.
const maxExits = 5

func (d *Device) noteExit(s string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.exits = append(d.exits, s)
	if len(d.exits) > maxExits {
		d.exits = d.exits[len(d.exits)-maxExits:]
	}
}

// LaunchFailures lists the programs Launch started that failed later,
// with their exit status and the end of their error output, latest last.
func (d *Device) LaunchFailures() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.exits...)
}

// chromiumNames are the programs of Chromium-based browsers.
var chromiumNames = map[string]bool{"chromium": true, "chromium-browser": true, "google-chrome": true, "google-chrome-stable": true, "chrome": true}

// accessible adds what a program needs to show its content to the
// accessibility tree: Chromium builds the tree of a page only with
// --force-renderer-accessibility, even with the session's accessibility
// switched on (measured: without it no element of the page appears).
func accessible(argv []string) []string {
	if !chromiumNames[filepath.Base(argv[0])] {
		return argv
	}
	for _, a := range argv[1:] {
		if strings.HasPrefix(a, "--force-renderer-accessibility") {
			return argv
		}
	}
	return append([]string{argv[0], "--force-renderer-accessibility"}, argv[1:]...)
}

// errorOutput returns a program's error output, shortened to about n bytes
// (its first line and its end), as ": text", or "".
func errorOutput(path string, n int) string {
	b, _ := os.ReadFile(path)
	s := strings.TrimSpace(string(b))
	if s == "" {
		return ""
	}
	if len(s) > n {
		first, _, _ := strings.Cut(s, "\n")
		if len(first) > n/3 {
			first = first[:n/3]
		}
		s = first + " … " + s[len(s)-(n-len(first)):]
	}
	return ": " + strings.ToValidUTF8(s, "")
}

var keyNames = map[string]string{
	"control": "ctrl", "return": "enter", "escape": "esc", "super": "cmd", "win": "cmd", "meta": "cmd",
	"del": "delete", "pgup": "pageup", "pgdn": "pagedown", "page_up": "pageup", "page_down": "pagedown",
	"arrowup": "up", "arrowdown": "down", "arrowleft": "left", "arrowright": "right", "plus": "+",
}

func normKey(k string) string {
	k = strings.ToLower(strings.TrimSpace(k))
	if n, ok := keyNames[k]; ok {
		return n
	}
	return k
}

// Act executes one action; coordinates are in screen space.
func (d *Device) Act(ctx context.Context, a screen.Action) (string, error) {
	note, err := d.act(ctx, a)
	if err == nil && d.Settle > 0 {
		time.Sleep(d.Settle)
	}
	return note, err
}

func (d *Device) act(ctx context.Context, a screen.Action) (string, error) {
	if err := d.ready(ctx); err != nil {
		return "", err
	}
	release, err := holdModifiers(a)
	if err != nil {
		return "", err
	}
	defer release()
	switch a.Kind {
	case screen.ActClick, screen.ActDoubleClick, screen.ActRightClick:
		d.focusAt(a.X, a.Y)
		// Arrive with a motion event (some toolkits ignore a press that
		// comes without one), then press.
		robotgo.Move(a.X-1, a.Y-1)
		time.Sleep(40 * time.Millisecond)
		robotgo.Move(a.X, a.Y)
		time.Sleep(40 * time.Millisecond)
		btn, double := "left", a.Kind == screen.ActDoubleClick
		if a.Kind == screen.ActRightClick {
			btn = "right"
		}
		// Press and release with a pause between, as a hand does: some
		// toolkits drop a press and release that arrive together.
		clicks := 1
		if double {
			clicks = 2
		}
		for i := 0; i < clicks; i++ {
			if err := robotgo.Toggle(btn); err != nil {
				return "", fmt.Errorf("%s at (%d,%d): %w", a.Kind, a.X, a.Y, err)
			}
			time.Sleep(40 * time.Millisecond)
			if err := robotgo.Toggle(btn, "up"); err != nil {
				return "", fmt.Errorf("%s at (%d,%d): %w", a.Kind, a.X, a.Y, err)
			}
			if i+1 < clicks {
				time.Sleep(60 * time.Millisecond)
			}
		}
		return fmt.Sprintf("%s at (%d,%d)", a.Kind, a.X, a.Y), nil
	case screen.ActType:
		if a.Element > 0 || a.X != 0 || a.Y != 0 {
			robotgo.Move(a.X, a.Y)
			if err := robotgo.Click("left", false); err != nil {
				return "", fmt.Errorf("focus (%d,%d): %w", a.X, a.Y, err)
			}
			time.Sleep(80 * time.Millisecond)
		}
		robotgo.TypeStr(a.Text)
		if a.Enter {
			time.Sleep(30 * time.Millisecond)
			if err := robotgo.KeyTap("enter"); err != nil {
				return "", err
			}
		}
		return fmt.Sprintf("typed %d characters", len([]rune(a.Text))), nil
	case screen.ActHotkey:
		keys := make([]string, len(a.Keys))
		for i, k := range a.Keys {
			keys[i] = normKey(k)
		}
		var mods []any
		for _, m := range keys[:len(keys)-1] {
			mods = append(mods, m)
		}
		if err := robotgo.KeyTap(keys[len(keys)-1], mods...); err != nil {
			return "", fmt.Errorf("hotkey %s: %w", strings.Join(keys, "+"), err)
		}
		return "pressed " + strings.Join(keys, "+"), nil
	case screen.ActScroll:
		if a.X != 0 || a.Y != 0 {
			robotgo.Move(a.X, a.Y)
		}
		robotgo.ScrollDir(a.Amount, a.Direction)
		return fmt.Sprintf("scrolled %s %d", a.Direction, a.Amount), nil
	case screen.ActDrag, screen.ActSelect:
		robotgo.Move(a.X, a.Y)
		time.Sleep(30 * time.Millisecond)
		if err := robotgo.Toggle("left"); err != nil {
			return "", err
		}
		for i := 1; i <= 10; i++ {
			robotgo.Move(a.X+(a.X2-a.X)*i/10, a.Y+(a.Y2-a.Y)*i/10)
			time.Sleep(15 * time.Millisecond)
		}
		if err := robotgo.Toggle("left", "up"); err != nil {
			return "", err
		}
		return fmt.Sprintf("dragged (%d,%d)→(%d,%d)", a.X, a.Y, a.X2, a.Y2), nil
	case screen.ActCopy:
		return "copied", robotgo.KeyTap("c", "ctrl")
	case screen.ActPaste:
		return "pasted", robotgo.KeyTap("v", "ctrl")
	case screen.ActWait:
		select {
		case <-time.After(time.Duration(a.Seconds * float64(time.Second))):
		case <-ctx.Done():
			return "", ctx.Err()
		}
		return fmt.Sprintf("waited %gs", a.Seconds), nil
	case screen.ActSwitchWindow:
		return d.switchWindow(a.Title)
	case screen.ActOpenApp:
		argv, err := FindApp(a.App)
		if err != nil {
			return "", err
		}
		return "started " + strings.Join(argv, " "), d.Launch(ctx, argv)
	}
	if note, ok, err := d.actInput(ctx, a); ok {
		return note, err
	}
	return "", fmt.Errorf("action %q is not supported on this device", a.Kind)
}

// focusAt activates the top-level window under (x, y) if it is not the
// active one: applications such as LibreOffice ignore the first click into
// a window that does not have the focus.
func (d *Device) focusAt(x, y int) {
	xu, err := d.x()
	if err != nil {
		return
	}
	wins, err := ewmh.ClientListStackingGet(xu)
	if err != nil {
		return
	}
	active, _ := ewmh.ActiveWindowGet(xu)
	for i := len(wins) - 1; i >= 0; i-- {
		g, err := xwindow.New(xu, wins[i]).DecorGeometry()
		if err != nil || x < g.X() || y < g.Y() || x >= g.X()+g.Width() || y >= g.Y()+g.Height() {
			continue
		}
		if wins[i] != active {
			_ = ewmh.ActiveWindowReq(xu, wins[i])
			time.Sleep(150 * time.Millisecond)
		}
		return
	}
}

func (d *Device) switchWindow(title string) (string, error) {
	xu, err := d.x()
	if err != nil {
		return "", err
	}
	ids, err := ewmh.ClientListGet(xu)
	if err != nil {
		return "", err
	}
	var titles []string
	for _, id := range ids {
		t := windowTitle(xu, id)
		titles = append(titles, t)
		if strings.Contains(strings.ToLower(t), strings.ToLower(title)) {
			if err := ewmh.ActiveWindowReq(xu, id); err != nil {
				return "", fmt.Errorf("activate %q: %w", t, err)
			}
			time.Sleep(100 * time.Millisecond)
			return fmt.Sprintf("switched to %q", t), nil
		}
	}
	return "", fmt.Errorf("no window title contains %q (open: %s)", title, strings.Join(titles, " | "))
}

// FindApp resolves an application name to a command: a desktop entry whose
// Name matches, else a program on PATH.
func FindApp(name string) ([]string, error) {
	want := strings.ToLower(strings.TrimSpace(name))
	dirs := []string{"/usr/share/applications", "/usr/local/share/applications", filepath.Join(os.Getenv("HOME"), ".local/share/applications")}
	var partial []string
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*.desktop"))
		for _, f := range files {
			entryName, generic, exe := readDesktopEntry(f)
			if exe == nil {
				continue
			}
			base := strings.TrimSuffix(filepath.Base(f), ".desktop")
			n := strings.ToLower(entryName)
			switch {
			case n == want || strings.ToLower(base) == want || strings.HasSuffix(strings.ToLower(base), "."+want):
				return exe, nil
			case partial == nil && (strings.Contains(n, want) || strings.Contains(strings.ToLower(generic), want)):
				partial = exe
			}
		}
	}
	if partial != nil {
		return partial, nil
	}
	if p, err := exec.LookPath(want); err == nil {
		return []string{p}, nil
	}
	return nil, fmt.Errorf("no application called %q: no desktop entry or program by that name", name)
}

func readDesktopEntry(path string) (name, generic string, exe []string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", "", nil
	}
	inEntry := false
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			inEntry = line == "[Desktop Entry]"
			continue
		}
		if !inEntry {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		switch k {
		case "Name":
			name = v
		case "GenericName":
			generic = v
		case "NoDisplay":
			if v == "true" {
				return "", "", nil
			}
		case "Exec":
			for _, f := range strings.Fields(v) {
				if !strings.HasPrefix(f, "%") {
					exe = append(exe, f)
				}
			}
		}
	}
	return name, generic, exe
}
