package x11

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// AT-SPI state bits (atspi-constants.h, AtspiStateType).
const (
	stateChecked   = 4
	stateEditable  = 7
	stateEnabled   = 8
	stateFocused   = 12
	stateSelected  = 23
	stateSensitive = 24
	stateShowing   = 25
	stateVisible   = 30
	// stateManagesDescendants marks an object whose children are made
	// on demand (a table's cells): never list them.
	stateManagesDescendants = 31
)

// roleNames lists AtspiRole values in order.
var roleNames = strings.Fields(`invalid accelerator_label alert animation arrow calendar canvas check_box
check_menu_item color_chooser column_header combo_box date_editor desktop_icon desktop_frame dial dialog
directory_pane drawing_area file_chooser filler focus_traversable font_chooser frame glass_pane html_container
icon image internal_frame label layered_pane list list_item menu menu_bar menu_item option_pane page_tab
page_tab_list panel password_text popup_menu progress_bar push_button radio_button radio_menu_item root_pane
row_header scroll_bar scroll_pane separator slider spin_button split_pane status_bar table table_cell
table_column_header table_row_header tearoff_menu_item terminal text toggle_button tool_bar tool_tip tree
tree_table unknown viewport window extended header footer paragraph ruler application autocomplete editbar
embedded entry chart caption document_frame heading page section redundant_object form link
input_method_window table_row tree_item document_spreadsheet document_presentation document_text
document_web document_email comment list_box grouping image_map notification info_bar level_bar title_bar
block_quote audio video definition article landmark log marquee math rating timer static math_fraction
math_root subscript superscript description_list description_term description_value footnote
content_deletion content_insertion mark suggestion push_button_menu`)

func roleName(r uint32) string {
	if int(r) < len(roleNames) {
		return strings.ReplaceAll(roleNames[r], "_", " ")
	}
	return "unknown"
}

// interactive roles become Set-of-Marks elements; text roles are listed
// too, so the agent can read values (a calculator's display, a label).
var interactive = map[string]bool{
	"push button": true, "toggle button": true, "check box": true, "radio button": true, "menu item": true,
	"check menu item": true, "radio menu item": true, "menu": true, "combo box": true, "text": true, "entry": true,
	"password text": true, "spin button": true, "link": true, "page tab": true, "list item": true, "table cell": true,
	"slider": true, "icon": true, "tree item": true, "push button menu": true, "document text": true,
	"document spreadsheet": false, "paragraph": true, "label": true, "heading": true, "static": true,
	"table column header": true, "table row header": true, "column header": true, "row header": true,
}

var textRoles = map[string]bool{"text": true, "entry": true, "paragraph": true, "document text": true, "spin button": true, "table cell": true, "password text": false}

type objRef struct {
	Bus  string
	Path dbus.ObjectPath
}

type cacheItem struct {
	Ref        objRef
	App        objRef
	Parent     objRef
	Index      int32
	Children   int32
	Interfaces []string
	Name       string
	Role       uint32
	Desc       string
	States     []uint32
}

// a11y reads the accessibility tree of a desktop over AT-SPI2.
type a11y struct {
	// bus is the address of the desktop's D-Bus session, whose
	// accessibility bus the tree is read from; "" is the process's
	// $DBUS_SESSION_BUS_ADDRESS. Fixed before the first observation.
	bus  string
	mu   sync.Mutex
	conn *dbus.Conn
	// pending holds, by bus name, a request an application left
	// unanswered past callTimeout (see guarded).
	pending map[string]*dbus.Call
	// patience holds, by bus name, how long a request waits for an
	// application that let one go unanswered before (see guarded.call).
	patience map[string]time.Duration
	// cache is what the last observation read (see treecache.go).
	cache *treeCache
	// events holds the applications' focus events since the last
	// observation (see watchFocus).
	events *eventSet
	// apps holds what was asked once of each application, by bus name.
	apps map[string]appFacts
}

// appFacts is what is asked once of an application: its name, toolkit
// and the toolkit's version.
type appFacts struct{ name, toolkit, version string }

