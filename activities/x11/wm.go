package x11

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgbutil"
	"github.com/jezek/xgbutil/ewmh"
	"github.com/jezek/xgbutil/icccm"
	"github.com/jezek/xgbutil/xwindow"
	"github.com/pcflow/pcflow/activities/screen"
)

// windows lists window titles, the active one first.
func (d *Device) windows() ([]string, string, error) {
	xu, err := d.x()
	if err != nil {
		return nil, "", err
	}
	ids, err := clientList(xu)
	if err != nil {
		return nil, "", err
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

// clientList is the window manager's list of client windows. A window
// manager that runs but has not published the list yet (it does a moment
// after it announces itself, seconds on a loaded machine) lists none.
func clientList(xu *xgbutil.XUtil) ([]xproto.Window, error) {
	ids, err := ewmh.ClientListGet(xu)
	if err == nil || wmRunning(xu, "") == nil {
		return ids, nil
	}
	return nil, fmt.Errorf("list windows (is a window manager running? `pcflow desktop up` starts one): %w", err)
}

// clientOrigin is where the client area of the window with a title lies
// on the screen.
func clientOrigin(xu *xgbutil.XUtil, title string) (int, int, bool) {
	ids, err := clientList(xu)
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
	ids, err := clientList(xu)
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

// titleBars returns where the window manager draws each client window's
// title: the top of its frame, as tall as the frame's top extent.
func titleBars(xu *xgbutil.XUtil) []screen.TitleBar {
	ids, err := clientList(xu)
	if err != nil {
		return nil
	}
	var out []screen.TitleBar
	for _, id := range ids {
		ext, err := ewmh.FrameExtentsGet(xu, id)
		if err != nil || ext.Top <= 0 {
			continue
		}
		g, err := xwindow.New(xu, id).DecorGeometry()
		if err != nil {
			continue
		}
		out = append(out, screen.TitleBar{Title: windowTitle(xu, id), Box: screen.Rect{X: g.X(), Y: g.Y(), W: g.Width(), H: ext.Top}})
	}
	return out
}

// ensureWM starts the window manager again if it is gone.
func (d *Desktop) ensureWM(ctx context.Context, stateDir string) error {
	_, err := d.EnsureWM(ctx, stateDir)
	return err
}

// EnsureWM starts the desktop's window manager again when it is gone (a
// task's program can end it through the X server: xkill on its window);
// started says whether it had to.
func (d *Desktop) EnsureWM(ctx context.Context, stateDir string) (started bool, err error) {
	xu, err := connectDisplay(d.Display)
	if err != nil {
		return false, err
	}
	err = wmRunning(xu, d.Display)
	xu.Conn().Close()
	if err == nil {
		return false, nil
	}
	pid, err := d.startWM(ctx)
	if err != nil {
		return false, err
	}
	d.PIDs = append(d.PIDs, pid)
	if err := publish(d.Display, d.record()); err != nil {
		return true, err
	}
	if stateDir != "" {
		return true, d.save(stateDir)
	}
	return true, nil
}
