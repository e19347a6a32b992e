package x11

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
)

// callTimeout bounds one accessibility request. An application answers in
// milliseconds, LibreOffice with its whole cache in about a second on a
// loaded machine; one that takes longer is frozen, deadlocked or busy
// with something else, and an observation must not wait for it (D-Bus
// itself never gives up on a call: CI once waited 42 minutes on a
// LibreOffice that had stopped answering while it started).
const callTimeout = 4 * time.Second

// maxCallTimeout bounds the wait for an application that answered late
// before: each late answer doubles its wait up to this, so an application
// that is slow (LibreOffice starting cold on a loaded machine) is served
// again, while one that is frozen still costs one wait at a time.
const maxCallTimeout = 32 * time.Second

// errNotAnswering is returned for a request to an application that let
// an earlier one go unanswered.
var errNotAnswering = errors.New("application does not answer accessibility requests")

// bus hands out accessibility objects: a *dbus.Conn, or a guarded one.
type bus interface {
	Object(dest string, path dbus.ObjectPath) dbus.BusObject
}

// guarded is the accessibility bus of one observation, where no request
// can hang: each waits at most callTimeout (or until the observation is
// cancelled). A request that takes longer is left pending and its
// application is not asked again until that request is answered, so a
// hung application costs one wait, once, and a slow one is not flooded
// with requests it cannot keep up with.
type guarded struct {
	a    *a11y
	conn *dbus.Conn
	ctx  context.Context
	hung map[string]bool // bus names that let a request go unanswered, this observation
	// requests counts the requests sent to applications.
	requests int
}

func (a *a11y) guard(ctx context.Context, conn *dbus.Conn) *guarded {
	return &guarded{a: a, conn: conn, ctx: ctx, hung: map[string]bool{}}
}

func (g *guarded) Object(dest string, path dbus.ObjectPath) dbus.BusObject {
	return &guardedObject{BusObject: g.conn.Object(dest, path), g: g, dest: dest}
}

type guardedObject struct {
	dbus.BusObject
	g    *guarded
	dest string
}

func (o *guardedObject) Call(method string, flags dbus.Flags, args ...any) *dbus.Call {
	return o.g.call(o.BusObject, o.dest, method, flags, args...)
}

func (o *guardedObject) GetProperty(p string) (dbus.Variant, error) {
	var v dbus.Variant
	i := strings.LastIndex(p, ".")
	if i < 0 {
		return v, fmt.Errorf("property %q has no interface", p)
	}
	err := o.Call("org.freedesktop.DBus.Properties.Get", 0, p[:i], p[i+1:]).Store(&v)
	return v, err
}

func (g *guarded) call(obj dbus.BusObject, dest, method string, flags dbus.Flags, args ...any) *dbus.Call {
	wait, ok := g.admit(dest)
	if !ok {
		return &dbus.Call{Err: fmt.Errorf("%w (%s)", errNotAnswering, dest)}
	}
	g.requests++
	c := obj.Go(method, flags, make(chan *dbus.Call, 1), args...)
	if c.Err != nil && c.Done == nil {
		return c
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-c.Done:
		return c
	case <-t.C:
		g.unanswered(dest, c, wait, true)
	case <-g.ctx.Done():
		g.unanswered(dest, c, wait, false)
	}
	return &dbus.Call{Err: fmt.Errorf("%w (%s: %s)", errNotAnswering, dest, method)}
}

// admit reports whether dest may be asked, and how long to wait for its
// answer: not while a request it left unanswered is still pending.
func (g *guarded) admit(dest string) (time.Duration, bool) {
	a := g.a
	a.mu.Lock()
	defer a.mu.Unlock()
	if p := a.pending[dest]; p != nil {
		select {
		case <-p.Done: // answered at last: ask again
			delete(a.pending, dest)
		default:
			g.hung[dest] = true
			return 0, false
		}
	}
	return max(callTimeout, a.patience[dest]), true
}

