package worker

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/workflow"

	"github.com/pcflow/pcflow/internal/signing"
	"github.com/pcflow/pcflow/workflows"
)

// DecisionInterceptor refuses an approve or answer update unless its
// signature by Key proves who sends it (internal/signing): the update's
// argument names its sender, and anyone who reaches the server could name
// anybody. It runs before the workflow's own validator (which checks the
// run's approvers against the proven name); a refused update never
// reaches history. Validators do not run on replay, so histories recorded
// before signatures existed replay unchanged, and its use of the clock
// touches no workflow state.
type DecisionInterceptor struct {
	interceptor.WorkerInterceptorBase
	Key signing.Key
}

var _ interceptor.WorkerInterceptor = (*DecisionInterceptor)(nil)

// InterceptWorkflow wraps one workflow's inbound calls.
func (d *DecisionInterceptor) InterceptWorkflow(ctx workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	i := &decisionWorkflow{key: d.Key}
	i.Next = next
	return i
}

type decisionWorkflow struct {
	interceptor.WorkflowInboundInterceptorBase
	key signing.Key
}

func (w *decisionWorkflow) ValidateUpdate(ctx workflow.Context, in *interceptor.UpdateInput) error {
	if in.Name != workflows.ApproveUpdate && in.Name != workflows.AnswerUpdate {
		return w.Next.ValidateUpdate(ctx, in)
	}
	if len(in.Args) != 1 {
		return fmt.Errorf("the %s update takes one argument, not %d", in.Name, len(in.Args))
	}
	id := workflow.GetInfo(ctx).WorkflowExecution.ID
	var cl workflows.Claim
	var sig string
	switch a := in.Args[0].(type) {
	case workflows.Approval:
		cl, sig = a.Claim(id), a.Sig
	case workflows.Answer:
		cl, sig = a.Claim(id), a.Sig
	default:
		return fmt.Errorf("the %s update's argument is a %T", in.Name, in.Args[0])
	}
	if err := w.key.Verify(cl, sig, time.Now()); err != nil {
		return err
	}
	return w.Next.ValidateUpdate(ctx, in)
}
