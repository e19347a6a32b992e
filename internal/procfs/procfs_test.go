package procfs

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestProcessOfThisMachine reads a real process whose name holds spaces
// and parentheses (the stat line's name field may hold both): its name,
// parent and session, its arguments, its environment, and this process's
// children list it; once it is gone, ReadStat says so.
func TestProcessOfThisMachine(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("needs sleep")
	}
	b, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(t.TempDir(), "a) b (c")
	if err := os.WriteFile(prog, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(prog, "600")
	cmd.Env = []string{"PCFLOW_PROCFS_TEST=1"}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	pid := cmd.Process.Pid
	// The child is ours from fork; its name is the program's once it has
	// exec'd.
	var st Stat
	for deadline := time.Now().Add(10 * time.Second); ; {
		st, err = ReadStat(pid)
		if err == nil && st.Name == "a) b (c" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ReadStat(%d) = %+v, %v; waited 10 s for the name \"a) b (c\" of the exec'd program", pid, st, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	me, err := ReadStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if st.Parent != os.Getpid() || st.Session != me.Session || st.State == 'Z' {
		t.Errorf("ReadStat(child) = %+v; want parent %d, session %d, not a zombie", st, os.Getpid(), me.Session)
	}
	args, err := Cmdline(pid)
	if d := cmp.Diff([]string{prog, "600"}, args); err != nil || d != "" {
		t.Errorf("Cmdline = %q, %v (-want +got):\n%s", args, err, d)
	}
	if env, err := Environ(pid); err != nil || string(env) != "PCFLOW_PROCFS_TEST=1\x00" {
		t.Errorf("Environ = %q, %v; want PCFLOW_PROCFS_TEST=1", env, err)
	}
	if kids := Children(os.Getpid()); !slices.Contains(kids, pid) {
		t.Errorf("Children(this process) = %v, want it to hold %d", kids, pid)
	}
	if !slices.Contains(PIDs(), pid) {
		t.Errorf("PIDs() lacks the child %d", pid)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if _, err := ReadStat(pid); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadStat(reaped child) = %v, want an error matching os.ErrNotExist", err)
	}
}
