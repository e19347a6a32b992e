package workflows_test

import (
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/pcflow/pcflow/workflows"
)

// TestLeaseOneHolder: a device's lease goes to one holder at a time: a
// second is refused naming the first, until the first's lease lapses, its
// owner's process takes it over, a Force takes it from a holder seen
// gone, or the holder releases it; the holder's own renewal always wins.
func TestLeaseOneHolder(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(workflows.LeaseWorkflow, workflow.RegisterOptions{Name: workflows.LeaseWorkflowName})
	a := workflows.Holder{Token: "a", Who: "worker A (display :1)"}
	b := workflows.Holder{Token: "b", Who: "worker B (display :2)"}
	type step struct {
		at      time.Duration
		req     workflows.LeaseRequest
		release string // a token to release instead
		want    string // "" granted, else in the refusal
	}
	ttl := 30 * time.Second
	steps := []step{
		{at: 1 * time.Second, req: workflows.LeaseRequest{Holder: a, TTL: ttl}},
		{at: 2 * time.Second, req: workflows.LeaseRequest{Holder: b, TTL: ttl}, want: "held by worker A (display :1)"},
		{at: 20 * time.Second, req: workflows.LeaseRequest{Holder: a, TTL: ttl}},                                        // renewed: lapses at 50 s
		{at: 45 * time.Second, req: workflows.LeaseRequest{Holder: b, TTL: ttl}, want: "held by worker A (display :1)"}, // not yet lapsed
		{at: 51 * time.Second, req: workflows.LeaseRequest{Holder: b, TTL: ttl}},                                        // lapsed
		{at: 52 * time.Second, req: workflows.LeaseRequest{Holder: a, TTL: ttl}, want: "held by worker B (display :2)"},
		{at: 53 * time.Second, req: workflows.LeaseRequest{Holder: a, TTL: ttl, Force: true}},
		{at: 54 * time.Second, release: "b"}, // not the holder: nothing changes
		{at: 55 * time.Second, req: workflows.LeaseRequest{Holder: b, TTL: ttl}, want: "held by worker A"},
		{at: 56 * time.Second, release: "a"},
		{at: 57 * time.Second, req: workflows.LeaseRequest{Holder: workflows.Holder{Token: "c", Who: "C", Owner: "suite s"}, TTL: ttl}},
		{at: 58 * time.Second, req: workflows.LeaseRequest{Holder: workflows.Holder{Token: "d", Who: "D", Owner: "suite s"}, TTL: ttl}},
		{at: 59 * time.Second, req: workflows.LeaseRequest{Holder: workflows.Holder{Token: "e", Who: "E", Owner: "suite t"}, TTL: ttl}, want: "held by D"},
	}
	got := make([]string, len(steps))
	for i, st := range steps {
		env.RegisterDelayedCallback(func() {
			cb := &testsuite.TestUpdateCallback{
				OnReject:   func(err error) { got[i] = "refused: " + err.Error() },
				OnAccept:   func() {},
				OnComplete: func(any, error) { got[i] = "granted" },
			}
			if st.release != "" {
				env.UpdateWorkflow(workflows.LeaseReleaseUpdate, "", cb, st.release)
				return
			}
			env.UpdateWorkflow(workflows.LeaseAcquireUpdate, "", cb, st.req)
		}, st.at)
	}
	env.RegisterDelayedCallback(env.CancelWorkflow, 2*time.Minute)
	env.ExecuteWorkflow(workflows.LeaseWorkflowName, workflows.LeaseState{})
	for i, st := range steps {
		want := "granted"
		if st.want != "" {
			want = "refused: " + st.want
		}
		if !strings.HasPrefix(got[i], want) {
			t.Errorf("step %d (at %s, %s): %q, want %q…", i, st.at, st.req.Who+st.release, got[i], want)
		}
	}
}
