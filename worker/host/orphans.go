package host

import (
	"context"
	"fmt"
	"os"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/pcflow/pcflow/internal/proclock"
	"github.com/pcflow/pcflow/internal/tserver"
)

// ErrTypeWorkerGone is the failure type of an activity whose worker's
// process died while it ran (see FailOrphans).
const ErrTypeWorkerGone = "WorkerGone"

// WorkerIdentity is the Temporal identity of the pcflow process pid on
// this host: its client's, and its workers'.
func WorkerIdentity(pid int) string {
	host, _ := os.Hostname()
	return fmt.Sprintf("pcflow-%d@%s", pid, host)
}

// DeadWorker is the worker identity of the process that died holding a
// run's lock (a killed `pcflow run` or `pcflow resume`, which serve the
// run's worker in their own process), or "" when the lock was free.
func DeadWorker(lk *proclock.Lock) string {
	if lk == nil || lk.Previous.PID == 0 || lk.Previous.PID == os.Getpid() {
		return ""
	}
	return WorkerIdentity(lk.Previous.PID)
}

// FailOrphans fails the running attempt of every activity of run (and of
// its subtasks' workflows) that the worker dead had started. Temporal
// cannot tell that worker is gone until the attempt misses its heartbeat
// (15 s); a resume knows it (the process died holding the run's lock), so
// the attempts are retried at once, on the resuming worker. An action cut
// off this way is handled as after a heartbeat timeout: the device's
// action log says it started and did not finish, and the screen decides.
// It returns how many attempts it failed.
func FailOrphans(ctx context.Context, c client.Client, run, dead string) (int, error) {
	if dead == "" {
		return 0, nil
	}
	n := 0
	seen := map[string]bool{}
	queue := []string{run}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		if seen[id] {
			continue
		}
		seen[id] = true
		d, err := c.DescribeWorkflowExecution(ctx, id, "")
		if err != nil {
			return n, fmt.Errorf("workflow %s: %w", id, err)
		}
		if d.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
			continue
		}
		runID := d.GetWorkflowExecutionInfo().GetExecution().GetRunId()
		for _, a := range d.GetPendingActivities() {
			if a.GetState() != enumspb.PENDING_ACTIVITY_STATE_STARTED || a.GetLastWorkerIdentity() != dead {
				continue
			}
			gone := temporal.NewApplicationError(fmt.Sprintf("the worker %s stopped while this ran (its process is gone); retried on the resuming worker", dead), ErrTypeWorkerGone)
			if err := c.CompleteActivityByID(ctx, tserver.Namespace, id, runID, a.GetActivityId(), nil, gone); err != nil {
				return n, fmt.Errorf("activity %s of %s: %w", a.GetActivityId(), id, err)
			}
			n++
		}
		for _, ch := range d.GetPendingChildren() {
			queue = append(queue, ch.GetWorkflowId())
		}
	}
	return n, nil
}
