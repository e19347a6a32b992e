package x11

import (
	"context"
	"errors"
	"fmt"
	"image"
	"maps"
	"sort"
	"strings"
	"time"

	"github.com/pcflow/pcflow/activities/screen"
)

// appTree is one application's accessible objects.
type appTree struct {
	bus      string
	items    []cacheItem
	byRef    map[objRef]*cacheItem
	children map[objRef][]objRef
	focused  bool
}

func newAppTree(items []cacheItem) *appTree {
	t := &appTree{items: items, byRef: make(map[objRef]*cacheItem, len(items)), children: map[objRef][]objRef{}}
	for i := range items {
		t.byRef[items[i].Ref] = &items[i]
		t.children[items[i].Parent] = append(t.children[items[i].Parent], items[i].Ref)
	}
	return t
}

// Roles of accessible objects that are windows of their own: a top-level
// frame or dialog, or a popup (menu, list, tooltip) in an override-redirect
// window.
var (
	windowRoles = map[string]bool{"frame": true, "dialog": true, "window": true, "alert": true, "file chooser": true}
	popupRoles  = map[string]bool{"menu": true, "popup menu": true, "list": true, "list box": true, "window": true, "tool tip": true, "combo box": true}
	// A zero-sized container of these roles shows none of its children:
	// LibreOffice keeps a hidden menu bar of its own beside the native one.
	clipRoles = map[string]bool{"menu bar": true, "tool bar": true, "menu": true}
	// documentRoles are a page's roots: under a window, never one.
	documentRoles = map[string]bool{"document web": true, "document frame": true}
)

// menuRoles are the roles of a menu's entries.
var menuRoles = map[string]bool{"menu item": true, "check menu item": true, "radio menu item": true, "menu": true, "tearoff menu item": true}

// observation is what one walk of the tree found.
type observation struct {
	elements []screen.Element
	items    []*cacheItem // the object behind each element (nil for cells)
	// Occluded counts elements left out because a window above hides them.
	Occluded int
	// Unnamed counts elements with neither name nor value before nameOf,
	// Named those nameOf named.
	Unnamed, Named int
	// NotAnswering names the applications left out because they did not
	// answer in time.
	NotAnswering []string
	// Requests counts the accessibility requests sent to applications;
	// Reused the applications whose tree came from the last observation
	// (see treecache.go), Reread the elements of them read again.
	Requests, Reused, Reread int
	// Walked counts the applications read by walking their tree live,
	// not from their cache (LibreOffice: see items).
	Walked int
}

// scene holds what the layer computations of one observation share.
type scene struct {
	a       *a11y
	conn    bus
	stack   []xwin
	screen  screen.Rect
	extents map[objRef]screen.Rect
	// offsets shift the boxes of an application (by bus name) that
	// reports window-relative boxes as screen ones (GTK 4).
	offsets map[string][2]int
	// origin finds where a window's client area lies on screen, by title.
	origin func(title string) (x, y int, ok bool)
}

func (sc *scene) extent(ref objRef) (screen.Rect, bool) {
	if r, ok := sc.extents[ref]; ok {
		return r, r != (screen.Rect{X: -1 << 30})
	}
	var ext struct{ X, Y, W, H int32 }
	if err := sc.conn.Object(ref.Bus, ref.Path).Call("org.a11y.atspi.Component.GetExtents", 0, uint32(0)).Store(&ext); err != nil {
		sc.extents[ref] = screen.Rect{X: -1 << 30}
		return screen.Rect{}, false
	}
	r := screen.Rect{X: int(ext.X), Y: int(ext.Y), W: int(ext.W), H: int(ext.H)}
	if off, ok := sc.offsets[ref.Bus]; ok {
		r.X, r.Y = r.X+off[0], r.Y+off[1]
	}
	sc.extents[ref] = r
	return r, true
}

