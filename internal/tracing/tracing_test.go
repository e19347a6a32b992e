package tracing

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/temporal"

	"github.com/pcflow/pcflow/internal/tracing/otlptest"
)

func TestEndpoint(t *testing.T) {
	for _, tc := range []struct {
		name    string
		flag    string
		env     map[string]string
		want    string
		wantErr string
	}{
		{name: "off", want: ""},
		{name: "flag is a base URL", flag: "http://127.0.0.1:4318", want: "http://127.0.0.1:4318/v1/traces"},
		{name: "flag with a path", flag: "https://otel.example/ingest/", want: "https://otel.example/ingest/v1/traces"},
		{name: "flag wins", flag: "http://a:4318", env: map[string]string{EnvTracesEndpoint: "http://b:4318/t"}, want: "http://a:4318/v1/traces"},
		{name: "traces variable as it is", env: map[string]string{EnvTracesEndpoint: "http://b:4318/t", EnvEndpoint: "http://c:4318"}, want: "http://b:4318/t"},
		{name: "base variable", env: map[string]string{EnvEndpoint: "http://c:4318"}, want: "http://c:4318/v1/traces"},
		{name: "not a URL", flag: "localhost:4318", wantErr: `--otel-endpoint "localhost:4318" is not an http:// or https:// URL`},
		{name: "grpc scheme", env: map[string]string{EnvEndpoint: "grpc://c:4317"}, wantErr: `$OTEL_EXPORTER_OTLP_ENDPOINT "grpc://c:4317"`},
	} {
		got, err := Endpoint(Options{Endpoint: tc.flag, Getenv: func(k string) string { return tc.env[k] }})
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: Endpoint = %q, %v; want an error with %q", tc.name, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: Endpoint = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}

// TestOffSetsNothing: without an endpoint no interceptor is set and
// Shutdown has nothing to do.
func TestOffSetsNothing(t *testing.T) {
	tr, err := Start(context.Background(), Options{Getenv: func(string) string { return "" }})
	if err != nil || tr.On() || tr.ClientInterceptors() != nil || tr.Shutdown(0) != nil {
		t.Fatalf("Start without an endpoint = %+v, %v; want tracing off", tr, err)
	}
}

// TestReplayedWorkflowIsOneSpan: the RunWorkflow spans of two executions
// of one workflow (a replay) get one id and are sent once; other spans
// keep ids of their own.
func TestReplayedWorkflowIsOneSpan(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(newOnceSent(sdktrace.NewSimpleSpanProcessor(exp))), sdktrace.WithIDGenerator(ids{}))
	tr := tp.Tracer("test")
	ctx, parent := tr.Start(context.Background(), "StartWorkflow:pcflow.Instruction")
	at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	var got []trace.SpanID
	for range 2 {
		s := startSpan(ctx, tr, "RunWorkflow:pcflow.Instruction", trace.WithTimestamp(at))
		got = append(got, s.SpanContext().SpanID())
		s.End()
	}
	other := startSpan(ctx, tr, "RunWorkflow:pcflow.Instruction", trace.WithTimestamp(at.Add(time.Second)))
	other.End()
	a := startSpan(ctx, tr, "RunActivity:Decide")
	b := startSpan(ctx, tr, "RunActivity:Decide")
	a.End()
	b.End()
	parent.End()
	if got[0] != got[1] || got[0] == other.SpanContext().SpanID() || a.SpanContext().SpanID() == b.SpanContext().SpanID() {
		t.Errorf("span ids: replayed %v, a later run %v, two activities %v %v; want the replays alike, the rest apart",
			got, other.SpanContext().SpanID(), a.SpanContext().SpanID(), b.SpanContext().SpanID())
	}
	names := map[string]int{}
	for _, s := range exp.GetSpans() {
		names[s.Name]++
	}
	if names["RunWorkflow:pcflow.Instruction"] != 2 || names["RunActivity:Decide"] != 2 || names["StartWorkflow:pcflow.Instruction"] != 1 {
		t.Errorf("spans sent: %v; want the replayed run once, the later run, two activities and the start", names)
	}
}

// BenchmarkSpan is what one span costs the process that makes it: started
// with a parent and three attributes, ended, batched, encoded and sent
// over OTLP/HTTP to a receiver on loopback (which decodes it, in this
// process too). A run of the 20-step benchmark task makes about 220.
func BenchmarkSpan(b *testing.B) {
	rcv := otlptest.Start(b)
	tr, err := Start(context.Background(), Options{Endpoint: rcv.URL, Process: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	tracer := tr.provider.Tracer("bench")
	ctx, root := tracer.Start(context.Background(), "root")
	b.ResetTimer()
	for i := range b.N {
		_, s := tracer.Start(ctx, "RunActivity:Decide", trace.WithAttributes(
			attribute.String("temporalWorkflowID", "bench/s"), attribute.String("pcflow.subtask", "s"), attribute.Int("pcflow.step", i)))
		s.End()
		if i%1024 == 1023 {
			// The batch's queue holds 2048: flush before it drops spans.
			tr.provider.ForceFlush(context.Background())
		}
	}
	root.End()
	if err := tr.Shutdown(10 * time.Second); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if got := len(rcv.Spans()); got != b.N+1 {
		b.Fatalf("the receiver has %d spans, want %d", got, b.N+1)
	}
}

// TestReceiverThatRefusesIsReportedOnce: a receiver that refuses every
// batch is reported once, with its URL and what to do, and no run waits
// on it.
func TestReceiverThatRefusesIsReportedOnce(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusBadRequest) // not retried
	}))
	defer srv.Close()
	var mu sync.Mutex
	var reports []error
	tr, err := Start(context.Background(), Options{Endpoint: srv.URL, Report: func(err error) {
		mu.Lock()
		defer mu.Unlock()
		reports = append(reports, err)
	}})
	if err != nil {
		t.Fatal(err)
	}
	tracer := tr.provider.Tracer("test")
	for range 3 {
		_, s := tracer.Start(context.Background(), "RunActivity:Decide")
		s.End()
		tr.provider.ForceFlush(context.Background())
	}
	if err := tr.Shutdown(5 * time.Second); err != nil {
		t.Fatalf("Shutdown = %v, want nil: the failure was reported already", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reports) != 1 || reports[0] == nil || !strings.Contains(reports[0].Error(), srv.URL+"/v1/traces") || !strings.Contains(reports[0].Error(), "--otel-endpoint") {
		t.Fatalf("reports = %v, want one naming %s/v1/traces and the flag", reports, srv.URL)
	}
}

// TestErrorsByKindOnly: a span of the interceptor that ends with an error
// records the error's type, never its message (which can quote a model's
// answer).
func TestErrorsByKindOnly(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	s := startSpan(context.Background(), tp.Tracer("test"), "RunActivity:Decide")
	err := temporal.NewApplicationError("the model said: type hunter2 into the field", "InvalidModelOutput")
	s.RecordError(err)
	s.SetStatus(codes.Error, err.Error())
	s.End()
	got := exp.GetSpans()
	if len(got) != 1 {
		t.Fatalf("%d spans, want 1", len(got))
	}
	sp := got[0]
	all := fmt.Sprint(sp.Status, sp.Attributes, sp.Events)
	if strings.Contains(all, "hunter2") || !strings.Contains(all, "InvalidModelOutput") || sp.Status.Code != codes.Error {
		t.Errorf("span status %v, attributes %v, events %v: want the error's type and code, not its message", sp.Status, sp.Attributes, sp.Events)
	}
}
