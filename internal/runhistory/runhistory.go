// Package runhistory reads what a run did from its Temporal history: each
// completed activity with its input and result, across the run's
// continue-as-new chain. `pcflow history`, the recorded exchanges of a
// replay and the checked replay of a run read runs through it.
package runhistory

import (
	"context"
	"fmt"
	"strings"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
)

// Call is one completed activity: its type, task queue, input and result.
type Call struct {
	Type   string
	Queue  string
	Input  *commonpb.Payloads
	Result *commonpb.Payloads
}

// Decode decodes the call's input or result into v; false when there is
// none or it does not fit.
func (a Call) Decode(input bool, v any) bool {
	p := a.Result
	if input {
		p = a.Input
	}
	return p != nil && converter.GetDefaultDataConverter().FromPayloads(p, v) == nil
}

// Walk reads workflow id's events, following its continue-as-new chain
// from the first run, and pairs each completed activity with its
// scheduling event. fn, when set, sees every event. An error wraps the
// server's (a serviceerror.NotFound for an unknown id).
func Walk(ctx context.Context, c client.Client, id string, fn func(*historypb.HistoryEvent)) ([]Call, error) {
	var calls []Call
	runID := ""
	for {
		// Event ids restart with each continued run; a completion always
		// follows its own scheduling event within the run.
		scheduled := map[int64]*historypb.ActivityTaskScheduledEventAttributes{}
		next := ""
		it := c.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		for it.HasNext() {
			ev, err := it.Next()
			if err != nil {
				return nil, fmt.Errorf("run %s: %w", id, err)
			}
			if fn != nil {
				fn(ev)
			}
			if a := ev.GetWorkflowExecutionContinuedAsNewEventAttributes(); a != nil {
				next = a.NewExecutionRunId
			}
			if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil {
				scheduled[ev.EventId] = a
			}
			if a := ev.GetActivityTaskCompletedEventAttributes(); a != nil {
				if sch := scheduled[a.ScheduledEventId]; sch != nil {
					calls = append(calls, Call{Type: sch.ActivityType.GetName(), Queue: sch.TaskQueue.GetName(), Input: sch.Input, Result: a.Result})
				}
			}
		}
		if next == "" {
			return calls, nil
		}
		runID = next
	}
}

// StepOf is the step of an action id (WORKFLOW/step-N[/I]); 0 when the id
// names no step.
func StepOf(actionID string) int {
	i := strings.LastIndex(actionID, "/step-")
	if i < 0 {
		return 0
	}
	var n int
	fmt.Sscanf(actionID[i+6:], "%d", &n)
	return n
}
