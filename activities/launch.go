package activities

import (
	"context"

	"go.temporal.io/sdk/activity"
)

// RunEnv is the environment variable a device sets on the applications it
// launches: the id of the workflow that launched them (a run, or a run's
// subtask RUN/SUBTASK). pcflow run stops a failed run's applications by it,
// so a later run's setup never reuses them.
const RunEnv = "PCFLOW_RUN"

// LaunchedBy returns the workflow id a launch inside an activity belongs
// to; empty outside an activity.
func LaunchedBy(ctx context.Context) string {
	if !activity.IsActivity(ctx) {
		return ""
	}
	return activity.GetInfo(ctx).WorkflowExecution.ID
}

// RunKey is a key unique to the run an activity belongs to: its workflow
// id and the id of that workflow's execution (a reused run id is another
// run; a resumed one the same). Empty outside an activity.
func RunKey(ctx context.Context) string {
	if !activity.IsActivity(ctx) {
		return ""
	}
	we := activity.GetInfo(ctx).WorkflowExecution
	return we.ID + "/" + we.RunID
}