// prefetch asks for the boxes of every object the observation may place
// (showing, visible, of an interactive role, in an application it looks
// at) at once, pipelined (see guarded.many), and keeps them for extent.
func (sc *scene) prefetch(g *guarded, apps []*appTree, behind func(*appTree) bool) {
	var refs []objRef
	for _, t := range apps {
		if behind(t) {
			continue
		}
		for i := range t.items {
			it := &t.items[i]
			if len(it.States) == 0 || !bit(it.States, stateShowing) || !bit(it.States, stateVisible) || !interactive[roleName(it.Role)] {
				continue
			}
			if _, ok := sc.extents[it.Ref]; !ok {
				refs = append(refs, it.Ref)
			}
		}
	}
	for i, c := range g.many(refs, "org.a11y.atspi.Component.GetExtents", uint32(0)) {
		var ext struct{ X, Y, W, H int32 }
		if c.Err != nil || c.Store(&ext) != nil {
			if !errors.Is(c.Err, errNotAnswering) {
				sc.extents[refs[i]] = screen.Rect{X: -1 << 30}
			}
			continue
		}
		r := screen.Rect{X: int(ext.X), Y: int(ext.Y), W: int(ext.W), H: int(ext.H)}
		if off, ok := sc.offsets[refs[i].Bus]; ok {
			r.X, r.Y = r.X+off[0], r.Y+off[1]
		}
		sc.extents[refs[i]] = r
	}
}

// toolkit names an application's toolkit and its version (facts).
func (sc *scene) toolkit(app objRef) (name, version string) {
	f := sc.a.facts(sc.conn, app)
	return f.toolkit, f.version
}

// windowRelative handles a toolkit that reports boxes relative to their
// window as screen boxes (GTK 4 puts every top-level at (0,0)): the
// application's boxes are shifted by where its window's client area is.
func (sc *scene) windowRelative(app objRef, t *appTree, active string) {
	tk, v := sc.toolkit(app)
	if !strings.EqualFold(tk, "GTK") || !strings.HasPrefix(v, "4.") || sc.origin == nil {
		return
	}
	var top *cacheItem
	for i := range t.items {
		it := &t.items[i]
		if t.byRef[it.Parent] == nil && windowRoles[roleName(it.Role)] && bit(it.States, stateShowing) && (top == nil || it.Name == active) {
			top = it
		}
	}
	if top == nil {
		return
	}
	b, ok := sc.extent(top.Ref)
	if !ok || b.X != 0 || b.Y != 0 {
		return
	}
	if x, y, ok := sc.origin(top.Name); ok && (x != 0 || y != 0) {
		sc.offsets[app.Bus] = [2]int{x, y}
		clear(sc.extents)
	}
}

// layer finds the X window an object is drawn in, as an index into the
// stack (-1 when no window matches), by walking up to the nearest
// ancestor that is a popup or a top-level window. hidden reports an
// ancestor that shows nothing, or a document in no window: Chromium
// lists a background tab's page, detached from its window but showing,
// with boxes as if it were at the window's corner (a tab strip's place).
func (sc *scene) layer(t *appTree, it *cacheItem) (z int, hidden bool) {
	p := it.Parent
	for depth := 0; depth < 80; depth++ {
		pi := t.byRef[p]
		if pi == nil {
			return -1, false // reached the application
		}
		role := roleName(pi.Role)
		if role == "application" {
			return -1, false
		}
		if documentRoles[role] && t.byRef[pi.Parent] == nil {
			return -1, true
		}
		if popupRoles[role] || windowRoles[role] || clipRoles[role] || t.byRef[pi.Parent] == nil {
			b, ok := sc.extent(p)
			if ok && popupRoles[role] {
				if z := windowFor(sc.stack, b, popupTolerance); z >= 0 && sc.stack[z].Override {
					return z, false
				}
			}
			if ok && (windowRoles[role] || t.byRef[pi.Parent] == nil) {
				return windowFor(sc.stack, b, frameTolerance), false
			}
			if ok && clipRoles[role] && (b.W <= 0 || b.H <= 0) {
				return -1, true
			}
		}
		p = pi.Parent
	}
	return -1, false
}

