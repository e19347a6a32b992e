package x11

import (
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgbutil"
	"github.com/jezek/xgbutil/ewmh"

	"github.com/pcflow/pcflow/activities/screen"
)

// xwin is a top-level window as the X server stacks it: a window
// manager's frame around an application window, or an override-redirect
// popup (a menu, a combo box's list, a tooltip) that no manager frames.
type xwin struct {
	ID       xproto.Window
	Box      screen.Rect
	Override bool
}

// stacking lists the viewable top-level windows bottom to top. The root's
// children come in stacking order, popups included, which
// _NET_CLIENT_LIST_STACKING leaves out.
func stacking(xu *xgbutil.XUtil) ([]xwin, error) {
	tree, err := xproto.QueryTree(xu.Conn(), xu.RootWin()).Reply()
	if err != nil {
		return nil, err
	}
	// Send every request before reading a reply: one round trip, not two
	// per window.
	attrs := make([]xproto.GetWindowAttributesCookie, len(tree.Children))
	geoms := make([]xproto.GetGeometryCookie, len(tree.Children))
	for i, w := range tree.Children {
		attrs[i] = xproto.GetWindowAttributes(xu.Conn(), w)
		geoms[i] = xproto.GetGeometry(xu.Conn(), xproto.Drawable(w))
	}
	var out []xwin
	for i, w := range tree.Children {
		a, aerr := attrs[i].Reply()
		g, gerr := geoms[i].Reply()
		if aerr != nil || gerr != nil || a.MapState != xproto.MapStateViewable || a.Class != xproto.WindowClassInputOutput {
			continue
		}
		box := screen.Rect{X: int(g.X), Y: int(g.Y), W: int(g.Width) + 2*int(g.BorderWidth), H: int(g.Height) + 2*int(g.BorderWidth)}
		if box.W <= 2 || box.H <= 2 {
			continue // the window manager's and toolkits' hidden helper windows
		}
		if a.OverrideRedirect && isTooltip(xu, w) {
			// A tooltip shows while the pointer rests and goes with the
			// next move, which every click makes: it hides nothing.
			continue
		}
		out = append(out, xwin{ID: w, Box: box, Override: a.OverrideRedirect})
	}
	return out, nil
}

// isTooltip reports whether a window says it is a tooltip.
func isTooltip(xu *xgbutil.XUtil, w xproto.Window) bool {
	types, _ := ewmh.WmWindowTypeGet(xu, w)
	for _, t := range types {
		if t == "_NET_WM_WINDOW_TYPE_TOOLTIP" {
			return true
		}
	}
	return false
}

// edgeDistance is how far apart two rectangles' edges are, summed.
func edgeDistance(a, b screen.Rect) int {
	return abs(a.X-b.X) + abs(a.Y-b.Y) + abs(a.X+a.W-b.X-b.W) + abs(a.Y+a.H-b.Y-b.H)
}

// Tolerances when matching an accessible window to an X window: a
// popup's accessible menu has the popup's exact box; a frame's box may
// leave out the window manager's decorations.
const (
	popupTolerance = 4
	frameTolerance = 80
)

// windowFor returns the index in stack of the X window whose box is
// closest to box within tol, or -1.
func windowFor(stack []xwin, box screen.Rect, tol int) int {
	best, bestD := -1, tol+1
	for i := len(stack) - 1; i >= 0; i-- {
		if d := edgeDistance(stack[i].Box, box); d < bestD {
			best, bestD = i, d
		}
	}
	return best
}

// covered reports whether a window stacked above layer z holds the point:
// whatever is drawn there hides an element of layer z.
func covered(stack []xwin, z, x, y int) bool {
	for i := z + 1; i < len(stack); i++ {
		b := stack[i].Box
		if x >= b.X && y >= b.Y && x < b.X+b.W && y < b.Y+b.H {
			return true
		}
	}
	return false
}

// clip is the part of r inside c (zero-sized when they do not meet).
func clip(r, c screen.Rect) screen.Rect {
	x0, y0 := max(r.X, c.X), max(r.Y, c.Y)
	x1, y1 := min(r.X+r.W, c.X+c.W), min(r.Y+r.H, c.Y+c.H)
	if x1 <= x0 || y1 <= y0 {
		return screen.Rect{X: x0, Y: y0}
	}
	return screen.Rect{X: x0, Y: y0, W: x1 - x0, H: y1 - y0}
}

// popupHolding is the topmost override-redirect window that holds box
// whole, or -1.
func popupHolding(stack []xwin, box screen.Rect) int {
	for i := len(stack) - 1; i >= 0; i-- {
		b := stack[i].Box
		if stack[i].Override && box.X >= b.X-2 && box.Y >= b.Y-2 && box.X+box.W <= b.X+b.W+2 && box.Y+box.H <= b.Y+b.H+2 {
			return i
		}
	}
	return -1
}
