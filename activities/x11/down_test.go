package x11

import (
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestDownSparesReusedPIDs: a desktop whose recorded processes exited
// leaves whatever program now has one of their PIDs alone (pid_max is
// 32768 here, and parallel tests wrap it in minutes: a stale Down killed
// another test's X server and LibreOffice).
func TestDownSparesReusedPIDs(t *testing.T) {
	other := exec.Command("sleep", "60")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Process.Kill(); other.Wait() })
	// The desktop "recorded" the PID that the unrelated sleep now has.
	d := &Desktop{Display: ":239", PIDs: []int{other.Process.Pid}, Env: map[string]string{}}
	if d.Alive() {
		t.Errorf("a desktop whose X server's PID belongs to another program reports itself alive")
	}
	d.Down()
	time.Sleep(100 * time.Millisecond)
	if err := other.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("Down signalled a process that is not the desktop's: %v", err)
	}
	if st, err := exec.Command("ps", "-o", "stat=", "-p", strconv.Itoa(other.Process.Pid)).Output(); err != nil || len(st) == 0 || st[0] == 'Z' {
		t.Fatalf("Down ended a process that is not the desktop's (ps: %q, %v)", st, err)
	}
}
