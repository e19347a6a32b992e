package x11

import (
	"fmt"

	"github.com/godbus/dbus/v5"
)

// isLibreOffice reports whether the application at app is LibreOffice
// (its accessible name is "soffice").
func isLibreOffice(g *guarded, app objRef) bool {
	c := g.manyOf([]request{{ref: app, method: propGet, args: []any{"org.a11y.atspi.Accessible", "Name"}}})[0]
	var v dbus.Variant
	if c.Err != nil || c.Store(&v) != nil {
		return false
	}
	name, _ := v.Value().(string)
	return name == "soffice"
}

const propGet = "org.freedesktop.DBus.Properties.Get"

// walkMany reads what walk reads, the same objects with the same fields,
// one depth of the tree at a time with every request of a depth sent at
// once: a walk object by object waits for each of its seven requests in
// turn (Writer: 570 ms a full read, against 130 ms from its cache).
// Per depth: every object's role and state; then, for those showing (or
// the application itself), interfaces, name, description and number of
// children; then the children of those that have a countable few and do
// not manage them.
func (a *a11y) walkMany(g *guarded, app objRef) ([]cacheItem, error) {
	type node struct {
		ref, parent objRef
		depth       int
	}
	if g.walked == nil {
		g.walked = map[string]bool{}
	}
	g.walked[app.Bus] = true
	level := []node{{ref: app}}
	var out []cacheItem
	for len(level) > 0 && len(out) < maxWalk {
		if room := maxWalk - len(out); len(level) > room {
			level = level[:room]
		}
		reqs := make([]request, 0, 2*len(level))
		for _, n := range level {
			reqs = append(reqs, request{ref: n.ref, method: "org.a11y.atspi.Accessible.GetRole"},
				request{ref: n.ref, method: "org.a11y.atspi.Accessible.GetState"})
		}
		calls := g.manyOf(reqs)
		items := make([]cacheItem, len(level))
		ok := make([]bool, len(level))
		var full []int
		for i, n := range level {
			it := cacheItem{Ref: n.ref, Parent: n.parent}
			if calls[2*i].Err != nil || calls[2*i].Store(&it.Role) != nil {
				if n.depth == 0 {
					return nil, fmt.Errorf("application %s: %v", n.ref.Bus, calls[2*i].Err)
				}
				continue // gone since its parent listed it
			}
			if calls[2*i+1].Err == nil {
				_ = calls[2*i+1].Store(&it.States)
			}
			items[i], ok[i] = it, true
			// Not on the screen (a closed menu's items): its role and
			// state are all an observation needs (walk).
			if len(it.States) == 0 || bit(it.States, stateShowing) || n.depth == 0 {
				full = append(full, i)
			}
		}
		reqs = reqs[:0]
		for _, i := range full {
			r := level[i].ref
			reqs = append(reqs, request{ref: r, method: "org.a11y.atspi.Accessible.GetInterfaces"},
				request{ref: r, method: propGet, args: []any{"org.a11y.atspi.Accessible", "Name"}},
				request{ref: r, method: propGet, args: []any{"org.a11y.atspi.Accessible", "Description"}},
				request{ref: r, method: propGet, args: []any{"org.a11y.atspi.Accessible", "ChildCount"}})
		}
		calls = g.manyOf(reqs)
		var parents []int
		for j, i := range full {
			it := &items[i]
			c := calls[4*j : 4*j+4]
			if c[0].Err == nil {
				_ = c[0].Store(&it.Interfaces)
			}
			var v dbus.Variant
			if c[1].Err == nil && c[1].Store(&v) == nil {
				it.Name, _ = v.Value().(string)
			}
			if c[2].Err == nil && c[2].Store(&v) == nil {
				it.Desc, _ = v.Value().(string)
			}
			if c[3].Err == nil && c[3].Store(&v) == nil {
				it.Children, _ = v.Value().(int32)
			}
			// A spreadsheet's table counts 2^31-1 cells; asked for
			// them, LibreOffice grows to all the memory (walk).
			if it.Children > maxChildren || bit(it.States, stateManagesDescendants) || level[i].depth >= 30 {
				continue
			}
			parents = append(parents, i)
		}
		reqs = reqs[:0]
		for _, i := range parents {
			reqs = append(reqs, request{ref: level[i].ref, method: "org.a11y.atspi.Accessible.GetChildren"})
		}
		calls = g.manyOf(reqs)
		var next []node
		for j, i := range parents {
			var kids []objRef
			if calls[j].Err != nil || calls[j].Store(&kids) != nil {
				continue
			}
			items[i].Children = int32(len(kids))
			if len(kids) > maxListedChildren {
				kids = kids[:maxListedChildren]
			}
			for _, k := range kids {
				next = append(next, node{ref: k, parent: level[i].ref, depth: level[i].depth + 1})
			}
		}
		for i := range items {
			if ok[i] {
				out = append(out, items[i])
			}
		}
		level = next
	}
	return out, nil
}
