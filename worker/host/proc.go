package host

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"

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
