package worker

import (
	"context"
	"fmt"
	"sync/atomic"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"

	"github.com/pcflow/pcflow/activities"
)

// ErrTypeRetired is the error of an activity a device worker refused
// after its reset: it is retried, on the worker that follows it.
const ErrTypeRetired = "DeviceWorkerRetired"

// retireInterceptor refuses every activity that starts on a device
// worker after its reset (Activities.AfterReset: a worker in an overlay
// sandbox stops after a reset, to be started again in a fresh sandbox).
// The worker stops polling at once, but a task it had already received
// — the next task's setup, or a retry of a killed eval's activity — would
// otherwise run in the old sandbox, which goes away with the worker (CI:
// a resumed task's editor was launched there and its steps saw an empty
// screen). The refusal is retried by Temporal, on the fresh worker.
type retireInterceptor struct {
	interceptor.WorkerInterceptorBase
	device  string
	retired atomic.Bool
}

// retireAfterReset makes a's AfterReset retire the worker before it runs,
// and returns the interceptor that refuses work from then on.
func retireAfterReset(a *activities.Activities, device string) *retireInterceptor {
	r := &retireInterceptor{device: device}
	after := a.AfterReset
	a.AfterReset = func() {
		r.retired.Store(true)
		after()
	}
	return r
}

func (i *retireInterceptor) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	a := &retireActivity{i: i}
	a.Next = next
	return a
}

type retireActivity struct {
	interceptor.ActivityInboundInterceptorBase
	i *retireInterceptor
}

func (a *retireActivity) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	if a.i.retired.Load() {
		info := activity.GetInfo(ctx)
		return nil, temporal.NewApplicationError(fmt.Sprintf("device %s: this worker was reset and is giving way to a fresh one; %s (attempt %d) is retried there", a.i.device, info.ActivityType.Name, info.Attempt), ErrTypeRetired)
	}
	return a.Next.ExecuteActivity(ctx, in)
}
