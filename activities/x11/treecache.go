package x11

import (
	"bytes"
	"image"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/pcflow/pcflow/activities/screen"
)

// An observation reads the applications' trees again only where the
// screen shows a change. The device captures the screen before it reads
// the tree, and keeps what it read (each application's objects, boxes,
// texts and names) with that capture. The next observation compares its
// own capture with it, pixel for pixel, and takes the applications'
// events since (a state, a name, children changed: see events): where
// nothing changed, nothing is asked again; a changed element that has no
// children (a calculator's display, a blinking caret's paragraph, a
// button under the pointer, a button that lost the focus without showing
// it) is read again on its own (its state, name, description, text and
// box).
// Anything else reads every tree as before: a window opened, closed,
// moved or stacked differently, another active window, an application
// started or gone (a restarted one has a new bus name), a change on the
// screen that no listed element holds (a window's background, a title
// bar, an element of a window behind), a changed element whose box or
// number of children differs, an application that did not answer, a
// spreadsheet (its cells are read through another interface), and a
// cache older than maxTreeAge.
//
// A toolkit updates an object before it repaints it, and the screen is
// captured before the tree is read: an object that changed after its
// tree was read is repainted after the capture kept with it, so the next
// comparison sees it. What the screen does not show at all (a name no
// pixel depends on) is read again within maxTreeAge.

// maxTreeAge bounds how long an application's tree is used again.
const maxTreeAge = 5 * time.Second

// maxChangedShare is the share of the screen (1/n) beyond which a change
// is not worth attributing to elements: every tree is read again.
const maxChangedShare = 8

// treeCache is what the last observation read, with the screen it saw.
type treeCache struct {
	img    *image.RGBA
	stack  []xwin
	active string
	apps   []objRef
	taken  time.Time
	byBus  map[string]*appCache
	// marks are the elements of the Set-of-Marks that may be read again
	// alone: each one's box as placed, and its window's layer.
	marks []mark
}

type mark struct {
	ref objRef
	box screen.Rect
	z   int
}

// appCache is one application's part of a treeCache.
type appCache struct {
	items   []cacheItem
	extents map[objRef]screen.Rect
	texts   map[objRef]string
	names   map[objRef]cachedName
}

// cachedName is what nameOf found for an element, and the object it came
// from (the zero objRef when none spoke).
type cachedName struct {
	name string
	from objRef
}

// reuse is what one observation takes from the cache.
type reuse struct {
	apps  map[string]*appCache // by bus name
	dirty map[objRef]bool      // elements whose pixels changed
}

func (r *reuse) app(busName string) *appCache {
	if r == nil {
		return nil
	}
	return r.apps[busName]
}

// text is an element's cached text, unless it must be read again.
func (r *reuse) text(ref objRef) (string, bool) {
	ac := r.app(ref.Bus)
	if ac == nil {
		return "", false
	}
	s, ok := ac.texts[ref]
	return s, ok
}

// name is what nameOf found for an element last time, unless the element
// or the object that named it changed.
func (r *reuse) name(ref objRef) (cachedName, bool) {
	ac := r.app(ref.Bus)
	if ac == nil || r.dirty[ref] {
		return cachedName{}, false
	}
	n, ok := ac.names[ref]
	if !ok || r.dirty[n.from] {
		return cachedName{}, false
	}
	return n, true
}

// take hands the cache to one observation (nil when it cannot serve the
// screen img with this window stack, active window and applications), and
// forgets it: the observation stores a new one when it ends.
func (a *a11y) take(img *image.RGBA, stack []xwin, active string, apps []objRef, now time.Time) *reuse {
	a.mu.Lock()
	c := a.cache
	a.cache = nil
	a.mu.Unlock()
	if c == nil || img == nil || c.img.Rect != img.Rect || c.active != active || now.Sub(c.taken) > maxTreeAge ||
		!slices.Equal(c.stack, stack) || !slices.Equal(c.apps, apps) {
		return nil
	}
	dirty, ok := changedMarks(c.img, img, stack, c.marks)
	if !ok {
		return nil
	}
	r := &reuse{apps: map[string]*appCache{}, dirty: dirty}
	for b, ac := range c.byBus {
		r.apps[b] = ac
	}
	return r
}

