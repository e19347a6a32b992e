package workflows_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/internal/enginetest"
	"github.com/pcflow/pcflow/workflows"
)

// syncBuffer is a log sink the worker's goroutines may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestModelEndpointFailing: an endpoint that fails every call is the
// agent's fault (not the device's), its retries are logged as they happen,
// they go on for the time the user gave (a 20 s subtask sees retries well
// past the 15 s where a doubling backoff would stop), and the failed
// subtask reports every call it made.
func TestModelEndpointFailing(t *testing.T) {
	t.Parallel() // its server is its own; it waits out 20 s of retries
	env := enginetest.Start(t, scripted.Script{
		Subtasks: map[string]scripted.SubtaskScript{"s": {Steps: []scripted.Step{click("A")}}},
		Faults:   []scripted.Fault{{Role: "decision", Kind: "500"}},
	})
	acts := env.Activities(fakedevice.New("A", "B"), "desktop", env.ModelConfig())
	var logs syncBuffer
	acts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	env.Serve("", acts, true)
	env.Serve("desktop", acts, false)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := env.Run(ctx, "run-failing-endpoint", mustPlan(t, `task "t" {
  subtask "s" {
    instruction = "x"
    timeout     = "20s"
  }
}`), workflows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Subtasks[0]
	if s.Reason != workflows.ReasonAgentFailed || !strings.Contains(s.Error, "HTTP 500") || strings.HasSuffix(s.Error, "retrying") {
		t.Errorf("subtask = %s: %q; want agent_failed naming the HTTP 500, not ending in 'retrying'", s.Reason, s.Error)
	}
	// How often the retries ask is the policy's (TestRetriesSpendTheBudget
	// proves it without a clock: 11 attempts fit in 20 s); here, against a
	// real server whose timers a loaded machine delays, the model is asked
	// again after its failure, and every call is counted and logged.
	calls := len(env.Model.Requests())
	if calls < 2 {
		t.Errorf("the model was asked %d times in the subtask's 20 s; want its failure retried", calls)
	}
	// Every call the endpoint answered is counted; the last may have been
	// cut off by the subtask's deadline while the endpoint still had it,
	// and an attempt that never reported back cannot count itself (CI:
	// subtask 10, run 10, the endpoint 11).
	if s.Usage.Calls != res.Usage.Calls || s.Usage.Calls < calls-1 || s.Usage.Calls > calls {
		t.Errorf("usage: subtask %d calls, run %d; the endpoint saw %d (at most one, cut off by the deadline, may go uncounted)", s.Usage.Calls, res.Usage.Calls, calls)
	}
	if n := strings.Count(logs.String(), "model call failed; retrying"); n < calls-1 {
		t.Errorf("%d retries logged for %d failed calls:\n%s", n, calls, logs.String())
	}
	if !strings.Contains(logs.String(), "attempt=2") || !strings.Contains(logs.String(), "HTTP 500") {
		t.Errorf("the retry log lacks the attempt or the error:\n%s", logs.String())
	}
}

// TestUsageSurvivesFailure: a subtask that fails on invalid answers still
// reports the tokens and calls it spent.
func TestUsageSurvivesFailure(t *testing.T) {
	env := enginetest.Start(t, scripted.Script{
		Subtasks: map[string]scripted.SubtaskScript{"s": {Steps: []scripted.Step{click("A")}}},
		Faults:   []scripted.Fault{{Role: "decision", Kind: "malformed"}},
	})
	acts := env.Activities(fakedevice.New("A", "B"), "desktop", env.ModelConfig())
	env.Serve("", acts, true)
	env.Serve("desktop", acts, false)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := env.Run(ctx, "run-invalid", mustPlan(t, oneSubtask), workflows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Subtasks[0]
	prompt, completion := env.Model.Usage()
	if s.Reason != workflows.ReasonInvalidOutput || s.Usage.Calls != 3 || s.Usage.Total() != prompt+completion || s.Usage.Total() == 0 {
		t.Errorf("subtask %s with usage %+v; want invalid_output with the 3 calls and %d tokens the endpoint counted", s.Reason, s.Usage, prompt+completion)
	}
	if res.Usage.Total() != s.Usage.Total() {
		t.Errorf("run usage %d, subtask %d", res.Usage.Total(), s.Usage.Total())
	}
}

// TestMaxInvalidAboveThree: a subtask's max_invalid bounds the invalid
// answers in a row, however many a single model call re-asks: with
// max_invalid = 6 five malformed answers in a row are outlived, with
// max_invalid = 4 they end the subtask after exactly four.
func TestMaxInvalidAboveThree(t *testing.T) {
	t.Parallel() // its own server (enginetest.Start); much of it waits
	const spec = `
task "one" {
  max_steps   = 3
  max_invalid = %d
  subtask "s" {
    instruction = "press buttons"
    output "v" {}
  }
}`
	for _, tc := range []struct {
		max    int
		reason string
		calls  int
	}{{6, workflows.ReasonSuccess, 5 + 2}, {4, workflows.ReasonInvalidOutput, 4}} {
		t.Run(fmt.Sprint(tc.max), func(t *testing.T) {
			env := enginetest.Start(t, scripted.Script{
				Subtasks: map[string]scripted.SubtaskScript{"s": {Steps: []scripted.Step{click("A"), done(map[string]any{"v": "1"})}}},
				Faults:   []scripted.Fault{{Role: "decision", Kind: "malformed", Times: 5}},
			})
			acts := env.Activities(fakedevice.New("A", "B"), "desktop", env.ModelConfig())
			env.Serve("", acts, true)
			env.Serve("desktop", acts, false)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			res, err := env.Run(ctx, "run-max-invalid", mustPlan(t, fmt.Sprintf(spec, tc.max)), workflows.Options{})
			if err != nil {
				t.Fatal(err)
			}
			s := res.Subtasks[0]
			decisions := 0
			for _, r := range env.Model.Requests() {
				if r.Role == "decision" {
					decisions++
				}
			}
			if s.Reason != tc.reason || decisions != tc.calls {
				t.Errorf("max_invalid = %d: subtask %s (%s) after %d decision requests; want %s after %d",
					tc.max, s.Reason, s.Error, decisions, tc.reason, tc.calls)
			}
		})
	}
}
