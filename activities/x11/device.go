package x11

import (
	"context"
	"errors"
	"fmt"
	"image"
	"strings"
	"sync"
	"time"

	"github.com/go-vgo/robotgo"
	"github.com/jezek/xgbutil"
	"golang.org/x/image/draw"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/local"
	"github.com/pcflow/pcflow/activities/screen"
)

var (
	_ activities.Device         = (*Device)(nil)
	_ activities.TextReader     = (*Device)(nil)
	_ activities.LaunchReporter = (*Device)(nil)
	_ activities.LocalFiles     = (*Device)(nil)
	_ activities.Commands       = (*Device)(nil)
)

// OCR modes.
const (
	OCRAuto   = "auto"   // OCR adds text boxes when the tree is nearly silent
	OCRAlways = "always" // OCR adds text boxes where no element covers them
	OCRNever  = "never"  // OCR only on demand (select, screen_text checks)
)

// Device drives one X display, the one New was given: two devices of one
// process drive two displays, each its own (the process's $DISPLAY is
// not read). Its files and the programs a task runs to completion are the
// worker's host's own (local.Files, local.Commands, with the device's
// display in their environment): the display is on this machine.
type Device struct {
	local.Files
	local.Commands
	OCRMode string
	// Warn, when set, receives a line whenever the accessibility tree
	// becomes unavailable (observations then carry OCR boxes only).
	Warn func(msg string)
	// Settle is how long to let the screen settle after an action (the
	// Reflect activity waits too; this is for direct use).
	Settle time.Duration
	// Confine, when set, wraps the command line of every application the
	// device launches (TaskJail.Wrap in an overlay sandbox).
	Confine func(argv []string) []string
	display string // the X display (":3"), fixed at New
	mu      sync.Mutex
	tree    a11y
	xu      *xgbutil.XUtil
	shot    shmScreen // the screen through shared memory, on xu
	clip    clipReader
	// last is the account of the latest observation.
	last ObserveStats
	// exits are the launched programs that failed after Launch returned.
	exits []string
	// treeDown is the tree error last warned about.
	treeDown string
	// hung holds the applications that did not answer the last
	// observation: each is warned about once while it keeps not
	// answering, however others come and go.
	hung map[string]bool
	// ocrNames remembers what OCR read in unnamed controls' boxes,
	// ocrLast the last screen read whole.
	ocrNames *ocrMemo
	ocrLast  ocrFrame
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
	// NotAnswering names the applications whose elements are missing
	// because they did not answer accessibility requests in time (a
	// frozen or busy process): "soffice.bin (pid 4242)".
	NotAnswering []string
	// Requests counts the accessibility requests the observation sent to
	// applications. Reused counts the applications whose tree came from
	// the previous observation, the screen showing no change that needs
	// it read again; Reread the changed elements of them read again alone.
	Requests, Reused, Reread int
	// Walked counts the applications whose tree was walked live instead
	// of read from their cache (LibreOffice, whose cache can abort it).
	Walked int
}

// LastStats returns the account of the latest observation.
func (d *Device) LastStats() ObserveStats {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.last
}

// New returns a device for the X display display (":3"), after checking
// that an X server answers there (robotgo's Xlib would end the process
// otherwise). The programs it starts get display as $DISPLAY.
func New(display string) (*Device, error) {
	if display == "" {
		return nil, errors.New("no display: start a desktop with `pcflow desktop up` and pass --display :N")
	}
	xu, err := connectDisplay(display)
	if err != nil {
		return nil, err
	}
	env := []string{"DISPLAY=" + display}
	return &Device{Commands: local.Commands{Env: env}, OCRMode: OCRAuto, display: display, xu: xu, ocrNames: &ocrMemo{Max: ocrMemoSize}}, nil
}

// NewOn returns a device for desk's display that reads the accessibility
// tree through desk's own D-Bus session, and gives the programs it starts
// that session, whatever this process's $DBUS_SESSION_BUS_ADDRESS: two
// devices of one process on two desktops each read their own.
func NewOn(desk *Desktop) (*Device, error) {
	d, err := New(desk.Display)
	if err != nil {
		return nil, err
	}
	if bus := desk.Env["DBUS_SESSION_BUS_ADDRESS"]; bus != "" {
		d.tree.bus = bus
		d.Commands.Env = append(d.Commands.Env, "DBUS_SESSION_BUS_ADDRESS="+bus)
	}
	return d, nil
}