// facts returns what app says of itself, asked once per application (by
// bus name: a restarted one has another, and unique names are never
// reused).
func (a *a11y) facts(conn bus, app objRef) appFacts {
	a.mu.Lock()
	f, ok := a.apps[app.Bus]
	a.mu.Unlock()
	if ok {
		return f
	}
	obj := conn.Object(app.Bus, app.Path)
	n, nerr := obj.GetProperty("org.a11y.atspi.Accessible.Name")
	t, terr := obj.GetProperty("org.a11y.atspi.Application.ToolkitName")
	v, verr := obj.GetProperty("org.a11y.atspi.Application.Version")
	f.name, _ = n.Value().(string)
	f.toolkit, _ = t.Value().(string)
	f.version, _ = v.Value().(string)
	if nerr == nil && terr == nil && verr == nil {
		a.mu.Lock()
		if a.apps == nil {
			a.apps = map[string]appFacts{}
		}
		a.apps[app.Bus] = f
		a.mu.Unlock()
	}
	return f
}

// sessionBus is the address of the D-Bus session the tree is read through.
func (a *a11y) sessionBus() string {
	if a.bus != "" {
		return a.bus
	}
	return os.Getenv("DBUS_SESSION_BUS_ADDRESS")
}

func (a *a11y) connect() (*dbus.Conn, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.conn != nil && a.conn.Connected() {
		return a.conn, nil
	}
	addr := a.sessionBus()
	if addr == "" {
		// Never autolaunch a bus: it would hijack the accessibility socket.
		return nil, fmt.Errorf("DBUS_SESSION_BUS_ADDRESS is not set: start the desktop with `pcflow desktop up` and pass --display")
	}
	sess, err := dbus.Connect(addr)
	if err != nil {
		return nil, fmt.Errorf("session bus: %w", err)
	}
	var a11yAddr string
	err = sess.Object("org.a11y.Bus", "/org/a11y/bus").Call("org.a11y.Bus.GetAddress", 0).Store(&a11yAddr)
	sess.Close()
	if err != nil {
		return nil, fmt.Errorf("accessibility bus address: %w", err)
	}
	conn, err := dbus.Connect(a11yAddr)
	if err != nil {
		return nil, fmt.Errorf("accessibility bus: %w", err)
	}
	// Applications publish their cache only once a client listens for
	// tree changes. Of the changes, only the focus's are received (see
	// treecache.go): a toolkit may move the focus without drawing it,
	// while what else changes shows on the screen. Asking for every
	// state, name and children change made LibreOffice send thousands
	// of events a second while it loads a document.
	reg := conn.Object("org.a11y.atspi.Registry", "/org/a11y/atspi/registry")
	for _, ev := range []string{"object:children-changed", "object:state-changed:focused"} {
		if reg.Call("org.a11y.atspi.Registry.RegisterEvent", 0, ev, []string{}, "").Err != nil {
			reg.Call("org.a11y.atspi.Registry.RegisterEvent", 0, ev)
		}
	}
	a.events = &eventSet{}
	if err := conn.AddMatchSignal(dbus.WithMatchInterface("org.a11y.atspi.Event.Object"), dbus.WithMatchMember("StateChanged"), dbus.WithMatchArg(0, "focused")); err == nil {
		ch := make(chan *dbus.Signal, 64)
		conn.Signal(ch)
		go a.events.pump(ch)
	}
	a.conn = conn
	return conn, nil
}

func (a *a11y) close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cache = nil
	if a.conn != nil {
		a.conn.Close()
		a.conn = nil
	}
}

// items reads an application's objects from its bulk cache, falling back
// to walking the tree when the application has no cache. The cache holds
// only objects a client has already met: a menu that a toolkit fills when
// it opens (LibreOffice's native menus) is missing until walked, so the
// missing children of every showing object are walked live.
//
// LibreOffice is walked live, never asked for its cache (walked is true):
// its bridge's GetItems reads every object it ever handed out, and after
// a dialog closes one of them can be freed already; LibreOffice then
// aborts inside GetItems (SIGABRT; stack: g_hash_table_foreach,
// g_object_ref in libatk-bridge, from dbus_connection_dispatch), the
// warnings "Exception in getAccessibleDescription()" before it. Calc did
// so after its Delete Cells dialog was closed (docs/perception.md). A
// walk reaches only objects that are still some window's descendants.
func (a *a11y) items(g *guarded, app objRef) (items []cacheItem, walked bool, err error) {
	if a.facts(g, app).name == "soffice" {
		items, err := a.walk(g, []walkNode{{ref: app}}, nil, new(int))
		return items, true, err
	}
	err = g.Object(app.Bus, "/org/a11y/atspi/cache").Call("org.a11y.atspi.Cache.GetItems", 0).Store(&items)
	if err != nil || len(items) == 0 {
		items, err := a.walk(g, []walkNode{{ref: app}}, nil, new(int))
		return items, false, err
	}
	cached := make(map[objRef]int, len(items))
	known := make(map[objRef]bool, len(items))
	for _, it := range items {
		cached[it.Parent]++
		known[it.Ref] = true
	}
	var parents []cacheItem
	for _, it := range items {
		if it.Children <= 0 || it.Children > maxListedChildren || int(it.Children) <= cached[it.Ref] ||
			!bit(it.States, stateShowing) || bit(it.States, stateManagesDescendants) {
			continue
		}
		parents = append(parents, it)
	}
	reqs := make([]request, len(parents))
	for i, it := range parents {
		reqs[i] = request{ref: it.Ref, method: "org.a11y.atspi.Accessible.GetChildren"}
	}
	var roots []walkNode
	for i, c := range g.manyOf(reqs) {
		var kids []objRef
		if c.Err != nil || c.Store(&kids) != nil {
			continue
		}
		for _, k := range kids {
			if !known[k] {
				roots = append(roots, walkNode{ref: k, parent: parents[i].Ref, depth: 1})
			}
		}
	}
	// At most maxLiveWalk objects are walked live per application: lists
	// that manage their descendants keep them out of the cache for good.
	budget := maxWalk - maxLiveWalk
	sub, _ := a.walk(g, roots, known, &budget)
	return append(items, sub...), false, nil
}

