package host

import (
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities"
)

// TestStopLaunchedKeepsOtherDisplays: the applications a run launched
// are stopped on its own display only; a run of the same id on another
// display (another state folder's, or a test's beside it: CI's
// TestReplayRunTypesWithoutModel lost its Mousepad to another test's run
// "first" ending) keeps its own.
func TestStopLaunchedKeepsOtherDisplays(t *testing.T) {
	start := func(display string) *exec.Cmd {
		c := exec.Command("sleep", "300")
		c.Env = []string{activities.RunEnv + "=first-launched-test", "DISPLAY=" + display}
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // as a device launches
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		return c
	}
	mine, theirs := start(":871"), start(":872")
	exited := make(chan int, 2)
	for _, c := range []*exec.Cmd{mine, theirs} {
		go func() { c.Wait(); exited <- c.Process.Pid }()
	}
	if names := StopLaunched("first-launched-test", ":871"); !slices.Contains(names, "sleep") {
		t.Fatalf("StopLaunched on :871 stopped %v, want the sleep launched there", names)
	}
	select {
	case pid := <-exited:
		if pid != mine.Process.Pid {
			t.Fatalf("the program of the same run id on :872 was stopped")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the program launched on :871 still runs 30 s after StopLaunched")
	}
	if syscall.Kill(theirs.Process.Pid, 0) != nil {
		t.Fatal("the program of the same run id on another display was stopped")
	}
	if names := LaunchedBy("first-launched-test", ":872"); !slices.Contains(names, "sleep") {
		t.Errorf("LaunchedBy on :872 = %v, want its sleep", names)
	}
}
