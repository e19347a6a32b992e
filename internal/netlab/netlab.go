// Package netlab makes hosts for tests out of Linux network namespaces: each
// host has its own network stack and address on one bridge, so a test can
// run a cluster's nodes, a database and device workers as on separate
// machines, kill them, and cut a host's link and bring it back. It also
// runs a real PostgreSQL (Debian's) in a host.
//
// It needs root, iproute2 and, for the database, PostgreSQL's server.
package netlab

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Lab is a bridge and the hosts on it.
type Lab struct {
	t      testing.TB
	id     string
	bridge string
	subnet string // "10.A.B"
	mu     sync.Mutex
	hosts  []*Host
}

// Host is a network namespace with one address on the lab's bridge.
type Host struct {
	Name string
	// NS is the namespace's name (ip netns).
	NS string
	// IP is the host's address.
	IP   string
	lab  *Lab
	link string // the bridge's end of the host's cable
}

// Available says why a lab cannot be made here, or "" when it can.
func Available() string {
	if os.Geteuid() != 0 {
		return "network namespaces need root"
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return "iproute2's ip is not installed"
	}
	return ""
}

// New makes a bridge with an address in the root namespace (so the test
// process reaches every host) and removes everything on cleanup.
func New(t testing.TB) *Lab {
	t.Helper()
	if why := Available(); why != "" {
		t.Skip(why)
	}
	n := (os.Getpid()*31 + int(time.Now().UnixNano()/1e6)) % 40000
	l := &Lab{t: t, id: strconv.FormatInt(int64(n), 36), subnet: fmt.Sprintf("10.%d.%d", 100+n/250%150, n%250)}
	l.bridge = "pcfb" + l.id
	t.Cleanup(l.remove)
	l.must("ip", "link", "add", l.bridge, "type", "bridge")
	l.must("ip", "addr", "add", l.subnet+".254/24", "dev", l.bridge)
	l.must("ip", "link", "set", l.bridge, "up")
	return l
}

// Host makes a host: a namespace, a cable to the bridge, the next address.
func (l *Lab) Host(name string) *Host {
	l.t.Helper()
	l.mu.Lock()
	i := len(l.hosts) + 1
	h := &Host{Name: name, NS: fmt.Sprintf("pcf%s-%s", l.id, name), IP: fmt.Sprintf("%s.%d", l.subnet, i), lab: l,
		link: fmt.Sprintf("pcfv%s%d", l.id, i)}
	l.hosts = append(l.hosts, h)
	l.mu.Unlock()
	peer := fmt.Sprintf("pcfp%s%d", l.id, i)
	l.must("ip", "netns", "add", h.NS)
	l.must("ip", "link", "add", h.link, "type", "veth", "peer", "name", peer)
	l.must("ip", "link", "set", peer, "netns", h.NS)
	l.must("ip", "link", "set", h.link, "master", l.bridge)
	l.must("ip", "link", "set", h.link, "up")
	l.must("ip", "-n", h.NS, "addr", "add", h.IP+"/24", "dev", peer)
	l.must("ip", "-n", h.NS, "link", "set", peer, "up")
	l.must("ip", "-n", h.NS, "link", "set", "lo", "up")
	return h
}

// Command is a command run inside the host.
func (h *Host) Command(name string, args ...string) *exec.Cmd {
	c := exec.Command("ip", append([]string{"netns", "exec", h.NS, name}, args...)...)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return c
}

// Cut takes the host's cable out: nothing reaches it, nothing leaves it;
// its processes keep running.
func (h *Host) Cut() { h.lab.must("ip", "link", "set", h.link, "down") }

// Mend puts the cable back.
func (h *Host) Mend() { h.lab.must("ip", "link", "set", h.link, "up") }

// Kill sends sig to every process in the host.
func (h *Host) Kill(sig syscall.Signal) {
	out, _ := exec.Command("ip", "netns", "pids", h.NS).Output()
	for _, f := range strings.Fields(string(out)) {
		if pid, err := strconv.Atoi(f); err == nil {
			syscall.Kill(pid, sig)
		}
	}
}

func (l *Lab) remove() {
	for _, h := range l.hosts {
		h.Kill(syscall.SIGKILL)
	}
	time.Sleep(100 * time.Millisecond)
	for _, h := range l.hosts {
		exec.Command("ip", "link", "del", h.link).Run()
		exec.Command("ip", "netns", "del", h.NS).Run()
	}
	exec.Command("ip", "link", "del", l.bridge).Run()
}

func (l *Lab) must(args ...string) {
	l.t.Helper()
	var out bytes.Buffer
	c := exec.Command(args[0], args[1:]...)
	c.Stdout, c.Stderr = &out, &out
	if err := c.Run(); err != nil {
		l.t.Fatalf("netlab: %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
}
