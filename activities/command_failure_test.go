package activities_test

import (
	"context"
	"strings"
	"testing"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/fakedevice"
)

// TestSetupCommandFailureSaysWhy: a failing setup command is reported with
// its exit code and the end of what it printed, where the cause is (was:
// "exited 255: <nil>" and the first 300 bytes of its output); one that
// cannot start says so.
func TestSetupCommandFailureSaysWhy(t *testing.T) {
	a := &activities.Activities{Device: fakedevice.New("OK")}
	ctx := context.Background()
	script := `i=0; while [ $i -lt 100 ]; do echo "cloning part $i"; i=$((i+1)); done; echo "fatal: repository not found" >&2; exit 255`
	_, err := a.Setup(ctx, activities.SetupInput{Name: "clone", Command: []string{"sh", "-c", script}})
	if err == nil {
		t.Fatal("Setup with a command that exits 255 succeeded")
	}
	msg := err.Error()
	for _, want := range []string{`setup "clone"`, "exited 255", "fatal: repository not found"} {
		if !strings.Contains(msg, want) {
			t.Errorf("Setup error = %q, want %q in it", msg, want)
		}
	}
	if strings.Contains(msg, "<nil>") {
		t.Errorf("Setup error = %q, says <nil>", msg)
	}

	_, err = a.Setup(ctx, activities.SetupInput{Name: "quiet", Command: []string{"false"}})
	if err == nil || !strings.Contains(err.Error(), "command false exited 1 and printed nothing") || strings.Contains(err.Error(), "<nil>") {
		t.Errorf("Setup(false) = %v, want its exit code and that it printed nothing", err)
	}
	_, err = a.Setup(ctx, activities.SetupInput{Name: "missing", Command: []string{"/nonexistent/pcflow-tool"}})
	if err == nil || !strings.Contains(err.Error(), "command /nonexistent/pcflow-tool could not run") || strings.Contains(err.Error(), "<nil>") {
		t.Errorf("Setup(missing program) = %v, want that it could not run", err)
	}
}
