package agents

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pcflow/pcflow/activities/agent"
)

// Check asks the endpoint for its model list, to find before the first step
// whether the model can be reached at all. It fails only on what no retry
// mends soon: the endpoint unreachable or silent (within timeout), or the
// key rejected. An endpoint that answers the list with another error (some
// serve no /models) passes.
func (c *Client) Check(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	_, err := c.api.ListModels(ctx)
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return fmt.Errorf("model endpoint %s did not answer within %s: check that it is running and OPENAI_BASE_URL points at it", c.cfg.BaseURL, timeout)
	}
	var api *agent.APIError
	if !errors.As(c.classify(c.cfg.DecisionModel, err), &api) {
		return err
	}
	switch {
	case api.Type == agent.ErrTypeModelAuth:
		return api
	case api.Status == 0:
		return fmt.Errorf("model endpoint %s is unreachable (%w): start it, or set OPENAI_BASE_URL to a running OpenAI-compatible endpoint; without OPENAI_API_KEY, pcflow run plays the task's .script.json", c.cfg.BaseURL, err)
	}
	return nil
}
