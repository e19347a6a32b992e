package tracing

import (
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/temporal"
)

// kindOnly is a span of Temporal's interceptor that records an error by
// its kind only: an activity's or workflow's error message can quote what
// a model answered (an invalid answer's text) or what a command printed,
// and no span carries those. The kind is the application error's type
// (ModelUnavailable, InvalidModelOutput, check_failed, …), or canceled,
// timeout, terminated, panic.
type kindOnly struct {
	trace.Span
	kind string
}

// RecordError records the error's kind (an "exception" event and
// error.type), not its message.
func (s *kindOnly) RecordError(err error, _ ...trace.EventOption) {
	if err == nil {
		return
	}
	s.kind = ErrorKind(err)
	s.Span.SetAttributes(attribute.String("error.type", s.kind))
	s.Span.AddEvent("exception", trace.WithAttributes(attribute.String("exception.type", s.kind)))
}

// SetStatus keeps the code and puts the error's kind in place of the
// description (the interceptor sets an error's message there).
func (s *kindOnly) SetStatus(code codes.Code, _ string) {
	desc := ""
	if code == codes.Error {
		desc = s.kind
	}
	s.Span.SetStatus(code, desc)
}

// ErrorKind names the kind of a Temporal error without its message.
func ErrorKind(err error) string {
	var app *temporal.ApplicationError
	var canceled *temporal.CanceledError
	var timeout *temporal.TimeoutError
	var terminated *temporal.TerminatedError
	var panicked *temporal.PanicError
	switch {
	case errors.As(err, &app):
		if app.Type() != "" {
			return app.Type()
		}
		return "application"
	case errors.As(err, &canceled):
		return "canceled"
	case errors.As(err, &timeout):
		return "timeout"
	case errors.As(err, &terminated):
		return "terminated"
	case errors.As(err, &panicked):
		return "panic"
	}
	return "error"
}
