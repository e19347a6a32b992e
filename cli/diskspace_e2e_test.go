package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pcflow/pcflow/worker/host"
)

// TestStateDiskFills runs the calculator example on a state folder of its
// own disk (a 64 MiB tmpfs) and fills that disk after the first step: the
// run says the disk is full and that it waits, and when there is room
// again it says so and ends in success, having lost nothing. A full disk
// at the start is refused at once, naming the folder and the fix.
func TestStateDiskFills(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	if os.Geteuid() != 0 {
		t.Skip("mounts a tmpfs: needs root")
	}
	state := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64m", "pcflow-test-state", state).CombinedOutput(); err != nil {
		t.Skipf("mount tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", state).Run() })
	w := newWorldIn(t, "", filepath.Join(state, "s"))
	filler := filepath.Join(state, "filler")
	fill := func(leave uint64) {
		t.Helper()
		free, err := host.FreeSpace(state)
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(filler, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		buf := make([]byte, 1<<20)
		for n := int64(free - leave); n > 0; n -= int64(len(buf)) {
			if _, err := f.Write(buf[:min(int64(len(buf)), n)]); err != nil {
				break
			}
		}
	}

	// Full before the start.
	fill(20 << 10)
	code, out := w.pcflow(w.flags("run", "specs/examples/calculator.hcl", "--display", w.display)...)
	if code == 0 || !strings.Contains(out, "the disk of the state folder "+w.state+" is full") || !strings.Contains(out, "df -h") {
		t.Fatalf("run on a full disk: exit %d, want an error naming the full disk and df -h:\n%s", code, out)
	}
	os.Remove(filler)

	// Full in the middle of the run.
	var buf syncBuffer
	run := w.startBG(&buf, w.flags("run", "specs/examples/calculator.hcl", "--display", w.display)...)
	waitFor(t, "the first step", func() bool { return strings.Contains(buf.String(), "step 1/") })
	fill(20 << 10)
	waitFor(t, "the full disk to be told", func() bool { return strings.Contains(buf.String(), "is full (") })
	if !strings.Contains(buf.String(), "runs wait, losing nothing") {
		t.Errorf("the notice does not say the run waits:\n%s", buf.String())
	}
	os.Remove(filler)
	for deadline := time.Now().Add(time.Minute); !strings.Contains(buf.String(), "has room again"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			free, _ := host.FreeSpace(state)
			t.Fatalf("the room was not told in a minute (%d KiB free now):\n%s", free>>10, buf.String())
		}
	}
	err := run.Wait()
	if err != nil || !strings.Contains(buf.String(), "SUCCEEDED") {
		t.Fatalf("run after the disk had room again: %v, want success:\n%s", err, buf.String())
	}
}
