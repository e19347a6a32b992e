package activities

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/screen"
)

// The attributes of pcflow's own spans (docs/tracing.md). The model
// calls' follow OpenTelemetry's GenAI conventions where one fits. No span
// carries a prompt, an answer's text, a screenshot or a secret: only
// names, numbers and verdicts.
const (
	AttrSubtask      = "pcflow.subtask"
	AttrStep         = "pcflow.step"
	AttrRole         = "pcflow.role"
	AttrVerdict      = "pcflow.verdict"
	AttrAction       = "pcflow.action"
	AttrModelCalls   = "pcflow.model.calls"
	AttrInvalid      = "pcflow.model.invalid"
	AttrErrorType    = "error.type"
	AttrModel        = "gen_ai.request.model"
	AttrOperation    = "gen_ai.operation.name"
	AttrInputTokens  = "gen_ai.usage.input_tokens"
	AttrOutputTokens = "gen_ai.usage.output_tokens"
)

// ModelSpanPrefix starts the name of a model call's span: "model
// decision", "model reflection", …
const ModelSpanPrefix = "model "

// stepSpan names the subtask and step an activity serves on its span (the
// Temporal interceptor's RunActivity span; a no-op one when tracing is
// off or the activity runs outside Temporal).
func stepSpan(ctx context.Context, subtask string, step int) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	if subtask != "" {
		span.SetAttributes(attribute.String(AttrSubtask, subtask))
	}
	if step > 0 {
		span.SetAttributes(attribute.Int(AttrStep, step))
	}
}

// actSpan names the kind of action an Act carries out on its span (only
// the kind: the text it types may be a secret's placeholder).
func actSpan(ctx context.Context, kind string) {
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.SetAttributes(attribute.String(AttrAction, kind))
	}
}

// modelCall is the span of one agent's call to its model: every request
// of it (re-asks included), under the activity's span.
type modelCall struct {
	span   trace.Span
	u      *screen.Usage
	before screen.Usage
}

// startModelCall starts the span of role's call, which adds what it costs
// to u. The tracer is the activity span's own, so with tracing off (or
// outside Temporal) the span is a no-op and costs nothing.
func startModelCall(ctx context.Context, role string, u *screen.Usage) (context.Context, *modelCall) {
	tracer := trace.SpanFromContext(ctx).TracerProvider().Tracer(TracerName)
	ctx, span := tracer.Start(ctx, ModelSpanPrefix+role, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String(AttrRole, role), attribute.String(AttrOperation, "chat")))
	m := &modelCall{span: span, u: u}
	if span.IsRecording() {
		m.before = *u
		m.before.ByModel = maps.Clone(u.ByModel)
	}
	return ctx, m
}

// TracerName is the instrumentation scope of the activities' spans.
const TracerName = "github.com/pcflow/pcflow/activities"

// end ends the span with what the call cost (models, requests, tokens),
// attrs (a verdict, an action kind) and, for a failure, its kind: never
// its message, which may quote the model's answer.
func (m *modelCall) end(err error, attrs ...attribute.KeyValue) {
	if !m.span.IsRecording() {
		m.span.End()
		return
	}
	var models []string
	for name, mu := range m.u.ByModel {
		if mu.Calls > m.before.ByModel[name].Calls {
			models = append(models, name)
		}
	}
	slices.Sort(models)
	m.span.SetAttributes(
		attribute.String(AttrModel, strings.Join(models, ",")),
		attribute.Int(AttrModelCalls, m.u.Calls-m.before.Calls),
		attribute.Int(AttrInputTokens, m.u.PromptTokens-m.before.PromptTokens),
		attribute.Int(AttrOutputTokens, m.u.CompletionTokens-m.before.CompletionTokens))
	m.span.SetAttributes(attrs...)
	if err != nil {
		kind := "error"
		var api *agent.APIError
		var inv *agent.InvalidOutputError
		switch {
		case errors.As(err, &api):
			kind = api.Type
		case errors.As(err, &inv):
			kind = agent.ErrTypeInvalidOutput
		case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
			kind = "canceled"
		}
		m.span.SetAttributes(attribute.String(AttrErrorType, kind))
		m.span.SetStatus(codes.Error, kind)
	}
	m.span.End()
}
