package x11

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"

	"github.com/godbus/dbus/v5"
	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgbutil"
	"github.com/jezek/xgbutil/ewmh"
	"github.com/jezek/xgbutil/xprop"
)

// envProperty is the root-window property where Up records a desktop's
// environment. It lives exactly as long as the X server, so a worker given
// only --display finds the desktop's D-Bus session (and with it the
// accessibility tree) whatever state folder it was started with.
const envProperty = "_PCFLOW_DESKTOP_ENV"

// Problems a desktop can have, named after the part that is missing.
var (
	// ErrNoDisplay: no X server answers on the display.
	ErrNoDisplay = errors.New("no X server")
	// ErrNoWindowManager: no EWMH window manager runs on the display.
	ErrNoWindowManager = errors.New("no window manager")
	// ErrNoAccessibility: the accessibility bus cannot be reached.
	ErrNoAccessibility = errors.New("accessibility tree unavailable")
)

// connectDisplay opens an X connection to display, or says clearly that no
// X server answers there. Every robotgo call must come after this check:
// Xlib ends the whole process on a display it cannot open.
func connectDisplay(display string) (*xgbutil.XUtil, error) {
	// xgb logs connection chatter (no ~/.Xauthority on Xvfb) to stderr.
	xgb.Logger = log.New(io.Discard, "", 0)
	xgbutil.Logger = log.New(io.Discard, "", 0)
	xu, err := xgbutil.NewConnDisplay(display)
	if err != nil {
		return nil, fmt.Errorf("display %s: %w answers (%v): start one with `pcflow desktop up --display %s`, or pass the --display of a running desktop",
			display, ErrNoDisplay, err, display)
	}
	return xu, nil
}

// alive makes one round trip to the X server.
func alive(xu *xgbutil.XUtil) error {
	_, err := xproto.GetInputFocus(xu.Conn()).Reply()
	return err
}

// wmRunning reports whether an EWMH window manager runs: the root's
// _NET_SUPPORTING_WM_CHECK names a window that still exists and names
// itself (the root property alone outlives a window manager that died).
func wmRunning(xu *xgbutil.XUtil, display string) error {
	hint := fmt.Sprintf("`pcflow desktop up --display %s` starts one (openbox) on a desktop it made", display)
	w, err := ewmh.SupportingWmCheckGet(xu, xu.RootWin())
	if err != nil || w == 0 {
		return fmt.Errorf("display %s: %w runs (no _NET_SUPPORTING_WM_CHECK): %s", display, ErrNoWindowManager, hint)
	}
	self, err := ewmh.SupportingWmCheckGet(xu, w)
	if err != nil || self != w {
		return fmt.Errorf("display %s: %w runs (its check window 0x%x is gone: it exited): %s", display, ErrNoWindowManager, w, hint)
	}
	return nil
}

// a11yBus checks that the accessibility bus of the D-Bus session at addr
// answers and that accessibility is switched on.
func a11yBus(addr string) error {
	if addr == "" {
		return fmt.Errorf("%w: DBUS_SESSION_BUS_ADDRESS is not set, so the desktop's D-Bus session is unknown: use a desktop from `pcflow desktop up` (its --display is enough), or export the session's address", ErrNoAccessibility)
	}
	sess, err := dbus.Connect(addr)
	if err != nil {
		return fmt.Errorf("%w: the desktop's D-Bus session %s does not answer (%v): bring the desktop up again", ErrNoAccessibility, addr, err)
	}
	defer sess.Close()
	obj := sess.Object("org.a11y.Bus", "/org/a11y/bus")
	v, err := obj.GetProperty("org.a11y.Status.IsEnabled")
	if err != nil {
		return fmt.Errorf("%w: no accessibility service on the session bus (%v): install at-spi2-core", ErrNoAccessibility, err)
	}
	if on, _ := v.Value().(bool); !on {
		return fmt.Errorf("%w: accessibility is switched off on this session: `pcflow desktop up` switches it on (org.a11y.Status.IsEnabled)", ErrNoAccessibility)
	}
	var a11yAddr string
	if err := obj.Call("org.a11y.Bus.GetAddress", 0).Store(&a11yAddr); err != nil {
		return fmt.Errorf("%w: accessibility bus address: %v", ErrNoAccessibility, err)
	}
	conn, err := dbus.Connect(a11yAddr)
	if err != nil {
		return fmt.Errorf("%w: accessibility bus %s: %v", ErrNoAccessibility, a11yAddr, err)
	}
	conn.Close()
	return nil
}

// Check reports which part of the desktop is missing: the X server, the
// window manager (both errors), or the accessibility bus (a warning: the
// device still works through OCR, with far fewer elements).
func (d *Device) Check(ctx context.Context) (warning string, err error) {
	xu, err := d.x()
	if err != nil {
		return "", err
	}
	if err := alive(xu); err != nil {
		return "", fmt.Errorf("display %s: %w answers any more (%v): the desktop was stopped; start it again", d.display, ErrNoDisplay, err)
	}
	if err := wmRunning(xu, d.display); err != nil {
		return "", err
	}
	if err := a11yBus(d.tree.sessionBus()); err != nil {
		return "warning: " + err.Error() + "; observations will have OCR text boxes only", nil
	}
	return "", nil
}

// diagnose turns a failed observation into the missing part's name when a
// part is missing, and keeps err otherwise.
func (d *Device) diagnose(ctx context.Context, err error) error {
	if _, cerr := d.Check(ctx); cerr != nil {
		return cerr
	}
	return err
}

// publish records a desktop on its display's root window.
func publish(display, record string) error {
	xu, err := connectDisplay(display)
	if err != nil {
		return err
	}
	defer xu.Conn().Close()
	return xprop.ChangeProp(xu, xu.RootWin(), 8, envProperty, "UTF8_STRING", []byte(record))
}

// published reads the record Up left on a display's root window.
func published(display string) (string, error) {
	xu, err := connectDisplay(display)
	if err != nil {
		return "", err
	}
	defer xu.Conn().Close()
	s, err := xprop.PropValStr(xprop.GetProperty(xu, xu.RootWin(), envProperty))
	if err != nil || s == "" {
		return "", fmt.Errorf("display %s was not started by `pcflow desktop up` (no %s on its root window): start one with `pcflow desktop up`, or export its DBUS_SESSION_BUS_ADDRESS yourself", display, envProperty)
	}
	return s, nil
}
