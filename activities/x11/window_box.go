package x11

import (
	"context"
	"fmt"
	"strings"

	"github.com/jezek/xgb/xproto"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/screen"
)

var _ activities.WindowLocator = (*Device)(nil)

// WindowBox implements activities.WindowLocator: the client area (without
// the window manager's frame and title bar) of the first window, in the
// window manager's list, whose title contains title without case.
func (d *Device) WindowBox(ctx context.Context, title string) (screen.Rect, string, error) {
	xu, err := d.x()
	if err != nil {
		return screen.Rect{}, "", err
	}
	ids, err := clientList(xu)
	if err != nil {
		return screen.Rect{}, "", err
	}
	var open []string
	for _, id := range ids {
		t := windowTitle(xu, id)
		open = append(open, t)
		if !strings.Contains(strings.ToLower(t), strings.ToLower(title)) {
			continue
		}
		g, err := xproto.GetGeometry(xu.Conn(), xproto.Drawable(id)).Reply()
		if err != nil {
			return screen.Rect{}, "", fmt.Errorf("geometry of %q: %w", t, err)
		}
		r, err := xproto.TranslateCoordinates(xu.Conn(), id, xu.RootWin(), 0, 0).Reply()
		if err != nil {
			return screen.Rect{}, "", fmt.Errorf("position of %q: %w", t, err)
		}
		return screen.Rect{X: int(r.DstX), Y: int(r.DstY), W: int(g.Width), H: int(g.Height)}, t, nil
	}
	return screen.Rect{}, "", &activities.ErrNoWindow{Title: title, Open: open}
}