// topZ is the highest layer among an application's top-level windows.
func (sc *scene) topZ(t *appTree) int {
	z := -1
	for i := range t.items {
		it := &t.items[i]
		if t.byRef[it.Parent] != nil || !bit(it.States, stateShowing) || roleName(it.Role) == "application" {
			continue
		}
		if b, ok := sc.extent(it.Ref); ok {
			z = max(z, windowFor(sc.stack, b, frameTolerance))
		}
	}
	return z
}

// elements returns what a person sees of the applications' interactive
// elements: showing, on screen, and not hidden by a window stacked above
// (an open menu hides the toolbar behind it). Elements come topmost
// window first (an open menu, then the dialog, then the window under
// them), each window's in reading order, numbered from 1. The foreground
// application's elements are kept, and another application's only where
// its windows lie above the foreground window.
//
// img is the screen as captured just before: where it shows no change
// since the last observation, the trees read then are used again (nil:
// read them all).
func (a *a11y) elements(ctx context.Context, img *image.RGBA, screenW, screenH int, active string, stack []xwin, origin func(string) (int, int, bool)) (*observation, error) {
	raw, err := a.connect()
	if err != nil {
		return nil, err
	}
	conn := a.guard(ctx, raw)
	var children []objRef
	root := conn.Object("org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root")
	if err := root.Call("org.a11y.atspi.Accessible.GetChildren", 0).Store(&children); err != nil {
		a.close()
		return nil, fmt.Errorf("list accessible applications: %w", err)
	}
	sc := &scene{a: a, conn: conn, stack: stack, screen: screen.Rect{W: screenW, H: screenH}, extents: map[objRef]screen.Rect{},
		offsets: map[string][2]int{}, origin: origin}
	rs := a.take(img, stack, active, children, time.Now())
	rs.events(conn, a.events)
	rs.refresh(conn)
	obs := &observation{}
	var apps []*appTree
	anyFocused := false
	for _, app := range children {
		var items []cacheItem
		if ac := rs.app(app.Bus); ac != nil {
			items = ac.items
			maps.Copy(sc.extents, ac.extents)
			obs.Reused++
		} else {
			var walked bool
			if items, walked, err = a.items(conn, app); err != nil {
				continue // an application that went away
			}
			if walked {
				obs.Walked++
			}
		}
		t := newAppTree(items)
		t.bus = app.Bus
		sc.windowRelative(app, t, active)
		t.focused = active != "" && ownsWindow(items, active)
		anyFocused = anyFocused || t.focused
		apps = append(apps, t)
	}
	// The foreground window's layer: other applications' windows below it
	// are hidden or out of the agent's way (it reaches them with
	// switch_window).
	activeZ := -1
	if anyFocused {
		for _, t := range apps {
			if t.focused {
				activeZ = max(activeZ, sc.topZ(t))
			}
		}
	}
	defer func() { obs.NotAnswering, obs.Requests = conn.notAnswering(), conn.requests }()
	// An application all of whose windows lie below the foreground one
	// is left out: the agent reaches it with switch_window.
	behind := func(t *appTree) bool {
		return anyFocused && !t.focused && (activeZ < 0 || sc.topZ(t) <= activeZ)
	}
	sc.prefetch(conn, apps, behind)
	type placed struct {
		e  screen.Element
		it *cacheItem
		z  int
	}
	cells := false // a spreadsheet's cells, read through its table
	var out []placed
	// The elements to place, before their texts are read.
	type candidate struct {
		t     *appTree
		it    *cacheItem
		role  string
		box   screen.Rect
		z     int
		value string
	}
	var cands []candidate
	for _, t := range apps {
		if behind(t) {
			continue
		}
		for i := range t.items {
			it := &t.items[i]
			if len(it.States) == 0 || !bit(it.States, stateShowing) || !bit(it.States, stateVisible) {
				continue
			}
			role := roleName(it.Role)
			if role == "table" && (it.Children < 0 || it.Children > 1000) && hasIface(it.Interfaces, "org.a11y.atspi.Table") {
				// A spreadsheet: its cells are not in the cache; list the
				// visible top-left ones through the Table interface.
				z, _ := sc.layer(t, it)
				cells = true
				for _, c := range a.visibleCells(conn, it.Ref, screenW, screenH) {
					if cx, cy := c.Box.Center(); z >= 0 && covered(stack, z, cx, cy) {
						obs.Occluded++
						continue
					}
					if c.Name == "" && c.Value == "" {
						obs.Unnamed++
					}
					out = append(out, placed{c, nil, z})
				}
				continue
			}
			if !interactive[role] {
				continue
			}
			box, ok := sc.extent(it.Ref)
			if !ok || box.W <= 1 || box.H <= 1 {
				continue
			}
			z, hidden := sc.layer(t, it)
			if hidden {
				continue
			}
			if menuRoles[role] || role == "list item" || role == "tree item" {
				// A menu's items hang under the menu bar's entry in the
				// tree (a drop-down list's under its combo box) but are
				// drawn in the popup that holds them.
				if pz := popupHolding(stack, box); pz > z {
					z = pz
				}
			}
			if role == "menu" && it.Name == "" {
				// A popup menu's own container: its items are the elements.
				if pz := windowFor(stack, box, popupTolerance); pz >= 0 && stack[pz].Override {
					continue
				}
			}
			if z < 0 {
				z = frameAt(stack, box)
			}
			box = clip(box, sc.screen)
			if z >= 0 {
				box = clip(box, stack[z].Box)
			}
			if box.W <= 1 || box.H <= 1 {
				continue // off screen, or outside its own window
			}
			if cx, cy := box.Center(); z >= 0 && covered(stack, z, cx, cy) {
				obs.Occluded++
				continue
			}
			cands = append(cands, candidate{t: t, it: it, role: role, box: box, z: z})
		}
	}
	// The texts of the text elements, asked for at once (see guarded.many).
	var textRefs []objRef
	var texted []int
	for i, c := range cands {
		if textRoles[c.role] && hasIface(c.it.Interfaces, "org.a11y.atspi.Text") {
			if v, ok := rs.text(c.it.Ref); ok {
				cands[i].value = v
				continue
			}
			textRefs = append(textRefs, c.it.Ref)
			texted = append(texted, i)
		}
	}
	for k, call := range conn.many(textRefs, "org.a11y.atspi.Text.GetText", int32(0), int32(-1)) {
		var s string
		if call.Err == nil && call.Store(&s) == nil {
			cands[texted[k]].value = strings.TrimSpace(s)
		}
	}
	texts := map[objRef]string{}
	names := map[objRef]cachedName{}
	for _, c := range cands {
		t, it, role, box, z, value := c.t, c.it, c.role, c.box, c.z, c.value
		if textRoles[role] && hasIface(it.Interfaces, "org.a11y.atspi.Text") {
			texts[it.Ref] = value
		}
		name := strings.TrimSpace(it.Name)
		if name == "" && value == "" && (role == "label" || role == "paragraph" || role == "static" || role == "heading") {
			continue
		}
		if name == "" && role == "paragraph" {
			name = firstLine(value)
		}
		e := screen.Element{Role: role, Name: name, Value: value, Source: "a11y", Box: box}
		for _, s := range []struct {
			bit  uint
			name string
		}{{stateFocused, "focused"}, {stateChecked, "checked"}, {stateSelected, "selected"}, {stateEditable, "editable"}} {
			if bit(it.States, s.bit) {
				e.States = append(e.States, s.name)
			}
		}
		if !bit(it.States, stateEnabled) && !bit(it.States, stateSensitive) {
			e.States = append(e.States, "disabled")
		}
		if e.Name == "" && e.Value == "" {
			obs.Unnamed++
			n, ok := rs.name(it.Ref)
			if !ok {
				n.name, n.from = a.nameOf(conn, sc, t, it)
			}
			names[it.Ref] = n
			if e.Name = n.name; e.Name != "" {
				obs.Named++
			}
		}
		out = append(out, placed{e, it, z})
	}
	// Controls nothing named take the text of the label beside them.
	els := make([]*screen.Element, len(out))
	layers := make([]int, len(out))
	blank := func() (n int) {
		for _, e := range els {
			if e.Name == "" && e.Value == "" {
				n++
			}
		}
		return n
	}
	for i := range out {
		els[i], layers[i] = &out[i].e, out[i].z
	}
	before := blank()
	nameByLabels(els, layers)
	obs.Named += before - blank()
	spinTextBoxes(els)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].z != out[j].z {
			return out[i].z > out[j].z
		}
		bi, bj := out[i].e.Box, out[j].e.Box
		if bi.Y/8 != bj.Y/8 {
			return bi.Y < bj.Y
		}
		return bi.X < bj.X
	})
	var marks []mark
	for i := range out {
		out[i].e.ID = i + 1
		obs.elements = append(obs.elements, out[i].e)
		obs.items = append(obs.items, out[i].it)
		if it := out[i].it; it != nil {
			marks = append(marks, mark{ref: it.Ref, box: out[i].e.Box, z: out[i].z})
		}
	}
	obs.Reread = len(rs.dirtyRead())
	if img != nil && !cells && len(sc.offsets) == 0 && len(conn.hung) == 0 && ctx.Err() == nil {
		a.keep(img, stack, active, children, apps, sc.extents, texts, names, marks)
	}
	return obs, nil
}

