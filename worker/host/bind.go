package host

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/x11"
)

// bindSandbox is the bind kind of Sandbox: bubblewrap, with all of the
// host visible but a /tmp, a home folder and a ScratchDir of the
// device's own (see bindMounts). The sandbox starts afresh after every
// reset, with the home folder emptied in between.
type bindSandbox struct {
	name    string // the device
	program string // the pcflow program
	state   string // the state folder
	tmp     string // host folder shown as /tmp
	scratch string // host folder shown as ScratchDir
	ownHome string // host folder the device sees as its home
}

// newBindSandbox makes the folders of device name's bind sandbox under
// dir: its /tmp, its home folder and scratch, the folder it sees as
// ScratchDir.
func newBindSandbox(name, dir, scratch, program, state string) (*bindSandbox, error) {
	s := &bindSandbox{name: name, program: program, state: state, tmp: filepath.Join(dir, "tmp"), scratch: scratch,
		// The device's own home folder, empty at the start of every task
		// (emptied by Between, between the sandbox a reset ends and the
		// next).
		ownHome: filepath.Join(dir, "home")}
	if err := os.MkdirAll(s.tmp, 0o755); err != nil {
		return nil, err
	}
	// World-writable with the sticky bit, as /tmp is (MkdirAll applies
	// the umask and drops the bit).
	if err := os.Chmod(s.tmp, 0o777|os.ModeSticky); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(ScratchDir, 0o755); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(s.ownHome, 0o700); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *bindSandbox) Env() []string {
	return []string{activities.ScratchEnv + "=" + ScratchDir, RestartEnv + "=" + RestartBind}
}

func (s *bindSandbox) Command(command, environ []string) ([]string, error) {
	m := bindMounts{Tmp: s.tmp, Scratch: s.scratch, Keep: keepUnder("/tmp", s.program, s.state, environ)}
	if m.Home = privateHome(environ); m.Home != "" {
		m.OwnHome = s.ownHome
		for _, p := range keepUnder(m.Home, s.program, s.state, environ) {
			if !slices.Contains(m.Keep, p) {
				m.Keep = append(m.Keep, p)
			}
		}
	}
	return m.argv(command), nil
}

func (s *bindSandbox) Marker() string   { return s.scratch }
func (s *bindSandbox) HidesState() bool { return false }

// AppsGoWithWorker: the bind sandbox shares the host's PID namespace, and
// the applications a task started live on without their worker.
func (s *bindSandbox) AppsGoWithWorker() bool { return false }

// Between empties the device's home folder, outside and between two
// sandboxes (inside, ~/.pcflow would be the state folder itself): the
// next task finds it empty, as an overlay device finds its own.
func (s *bindSandbox) Between() error {
	if err := x11.EmptyDir(s.ownHome); err != nil {
		return fmt.Errorf("empty the home folder of %s (%s): %w", s.name, s.ownHome, err)
	}
	return nil
}

// bindMounts is what a bind device's sandbox shows of the host: all of
// it, but a /tmp of the device's own (LibreOffice, for one, finds its
// running instance by a socket in /tmp named after the profile folder, so
// two devices sharing /tmp with the same task file hand documents to each
// other's instance), a home folder of the device's own, which eval empties
// at every reset (a task's files, git's global configuration, a terminal's
// history must not reach the next task), and ScratchDir bound to the
// device's scratch folder. Keep are the host paths under /tmp and under
// the home folder the worker and the desktop's programs need (the X
// socket, the desktop's session folder and D-Bus socket, the state
// folder, the pcflow program, the working folder).
type bindMounts struct {
	Tmp     string // host folder shown as /tmp
	Home    string // the home folder the task sees ($HOME); "" keeps the host's
	OwnHome string // host folder shown as Home
	Scratch string // host folder shown as ScratchDir
	Keep    []string
}

func (s bindMounts) argv(command []string) []string {
	a := []string{"bwrap", "--dev-bind", "/", "/", "--bind", s.Tmp, "/tmp"}
	// The home folder after /tmp (it may lie there), the kept paths after
	// both (bubblewrap takes every source from the host's view).
	// A kept folder that holds the home folder (the working folder
	// /tmp/w for a home /tmp/w/h) goes first, or it would show the host's.
	for _, p := range s.Keep {
		if s.Home != "" && strings.HasPrefix(s.Home, p+"/") {
			a = append(a, "--bind", p, p)
		}
	}
	if s.Home != "" {
		a = append(a, "--bind", s.OwnHome, s.Home)
	}
	for _, p := range s.Keep {
		if s.Home == "" || !strings.HasPrefix(s.Home, p+"/") {
			a = append(a, "--bind", p, p)
		}
	}
	a = append(a, "--bind", s.Scratch, ScratchDir, "--die-with-parent", "--")
	return append(a, command...)
}

// privateHome returns the home folder a bind sandbox gives the device a
// folder of its own for: $HOME of environ, "" when it has none of its
// own to hide (unset, relative, /, or /tmp, which is the device's own
// already).
func privateHome(environ []string) string {
	home := ""
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v // the last one wins, as in exec
		}
	}
	home = filepath.Clean(home)
	if !filepath.IsAbs(home) || home == "/" || home == "/tmp" {
		return ""
	}
	return home
}

// keepUnder lists the host paths under dir (/tmp, the home folder) a bind
// device's worker needs to see: the X sockets, the desktop's session
// folder and D-Bus socket (from its environment), the state folder, the
// pcflow program and the working folder; only those that exist, and
// never dir itself.
func keepUnder(dir, exe, state string, environ []string) []string {
	cands := append([]string{"/tmp/.X11-unix", state, exe}, desktopPaths(environ)...)
	if wd, err := os.Getwd(); err == nil {
		cands = append(cands, wd)
	}
	var keep []string
	for _, p := range cands {
		if p == "" {
			continue
		}
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if !strings.HasPrefix(p, dir+"/") || slices.Contains(keep, p) {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			keep = append(keep, p)
		}
	}
	return keep
}

// desktopPaths are the host paths of a desktop's session a sandboxed
// worker needs, from the desktop's environment: its session folder
// (XDG_RUNTIME_DIR: the AT-SPI bus, the applications' settings) and its
// D-Bus socket file (none for an abstract socket).
func desktopPaths(environ []string) []string {
	var paths []string
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "XDG_RUNTIME_DIR":
			paths = append(paths, v)
		case "DBUS_SESSION_BUS_ADDRESS":
			if p := busPath(v); p != "" {
				paths = append(paths, p)
			}
		}
	}
	return paths
}

// busPath returns the socket file of a D-Bus address (unix:path=...), or
// "" for an abstract socket (reachable through the shared network
// namespace).
func busPath(addr string) string {
	for _, part := range strings.Split(addr, ",") {
		if p, ok := strings.CutPrefix(part, "unix:path="); ok {
			return p
		}
	}
	return ""
}
