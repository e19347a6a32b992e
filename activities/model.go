package activities

import (
	"context"
	"encoding/json"
	"errors"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/screen"
)

// modelAttempt accounts for one attempt of a model activity. What earlier
// attempts spent travels in the activity's heartbeat details (Temporal
// hands them to the next attempt), so the usage a result or a failure
// reports covers every attempt: a run that fails still says what it cost.
type modelAttempt struct {
	ctx   context.Context
	prior screen.Usage
	stop  func()
}

func (a *Activities) startModelAttempt(ctx context.Context) *modelAttempt {
	m := &modelAttempt{ctx: ctx}
	if activity.IsActivity(ctx) && activity.HasHeartbeatDetails(ctx) {
		_ = activity.GetHeartbeatDetails(ctx, &m.prior)
	}
	m.stop = heartbeat(ctx, m.prior)
	return m
}

// finish adds the earlier attempts to u and turns a model error into the
// Temporal error of its kind, carrying u as its details. A retryable
// failure is logged as it happens.
func (a *Activities) finish(m *modelAttempt, u *screen.Usage, err error) error {
	m.stop()
	u.Add(m.prior)
	if err == nil {
		return nil
	}
	if activity.IsActivity(m.ctx) {
		activity.RecordHeartbeat(m.ctx, *u)
	}
	var api *agent.APIError
	if errors.As(err, &api) && api.Retryable && activity.IsActivity(m.ctx) {
		info := activity.GetInfo(m.ctx)
		a.logger().Warn("model call failed; retrying", "activity", info.ActivityType.Name, "attempt", info.Attempt,
			"error", api.Msg)
	}
	return modelError(err, *u)
}

// modelError turns a model error into a Temporal error of the right kind,
// with the usage so far as its details.
func modelError(err error, u screen.Usage) error {
	var api *agent.APIError
	if errors.As(err, &api) {
		if api.Retryable {
			return temporal.NewApplicationErrorWithCause(api.Msg, api.Type, err, u)
		}
		return temporal.NewNonRetryableApplicationError(api.Msg, api.Type, err, u)
	}
	var inv *agent.InvalidOutputError
	if errors.As(err, &inv) {
		return temporal.NewNonRetryableApplicationError(inv.Error(), agent.ErrTypeInvalidOutput, err, u)
	}
	return err
}

func (a *Activities) recorder(refs *[]string) func(agent.Exchange) {
	if !a.RecordExchanges {
		return nil
	}
	return func(ex agent.Exchange) {
		b, err := json.Marshal(ex)
		if err == nil {
			// A copy is redacted: the agent goes on with the answer.
			b, err = a.OutputRedactor().JSON(b)
		}
		if err != nil {
			a.logger().Warn("model exchange not recorded", "role", ex.Role, "error", err)
			return
		}
		ref, err := a.Artifacts.Put(b, "json")
		if err != nil {
			a.logger().Warn("model exchange not recorded", "role", ex.Role, "error", err)
			return
		}
		*refs = append(*refs, ref)
	}
}