// frameAt is the topmost managed window holding a box's centre, for an
// object whose own window could not be matched.
func frameAt(stack []xwin, box screen.Rect) int {
	x, y := box.Center()
	for i := len(stack) - 1; i >= 0; i-- {
		b := stack[i].Box
		if !stack[i].Override && x >= b.X && y >= b.Y && x < b.X+b.W && y < b.Y+b.H {
			return i
		}
	}
	return -1
}

// Limits of the spreadsheet cells listed as elements.
const (
	maxCellRows = 12
	maxCellCols = 8
)

func (a *a11y) visibleCells(conn bus, table objRef, screenW, screenH int) []screen.Element {
	obj := conn.Object(table.Bus, table.Path)
	var tx struct{ X, Y, W, H int32 }
	if obj.Call("org.a11y.atspi.Component.GetExtents", 0, uint32(0)).Store(&tx) != nil {
		return nil
	}
	var out []screen.Element
	for r := int32(0); r < maxCellRows; r++ {
		rowVisible := false
		for c := int32(0); c < maxCellCols; c++ {
			var cell objRef
			if obj.Call("org.a11y.atspi.Table.GetAccessibleAt", 0, r, c).Store(&cell) != nil {
				break
			}
			co := conn.Object(cell.Bus, cell.Path)
			var ext struct{ X, Y, W, H int32 }
			if co.Call("org.a11y.atspi.Component.GetExtents", 0, uint32(0)).Store(&ext) != nil {
				break
			}
			if ext.X >= tx.X+tx.W || ext.Y >= tx.Y+tx.H || int(ext.X) >= screenW || int(ext.Y) >= screenH {
				break
			}
			rowVisible = true
			var name, value string
			if v, err := co.GetProperty("org.a11y.atspi.Accessible.Name"); err == nil {
				name, _ = v.Value().(string)
			}
			_ = co.Call("org.a11y.atspi.Text.GetText", 0, int32(0), int32(-1)).Store(&value)
			out = append(out, screen.Element{Role: "table cell", Name: name, Value: strings.TrimSpace(value), Source: "a11y",
				Box: screen.Rect{X: int(ext.X), Y: int(ext.Y), W: int(ext.W), H: int(ext.H)}})
		}
		if !rowVisible {
			break
		}
	}
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 60 {
		s = s[:60]
	}
	return s
}
