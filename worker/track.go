package worker

import (
	"context"
	"sync"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"

	"github.com/pcflow/pcflow/workflows"
)

// Tracker remembers the subtask workflow whose activity this device ran
// last: the live view's buttons act on it.
type Tracker struct {
	mu sync.Mutex
	id string
}

// Last returns that workflow's id, "" before any.
func (t *Tracker) Last() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.id
}

func (t *Tracker) saw(ctx context.Context) {
	info := activity.GetInfo(ctx)
	if info.WorkflowType == nil || info.WorkflowType.Name != workflows.SubtaskWorkflowName || info.WorkflowExecution.ID == "" {
		return
	}
	t.mu.Lock()
	t.id = info.WorkflowExecution.ID
	t.mu.Unlock()
}

var _ interceptor.WorkerInterceptor = (*trackInterceptor)(nil)

type trackInterceptor struct {
	interceptor.WorkerInterceptorBase
	t *Tracker
}

func (i *trackInterceptor) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	a := &trackActivity{t: i.t}
	a.Next = next
	return a
}

type trackActivity struct {
	interceptor.ActivityInboundInterceptorBase
	t *Tracker
}

func (a *trackActivity) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	a.t.saw(ctx)
	return a.Next.ExecuteActivity(ctx, in)
}
