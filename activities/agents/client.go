package agents

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/agents/profile"
	"github.com/pcflow/pcflow/activities/screen"
)

// Headers every request carries, naming what it asks (see the package doc).
// The subtask is URL-escaped. HeaderTurn, the prompt's facts
// (agent.TurnFacts as base64url JSON without padding), goes only to the
// scripted model (Config.Scripted).
const (
	HeaderRole    = "X-Pcflow-Role"
	HeaderSubtask = "X-Pcflow-Subtask"
	HeaderStep    = "X-Pcflow-Step"
	HeaderProfile = "X-Pcflow-Profile"
	HeaderTurn    = "X-Pcflow-Turn"
)

var (
	_ activities.Model      = (*Client)(nil)
	_ activities.JudgeModel = (*Client)(nil)
	_ activities.UserModel  = (*Client)(nil)
)

// Client is an OpenAI-compatible chat client with pcflow's role prompts.
type Client struct {
	cfg Config
	api *openai.Client
}

// New builds a client. The HTTP client has the request timeout and no
// retries of its own.
func New(cfg Config) *Client {
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	oc.HTTPClient = cfg.httpClient()
	if cfg.MaxReasks == 0 {
		cfg.MaxReasks = 2
	}
	if cfg.Profiles == nil {
		cfg.Profiles = NewProfiles(cfg.ProfilesFile)
	}
	return &Client{cfg: cfg, api: openai.NewClientWithConfig(oc)}
}

// Config returns the client's configuration.
func (c *Client) Config() Config { return c.cfg }

// httpClient is the HTTP client of every protocol: the request timeout,
// no retries of its own, the X-Pcflow-* headers.
func (cfg Config) httpClient() *http.Client {
	return &http.Client{Timeout: cfg.Timeout, Transport: callHeaders{base: http.DefaultTransport, turn: cfg.Scripted}}
}

type callKey struct{}

// callHeaders sets the X-Pcflow-* headers from the call in the request's
// context; X-Pcflow-Turn only when turn is set (the scripted model).
type callHeaders struct {
	base http.RoundTripper
	turn bool
}

func (t callHeaders) RoundTrip(r *http.Request) (*http.Response, error) {
	if c, ok := r.Context().Value(callKey{}).(agent.Call); ok {
		r = r.Clone(r.Context())
		r.Header.Set(HeaderRole, c.Role)
		if c.Subtask != "" {
			r.Header.Set(HeaderSubtask, url.PathEscape(c.Subtask))
		}
		if c.Step > 0 {
			r.Header.Set(HeaderStep, strconv.Itoa(c.Step))
		}
		if c.Profile != "" {
			r.Header.Set(HeaderProfile, c.Profile)
		}
		if t.turn {
			f := agent.TurnFacts{}
			if c.Turn != nil {
				f = *c.Turn
			}
			b, err := json.Marshal(f)
			if err != nil {
				return nil, fmt.Errorf("encode %s: %w", HeaderTurn, err)
			}
			r.Header.Set(HeaderTurn, base64.RawURLEncoding.EncodeToString(b))
		}
	}
	return t.base.RoundTrip(r)
}

