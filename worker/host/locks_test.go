package host

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestSecondProcessIsRefused: while one process holds a run's (or a
// suite's) lock, a second is refused with a message naming the first and
// what to do; once released, the lock is free.
func TestSecondProcessIsRefused(t *testing.T) {
	state := t.TempDir()
	l, err := LockRun(state, "calc-1", "pcflow run calc.hcl")
	if err != nil {
		t.Fatal(err)
	}
	_, err = LockRun(state, "calc-1", "pcflow resume")
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("run calc-1 is served by process %d (pcflow run calc.hcl", os.Getpid())) ||
		!strings.Contains(err.Error(), "pcflow status calc-1") {
		t.Errorf("second LockRun = %v, want it refused naming process %d", err, os.Getpid())
	}
	if other, err := LockRun(state, "calc-2", "pcflow run calc.hcl"); err != nil {
		t.Errorf("LockRun of another run = %v", err)
	} else {
		other.Release()
	}
	l.Release()
	if l, err = LockRun(state, "calc-1", "pcflow resume"); err != nil {
		t.Errorf("LockRun after release = %v", err)
	}
	l.Release()

	s, err := LockSuite(state, "smoke/1", "pcflow eval smoke")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	if _, err := LockSuite(state, "smoke/1", "pcflow eval resume"); err == nil || !strings.Contains(err.Error(), "suite smoke/1 is followed by process") {
		t.Errorf("second LockSuite = %v, want it refused", err)
	}
}
