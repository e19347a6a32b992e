package host

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestWatchDesktopTriesAgain: a desktop that does not come back on the
// first try (its display held for a moment by another program) is tried
// again after waits that double, each failure in the device's log; once
// it is back the worker restarts on it and the watch goes on. A desktop
// that never comes back is given up after reviveTries tries in a row, and
// the log says so.
func TestWatchDesktopTriesAgain(t *testing.T) {
	run := func(script []error, ticks int) (calls []int, restarts int, log string, ended bool) {
		// Every tick waits in the channel from the start: the tick a
		// try came on is how many were taken.
		tick := make(chan time.Time, ticks)
		for range ticks {
			tick <- time.Time{}
		}
		exited := make(chan struct{})
		var buf strings.Builder
		done := make(chan struct{})
		go func() {
			defer close(done)
			desktopWatch{logf: &buf, display: ":301", name: "d1",
				locked: func(do func() bool) bool { return do() },
				revive: func() ([]string, bool, string, error) {
					calls = append(calls, ticks-len(tick)-1)
					k := len(calls) - 1
					if k < len(script) {
						if script[k] != nil {
							return nil, false, "", script[k]
						}
						return []string{"DISPLAY=:301"}, true, "", nil
					}
					return nil, false, "", nil // alive
				},
				restart: func(env []string) { restarts++ }}.run(tick, exited)
		}()
		// Until the watch ends or has taken every tick (then it is told
		// the worker exited).
		for len(tick) > 0 {
			select {
			case <-done:
				return calls, restarts, buf.String(), true
			case <-time.After(time.Millisecond):
			}
		}
		close(exited)
		<-done
		return calls, restarts, buf.String(), false
	}

	busy := errors.New("display :301 was taken by another X server while this desktop was down")
	// Two failures, then back.
	calls, restarts, log, ended := run([]error{busy, busy, nil}, 20)
	if ended || restarts != 1 {
		t.Fatalf("after two failed tries the desktop came back: restarts %d, watch ended %v\n%s", restarts, ended, log)
	}
	// Tick 0 fails; the next try after 2 ticks (tick 2) fails; the next
	// after 4 (tick 6) brings it back; then every tick again.
	if len(calls) < 4 || calls[0] != 0 || calls[1] != 2 || calls[2] != 6 || calls[3] != 7 {
		t.Errorf("tries at ticks %v, want 0, 2, 6, then every tick", calls)
	}
	if strings.Count(log, "did not come back (try") != 2 || !strings.Contains(log, "brought it up again") {
		t.Errorf("the log does not tell the two failures and the return:\n%s", log)
	}

	// Never back: given up after reviveTries tries, said so.
	never := make([]error, 10)
	for k := range never {
		never[k] = busy
	}
	calls, restarts, log, ended = run(never, 100)
	if !ended || restarts != 0 || len(calls) != reviveTries {
		t.Errorf("a desktop that never comes back: %d tries, %d restarts, ended %v; want %d tries, then the watch ends", len(calls), restarts, ended, reviveTries)
	}
	if !strings.Contains(log, "leaves the pool") {
		t.Errorf("the log does not say the device was given up:\n%s", log)
	}
}
