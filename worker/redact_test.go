package worker_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/worker"
)

const secret = "s3cr3t-Value-42"

type result struct {
	Note    string
	Outputs map[string]string
}

// TestRedactInterceptor: whatever an activity returns, fails with or
// panics with reaches Temporal without the secret.
func TestRedactInterceptor(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestActivityEnvironment()
	env.SetWorkerOptions(sdkworker.Options{Interceptors: []interceptor.WorkerInterceptor{
		&worker.RedactInterceptor{Redactor: activities.NewRedactor(map[string]string{"api-key": secret})},
	}})
	ok := func(ctx context.Context) (*result, error) {
		return &result{Note: "typed " + secret, Outputs: map[string]string{"k": secret}}, nil
	}
	fail := func(ctx context.Context) (*result, error) {
		return nil, temporal.NewNonRetryableApplicationError("bad "+secret, "SetupFailed", errors.New(secret))
	}
	boom := func(ctx context.Context) (*result, error) { panic("panic with " + secret) }
	env.RegisterActivity(ok)
	env.RegisterActivity(fail)
	env.RegisterActivity(boom)

	v, err := env.ExecuteActivity(ok)
	if err != nil {
		t.Fatal(err)
	}
	var r result
	if err := v.Get(&r); err != nil || r.Note != "typed {{secret.api-key}}" || r.Outputs["k"] != "{{secret.api-key}}" {
		t.Errorf("result = %+v, %v; want placeholders", r, err)
	}
	for _, fn := range []any{fail, boom} {
		_, err := env.ExecuteActivity(fn)
		if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "{{secret.api-key}}") {
			t.Errorf("error = %v; want the placeholder in place of the secret", err)
		}
		var app *temporal.ApplicationError
		if fn != nil && errors.As(err, &app) && app.Type() == "SetupFailed" && !app.NonRetryable() {
			t.Errorf("redaction lost non-retryability: %v", err)
		}
	}
}
