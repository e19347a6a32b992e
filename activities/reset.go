package activities

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.temporal.io/sdk/temporal"
)

// Names of the device activities a suite uses between tasks.
const (
	ResetName    = "Reset"
	RequiresName = "Requires"
)

// ErrTypeMissing marks a device that lacks what a task needs.
const ErrTypeMissing = "MissingRequirement"

// ScratchEnv names the environment variable that lists (separated by the
// path list separator) the folders a device's reset empties. A device
// started by `pcflow eval` runs in a sandbox where these folders are its
// own, so emptying them touches no other device.
const ScratchEnv = "PCFLOW_SCRATCH"

// ResetInput asks a device to return to a clean state.
type ResetInput struct {
	Device string `json:"device"`
}

// ResetResult says what a reset did.
type ResetResult struct {
	// Killed lists the programs stopped, as "name(pid)".
	Killed []string `json:"killed,omitempty"`
	// Cleared lists the folders emptied.
	Cleared []string `json:"cleared,omitempty"`
	// Millis is how long the reset took on the device.
	Millis int64 `json:"millis"`
}

// protectedPrograms keep running across a reset: the desktop itself (and
// x11vnc, the worker's live view of it).
var protectedPrograms = map[string]bool{
	"Xvfb": true, "openbox": true, "dbus-daemon": true, "dbus-launch": true,
	"at-spi-bus-laun": true, "at-spi2-registr": true, "bwrap": true, "pcflow": true,
	"x11vnc": true,
}

