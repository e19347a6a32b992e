package host

import (
	"bytes"
	"os"
	"sort"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/internal/procfs"
)

// runProcesses lists the processes of the applications run id launched
// on this machine, on display (empty: any), and their names, sorted: a
// run of the same id on another display (another state folder's, a
// test's beside it) keeps its own. A device marks what it
// launches with activities.RunEnv and starts it in a session of its own;
// everything in those sessions counts (a program that rewrites its
// environment, as Chromium's helpers do, keeps its session).
func runProcesses(id, display string) ([]int, []string) {
	type proc struct {
		name string
		sid  int
	}
	procs := map[int]proc{}
	sids := map[int]bool{}
	for _, pid := range procfs.PIDs() {
		st, err := procfs.ReadStat(pid)
		if err != nil {
			continue
		}
		procs[pid] = proc{name: st.Name, sid: st.Session}
		env, err := procfs.Environ(pid)
		if err != nil {
			continue
		}
		marked, onDisplay := false, display == ""
		for _, kv := range bytes.Split(env, []byte{0}) {
			if v, ok := bytes.CutPrefix(kv, []byte(activities.RunEnv+"=")); ok && (string(v) == id || strings.HasPrefix(string(v), id+"/")) {
				marked = true
			}
			if string(kv) == "DISPLAY="+display {
				onDisplay = true
			}
		}
		if marked && onDisplay {
			sids[st.Session] = true
		}
	}
	own, _ := unix.Getsid(0)
	delete(sids, own)
	var pids []int
	names := map[string]bool{}
	for pid, p := range procs {
		if sids[p.sid] && pid != os.Getpid() {
			pids = append(pids, pid)
			names[p.name] = true
		}
	}
	out := make([]string, 0, len(names))
	for n := range names {
		out = append(out, n)
	}
	sort.Strings(out)
	return pids, out
}

// LaunchedBy names the applications run id launched on this machine that
// still run.
func LaunchedBy(id, display string) []string {
	_, names := runProcesses(id, display)
	return names
}

// StopLaunched stops the applications run id launched on this machine
// (see runProcesses), so that it leaves nothing behind for a later run's
// setup to reuse. It returns the programs' names.
func StopLaunched(id, display string) []string {
	pids, names := runProcesses(id, display)
	for _, p := range pids {
		_ = syscall.Kill(p, syscall.SIGTERM)
	}
	deadline := time.Now().Add(3 * time.Second)
	for _, p := range pids {
		for syscall.Kill(p, 0) == nil && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		// Only one that is still running: the PID of one that ended may
		// be another program's by now.
		if syscall.Kill(p, 0) == nil {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	}
	return names
}
