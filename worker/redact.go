package worker

import (
	"context"
	"fmt"

	"go.temporal.io/sdk/interceptor"

	"github.com/pcflow/pcflow/activities"
)

// RedactInterceptor passes the result and the error of every activity this
// worker runs through the activities' Redactor, so that nothing the device
// or the model returned reaches workflow history (and from there the
// terminal, `pcflow history`, the Web UI and its API) with a secret in it,
// whichever activity produced it.
type RedactInterceptor struct {
	interceptor.WorkerInterceptorBase
	Redactor *activities.Redactor
}

var _ interceptor.WorkerInterceptor = (*RedactInterceptor)(nil)

// InterceptActivity wraps one activity execution.
func (w *RedactInterceptor) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	i := &redactActivity{r: w.Redactor}
	i.Next = next
	return i
}

type redactActivity struct {
	interceptor.ActivityInboundInterceptorBase
	r *activities.Redactor
}

func (a *redactActivity) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (interface{}, error) {
	defer func() {
		// The worker turns a panic into a failure carrying its value.
		if p := recover(); p != nil {
			panic(a.r.String(fmt.Sprint(p)))
		}
	}()
	res, err := a.Next.ExecuteActivity(ctx, in)
	a.r.Value(res)
	return res, a.r.Error(err)
}