// Reset returns the device to a clean state, as an evaluation VM is
// reverted to its snapshot: every program on the device's display that the
// desktop did not start itself is stopped (the applications a task or the
// agent opened), the per-desktop application configuration and cache
// ($XDG_CONFIG_HOME, $XDG_CACHE_HOME) and the scratch folders ($PCFLOW_SCRATCH)
// start empty (in an overlay sandbox, $PCFLOW_SCRATCH_BASE, the overlay is
// dropped and mounted afresh), and the clipboard is cleared. It fails, and is retried, if a
// window is still open afterwards. Idempotent.
func (a *Activities) Reset(ctx context.Context, in ResetInput) (*ResetResult, error) {
	defer heartbeat(ctx)()
	start := time.Now()
	res := &ResetResult{}
	display := os.Getenv("DISPLAY")
	if display == "" {
		return nil, temporal.NewNonRetryableApplicationError("reset: the device worker has no DISPLAY", ErrTypeDevice, nil)
	}
	if !OwnDesktop() {
		// A person's own desktop: stopping every program on it would end
		// their session, and XDG_CONFIG_HOME is their configuration.
		return nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf("reset: display %s is not a desktop pcflow started (pcflow desktop up, pcflow eval --devices): resetting it would stop every program of its session and empty $XDG_CONFIG_HOME; serve the device from a pcflow desktop, or run the suite with --reset=false", display), ErrTypeDevice, nil)
	}
	keep := map[int]bool{}
	for p := os.Getpid(); p > 1; p = parentOf(p) {
		keep[p] = true
	}
	victims := appsOn(display, keep)
	for _, v := range victims {
		_ = syscall.Kill(v.pid, syscall.SIGTERM)
		res.Killed = append(res.Killed, fmt.Sprintf("%s(%d)", v.name, v.pid))
	}
	deadline := time.Now().Add(3 * time.Second)
	for _, v := range victims {
		for alive(v.pid) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if alive(v.pid) {
			_ = syscall.Kill(v.pid, syscall.SIGKILL)
		}
	}
	var dirs []string
	for _, k := range []string{"XDG_CONFIG_HOME", "XDG_CACHE_HOME"} {
		if d := os.Getenv(k); d != "" {
			dirs = append(dirs, d)
		}
	}
	if os.Getenv(ScratchBaseEnv) != "" {
		// An overlay sandbox: drop the overlay.
		remounted, err := PrepareScratch()
		if err != nil {
			return nil, temporal.NewApplicationError("reset: "+err.Error(), ErrTypeDevice)
		}
		res.Cleared = append(res.Cleared, remounted...)
	} else {
		for _, d := range filepath.SplitList(os.Getenv(ScratchEnv)) {
			if d != "" {
				dirs = append(dirs, d)
			}
		}
	}
	for _, d := range dirs {
		if err := emptyDir(d); err != nil {
			return nil, temporal.NewApplicationError(fmt.Sprintf("reset: empty %s: %v", d, err), ErrTypeDevice)
		}
		res.Cleared = append(res.Cleared, d)
	}
	if _, err := exec.LookPath("xsel"); err == nil {
		_ = exec.CommandContext(ctx, "xsel", "--clipboard", "--clear").Run()
	}
	if a.Device != nil {
		var wins []string
		for end := time.Now().Add(5 * time.Second); ; {
			var err error
			wins, err = a.Device.Windows(ctx)
			if err == nil && len(wins) == 0 {
				break
			}
			if time.Now().After(end) {
				if err != nil {
					// The desktop cannot be asked (its display gone):
					// say so, not "windows still open".
					return nil, temporal.NewApplicationError(fmt.Sprintf("reset: list the windows: %v", err), ErrTypeDevice)
				}
				return nil, temporal.NewApplicationError(fmt.Sprintf("reset: windows still open after stopping the applications: %s", strings.Join(wins, " | ")), ErrTypeDevice)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	if a.AfterReset != nil {
		a.AfterReset()
	}
	res.Millis = time.Since(start).Milliseconds()
	a.logger().Info("device reset", "device", in.Device, "killed", len(res.Killed), "millis", res.Millis)
	return res, nil
}

// OwnDesktop reports whether this process drives a desktop pcflow started
// (x11.Up): its XDG_RUNTIME_DIR, and the configuration and cache folders
// within, belong to that desktop alone.
func OwnDesktop() bool {
	return strings.HasPrefix(filepath.Base(os.Getenv("XDG_RUNTIME_DIR")), "pcflow-xdg-")
}

// RequiresInput lists the programs a task needs on the device's PATH.
type RequiresInput struct {
	Task     string   `json:"task"`
	Programs []string `json:"programs"`
}

// Requires fails, without retrying, naming every program of in.Programs
// that the device does not have.
func (a *Activities) Requires(ctx context.Context, in RequiresInput) error {
	if missing := MissingPrograms(in.Programs); len(missing) > 0 {
		return temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("task %s needs %s, which this device does not have on its PATH; install it (scripts/setup.sh) or run the task on another pool",
				in.Task, strings.Join(missing, ", ")), ErrTypeMissing, nil)
	}
	return nil
}

// MissingPrograms returns the programs (sorted, without repeats) not found
// on PATH.
func MissingPrograms(programs []string) []string {
	seen := map[string]bool{}
	var missing []string
	for _, p := range programs {
		if p == "" || seen[p] {
			continue
		}
		seen[p] = true
		if _, err := exec.LookPath(p); err != nil {
			missing = append(missing, p)
		}
	}
	sort.Strings(missing)
	return missing
}

// StopApps stops every program on display except the desktop's own and
// this process and its ancestors, and returns what it stopped.
func StopApps(display string) []string {
	keep := map[int]bool{}
	for p := os.Getpid(); p > 1; p = parentOf(p) {
		keep[p] = true
	}
	var stopped []string
	for _, v := range appsOn(display, keep) {
		_ = syscall.Kill(v.pid, syscall.SIGKILL)
		stopped = append(stopped, fmt.Sprintf("%s(%d)", v.name, v.pid))
	}
	return stopped
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
	entries, _ := os.ReadDir("/proc")
	want := []byte("DISPLAY=" + display + "\x00")
	type info struct {
		name string
		sid  int
	}
	all := map[int]info{}
	seed := map[int]bool{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		all[pid] = info{strings.TrimSpace(string(comm)), sessionOf(pid)}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && (bytes.HasPrefix(env, want) || bytes.Contains(env, append([]byte{0}, want...))) {
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

func sessionOf(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:]) // state ppid pgrp session ...
	if len(f) < 4 {
		return 0
	}
	n, _ := strconv.Atoi(f[3])
	return n
}

func parentOf(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// pid (comm) state ppid ...; comm may hold spaces and parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0
	}
	p, _ := strconv.Atoi(f[1])
	return p
}

func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && len(s) > i+2 && s[i+2] != 'Z'
}

func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