// unanswered keeps c, which dest left unanswered, pending: dest is not
// asked again until it answers. late: it outlasted wait (a cancelled
// observation says nothing of the application), and dest is waited for
// twice as long next time.
func (g *guarded) unanswered(dest string, c *dbus.Call, wait time.Duration, late bool) {
	a := g.a
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.pending == nil {
		a.pending = map[string]*dbus.Call{}
		a.patience = map[string]time.Duration{}
	}
	a.pending[dest] = c
	if late {
		g.hung[dest] = true
		a.patience[dest] = min(2*wait, maxCallTimeout)
	}
}

// notAnswering names the applications that let a request go unanswered
// during this observation, by process where the bus knows it:
// "soffice.bin (pid 4242)".
func (g *guarded) notAnswering() []string {
	var out []string
	for dest := range g.hung {
		out = append(out, processOf(g.conn, dest))
	}
	sort.Strings(out)
	return out
}

// processOf names the process behind a bus name, asking the bus daemon
// (which always answers) rather than the application.
func processOf(conn *dbus.Conn, dest string) string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var pid uint32
	if conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.GetConnectionUnixProcessID", 0, dest).Store(&pid) != nil {
		return "bus " + dest
	}
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return fmt.Sprintf("pid %d", pid)
	}
	return fmt.Sprintf("%s (pid %d)", strings.TrimSpace(string(comm)), pid)
}

// many sends the same request to each object at once, pipelined on the
// connection, and waits for the answers together: an application answers
// them in turn, without a round trip to this process between two (Writer's
// hundred boxes took a round trip each). Each application's requests get
// the patience one request gets from call; an application that leaves one
// unanswered is treated as call treats it, and its later requests are not
// waited for. It returns the calls in refs' order; one to an application
// that is not answering holds errNotAnswering.
func (g *guarded) many(refs []objRef, method string, args ...any) []*dbus.Call {
	reqs := make([]request, len(refs))
	for i, r := range refs {
		reqs[i] = request{ref: r, method: method, args: args}
	}
	return g.manyOf(reqs)
}

// request is one request of manyOf: a method of an object, with its arguments.
type request struct {
	ref    objRef
	method string
	args   []any
}

// manyOf is many for requests that differ in method and arguments.
func (g *guarded) manyOf(reqs []request) []*dbus.Call {
	out := make([]*dbus.Call, len(reqs))
	now := time.Now()
	waits := map[string]time.Duration{}
	for i, q := range reqs {
		r := q.ref
		wait, seen := waits[r.Bus]
		if !seen {
			var ok bool
			if wait, ok = g.admit(r.Bus); !ok {
				wait = -1
			}
			waits[r.Bus] = wait
		}
		if wait < 0 {
			out[i] = &dbus.Call{Err: fmt.Errorf("%w (%s)", errNotAnswering, r.Bus)}
			continue
		}
		g.requests++
		out[i] = g.conn.Object(r.Bus, r.Path).Go(q.method, 0, make(chan *dbus.Call, 1), q.args...)
	}
	for i, c := range out {
		if c.Done == nil {
			continue // refused, or failed to send
		}
		dest, method := reqs[i].ref.Bus, reqs[i].method
		if g.hung[dest] {
			out[i] = &dbus.Call{Err: fmt.Errorf("%w (%s: %s)", errNotAnswering, dest, method)}
			continue
		}
		t := time.NewTimer(time.Until(now.Add(waits[dest])))
		select {
		case <-c.Done:
			t.Stop()
			continue
		case <-t.C:
			g.unanswered(dest, c, waits[dest], true)
		case <-g.ctx.Done():
			t.Stop()
			g.unanswered(dest, c, waits[dest], false)
		}
		out[i] = &dbus.Call{Err: fmt.Errorf("%w (%s: %s)", errNotAnswering, dest, method)}
	}
	return out
}
