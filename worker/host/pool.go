package host

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/pcflow/pcflow/internal/tserver"
	"github.com/pcflow/pcflow/workflows"
)

// SuiteUse is a running suite that uses some of a pool's devices.
type SuiteUse struct {
	ID      string
	Started time.Time
	Devices []string // the pool's devices it uses
}

// SuitesUsing lists the running suites, self excepted, that use any of
// devices: a pool device serves one suite at a time (two would
// interleave their actions on it, and both fail as the model's fault).
// A running suite holds its devices whether its eval process follows it
// or not (--detach): the lease is the suite itself, freed when it ends or
// is cancelled.
func SuitesUsing(ctx context.Context, c client.Client, devices []string, self string) ([]SuiteUse, error) {
	resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: tserver.Namespace, PageSize: 1000,
		Query: fmt.Sprintf("WorkflowType = '%s' AND ExecutionStatus = 'Running'", workflows.SuiteWorkflowName)})
	if err != nil {
		return nil, fmt.Errorf("list the running suites: %w", err)
	}
	var out []SuiteUse
	for _, ex := range resp.Executions {
		id := ex.GetExecution().GetWorkflowId()
		if id == self {
			continue
		}
		in, err := suiteInput(ctx, c, id, ex.GetExecution().GetRunId())
		if err != nil {
			return nil, fmt.Errorf("suite %s: %w", id, err)
		}
		var both []string
		for _, d := range in.Devices {
			if slices.Contains(devices, d) {
				both = append(both, d)
			}
		}
		if len(both) > 0 {
			out = append(out, SuiteUse{ID: id, Started: ex.GetStartTime().AsTime(), Devices: both})
		}
	}
	return out, nil
}

// suiteInput is the input a suite's run started with.
func suiteInput(ctx context.Context, c client.Client, id, runID string) (workflows.SuiteInput, error) {
	var in workflows.SuiteInput
	it := c.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	if !it.HasNext() {
		return in, fmt.Errorf("no history")
	}
	ev, err := it.Next()
	if err != nil {
		return in, err
	}
	a := ev.GetWorkflowExecutionStartedEventAttributes()
	if a == nil {
		return in, fmt.Errorf("its history does not start with its input")
	}
	return in, converter.GetDefaultDataConverter().FromPayloads(a.GetInput(), &in)
}

// PoolInUse refuses a pool whose devices a running suite other than self
// uses, naming the suite and how to free them.
func PoolInUse(ctx context.Context, c client.Client, pool []string, self string, temporal string) error {
	uses, err := SuitesUsing(ctx, c, pool, self)
	if err != nil || len(uses) == 0 {
		return err
	}
	return PoolInUseError(uses[0], temporal)
}

// PoolInUseError is the error for a pool whose devices suite u uses.
func PoolInUseError(u SuiteUse, temporal string) error {
	return fmt.Errorf("device %s is in use by suite %s, running since %s: one suite drives a device at a time. Wait until it ends (pcflow eval status %s --temporal %s), cancel it (pcflow cancel %s --temporal %s), or give this suite other --pool devices",
		strings.Join(u.Devices, ", "), u.ID, u.Started.UTC().Format(time.RFC3339), u.ID, temporal, u.ID, temporal)
}
