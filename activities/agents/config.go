// Package agents holds the four model-backed roles of PC-Agent — Manager,
// Decision, Reflection and Progress — on any OpenAI-compatible endpoint
// through go-openai. The client never retries on its own: errors are
// classified and Temporal owns retries.
package agents

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Config selects the endpoint and per-role behaviour.
type Config struct {
	BaseURL string
	APIKey  string
	// Models per role; Manager and Progress may be text-only models.
	DecisionModel   string
	ReflectionModel string
	ProgressModel   string
	ManagerModel    string
	Temperature     float32
	MaxTokens       int
	Timeout         time.Duration
	// ImageMaxSide scales screenshots so the longest side is at most this
	// many pixels (0: unscaled); ImageFormat is "png" or "jpeg".
	ImageMaxSide int
	ImageFormat  string
	JPEGQuality  int
	// TextActions makes Decision answer in text instead of tool calls, for
	// models without function calling.
	TextActions bool
	// MaxReasks bounds how often an invalid answer is re-asked within one call.
	MaxReasks int
}

// ConfigFromEnv reads OPENAI_BASE_URL, OPENAI_API_KEY and PCFLOW_MODEL*
// variables; getenv is os.Getenv in production.
func ConfigFromEnv(getenv func(string) string) Config {
	c := Config{
		BaseURL:      getenv("OPENAI_BASE_URL"),
		APIKey:       getenv("OPENAI_API_KEY"),
		Temperature:  0,
		MaxTokens:    1024,
		Timeout:      120 * time.Second,
		ImageMaxSide: 1280,
		ImageFormat:  "png",
		JPEGQuality:  80,
		MaxReasks:    2,
	}
	if c.BaseURL == "" {
		c.BaseURL = "https://api.openai.com/v1"
	}
	model := getenv("PCFLOW_MODEL")
	if model == "" {
		model = "gpt-4o"
	}
	c.DecisionModel, c.ReflectionModel, c.ProgressModel, c.ManagerModel = model, model, model, model
	if m := getenv("PCFLOW_MODEL_REFLECTION"); m != "" {
		c.ReflectionModel = m
	}
	if m := getenv("PCFLOW_MODEL_PROGRESS"); m != "" {
		c.ProgressModel = m
	}
	if m := getenv("PCFLOW_MODEL_MANAGER"); m != "" {
		c.ManagerModel = m
	}
	if v := getenv("PCFLOW_MODEL_TIMEOUT"); v != "" {
		if d, err := time.ParseDuration(v); err == nil {
			c.Timeout = d
		}
	}
	if v := getenv("PCFLOW_IMAGE_MAX_SIDE"); v != "" {
		if n, err := strconv.Atoi(v); err == nil {
			c.ImageMaxSide = n
		}
	}
	if v := getenv("PCFLOW_IMAGE_FORMAT"); v == "jpeg" || v == "png" {
		c.ImageFormat = v
	}
	if getenv("PCFLOW_TEXT_ACTIONS") == "1" {
		c.TextActions = true
	}
	return c
}

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
	oc.HTTPClient = &http.Client{Timeout: cfg.Timeout}
	if cfg.MaxReasks == 0 {
		cfg.MaxReasks = 2
	}
	return &Client{cfg: cfg, api: openai.NewClientWithConfig(oc)}
}

// Config returns the client's configuration.
func (c *Client) Config() Config { return c.cfg }

// Error types, for Temporal's non-retryable application errors.
const (
	ErrTypeAuth       = "ModelAuthRejected"
	ErrTypeNotFound   = "ModelNotFound"
	ErrTypeBadRequest = "ModelBadRequest"
	ErrTypeInvalid    = "InvalidModelOutput"
)

// APIError is a classified model API failure.
type APIError struct {
	Type      string // one of the ErrType constants, or "" when retryable
	Retryable bool
	Status    int
	Msg       string
	Err       error
}

func (e *APIError) Error() string { return e.Msg }
func (e *APIError) Unwrap() error { return e.Err }

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
		return &APIError{Type: ErrTypeAuth, Status: status, Err: err,
			Msg: fmt.Sprintf("API key rejected by %s (HTTP %d): set OPENAI_API_KEY to a valid key for this endpoint", c.cfg.BaseURL, status)}
	case status == 404:
		return &APIError{Type: ErrTypeNotFound, Status: status, Err: err,
			Msg: fmt.Sprintf("model %s not found at %s (HTTP 404: %s): check PCFLOW_MODEL and OPENAI_BASE_URL", model, c.cfg.BaseURL, detail)}
	case status == 400 || status == 422:
		return &APIError{Type: ErrTypeBadRequest, Status: status, Err: err,
			Msg: fmt.Sprintf("request rejected by %s (HTTP %d): %s", c.cfg.BaseURL, status, detail)}
	case status == 429 || status >= 500:
		return &APIError{Retryable: true, Status: status, Err: err,
			Msg: fmt.Sprintf("model endpoint %s is busy or failing (HTTP %d): %s; retrying", c.cfg.BaseURL, status, detail)}
	case errors.As(err, &netErr):
		return &APIError{Retryable: true, Err: err,
			Msg: fmt.Sprintf("model endpoint %s unreachable or timed out: %v; retrying", c.cfg.BaseURL, err)}
	}
	return &APIError{Retryable: true, Status: status, Err: err, Msg: fmt.Sprintf("model call to %s failed: %v", c.cfg.BaseURL, err)}
}
