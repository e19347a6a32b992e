package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.temporal.io/api/serviceerror"
)

// TestFollowFailureSaysServerIsGone: eval following a suite through a
// server outage exited with "suite ID: context deadline exceeded" alone;
// it says the server does not answer and how to follow the suite again.
func TestFollowFailureSaysServerIsGone(t *testing.T) {
	rec := suiteRecord{ID: "nightly", Temporal: "10.0.0.5:7233"}
	for _, err := range []error{
		fmt.Errorf("get result: %w", context.DeadlineExceeded),
		serviceerror.NewUnavailable("connection refused"),
		serviceerror.NewDeadlineExceeded("context deadline exceeded"),
	} {
		got := followFailure(rec, err)
		for _, want := range []string{"the Temporal server at 10.0.0.5:7233 does not answer", "pcflow eval resume nightly --temporal 10.0.0.5:7233"} {
			if !strings.Contains(got, want) {
				t.Errorf("followFailure(%v) = %q, want %q in it", err, got, want)
			}
		}
	}
	if got := followFailure(suiteRecord{ID: "local"}, context.DeadlineExceeded); !strings.Contains(got, "`pcflow eval resume local` follows it again") {
		t.Errorf("followFailure(a local suite) = %q, want how to resume it", got)
	}
	if got := followFailure(rec, errors.New("workflow failed: boom")); got != "suite nightly: workflow failed: boom" {
		t.Errorf("followFailure(another error) = %q, want it as it was", got)
	}
}