// changedMarks compares two captures of the same screen and returns the
// elements whose pixels changed; ok is false when a changed pixel lies
// outside every element that may be read alone.
func changedMarks(prev, cur *image.RGBA, stack []xwin, marks []mark) (dirty map[objRef]bool, ok bool) {
	dirty = map[objRef]bool{}
	w, h := cur.Rect.Dx(), cur.Rect.Dy()
	budget := w * h / maxChangedShare
	for y := 0; y < h; y++ {
		p := prev.Pix[y*prev.Stride : y*prev.Stride+4*w]
		c := cur.Pix[y*cur.Stride : y*cur.Stride+4*w]
		if bytes.Equal(p, c) {
			continue
		}
		for x := 0; x < w; {
			if bytes.Equal(p[4*x:4*x+4], c[4*x:4*x+4]) {
				x++
				continue
			}
			x0 := x
			for x < w && !bytes.Equal(p[4*x:4*x+4], c[4*x:4*x+4]) {
				x++
			}
			if budget -= x - x0; budget < 0 || !attribute(stack, marks, y, x0, x, dirty) {
				return nil, false
			}
		}
	}
	return dirty, true
}

// markMargin is how far outside its box an element draws: GTK 2 paints a
// button's focus and hover frame up to 3 pixels beyond the box it reports.
const markMargin = 4

// attribute marks the elements that hold a changed run of pixels (row y,
// columns x0 to x1), among those of the topmost window there (a run
// across a row of buttons holds several); it reports false when a pixel
// of the run lies in none.
func attribute(stack []xwin, marks []mark, y, x0, x1 int, dirty map[objRef]bool) bool {
	in := func(b screen.Rect, x int) bool { return x >= b.X && y >= b.Y && x < b.X+b.W && y < b.Y+b.H }
	z := -1
	for i := len(stack) - 1; i >= 0; i-- {
		if in(stack[i].Box, x0) || in(stack[i].Box, x1-1) {
			if !in(stack[i].Box, x0) || !in(stack[i].Box, x1-1) {
				return false // the run crosses a window's edge
			}
			z = i
			break
		}
	}
	if z < 0 {
		return false
	}
	for x := x0; x < x1; {
		next := x
		for _, m := range marks {
			b := screen.Rect{X: m.box.X - markMargin, Y: m.box.Y - markMargin, W: m.box.W + 2*markMargin, H: m.box.H + 2*markMargin}
			if m.z == z && in(b, x) {
				dirty[m.ref] = true
				next = max(next, b.X+b.W)
			}
		}
		if next == x {
			return false
		}
		x = next
	}
	return true
}

// maxEvents is how many focus events wait between two observations; more
// (a busy application) and every kept tree is read again.
const maxEvents = 4096

// eventSet keeps the events received since they were last taken. It is
// filled as they come (pump), so a burst never waits in the connection.
type eventSet struct {
	mu   sync.Mutex
	sigs []*dbus.Signal
	full bool
}

// pump moves events from ch into the set until ch is closed (the
// connection closed).
func (e *eventSet) pump(ch <-chan *dbus.Signal) {
	for sig := range ch {
		e.mu.Lock()
		if len(e.sigs) < maxEvents {
			e.sigs = append(e.sigs, sig)
		} else {
			e.full = true
		}
		e.mu.Unlock()
	}
}