// ownEnv is the device's own variables, given to every program it starts
// after the worker's: its display, and its desktop's session bus.
func (d *Device) ownEnv() []string { return d.Commands.Env }

// Display is the X display the device drives (":3").
func (d *Device) Display() string { return d.display }

// Close releases the device's connections. Call it before the X server
// goes away: Xlib ends the process on a connection whose server died.
func (d *Device) Close() {
	closeRobot(d.display)
	d.tree.close()
	d.shot.close()
	d.clip.close()
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
	xu, err := connectDisplay(d.display)
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

// Capture takes a screenshot of display with the alpha channel fixed
// (robotgo returns X's padding byte, 0 on a 24-bit display, as alpha).
func Capture(display string) (*image.RGBA, error) {
	release := robotOn(display)
	img, err := robotgo.CaptureImg()
	release()
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
	if err := wmRunning(xu, d.display); err != nil {
		return nil, err
	}
	// The clipboard's owner answers in its own time: meanwhile the screen
	// and the tree are read.
	clip := make(chan string, 1)
	go func() { clip <- d.clip.read(d.display) }() // buffered: never waits for a reader
	img, err := d.shot.grab(xu)
	if errors.Is(err, errGrabFormat) {
		img, err = Capture(d.display)
	}
	if err != nil {
		return nil, d.diagnose(ctx, err)
	}
	s := &screen.Screen{Image: img}
	wins, active, err := d.windows()
	if err != nil {
		return nil, d.diagnose(ctx, err)
	}
	s.Windows, s.ActiveWindow = wins, active
	s.TitleBars = titleBars(xu)
	s.App = activeApp(xu)
	b := img.Bounds()
	stack, err := stacking(xu)
	if err != nil {
		return nil, d.diagnose(ctx, err)
	}
	var st ObserveStats
	obs, err := d.tree.elements(ctx, img, b.Dx(), b.Dy(), active, stack, func(title string) (int, int, bool) { return clientOrigin(xu, title) })
	if err != nil {
		// The tree is the primary source, but a desktop without it still
		// works through OCR: say so once, loudly.
		st.TreeError = err.Error()
		obs = &observation{}
		if cerr := a11yBus(d.tree.sessionBus()); cerr != nil {
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
	st.NotAnswering = obs.NotAnswering
	st.Requests, st.Reused, st.Reread, st.Walked = obs.Requests, obs.Reused, obs.Reread, obs.Walked
	d.mu.Lock()
	newly := d.noteHung(st.NotAnswering)
	d.mu.Unlock()
	if d.Warn != nil && len(newly) > 0 {
		say := "does not answer accessibility requests; its elements are left out (the screen's text is read by OCR) until it answers"
		if len(newly) > 1 {
			say = "do not answer accessibility requests; their elements are left out (the screen's text is read by OCR) until they answer"
		}
		d.Warn("warning: " + strings.Join(newly, ", ") + " " + say)
	}
	hung := len(st.NotAnswering) > 0
	if d.OCRMode != OCRNever && st.Unnamed > st.Named {
		if n, err := nameByOCR(ctx, img, s.Elements, d.ocrNames); err == nil {
			st.NamedByOCR = n
		}
	}
	for _, e := range s.Elements {
		if e.Name == "" && e.Value == "" {
			st.StillUnnamed++
		}
	}
	s.Clipboard = <-clip
	// A window whose application does not answer is read by OCR, unless
	// OCR is switched off.
	if d.OCRMode == OCRAlways || (d.OCRMode == OCRAuto && len(s.Elements) < 5) || (d.OCRMode != OCRNever && hung) {
		words, err := d.ReadText(ctx, img)
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

// noteHung records the applications that did not answer an observation
// and returns those that answered the one before: the ones to warn
// about. (d.mu held.)
func (d *Device) noteHung(apps []string) []string {
	var newly []string
	for _, app := range apps {
		if !d.hung[app] {
			newly = append(newly, app)
		}
	}
	if d.hung == nil {
		d.hung = map[string]bool{}
	}
	clear(d.hung)
	for _, app := range apps {
		d.hung[app] = true
	}
	return newly
}