// Limits of walking a tree.
const (
	maxWalk     = 4000
	maxLiveWalk = 400
	// maxWalkDepth is the deepest an object's children are asked for.
	maxWalkDepth = 30
	// maxListedChildren is the most children of one object walked, and
	// the most an object may have for the cached walk to ask for them.
	maxListedChildren = 500
	// maxChildren is the most children an object may have for them to be
	// asked for at all.
	maxChildren = 10000
)

const propGet = "org.freedesktop.DBus.Properties.Get"

// walkNode is an object a walk reads: its parent and its depth below the
// application.
type walkNode struct {
	ref, parent objRef
	depth       int
}

// walk reads the objects from level down, one depth at a time with every
// request of a depth sent at once (object by object, Writer's full read
// took 570 ms; so, 230-243 ms). Per depth: every object's role and state;
// then, for the application and the objects showing, their interfaces,
// name, description and number of children; then the children of those
// that have a countable few and do not manage them. An object not showing
// (a closed menu's items) is kept with its role and state: an observation
// places none of it. Objects in seen are not read (again); budget counts
// the objects read, up to maxWalk. The error is the application's, when
// it does not answer (a root of depth 0).
func (a *a11y) walk(g *guarded, level []walkNode, seen map[objRef]bool, budget *int) ([]cacheItem, error) {
	if seen == nil {
		seen = map[objRef]bool{}
	}
	var out []cacheItem
	for len(level) > 0 && *budget < maxWalk {
		fresh := level[:0:0]
		for _, n := range level {
			if !seen[n.ref] {
				seen[n.ref] = true
				fresh = append(fresh, n)
			}
		}
		level = fresh
		if room := maxWalk - *budget; len(level) > room {
			level = level[:room]
		}
		*budget += len(level)
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
			// Count the children before asking for them: GetChildren
			// makes the application create every child, and a
			// spreadsheet's table reports 2^31-1 cells (LibreOffice asked
			// for them grows to all the machine's memory and never
			// answers). Such an object's children are reached another way
			// (visibleCells), never listed.
			if it.Children > maxChildren || bit(it.States, stateManagesDescendants) || level[i].depth >= maxWalkDepth {
				continue
			}
			parents = append(parents, i)
		}
		reqs = reqs[:0]
		for _, i := range parents {
			reqs = append(reqs, request{ref: level[i].ref, method: "org.a11y.atspi.Accessible.GetChildren"})
		}
		calls = g.manyOf(reqs)
		var next []walkNode
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
				next = append(next, walkNode{ref: k, parent: level[i].ref, depth: level[i].depth + 1})
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

// ownsWindow reports whether an application has a showing top-level
// window with the given title.
func ownsWindow(items []cacheItem, title string) bool {
	for _, it := range items {
		switch roleName(it.Role) {
		case "frame", "dialog", "window", "file chooser", "alert":
			if it.Name == title && bit(it.States, stateShowing) {
				return true
			}
		}
	}
	return false
}

func bit(states []uint32, n uint) bool {
	w := int(n / 32)
	return w < len(states) && states[w]&(1<<(n%32)) != 0
}

func hasIface(ifs []string, name string) bool {
	for _, i := range ifs {
		if i == name {
			return true
		}
	}
	return false
}
