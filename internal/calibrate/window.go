package calibrate

import (
	"fmt"
	"image"
	"io"
	"log"
	"strconv"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// Window is the pattern shown full-screen on an X display (an
// override-redirect window above everything), recording where each
// button press arrives.
type Window struct {
	conn    *xgb.Conn
	win     xproto.Window
	gc      xproto.Gcontext
	font    xproto.Font
	w, h    int
	targets []Target
	clicks  chan image.Point
	events  chan Event
	done    chan struct{}
}

// Event is one input event the pattern window received.
type Event struct {
	Kind   string // "press", "release", "motion", "key-press", "key-release"
	Detail byte   // the button (1 left, 2 middle, 3 right) or key code
	X, Y   int    // pointer position on the screen
}

// Open shows the pattern on display (":N").
func Open(display string) (*Window, error) {
	// xgb logs connection chatter (no ~/.Xauthority on Xvfb) to stderr,
	// which would mix with calibrate's report.
	xgb.Logger = log.New(io.Discard, "", 0)
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		return nil, fmt.Errorf("calibration window on %s: %w", display, err)
	}
	setup := xproto.Setup(conn)
	scr := setup.DefaultScreen(conn)
	w := &Window{conn: conn, w: int(scr.WidthInPixels), h: int(scr.HeightInPixels), clicks: make(chan image.Point, 64), events: make(chan Event, 256), done: make(chan struct{})}
	w.targets = Layout(w.w, w.h)
	fail := func(what string, err error) (*Window, error) {
		conn.Close()
		return nil, fmt.Errorf("calibration window on %s: %s: %w", display, what, err)
	}
	if w.win, err = xproto.NewWindowId(conn); err != nil {
		return fail("window id", err)
	}
	err = xproto.CreateWindowChecked(conn, scr.RootDepth, w.win, scr.Root, 0, 0, uint16(w.w), uint16(w.h), 0,
		xproto.WindowClassInputOutput, scr.RootVisual,
		xproto.CwBackPixel|xproto.CwOverrideRedirect|xproto.CwEventMask,
		[]uint32{0, 1, xproto.EventMaskExposure | xproto.EventMaskButtonPress | xproto.EventMaskButtonRelease |
			xproto.EventMaskPointerMotion | xproto.EventMaskKeyPress | xproto.EventMaskKeyRelease}).Check()
	if err != nil {
		return fail("create", err)
	}
	name := "pcflow calibration"
	xproto.ChangeProperty(conn, xproto.PropModeReplace, w.win, xproto.AtomWmName, xproto.AtomString, 8, uint32(len(name)), []byte(name))
	if w.font, err = xproto.NewFontId(conn); err != nil {
		return fail("font id", err)
	}
	if err := xproto.OpenFontChecked(conn, w.font, uint16(len("fixed")), "fixed").Check(); err != nil {
		return fail("font fixed", err)
	}
	if w.gc, err = xproto.NewGcontextId(conn); err != nil {
		return fail("gc id", err)
	}
	if err := xproto.CreateGCChecked(conn, w.gc, xproto.Drawable(w.win), xproto.GcFont, []uint32{uint32(w.font)}).Check(); err != nil {
		return fail("gc", err)
	}
	if err := xproto.MapWindowChecked(conn, w.win).Check(); err != nil {
		return fail("map", err)
	}
	xproto.ConfigureWindow(conn, w.win, xproto.ConfigWindowStackMode, []uint32{xproto.StackModeAbove})
	w.draw()
	go w.loop()
	return w, nil
}

// Targets returns the targets as the window shows them, in screen pixels.
func (w *Window) Targets() []Target { return w.targets }

func (w *Window) draw() {
	d := xproto.Drawable(w.win)
	for _, t := range w.targets {
		c := Color(t.N)
		xproto.ChangeGC(w.conn, w.gc, xproto.GcForeground, []uint32{uint32(c.R)<<16 | uint32(c.G)<<8 | uint32(c.B)})
		xproto.PolyFillRectangle(w.conn, d, w.gc, []xproto.Rectangle{{X: int16(t.Box.X), Y: int16(t.Box.Y), Width: uint16(t.Box.W), Height: uint16(t.Box.H)}})
		xproto.ChangeGC(w.conn, w.gc, xproto.GcForeground, []uint32{0})
		label := strconv.Itoa(t.N)
		xproto.ImageText8(w.conn, byte(len(label)), d, w.gc, int16(t.Box.X+t.Box.W/2-3*len(label)), int16(t.Box.Y+t.Box.H/2+4), label)
	}
	// A round trip, so the pattern is on the screen when draw returns.
	xproto.GetInputFocus(w.conn).Reply()
}

func (w *Window) loop() {
	defer close(w.done)
	for {
		ev, err := w.conn.WaitForEvent()
		if ev == nil && err == nil {
			return // connection closed
		}
		switch e := ev.(type) {
		case xproto.ExposeEvent:
			if e.Count == 0 {
				w.draw()
			}
		case xproto.ButtonPressEvent:
			if e.Detail == 1 {
				select {
				case w.clicks <- image.Pt(int(e.RootX), int(e.RootY)):
				default:
				}
			}
			w.event(Event{Kind: "press", Detail: byte(e.Detail), X: int(e.RootX), Y: int(e.RootY)})
		case xproto.ButtonReleaseEvent:
			w.event(Event{Kind: "release", Detail: byte(e.Detail), X: int(e.RootX), Y: int(e.RootY)})
		case xproto.MotionNotifyEvent:
			w.event(Event{Kind: "motion", X: int(e.RootX), Y: int(e.RootY)})
		case xproto.KeyPressEvent:
			w.event(Event{Kind: "key-press", Detail: byte(e.Detail), X: int(e.RootX), Y: int(e.RootY)})
		case xproto.KeyReleaseEvent:
			w.event(Event{Kind: "key-release", Detail: byte(e.Detail), X: int(e.RootX), Y: int(e.RootY)})
		}
	}
}

func (w *Window) event(e Event) {
	select {
	case w.events <- e:
	default:
	}
}

// Focus gives the pattern window the keyboard focus.
func (w *Window) Focus() {
	xproto.SetInputFocus(w.conn, xproto.InputFocusPointerRoot, w.win, xproto.TimeCurrentTime)
	xproto.GetInputFocus(w.conn).Reply()
}

// Events returns the events received so far (motion events collapsed to
// the last of a run) and forgets them.
func (w *Window) Events() []Event {
	var out []Event
	for {
		select {
		case e := <-w.events:
			if e.Kind == "motion" && len(out) > 0 && out[len(out)-1].Kind == "motion" {
				out[len(out)-1] = e
				continue
			}
			out = append(out, e)
		default:
			return out
		}
	}
}

// NextClick waits up to timeout for the next left-button press on the pattern
// and returns where it arrived, in screen pixels.
func (w *Window) NextClick(timeout time.Duration) (image.Point, error) {
	select {
	case p := <-w.clicks:
		return p, nil
	case <-time.After(timeout):
		return image.Point{}, fmt.Errorf("no click reached the calibration pattern within %s", timeout)
	}
}

// Drain forgets clicks and events that arrived before now.
func (w *Window) Drain() {
	for {
		select {
		case <-w.clicks:
		case <-w.events:
		default:
			return
		}
	}
}

// Close removes the pattern.
func (w *Window) Close() {
	xproto.DestroyWindow(w.conn, w.win)
	xproto.GetInputFocus(w.conn).Reply()
	w.conn.Close()
	<-w.done
}
