package workflows

import (
	"errors"
	"fmt"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
)

// a is the nil receiver through which workflows name activities.
var a *activities.Activities

func deviceOptions(o Options, device string, deadline time.Time, now time.Time) workflow.ActivityOptions {
	s2c := deadline.Sub(now)
	if s2c < time.Second {
		s2c = time.Second
	}
	// Retries spend the time the user gave: the wait between attempts stays
	// a tenth of what is left (at most a minute), so the last attempt comes
	// shortly before the deadline instead of a long backoff giving up early.
	maxInterval := min(time.Minute, max(time.Second, s2c/10))
	return workflow.ActivityOptions{
		TaskQueue:              plan.DeviceQueue(o.physical(device)),
		ScheduleToStartTimeout: o.DeviceTimeout,
		ScheduleToCloseTimeout: s2c,
		StartToCloseTimeout:    o.ModelTimeout,
		HeartbeatTimeout:       15 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:    time.Second,
			BackoffCoefficient: 2,
			MaximumInterval:    maxInterval,
			NonRetryableErrorTypes: []string{
				agent.ErrTypeModelAuth, agent.ErrTypeModelNotFound, agent.ErrTypeModelRequest,
				agent.ErrTypeInvalidOutput, activities.ErrTypeSetup,
			},
		},
	}
}

func modelOptions(o Options, deadline, now time.Time) workflow.ActivityOptions {
	ao := deviceOptions(o, "", deadline, now)
	ao.TaskQueue = o.queue()
	ao.ScheduleToStartTimeout = 0
	return ao
}

func withSummary(ctx workflow.Context, summary string) workflow.Context {
	ao := workflow.GetActivityOptions(ctx)
	ao.Summary = summary
	return workflow.WithActivityOptions(ctx, ao)
}

// reasonFor maps an activity failure to a termination reason and a message
// a person can act on.
func reasonFor(err error, device string, o Options) (string, string) {
	var appErr *temporal.ApplicationError
	var toErr *temporal.TimeoutError
	isTimeout := errors.As(err, &toErr)
	switch {
	case temporal.IsCanceledError(err):
		return ReasonCancelled, "cancelled"
	case isTimeout && toErr.TimeoutType() == enumspb.TIMEOUT_TYPE_SCHEDULE_TO_START:
		phys := o.physical(device)
		return ReasonDeviceError, fmt.Sprintf("device %s is offline: no worker took work from queue %s for %s; start one with `pcflow worker --device %s`",
			o.deviceLabel(device), plan.DeviceQueue(phys), o.DeviceTimeout, phys)
	case errors.As(err, &appErr) && appErr.Type() == agent.ErrTypeModelUnavailable:
		// The model endpoint kept failing: the agent's fault, not the device's.
		var actErr *temporal.ActivityError
		if isTimeout || errors.As(err, &actErr) && actErr.RetryState() == enumspb.RETRY_STATE_TIMEOUT {
			return ReasonAgentFailed, "model: " + appErr.Message() + " (retried until the subtask's time ran out)"
		}
		return ReasonAgentFailed, "model: " + appErr.Message()
	case isTimeout && toErr.TimeoutType() == enumspb.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE:
		return ReasonTimeout, "the subtask's time ran out while an activity was retrying: " + err.Error()
	case errors.As(err, &appErr):
		switch appErr.Type() {
		case agent.ErrTypeInvalidOutput:
			return ReasonInvalidOutput, appErr.Message()
		case agent.ErrTypeModelAuth, agent.ErrTypeModelNotFound, agent.ErrTypeModelRequest:
			return ReasonAgentFailed, "model: " + appErr.Message()
		case activities.ErrTypeSetupCommand:
			// Only new histories have this type: older ones keep their
			// device_error.
			return ReasonHarnessError, appErr.Message() + " (the task's own setup failed: neither the device's failure nor the agent's)"
		}
		return ReasonDeviceError, appErr.Message()
	}
	return ReasonDeviceError, err.Error()
}

// failedUsage is what a failed model activity spent over all its attempts:
// the details of its last failure, or of its last heartbeat when it timed out.
func failedUsage(err error) screen.Usage {
	var u screen.Usage
	var toErr *temporal.TimeoutError
	var appErr *temporal.ApplicationError
	switch {
	case err == nil:
	case errors.As(err, &toErr) && toErr.HasLastHeartbeatDetails():
		_ = toErr.LastHeartbeatDetails(&u)
	case errors.As(err, &appErr) && appErr.HasDetails():
		_ = appErr.Details(&u)
	}
	return u
}

// deviceLabel names a task's device for a person: under a suite's lease
// the physical device first, whose worker serves it.
func (o Options) deviceLabel(device string) string {
	phys := o.physical(device)
	if phys == device || strings.Contains(phys, "@") {
		// Unbound, or pcflow run's private lane (an internal queue name).
		return device
	}
	return fmt.Sprintf("%s (leased as the task's device %s)", phys, device)
}
