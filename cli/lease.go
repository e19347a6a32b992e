package main

import (
	"context"
	"fmt"
	"strings"

	"go.temporal.io/sdk/client"

	"github.com/pcflow/pcflow/worker/host"
)

// keepPoolFirst ends the suite self, just started, when a running suite
// that uses some of its pool started before it (or at the same moment,
// with a smaller id): both passed host.PoolInUse at once, and only one may
// drive the devices. It returns the exit code when it ended self, else -1.
func keepPoolFirst(ctx context.Context, e *env, c client.Client, pool []string, self, temporal string) int {
	desc, err := c.DescribeWorkflowExecution(ctx, self, "")
	if err != nil {
		return -1 // the suite runs; nothing better is known
	}
	mine := desc.GetWorkflowExecutionInfo().GetStartTime().AsTime()
	uses, err := host.SuitesUsing(ctx, c, pool, self)
	if err != nil {
		return -1
	}
	for _, u := range uses {
		if u.Started.Before(mine) || u.Started.Equal(mine) && u.ID < self {
			_ = c.TerminateWorkflow(ctx, self, "", "its pool's device "+strings.Join(u.Devices, ", ")+" is in use by suite "+u.ID)
			fmt.Fprintln(e.stderr, "pcflow eval:", host.PoolInUseError(u, temporal))
			return 1
		}
	}
	return -1
}
