package host

import (
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"
)

// TestAwaitSandboxGone: a process of another PID namespace on the
// device's display (an application of a sandbox whose worker was killed,
// still being torn down) is found and killed, and the wait ends once it is
// gone; a process on another display, or in this process's namespace, is
// left alone.
func TestAwaitSandboxGone(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a PID namespace of its own needs root")
	}
	const display = ":8471"
	start := func(env string, argv ...string) *exec.Cmd {
		c := exec.Command(argv[0], argv[1:]...)
		c.Env = append(os.Environ(), env)
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		return c
	}
	sandboxed := start("DISPLAY="+display, "unshare", "--pid", "--fork", "--kill-child", "sleep", "300")
	other := start("DISPLAY=:8472", "unshare", "--pid", "--fork", "--kill-child", "sleep", "300")
	host := start("DISPLAY="+display, "sleep", "300")
	// The sleep inside the namespace, once unshare has forked it.
	var inside int
	for deadline := time.Now().Add(30 * time.Second); inside == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the process in its own PID namespace never showed")
		}
		if left := sandboxLeftovers(display); len(left) > 0 {
			inside = left[0]
		}
	}
	left := sandboxLeftovers(display)
	if len(left) != 1 || slices.Contains(left, host.Process.Pid) || slices.Contains(left, sandboxed.Process.Pid) {
		t.Fatalf("leftovers on %s = %v, want the one process inside the namespace (unshare %d, host sleep %d)", display, left, sandboxed.Process.Pid, host.Process.Pid)
	}
	if n := awaitSandboxGone(display, 30*time.Second); n != 0 {
		t.Fatalf("%d processes left after the wait", n)
	}
	if err := syscall.Kill(host.Process.Pid, 0); err != nil {
		t.Errorf("the host's process on the display was killed: %v", err)
	}
	if len(sandboxLeftovers(":8472")) != 1 {
		t.Errorf("the process on another display was killed")
	}
	_ = other
}
