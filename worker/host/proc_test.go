package host

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pcflow/pcflow/internal/procfs"
)

// TestSweepSandboxKillsOrphans: a bubblewrap process left by a killed
// eval (its parent gone, still holding the device's sandbox path) is
// killed when the device's sandbox starts again; one of another device,
// and one this process started itself, are left alone. Each holds a
// child forked and not exec'd (a subshell: bwrap's own arguments, as a
// process has between fork and exec): the orphan's dies with it and is
// not counted as another sandbox, and the live sandbox's is left alone
// (CI: "killed 2 processes, want 1" when the sweep came while the live
// one's shell had forked its sleep).
func TestSweepSandboxKillsOrphans(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash")
	}
	dir := t.TempDir()
	mine := filepath.Join(dir, "suite-d1", "root")
	other := filepath.Join(dir, "suite-d2", "root")
	// orphan starts a process named bwrap holding marker among its
	// arguments, whose parent exits at once (as bwrap's outer process
	// dies with a killed eval), and returns its pid.
	orphan := func(marker string) int {
		pidFile := filepath.Join(t.TempDir(), "pid")
		c := exec.Command("bash", "-c", `exec -a bwrap bash -c '(sleep 600; :); :' "$1" >/dev/null 2>&1 & echo $! > "$2"`, "_", marker, pidFile)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("start an orphan: %v %s", err, out)
		}
		b, err := os.ReadFile(pidFile)
		if err != nil {
			t.Fatal(err)
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		t.Cleanup(func() { _ = exec.Command("kill", "-9", strconv.Itoa(pid)).Run() })
		return pid
	}
	alive := func(pid int) bool {
		b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		return err == nil && !strings.Contains(string(b), ") Z ")
	}
	left, otherDevice := orphan(mine), orphan(other)
	// A sandbox of this very process (a live one) is never swept.
	own := exec.Command("bash", "-c", "(sleep 600; :); :", mine)
	own.Args[0] = "bwrap"
	if err := own.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { own.Process.Kill(); own.Wait() }()
	// Wait for the subshells: each shell's child with its arguments.
	for _, pid := range []int{left, own.Process.Pid} {
		for i := 0; len(procfs.Children(pid)) == 0; i++ {
			if i > 100 {
				t.Fatalf("process %d forked no subshell", pid)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	ownChild := procfs.Children(own.Process.Pid)[0]

	if n := SweepSandbox(mine); n != 1 {
		t.Errorf("sweepSandbox killed %d processes, want 1 (the orphan of the same device)", n)
	}
	for i := 0; alive(left); i++ {
		if i > 50 {
			t.Fatal("the orphan of the same device is still running")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !alive(otherDevice) {
		t.Error("the orphan of another device was killed")
	}
	if !alive(own.Process.Pid) || !alive(ownChild) {
		t.Error("a sandbox process this process started, or its child, was killed")
	}
}
