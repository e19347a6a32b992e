package main

import (
	"context"
	"fmt"
)

// retries prints, once per attempt, the activities of workflow id that
// Temporal is retrying — which one, the attempt, and why the last one
// failed — so a failing model endpoint or device shows while it happens.
func (s *session) retries(ctx context.Context, e *env, id, label string, seen map[string]string) {
	d, err := s.eng.client.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		return
	}
	for _, pa := range d.GetPendingActivities() {
		if pa.GetAttempt() < 2 || pa.GetLastFailure() == nil {
			continue
		}
		key, attempt := id+"#retry#"+pa.GetActivityId(), fmt.Sprint(pa.GetAttempt())
		if seen[key] == attempt {
			continue
		}
		seen[key] = attempt
		fmt.Fprintf(e.stdout, "  ↻ %-14s %s: attempt %d after: %s\n", label, pa.GetActivityType().GetName(), pa.GetAttempt(), oneLine(pa.GetLastFailure().GetMessage(), 300))
	}
}
