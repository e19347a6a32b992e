package workflows_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/mock"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/workflows"
)

// TestUnitCapturedValuesInExpect: device checks capture the values they
// read (two cells of a real CSV file, read by the real check activity) and
// a later expect compares them — "D2 equals B2 + C2 within 0.001".
func TestUnitCapturedValuesInExpect(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "sales.csv")
	if err := os.WriteFile(csv, []byte("Region,Q1,Q2,Total\nNorth,1250,980.5,2230.5\nSouth,700,300,1001\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		row    string
		passed bool
		detail string
	}{
		{"2", true, "expect is true"},
		{"3", false, "expect is false"},
	} {
		t.Run("row "+tt.row, func(t *testing.T) {
			env := unitEnv(t)
			env.OnActivity(activities.DecideName, mock.Anything, mock.Anything).Return(&activities.DecideResult{Action: screen.Action{Kind: screen.ActDone}}, nil)
			var seen []activities.CheckInput
			env.OnActivity(activities.CheckName, mock.Anything, mock.Anything).Return(
				func(ctx context.Context, in activities.CheckInput) (*activities.CheckResult, error) {
					seen = append(seen, in)
					return (&activities.Activities{Device: fakedevice.New()}).Check(ctx, in)
				})
			r := tt.row
			env.ExecuteWorkflow(workflows.InstructionWorkflowName, workflows.InstructionInput{Plan: mustPlan(t, `task "t" {
  subtask "s" {
    instruction = "fill in the totals"
  }
  check "total_is_sum" {
    expect = abs(tonumber(check.total.value) - (tonumber(check.q1.value) + tonumber(check.q2.value))) < 0.001
  }
  check "q1" {
    cell {
      path = "`+csv+`"
      cell = "B`+r+`"
    }
  }
  check "q2" {
    cell {
      path = "`+csv+`"
      cell = "C`+r+`"
    }
  }
  check "total" {
    cell {
      path         = "`+csv+`"
      cell         = "D`+r+`"
      greater_than = 0
    }
  }
}`)})
			var res workflows.InstructionResult
			if err := env.GetWorkflowResult(&res); err != nil {
				t.Fatal(err)
			}
			var got *activities.CheckResult
			for i := range res.Checks {
				if res.Checks[i].Name == "total_is_sum" {
					got = &res.Checks[i]
				}
			}
			if got == nil || got.Passed != tt.passed || !strings.Contains(got.Detail, tt.detail) {
				t.Fatalf("total_is_sum = %+v, want passed=%v (%s); all: %+v", got, tt.passed, tt.detail, res.Checks)
			}
			if len(seen) != 3 || !seen[0].Capture {
				t.Errorf("device checks = %+v, want 3 capturing", seen)
			}
		})
	}
}
