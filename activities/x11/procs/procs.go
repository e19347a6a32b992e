// Package procs finds and stops the programs running on an X display of
// a Linux desktop, from /proc and the windows' _NET_WM_PID: what a reset
// stops between the tasks of a suite. Linux only, like the device that
// uses it.
package procs

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/pcflow/pcflow/internal/procfs"
)

// protectedPrograms keep running across a reset: the desktop itself (and
// x11vnc, the worker's live view of it).
var protectedPrograms = map[string]bool{
	"Xvfb": true, "openbox": true, "dbus-daemon": true, "dbus-launch": true,
	"at-spi-bus-laun": true, "at-spi2-registr": true, "bwrap": true, "pcflow": true,
	"x11vnc": true,
}

// StopApps stops every program on display except the desktop's own and
// this process and its ancestors, and returns what it stopped.
func StopApps(display string) []string {
	var stopped []string
	for _, v := range appsOn(display, ancestors()) {
		_ = syscall.Kill(v.pid, syscall.SIGKILL)
		stopped = append(stopped, fmt.Sprintf("%s(%d)", v.name, v.pid))
	}
	return stopped
}

// TermApps stops the same programs as StopApps, gently: SIGTERM first,
// SIGKILL for those still running after grace. It returns what it
// stopped, as "name(pid)".
func TermApps(display string, grace time.Duration) []string {
	victims := appsOn(display, ancestors())
	var stopped []string
	for _, v := range victims {
		_ = syscall.Kill(v.pid, syscall.SIGTERM)
		stopped = append(stopped, fmt.Sprintf("%s(%d)", v.name, v.pid))
	}
	deadline := time.Now().Add(grace)
	for _, v := range victims {
		for alive(v.pid) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if alive(v.pid) {
			_ = syscall.Kill(v.pid, syscall.SIGKILL)
		}
	}
	return stopped
}

// ancestors is this process and its ancestors: a reset never stops the
// worker that runs it.
func ancestors() map[int]bool {
	keep := map[int]bool{}
	for p := os.Getpid(); p > 1; p = ParentOf(p) {
		keep[p] = true
	}
	return keep
}

type proc struct {
	pid  int
	name string
}

// appsOn lists the programs on display, except the desktop's own and
// those in keep: every process whose environment names the display, every
// process that owns a window on it (Chromium overwrites its environment
// with its process titles), and every process in the same session as one
// of those (an application started by Launch leads its own session).
func appsOn(display string, keep map[int]bool) []proc {
	type info struct {
		name string
		sid  int
	}
	all := map[int]info{}
	seed := map[int]bool{}
	for _, pid := range procfs.PIDs() {
		st, _ := procfs.ReadStat(pid)
		all[pid] = info{strings.TrimSpace(st.Name), st.Session}
		if envNames(pid, display) {
			seed[pid] = true
		}
	}
	for _, pid := range windowPIDs(display) {
		seed[pid] = true
	}
	keptSessions := map[int]bool{}
	for pid := range keep {
		keptSessions[all[pid].sid] = true
	}
	sessions := map[int]bool{}
	for pid := range seed {
		in, ok := all[pid]
		if ok && !keep[pid] && !protectedPrograms[in.name] && in.sid > 0 && !keptSessions[in.sid] {
			sessions[in.sid] = true
		}
	}
	var out []proc
	for pid, in := range all {
		if keep[pid] || protectedPrograms[in.name] {
			continue
		}
		if seed[pid] || sessions[in.sid] {
			out = append(out, proc{pid, in.name})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].pid < out[j].pid })
	return out
}

// windowPIDs returns the _NET_WM_PID of every client window on display.
func windowPIDs(display string) []int {
	out, err := exec.Command("xprop", "-display", display, "-root", "_NET_CLIENT_LIST").Output()
	if err != nil {
		return nil
	}
	_, list, ok := strings.Cut(string(out), "#")
	if !ok {
		return nil
	}
	var pids []int
	for _, id := range strings.Split(list, ",") {
		id = strings.TrimSpace(id)
		if id == "" {
			continue
		}
		o, err := exec.Command("xprop", "-display", display, "-id", id, "_NET_WM_PID").Output()
		if err != nil {
			continue
		}
		if _, v, ok := strings.Cut(string(o), "="); ok {
			if pid, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// envNames reports whether process pid's environment sets DISPLAY to
// display.
func envNames(pid int, display string) bool {
	env, err := procfs.Environ(pid)
	want := []byte("DISPLAY=" + display + "\x00")
	return err == nil && (bytes.HasPrefix(env, want) || bytes.Contains(env, append([]byte{0}, want...)))
}

// OnDisplay reports whether process pid still belongs to display: its
// environment names the display, or its command line has it as an
// argument (the X server). A desktop checks the processes it recorded
// before signalling them: with pid_max at 32768 a PID of one that exited
// is soon another program's.
func OnDisplay(pid int, display string) bool {
	if envNames(pid, display) {
		return true
	}
	args, err := procfs.Cmdline(pid)
	return err == nil && slices.Contains(args, display)
}

// ParentOf is the parent process of pid (0: gone or unknown).
func ParentOf(pid int) int {
	st, _ := procfs.ReadStat(pid)
	return st.Parent
}

// alive: the process exists and is not a zombie.
func alive(pid int) bool {
	st, err := procfs.ReadStat(pid)
	return err == nil && st.State != 'Z'
}