// take returns the events kept and whether some were dropped, and empties
// the set.
func (e *eventSet) take() ([]*dbus.Signal, bool) {
	if e == nil {
		return nil, false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	sigs, full := e.sigs, e.full
	e.sigs, e.full = nil, false
	return sigs, full
}

// events adds to the changed elements those whose focus an application
// reported changed since the last observation (focus moves without a
// visible change where a toolkit hides focus frames after a click). An
// application is asked once first: D-Bus keeps a sender's messages in
// order, so its answer comes after every event it sent before. An event
// about an object the cache does not hold reads the application again,
// and so do more events than the set keeps.
func (r *reuse) events(conn *guarded, set *eventSet) {
	if r != nil && len(r.apps) > 0 {
		var reqs []request
		for b := range r.apps {
			reqs = append(reqs, request{ref: objRef{Bus: b, Path: "/org/a11y/atspi/accessible/root"}, method: "org.freedesktop.DBus.Peer.Ping"})
		}
		for i, c := range conn.manyOf(reqs) {
			if c.Err != nil {
				delete(r.apps, reqs[i].ref.Bus)
			}
		}
	}
	sigs, full := set.take()
	if full && r != nil {
		clear(r.apps)
		return
	}
	for _, sig := range sigs {
		ac := r.app(sig.Sender)
		if ac == nil {
			continue
		}
		ref := objRef{Bus: sig.Sender, Path: sig.Path}
		if strings.HasSuffix(sig.Name, ".ChildrenChanged") || ac.find(ref) == nil {
			delete(r.apps, sig.Sender)
			continue
		}
		r.dirty[ref] = true
	}
}

// refresh reads the changed elements again, all requests at once; an
// application where one of them changed more than its state, names and
// text (its box, its children) is read again in full.
func (r *reuse) refresh(conn *guarded) {
	if r == nil || len(r.dirty) == 0 {
		return
	}
	type ask struct {
		ref    objRef
		method string
		args   []any
	}
	var asks []ask
	for ref := range r.dirty {
		ac := r.app(ref.Bus)
		if ac == nil {
			continue
		}
		it := ac.find(ref)
		if it == nil || it.Children != 0 {
			delete(r.apps, ref.Bus)
			continue
		}
		asks = append(asks,
			ask{ref, "org.a11y.atspi.Accessible.GetState", nil},
			ask{ref, propGet, []any{"org.a11y.atspi.Accessible", "Name"}},
			ask{ref, propGet, []any{"org.a11y.atspi.Accessible", "Description"}},
			ask{ref, propGet, []any{"org.a11y.atspi.Accessible", "ChildCount"}},
			ask{ref, "org.a11y.atspi.Component.GetExtents", []any{uint32(0)}})
		if _, ok := ac.texts[ref]; ok {
			asks = append(asks, ask{ref, "org.a11y.atspi.Text.GetText", []any{int32(0), int32(-1)}})
		}
	}
	reqs := make([]request, len(asks))
	for i, q := range asks {
		reqs[i] = request{ref: q.ref, method: q.method, args: q.args}
	}
	calls := conn.manyOf(reqs)
	for i, q := range asks {
		ac := r.app(q.ref.Bus)
		if ac == nil {
			continue
		}
		it := ac.find(q.ref)
		c := calls[i]
		var err error
		if err = c.Err; err == nil {
			switch q.method {
			case "org.a11y.atspi.Accessible.GetState":
				err = c.Store(&it.States)
			case "org.a11y.atspi.Component.GetExtents":
				var ext struct{ X, Y, W, H int32 }
				if err = c.Store(&ext); err == nil && ac.extents[q.ref] != (screen.Rect{X: int(ext.X), Y: int(ext.Y), W: int(ext.W), H: int(ext.H)}) {
					delete(r.apps, q.ref.Bus) // it moved or changed size
				}
			case "org.a11y.atspi.Text.GetText":
				var s string
				if err = c.Store(&s); err == nil {
					ac.texts[q.ref] = strings.TrimSpace(s)
				}
			default:
				var v dbus.Variant
				if err = c.Store(&v); err == nil {
					switch q.args[1] {
					case "Name":
						it.Name, _ = v.Value().(string)
					case "Description":
						it.Desc, _ = v.Value().(string)
					case "ChildCount":
						if n, _ := v.Value().(int32); n != 0 {
							delete(r.apps, q.ref.Bus) // children came
						}
					}
				}
			}
		}
		if err != nil {
			delete(r.apps, q.ref.Bus)
		}
	}
}

func (ac *appCache) find(ref objRef) *cacheItem {
	for i := range ac.items {
		if ac.items[i].Ref == ref {
			return &ac.items[i]
		}
	}
	return nil
}

// dirtyRead lists the changed elements that were read again alone.
func (r *reuse) dirtyRead() []objRef {
	if r == nil {
		return nil
	}
	var out []objRef
	for ref := range r.dirty {
		if r.apps[ref.Bus] != nil {
			out = append(out, ref)
		}
	}
	return out
}

// keep stores what an observation read, with the screen it saw.
func (a *a11y) keep(img *image.RGBA, stack []xwin, active string, apps []objRef, trees []*appTree,
	extents map[objRef]screen.Rect, texts map[objRef]string, names map[objRef]cachedName, marks []mark) {
	c := &treeCache{img: img, stack: stack, active: active, apps: apps, taken: time.Now(), byBus: map[string]*appCache{}, marks: marks}
	for _, t := range trees {
		c.byBus[t.bus] = &appCache{items: t.items, extents: map[objRef]screen.Rect{}, texts: map[objRef]string{}, names: map[objRef]cachedName{}}
	}
	for ref, r := range extents {
		if ac := c.byBus[ref.Bus]; ac != nil {
			ac.extents[ref] = r
		}
	}
	for ref, s := range texts {
		if ac := c.byBus[ref.Bus]; ac != nil {
			ac.texts[ref] = s
		}
	}
	for ref, n := range names {
		if ac := c.byBus[ref.Bus]; ac != nil {
			ac.names[ref] = n
		}
	}
	a.mu.Lock()
	a.cache = c
	a.mu.Unlock()
}
