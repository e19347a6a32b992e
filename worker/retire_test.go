package worker

import (
	"context"
	"errors"
	"testing"

	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/pcflow/pcflow/activities"
)

// TestRetiredWorkerRefusesWork: a device worker runs activities until
// its reset has run AfterReset; from then on every activity that starts
// is refused with a retryable error and never runs.
func TestRetiredWorkerRefusesWork(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	a := &activities.Activities{}
	resets := 0
	a.AfterReset = func() { resets++ }
	r := retireAfterReset(a, "desk")
	env := s.NewTestActivityEnvironment()
	env.SetWorkerOptions(sdkworker.Options{Interceptors: []interceptor.WorkerInterceptor{r}})
	ran := 0
	act := func(context.Context) (string, error) { ran++; return "done", nil }
	env.RegisterActivity(act)

	if _, err := env.ExecuteActivity(act); err != nil || ran != 1 {
		t.Fatalf("before the reset: err %v, ran %d times, want it run", err, ran)
	}
	a.AfterReset()
	if resets != 1 {
		t.Errorf("the worker's own AfterReset ran %d times, want 1", resets)
	}
	_, err := env.ExecuteActivity(act)
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || appErr.Type() != ErrTypeRetired || appErr.NonRetryable() {
		t.Errorf("after the reset: err %v, want a retryable %s", err, ErrTypeRetired)
	}
	if ran != 1 {
		t.Errorf("the activity ran %d times, want not again after the reset", ran)
	}
}