// CallFromHeaders reads what a request asks from its X-Pcflow-* headers;
// Turn is nil when the request has no X-Pcflow-Turn, and err says what is
// wrong with one that does not decode.
func CallFromHeaders(h http.Header) (c agent.Call, err error) {
	c = agent.Call{Role: h.Get(HeaderRole), Profile: h.Get(HeaderProfile)}
	c.Subtask, _ = url.PathUnescape(h.Get(HeaderSubtask))
	c.Step, _ = strconv.Atoi(h.Get(HeaderStep))
	v := h.Get(HeaderTurn)
	if v == "" {
		return c, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(v)
	if err != nil {
		return c, fmt.Errorf("%s is not base64url without padding: %w", HeaderTurn, err)
	}
	c.Turn = &agent.TurnFacts{}
	if err := json.Unmarshal(b, c.Turn); err != nil {
		return c, fmt.Errorf("%s is not the JSON of agent.TurnFacts: %w", HeaderTurn, err)
	}
	return c, nil
}

// exchange is one role's conversation over chat completions, as ask
// drives it.
type exchange[T any] struct {
	call agent.Call
	// request builds the request; feedback is the problem with the previous
	// answer ("" on the first attempt) and must reach the model.
	request func(feedback string) openai.ChatCompletionRequest
	// parse reads the answer, or says what is wrong with it.
	parse  func(msg openai.ChatCompletionMessage) (T, error)
	record func(agent.Exchange)
	// budget bounds the invalid answers of the call (0: MaxReasks + 1).
	budget int
}

// reasks is how often a call re-asks after invalid answers: the caller's
// budget less the first answer, or the client's MaxReasks.
func (c *Client) reasks(budget int) int {
	if budget > 0 {
		return budget - 1
	}
	return c.cfg.MaxReasks
}

// invalid counts the answers that were re-asked, and why.
type invalid struct {
	n      int
	errors []string
}

// transport sends one request of a protocol — built with feedback, the
// problem with the previous answer ("" on the first attempt), which must
// reach the model — and returns the answer as the protocol gives it. An
// error is the call's failure (an *agent.APIError: the activity's retries
// and failure types apply) and ends the ask; an answer that cannot be read
// is for parse to reject. Each protocol has one: chat (chat completions,
// text formats included), computerTransport (the computer-use protocols).
type transport[A any] func(ctx context.Context, feedback string) (A, error)

// reask is the one send → parse → re-ask loop of every role and protocol:
// an answer that parse rejects is asked again with the problem as
// feedback, at most reasks times; then the call fails with an
// InvalidOutputError.
func reask[A, T any](ctx context.Context, reasks int, send transport[A], parse func(A) (T, error)) (T, invalid, error) {
	var zero T
	var inv invalid
	feedback := ""
	for attempt := 0; ; attempt++ {
		ans, err := send(ctx, feedback)
		if err != nil {
			return zero, inv, err
		}
		v, perr := parse(ans)
		if perr == nil {
			return v, inv, nil
		}
		inv.n++
		inv.errors = append(inv.errors, perr.Error())
		if attempt >= reasks {
			return zero, inv, &agent.InvalidOutputError{Attempts: inv.n, Last: perr.Error()}
		}
		feedback = perr.Error()
	}
}

// ask is reask over chat completions, the protocol of every role (the
// Decision agent's unless its profile speaks a computer-use protocol).
func ask[T any](ctx context.Context, c *Client, x exchange[T], u *screen.Usage) (T, invalid, error) {
	return reask(ctx, c.reasks(x.budget), c.chat(x.call, x.request, u, x.record), x.parse)
}

// chat is the transport of chat completions: the request built with the
// feedback, sent as call; its first choice is the answer.
func (c *Client) chat(call agent.Call, request func(feedback string) openai.ChatCompletionRequest, u *screen.Usage, record func(agent.Exchange)) transport[openai.ChatCompletionMessage] {
	return func(ctx context.Context, feedback string) (openai.ChatCompletionMessage, error) {
		resp, err := c.send(ctx, call, request(feedback), u, record)
		if err != nil {
			return openai.ChatCompletionMessage{}, err
		}
		return resp.Choices[0].Message, nil
	}
}

// send sends one chat request and accounts for it.
func (c *Client) send(ctx context.Context, call agent.Call, req openai.ChatCompletionRequest, u *screen.Usage, rec func(agent.Exchange)) (openai.ChatCompletionResponse, error) {
	api, model := c.endpoint(call.Role)
	if model != "" {
		req.Model = model
	}
	start := time.Now()
	resp, err := api.CreateChatCompletion(context.WithValue(ctx, callKey{}, call), req)
	u.Calls++
	u.LatencyMS += time.Since(start).Milliseconds()
	u.AddModel(req.Model, screen.ModelUsage{Calls: 1, PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens})
	if rec != nil {
		ex := agent.Exchange{Role: call.Role, Subtask: call.Subtask, Step: call.Step, Model: req.Model}
		ex.Request, _ = json.Marshal(redactImages(req))
		if err == nil {
			ex.Response, _ = json.Marshal(resp)
		} else {
			ex.Error = err.Error()
		}
		rec(ex)
	}
	if err != nil {
		return resp, c.classify(req.Model, err)
	}
	u.PromptTokens += resp.Usage.PromptTokens
	u.CompletionTokens += resp.Usage.CompletionTokens
	if len(resp.Choices) == 0 {
		return resp, &agent.APIError{Type: agent.ErrTypeModelUnavailable, Retryable: true,
			Msg: fmt.Sprintf("model %s at %s returned no choices", req.Model, c.cfg.BaseURL)}
	}
	return resp, nil
}

// roleProfile is the profile role speaks (the zero Profile: none chosen).
func (c *Client) roleProfile(role string) profile.Profile {
	if role == agent.RoleDecision {
		return c.cfg.Profile
	}
	return c.cfg.Roles[role]
}

// endpoint is where role's requests go and the model they ask for ("":
// the role's own setting): a profile with its own base_url gets its own
// client, with the key in the variable its api_key_env names (never
// OPENAI_API_KEY, which is the main endpoint's).
func (c *Client) endpoint(role string) (*openai.Client, string) {
	p := c.roleProfile(role)
	if p.BaseURL == "" {
		return c.api, p.Model
	}
	key := ""
	if p.APIKeyEnv != "" && c.cfg.Getenv != nil {
		key = c.cfg.Getenv(p.APIKeyEnv)
	}
	oc := openai.DefaultConfig(key)
	oc.BaseURL = strings.TrimRight(p.BaseURL, "/")
	oc.HTTPClient = c.cfg.httpClient()
	return openai.NewClientWithConfig(oc), p.Model
}

// redactImages drops image bytes from a recorded request (they are stored
// as screenshot artifacts already).
func redactImages(req openai.ChatCompletionRequest) openai.ChatCompletionRequest {
	msgs := make([]openai.ChatCompletionMessage, len(req.Messages))
	for i, m := range req.Messages {
		if len(m.MultiContent) == 0 {
			msgs[i] = m
			continue
		}
		parts := make([]openai.ChatMessagePart, len(m.MultiContent))
		for j, p := range m.MultiContent {
			if p.ImageURL != nil {
				p.ImageURL = &openai.ChatMessageImageURL{URL: fmt.Sprintf("(image, %d bytes)", len(p.ImageURL.URL))}
			}
			parts[j] = p
		}
		m.MultiContent = parts
		msgs[i] = m
	}
	req.Messages = msgs
	return req
}

// classify turns a go-openai error into an APIError that says what to fix.
func (c *Client) classify(model string, err error) error {
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	status := 0
	detail := err.Error()
	switch {
	case errors.As(err, &apiErr):
		status = apiErr.HTTPStatusCode
		detail = apiErr.Message
	case errors.As(err, &reqErr):
		status = reqErr.HTTPStatusCode
	}
	var netErr net.Error
	switch {
	case status == 401 || status == 403:
		return &agent.APIError{Type: agent.ErrTypeModelAuth, Status: status, Err: err,
			Msg: fmt.Sprintf("API key rejected by %s (HTTP %d): set OPENAI_API_KEY to a valid key for this endpoint", c.cfg.BaseURL, status)}
	case status == 404:
		return &agent.APIError{Type: agent.ErrTypeModelNotFound, Status: status, Err: err,
			Msg: fmt.Sprintf("model %s not found at %s (HTTP 404: %s): check PCFLOW_MODEL and OPENAI_BASE_URL", model, c.cfg.BaseURL, detail)}
	case status == 400 || status == 422:
		return &agent.APIError{Type: agent.ErrTypeModelRequest, Status: status, Err: err,
			Msg: fmt.Sprintf("request rejected by %s (HTTP %d): %s", c.cfg.BaseURL, status, detail)}
	case status == 429 || status >= 500:
		return &agent.APIError{Type: agent.ErrTypeModelUnavailable, Retryable: true, Status: status, Err: err,
			Msg: fmt.Sprintf("model endpoint %s is busy or failing (HTTP %d): %s", c.cfg.BaseURL, status, detail)}
	case errors.As(err, &netErr):
		return &agent.APIError{Type: agent.ErrTypeModelUnavailable, Retryable: true, Err: err,
			Msg: fmt.Sprintf("model endpoint %s unreachable or timed out: %v", c.cfg.BaseURL, err)}
	}
	return &agent.APIError{Type: agent.ErrTypeModelUnavailable, Retryable: true, Status: status, Err: err,
		Msg: fmt.Sprintf("model call to %s failed: %v", c.cfg.BaseURL, err)}
}
