package workflows

import (
	"testing"
	"time"
)

// attemptsWithin counts the attempts a retry policy starts within budget
// when every attempt fails at once: the first at 0, each next one after
// the policy's wait (doubling from InitialInterval, at most
// MaximumInterval). It is the schedule Temporal's server follows,
// computed without a clock.
func attemptsWithin(initial, maxInterval time.Duration, coef float64, budget time.Duration) int {
	n, at, wait := 0, time.Duration(0), initial
	for at < budget {
		n++
		at += wait
		wait = min(time.Duration(float64(wait)*coef), maxInterval)
	}
	return n
}

// TestRetriesSpendTheBudget: a step's retries use the time the subtask
// has (the wait stays a tenth of it, from 1 s up to a minute) instead of
// a doubling backoff that gives up early. A 20 s subtask whose model
// fails at once asks 10 times, where a plain doubling backoff (1, 2, 4,
// 8 s…) asks 5; the engine's TestModelEndpointFailing sees the same
// policy at work against a real server.
func TestRetriesSpendTheBudget(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		budget  time.Duration
		maxWait time.Duration
		atLeast int
	}{
		{20 * time.Second, 2 * time.Second, 10},
		{5 * time.Second, time.Second, 5},
		{30 * time.Minute, time.Minute, 30},
		{200 * time.Millisecond, time.Second, 1},
	} {
		o := deviceOptions(Options{}, "d", now.Add(tc.budget), now)
		p := o.RetryPolicy
		if p.MaximumInterval != tc.maxWait {
			t.Errorf("budget %s: the longest wait is %s, want %s", tc.budget, p.MaximumInterval, tc.maxWait)
		}
		if got := attemptsWithin(p.InitialInterval, p.MaximumInterval, p.BackoffCoefficient, tc.budget); got < tc.atLeast {
			t.Errorf("budget %s: %d attempts fit, want at least %d", tc.budget, got, tc.atLeast)
		}
		if o.ScheduleToCloseTimeout != max(tc.budget, time.Second) {
			t.Errorf("budget %s: the retries may run %s", tc.budget, o.ScheduleToCloseTimeout)
		}
		if m := modelOptions(Options{}, now.Add(tc.budget), now); m.RetryPolicy.MaximumInterval != tc.maxWait {
			t.Errorf("budget %s: the model's longest wait is %s, want %s", tc.budget, m.RetryPolicy.MaximumInterval, tc.maxWait)
		}
	}
	// A plain doubling backoff is what the test tells apart.
	if n := attemptsWithin(time.Second, time.Hour, 2, 20*time.Second); n != 5 {
		t.Fatalf("a doubling backoff fits %d attempts in 20 s, want 5 (the count above is wrong)", n)
	}
}
