package tracing

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"
)

// The environment variables of OpenTelemetry's exporters that name the
// receiver: the traces' own URL, used as it is, or the base URL of every
// signal, to which /v1/traces is added.
const (
	EnvTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	EnvEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
)

// TracerName is the instrumentation scope of pcflow's spans.
const TracerName = "github.com/pcflow/pcflow"

// Options say where a process sends its traces.
type Options struct {
	// Endpoint is the OTLP/HTTP receiver's base URL (http://HOST:4318),
	// as OTEL_EXPORTER_OTLP_ENDPOINT: spans go to its /v1/traces. Empty:
	// the environment's (Getenv).
	Endpoint string
	// Getenv reads the environment; nil: no variable is set.
	Getenv func(string) string
	// Process names the pcflow command in the spans' resource
	// (pcflow.process: run, worker, eval).
	Process string
	// Report hears that spans could not be sent (once, until a batch is
	// sent again, which it hears as nil); nil: nobody is told.
	Report func(error)
}

// Tracing is a process's tracing: off (the zero value, or nil), or a
// tracer provider exporting over OTLP/HTTP with the Temporal interceptor
// that uses it.
type Tracing struct {
	provider    *sdktrace.TracerProvider
	interceptor interceptor.Interceptor
	url         string
}

// Endpoint resolves the traces' URL from the options: Endpoint with
// /v1/traces added, else the environment's; "" when none is set.
func Endpoint(o Options) (string, error) {
	getenv := o.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	raw, base, from := o.Endpoint, true, "--otel-endpoint"
	if raw == "" {
		raw, base, from = getenv(EnvTracesEndpoint), false, "$"+EnvTracesEndpoint
	}
	if raw == "" {
		raw, base, from = getenv(EnvEndpoint), true, "$"+EnvEndpoint
	}
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s %q is not an http:// or https:// URL of an OTLP/HTTP receiver: give one such as http://localhost:4318 (an OpenTelemetry Collector's OTLP/HTTP port)", from, raw)
	}
	if base {
		u.Path = strings.TrimRight(u.Path, "/") + "/v1/traces"
	}
	return u.String(), nil
}

// Start starts tracing when an endpoint is set (see Endpoint); without
// one it returns a Tracing that is off. Nothing is sent until a span ends,
// and a receiver that does not answer loses spans, never fails a run.
func Start(ctx context.Context, o Options) (*Tracing, error) {
	endpoint, err := Endpoint(o)
	if err != nil || endpoint == "" {
		return &Tracing{}, err
	}
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(endpoint))
	if err != nil {
		return nil, fmt.Errorf("OTLP exporter for %s: %w", endpoint, err)
	}
	// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over these.
	res, err := resource.Merge(
		resource.NewSchemaless(attribute.String("service.name", "pcflow"), attribute.String("pcflow.process", o.Process)),
		resource.Environment())
	if err != nil {
		return nil, fmt.Errorf("trace resource: %w", err)
	}
	// A workflow replayed is one span still (replay.go).
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(newOnceSent(sdktrace.NewBatchSpanProcessor(&reporting{SpanExporter: exp, url: endpoint, report: o.Report}))),
		sdktrace.WithIDGenerator(ids{}), sdktrace.WithResource(res))
	ic, err := temporalotel.NewTracingInterceptor(temporalotel.TracerOptions{
		Tracer:      tp.Tracer(TracerName),
		SpanStarter: startSpan,
		// pcflow's progress display queries its runs twice a second:
		// those would be most of the spans, and say nothing of the run.
		DisableQueryTracing: true,
	})
	if err != nil {
		tp.Shutdown(ctx)
		return nil, fmt.Errorf("Temporal tracing interceptor: %w", err)
	}
	return &Tracing{provider: tp, interceptor: ic, url: endpoint}, nil
}

// reporting tells Report when spans cannot be sent, instead of
// OpenTelemetry's global error handler (which would print every failed
// batch), and once per outage.
type reporting struct {
	sdktrace.SpanExporter
	url     string
	report  func(error)
	mu      sync.Mutex
	failing bool
}

func (r *reporting) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := r.SpanExporter.ExportSpans(ctx, spans)
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case err != nil && !r.failing:
		r.failing = true
		if r.report != nil {
			r.report(fmt.Errorf("cannot send spans to %s (%w): spans are dropped until it answers; start the receiver or fix --otel-endpoint / $%s", r.url, err, EnvEndpoint))
		}
	case err == nil && r.failing:
		r.failing = false
		if r.report != nil {
			r.report(nil)
		}
	}
	return nil
}

// On reports whether spans are sent.
func (t *Tracing) On() bool { return t != nil && t.provider != nil }

// URL is where the spans go ("" when off).
func (t *Tracing) URL() string {
	if !t.On() {
		return ""
	}
	return t.url
}

// ClientInterceptors are the interceptors of a Temporal client (and of
// every worker made from it): none when off.
func (t *Tracing) ClientInterceptors() []interceptor.ClientInterceptor {
	if !t.On() {
		return nil
	}
	return []interceptor.ClientInterceptor{t.interceptor}
}

// WorkerInterceptors are the same interceptor for a worker (or a
// replayer) not made from a traced client: none when off.
func (t *Tracing) WorkerInterceptors() []interceptor.WorkerInterceptor {
	if !t.On() {
		return nil
	}
	return []interceptor.WorkerInterceptor{t.interceptor}
}

// Shutdown sends the spans not yet sent and stops; it waits at most
// timeout for the receiver.
func (t *Tracing) Shutdown(timeout time.Duration) error {
	if !t.On() {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := t.provider.Shutdown(ctx); err != nil {
		return fmt.Errorf("send the last spans to %s: %w", t.url, err)
	}
	return nil
}
