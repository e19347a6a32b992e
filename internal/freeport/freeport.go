// Package freeport picks TCP ports for servers pcflow starts: below Linux's
// ephemeral range, so an outgoing connection never takes one between the
// check and the bind, and never twice on one machine while the process
// that picked it runs (a lock file per port, held by that process), so
// servers started side by side, in one process or in several, do not pick
// the same one.
package freeport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/pcflow/pcflow/internal/proclock"
)

// Free reports whether host:port can be listened on.
func Free(ip string, port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(port)))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// The ranges the picks draw from: below 32768, where Linux's ephemeral
// range (32768–60999 by default) starts. A port Pick gives may be bound
// long after (a test's UI port, bound when its server starts); one
// PickNow gives is bound at once (the Temporal server's own services). Two
// processes picking at once then collide only within a range, where the
// windows are short, or both hold a port for long and check it first.
const (
	lowPort  = 20000
	highPort = 32767
	nowLow   = 10000
	nowHigh  = 19999
)

var (
	portsMu sync.Mutex
	given   = map[int]bool{}
	held    []*os.File // the lock files of the ports given, open for the process's life
)

// reserve takes port's lock file for this process, reporting false when
// another process holds it (it picked that port and may not have bound it
// yet: two embedded servers starting at once chose the same port for a
// service, and the second failed "address already in use"). Where no lock
// file can be made, the port is taken as reserved.
func reserve(port int) bool {
	dir := filepath.Join(os.TempDir(), "pcflow-ports")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return true
	}
	f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(port)+".lock"), os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return true
	}
	if err := proclock.TryLock(f); err != nil {
		f.Close()
		return false
	}
	held = append(held, f)
	return true
}

// Pick returns a port on ip that nothing listens on and that this
// process has not handed out before.
func Pick(ip string) (int, error) { return pick(ip, lowPort, highPort) }

// PickNow is Pick for a port the caller binds at once.
func PickNow(ip string) (int, error) { return pick(ip, nowLow, nowHigh) }

func pick(ip string, low, high int) (int, error) {
	portsMu.Lock()
	defer portsMu.Unlock()
	for range 200 {
		p := low + rand.IntN(high-low+1)
		if given[p] || !Free(ip, p) || !reserve(p) {
			continue
		}
		given[p] = true
		return p, nil
	}
	return 0, fmt.Errorf("no free port on %s between %d and %d", ip, low, high)
}
