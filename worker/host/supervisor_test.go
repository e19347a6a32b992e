package host

import (
	"testing"
	"time"
)

// TestCrashBudget: a device worker that keeps crashing is started again
// at once up to maxWorkerCrashes times in crashWindow, then after
// crashLoopWait — never given up on (a few hostile tasks removed a device
// for the rest of the suite); crashes older than the window and those
// before a reset no longer count.
func TestCrashBudget(t *testing.T) {
	var b crashBudget
	t0 := time.Unix(1_000_000, 0)
	for i := 1; i <= maxWorkerCrashes; i++ {
		if wait, n := b.crashed(t0.Add(time.Duration(i) * time.Second)); wait != time.Second || n != i {
			t.Fatalf("crash %d: wait %v, count %d; want 1s, %d", i, wait, n, i)
		}
	}
	for i := 0; i < 3; i++ {
		if wait, _ := b.crashed(t0.Add(20 * time.Second)); wait != crashLoopWait {
			t.Fatalf("crash %d past the budget: wait %v, want %v (and never give up)", maxWorkerCrashes+1+i, wait, crashLoopWait)
		}
	}
	if wait, n := b.crashed(t0.Add(crashWindow + 21*time.Second)); wait != time.Second || n != 1 {
		t.Errorf("a crash a window later: wait %v, count %d; want 1s, 1", wait, n)
	}
	for i := 0; i < maxWorkerCrashes; i++ {
		b.crashed(t0.Add(crashWindow + 22*time.Second))
	}
	b.clear()
	if wait, n := b.crashed(t0.Add(crashWindow + 23*time.Second)); wait != time.Second || n != 1 {
		t.Errorf("after a reset: wait %v, count %d; want 1s, 1", wait, n)
	}
}
