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
	// toolkits holds each application's toolkit and version, by bus name.
	toolkits map[string][2]string
}

func (a *a11y) connect() (*dbus.Conn, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.conn != nil && a.conn.Connected() {
		return a.conn, nil
	}
	addr := os.Getenv("DBUS_SESSION_BUS_ADDRESS")
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
// LibreOffice is walked live, never asked for its cache: its bridge's
// GetItems reads every object it ever handed out, and after a dialog
// closes one of them can be freed already; LibreOffice then aborts inside
// GetItems (SIGABRT; stack: g_hash_table_foreach, g_object_ref in
// libatk-bridge, from dbus_connection_dispatch), the warnings "Exception
// in getAccessibleDescription()" before it. Calc did so after its Delete
// Cells dialog was closed, in about one grounding run in three
// (docs/perception.md). A walk reaches only objects that are still some
// window's descendants.
func (a *a11y) items(conn bus, app objRef) ([]cacheItem, error) {
	if g, ok := conn.(*guarded); ok && isLibreOffice(g, app) {
		return a.walkMany(g, app)
	}
	var items []cacheItem
	err := conn.Object(app.Bus, "/org/a11y/atspi/cache").Call("org.a11y.atspi.Cache.GetItems", 0).Store(&items)
	if err != nil || len(items) == 0 {
		return a.walk(conn, app, objRef{}, 0, new(int))
	}
	cached := make(map[objRef]int, len(items))
	for _, it := range items {
		cached[it.Parent]++
	}
	known := make(map[objRef]bool, len(items))
	for _, it := range items {
		known[it.Ref] = true
	}
	// At most maxLiveWalk objects are walked live per application: lists
	// that manage their descendants keep them out of the cache for good.
	budget := new(int)
	*budget = maxWalk - maxLiveWalk
	n := len(items)
	for i := 0; i < n; i++ {
		it := items[i]
		if it.Children <= 0 || it.Children > maxListedChildren || int(it.Children) <= cached[it.Ref] ||
			!bit(it.States, stateShowing) || bit(it.States, stateManagesDescendants) {
			continue
		}
		var kids []objRef
		if conn.Object(it.Ref.Bus, it.Ref.Path).Call("org.a11y.atspi.Accessible.GetChildren", 0).Store(&kids) != nil {
			continue
		}
		for _, k := range kids {
			if known[k] {
				continue
			}
			sub, _ := a.walk(conn, k, it.Ref, 1, budget)
			for _, s := range sub {
				known[s.Ref] = true
			}
			items = append(items, sub...)
		}
	}
	return items, nil
}

// Limits of walking a tree object by object.
const (
	maxWalk     = 4000
	maxLiveWalk = 400
	// maxListedChildren is the most children of one object walked, and
	// the most an object may have for the cached walk to ask for them.
	maxListedChildren = 500
	// maxChildren is the most children an object may have for them to be
	// asked for at all.
	maxChildren = 10000
)

func (a *a11y) walk(conn bus, ref, parent objRef, depth int, budget *int) ([]cacheItem, error) {
	if depth > 30 || *budget > maxWalk {
		return nil, nil
	}
	*budget++
	obj := conn.Object(ref.Bus, ref.Path)
	it := cacheItem{Ref: ref, Parent: parent}
	if err := obj.Call("org.a11y.atspi.Accessible.GetRole", 0).Store(&it.Role); err != nil {
		return nil, err
	}
	_ = obj.Call("org.a11y.atspi.Accessible.GetState", 0).Store(&it.States)
	if len(it.States) > 0 && !bit(it.States, stateShowing) && depth >= 1 {
		// Not on the screen (a closed menu's items): an observation
		// places none of it, and needs only its role and state (its
		// name, interfaces and children took four more requests each,
		// for every item of every closed menu, at every observation).
		return []cacheItem{it}, nil
	}
	_ = obj.Call("org.a11y.atspi.Accessible.GetInterfaces", 0).Store(&it.Interfaces)
	if v, err := obj.GetProperty("org.a11y.atspi.Accessible.Name"); err == nil {
		it.Name, _ = v.Value().(string)
	}
	if v, err := obj.GetProperty("org.a11y.atspi.Accessible.Description"); err == nil {
		it.Desc, _ = v.Value().(string)
	}
	// Count the children before asking for them: GetChildren makes the
	// application create every child, and a spreadsheet's table reports
	// 2^31-1 cells (LibreOffice asked for them grows to all the machine's
	// memory and never answers). Such an object's children are reached
	// another way (visibleCells), never listed.
	if v, err := obj.GetProperty("org.a11y.atspi.Accessible.ChildCount"); err == nil {
		if n, ok := v.Value().(int32); ok {
			it.Children = n
		}
	}
	if it.Children > maxChildren || bit(it.States, stateManagesDescendants) {
		return []cacheItem{it}, nil
	}
	var kids []objRef
	if err := obj.Call("org.a11y.atspi.Accessible.GetChildren", 0).Store(&kids); err != nil {
		return []cacheItem{it}, nil
	}
	it.Children = int32(len(kids))
	out := []cacheItem{it}
	if len(kids) > maxListedChildren {
		kids = kids[:maxListedChildren]
	}
	for _, k := range kids {
		sub, _ := a.walk(conn, k, ref, depth+1, budget)
		out = append(out, sub...)
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
