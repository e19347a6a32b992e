package host

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/pcflow/pcflow/internal/procfs"
)

// SweepSandbox kills what is left of an earlier sandbox of the same
// device: bubblewrap processes (argv[0] bwrap) with marker among their
// arguments — a path only that device's sandbox uses — that this process
// did not start. They are left when eval is killed while a sandbox
// starts: bubblewrap's outer process dies with eval, and its child,
// which has not yet set its own parent-death signal, waits forever for
// the word to go on (reproduced by killing bwrap's parent 5 ms after it
// started: 2 of 10 stayed). Such a process never runs the worker, but it
// holds the sandbox's namespaces and memory. It returns how many it
// killed.
func SweepSandbox(marker string) int {
	// Each match's parent, read before anything is killed: once a
	// match's parent is killed and reaped, the match is re-parented and
	// would be counted as a sandbox of its own (CI and -count=40: "killed
	// 2 processes, want 1" when the map's order killed the parent first).
	matched := map[int]int{}
	for _, pid := range procfs.PIDs() {
		if pid == os.Getpid() {
			continue
		}
		args, err := procfs.Cmdline(pid)
		if err != nil {
			continue
		}
		if filepath.Base(args[0]) != "bwrap" || !slices.Contains(args[1:], marker) || descendsFromMe(pid) {
			continue
		}
		matched[pid] = parentOf(pid)
	}
	n := 0
	for pid, ppid := range matched {
		// A match whose parent matches too is that process's child
		// between fork and exec (it has its parent's arguments until
		// then): killed with it, not counted as another sandbox.
		_, parent := matched[ppid]
		if syscall.Kill(pid, syscall.SIGKILL) == nil && !parent {
			n++
		}
	}
	return n
}

// descendsFromMe reports whether pid is this process's child, grandchild
// or further: a sandbox this process runs, or a process that sandbox has
// forked and not yet exec'd (it holds bwrap's arguments until then).
func descendsFromMe(pid int) bool {
	for range 32 {
		pid = parentOf(pid)
		if pid <= 1 {
			return false
		}
		if pid == os.Getpid() {
			return true
		}
	}
	return false
}

// parentOf is the parent process of pid (0: gone or unknown).
func parentOf(pid int) int {
	st, _ := procfs.ReadStat(pid)
	return st.Parent
}

// sandboxLeftovers lists the processes on display that live in another
// PID namespace than this process's and are not zombies: on a device whose
// sandbox ended (its worker killed), the task's applications the kernel
// is still tearing down. Programs of the host on that display (its window
// manager) share this process's namespace and are not listed.
func sandboxLeftovers(display string) []int {
	own, err := procfs.PIDNamespace(0)
	if err != nil {
		return nil
	}
	entry := []byte("DISPLAY=" + display + "\x00")
	var out []int
	for _, pid := range procfs.PIDs() {
		ns, err := procfs.PIDNamespace(pid)
		if err != nil || ns == own {
			continue
		}
		env, err := procfs.Environ(pid)
		if err != nil || !bytes.HasPrefix(env, entry) && !bytes.Contains(env, append([]byte{0}, entry...)) {
			continue
		}
		if st, err := procfs.ReadStat(pid); err != nil || st.State == 'Z' {
			continue
		}
		out = append(out, pid)
	}
	return out
}

// awaitSandboxGone waits, up to timeout, until no process of an ended
// sandbox is left on display (killing what is), so that the next task's
// setup does not find a window of the dead one still listed (and take it
// for its own). It returns how many were left at the end.
func awaitSandboxGone(display string, timeout time.Duration) int {
	deadline := time.Now().Add(timeout)
	for {
		left := sandboxLeftovers(display)
		if len(left) == 0 || time.Now().After(deadline) {
			return len(left)
		}
		for _, pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
