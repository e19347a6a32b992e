package activities_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.temporal.io/sdk/testsuite"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/fakedevice"
)

// runRecorder is a device that notes the runs started on it.
type runRecorder struct {
	*fakedevice.Device
	runs []string
}

func (r *runRecorder) StartRun(ctx context.Context, run string) ([]string, error) {
	r.runs = append(r.runs, run)
	return []string{"/desk/data"}, nil
}

// TestSetupStartsTheRun: a setup step tells a RunStarter device which run
// it belongs to (the run's workflow id and execution), so the device can
// start the applications' state afresh for a new run; a post_run step
// does not.
func TestSetupStartsTheRun(t *testing.T) {
	var ts testsuite.WorkflowTestSuite
	env := ts.NewTestActivityEnvironment()
	dev := &runRecorder{Device: fakedevice.New()}
	a := &activities.Activities{Device: dev}
	env.RegisterActivity(a.Setup)
	v, err := env.ExecuteActivity(a.Setup, activities.SetupInput{Name: "first"})
	if err != nil {
		t.Fatal(err)
	}
	var res activities.SetupResult
	if err := v.Get(&res); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.Notes, "emptied /desk/data") {
		t.Errorf("setup notes = %q, want what the device emptied", res.Notes)
	}
	if _, err := env.ExecuteActivity(a.Setup, activities.SetupInput{Name: "after", AfterAgent: true}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"default-test-workflow-id/default-test-run-id"}, dev.runs); d != "" {
		t.Errorf("runs started (-want +got):\n%s", d)
	}
}
