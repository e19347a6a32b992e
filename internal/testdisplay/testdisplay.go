// Package testdisplay hands tests an X display number of their own.
//
// A test that must name its display before the desktop starts (to kill
// that X server, to give it to `pcflow eval --displays`, to run `desktop
// up --display`) used to write a fixed number such as ":207". Two test
// processes on one machine (the suite beside a flake run, or two packages
// of one suite that picked the same number) then shared the display and
// killed or drove each other's X servers. Reserve instead takes a number
// no other test process holds and no X server uses, and holds it with a
// lock the kernel drops when the process ends, so a killed test leaves
// nothing stale behind.
package testdisplay

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/pcflow/pcflow/internal/proclock"
)

// The numbers Reserve hands out: above those a desktop picks for itself
// (x11.Up takes the first free one from :90), below X's own limits.
const (
	first = 300
	last  = 899
)

// startEnv names the number to try first, for this package's test only.
const startEnv = "PCFLOW_TESTDISPLAY_START"

// Reserve returns a display (":N") that is the caller's until the test
// ends: no other Reserve in any process returns it meanwhile, and no X
// server held it when it was taken. It fails the test when all are taken.
func Reserve(t testing.TB) string {
	t.Helper()
	// Start where this process's id points, so that processes starting
	// together do not all try the same numbers first.
	span := last - first + 1
	start := os.Getpid() % span
	if v, err := strconv.Atoi(os.Getenv(startEnv)); err == nil && v >= first && v <= last {
		start = v - first // this package's own test: every process asks for one number first
	}
	for i := 0; i < span; i++ {
		n := first + (start+i)%span
		if inUse(n) {
			continue
		}
		f, err := os.OpenFile(filepath.Join(os.TempDir(), fmt.Sprintf(".pcflow-testdisplay-%d.lock", n)), os.O_RDWR|os.O_CREATE, 0o666)
		if err != nil {
			t.Fatalf("reserve display :%d: %v", n, err)
		}
		if err := proclock.TryLock(f); err != nil {
			f.Close()
			continue
		}
		if inUse(n) { // an X server came up between the look and the lock
			f.Close()
			continue
		}
		t.Cleanup(func() { f.Close() })
		return fmt.Sprintf(":%d", n)
	}
	t.Fatalf("no display between :%d and :%d is free for a test", first, last)
	return ""
}

// inUse reports whether an X server holds display n: its lock file or its
// socket exists.
func inUse(n int) bool {
	for _, p := range []string{fmt.Sprintf("/tmp/.X%d-lock", n), fmt.Sprintf("/tmp/.X11-unix/X%d", n)} {
		if _, err := os.Lstat(p); err == nil {
			return true
		}
	}
	return false
}
