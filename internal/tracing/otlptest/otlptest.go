// Package otlptest is a minimal receiver of OTLP/HTTP traces for tests:
// an HTTP server on loopback that takes what OpenTelemetry's OTLP/HTTP
// exporters send — the real wire protocol, a protobuf
// ExportTraceServiceRequest POSTed to /v1/traces, gzipped or not — decodes
// it with OpenTelemetry's own protobuf types (go.opentelemetry.io/proto/otlp)
// and keeps the spans for the test to read. It is not a collector: no
// OTLP/JSON, no gRPC, no partial-success replies, no processing or export.
package otlptest

import (
	"compress/gzip"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"
)

// Span is one received span, its ids in hex and every attribute value as
// text.
type Span struct {
	TraceID, SpanID, ParentID string
	Name                      string
	Kind                      string
	Scope                     string
	Attrs                     map[string]string
	Resource                  map[string]string
	Status                    string // OTLP's status code name
	StatusMessage             string
	Events                    []Event
}

// Event is a span's event (an error recorded on it, say).
type Event struct {
	Name  string
	Attrs map[string]string
}

// Receiver is a running receiver.
type Receiver struct {
	// URL is the receiver's base URL (an OTEL_EXPORTER_OTLP_ENDPOINT):
	// spans are taken at URL + "/v1/traces".
	URL string

	srv      *httptest.Server
	mu       sync.Mutex
	spans    []Span
	requests int
	bad      []string
}

// Start starts a receiver on loopback, stopped when the test ends.
func Start(t testing.TB) *Receiver {
	t.Helper()
	r := &Receiver{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", r.export)
	r.srv = httptest.NewServer(mux)
	r.URL = r.srv.URL
	t.Cleanup(r.srv.Close)
	return r
}

func (r *Receiver) export(w http.ResponseWriter, req *http.Request) {
	body, err := r.read(req)
	if err == nil && !strings.HasPrefix(req.Header.Get("Content-Type"), "application/x-protobuf") {
		err = fmt.Errorf("Content-Type %q, want application/x-protobuf", req.Header.Get("Content-Type"))
	}
	var msg coltracepb.ExportTraceServiceRequest
	if err == nil {
		err = proto.Unmarshal(body, &msg)
	}
	if err != nil {
		r.mu.Lock()
		r.bad = append(r.bad, err.Error())
		r.mu.Unlock()
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var got []Span
	for _, rs := range msg.GetResourceSpans() {
		res := attrs(rs.GetResource().GetAttributes())
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				sp := Span{
					TraceID: hex.EncodeToString(s.GetTraceId()), SpanID: hex.EncodeToString(s.GetSpanId()),
					ParentID: hex.EncodeToString(s.GetParentSpanId()), Name: s.GetName(), Kind: s.GetKind().String(),
					Scope: ss.GetScope().GetName(), Attrs: attrs(s.GetAttributes()), Resource: res,
					Status: s.GetStatus().GetCode().String(), StatusMessage: s.GetStatus().GetMessage(),
				}
				for _, e := range s.GetEvents() {
					sp.Events = append(sp.Events, Event{Name: e.GetName(), Attrs: attrs(e.GetAttributes())})
				}
				got = append(got, sp)
			}
		}
	}
	r.mu.Lock()
	r.spans = append(r.spans, got...)
	r.requests++
	r.mu.Unlock()
	b, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(b)
}

func (r *Receiver) read(req *http.Request) ([]byte, error) {
	var in io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		z, err := gzip.NewReader(req.Body)
		if err != nil {
			return nil, fmt.Errorf("gzip body: %w", err)
		}
		in = z
	}
	return io.ReadAll(io.LimitReader(in, 64<<20))
}

// attrs renders OTLP attributes as text, by key.
func attrs(kvs []*commonpb.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.GetKey()] = value(kv.GetValue())
	}
	return m
}

func value(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return fmt.Sprint(x.IntValue)
	case *commonpb.AnyValue_DoubleValue:
		return fmt.Sprint(x.DoubleValue)
	case *commonpb.AnyValue_BoolValue:
		return fmt.Sprint(x.BoolValue)
	case *commonpb.AnyValue_BytesValue:
		return string(x.BytesValue)
	case *commonpb.AnyValue_ArrayValue:
		var parts []string
		for _, e := range x.ArrayValue.GetValues() {
			parts = append(parts, value(e))
		}
		return "[" + strings.Join(parts, ",") + "]"
	case *commonpb.AnyValue_KvlistValue:
		m := attrs(x.KvlistValue.GetValues())
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, k+"="+m[k])
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	return ""
}

// Spans returns the spans received so far.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Span(nil), r.spans...)
}

// Requests is how many export requests were taken.
func (r *Receiver) Requests() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests
}

// Rejected lists why requests were refused (not OTLP protobuf).
func (r *Receiver) Rejected() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.bad...)
}

// WaitFor waits up to d for ok to hold of the spans received and returns
// them; it fails the test saying what was waited for (what) when it does
// not.
func (r *Receiver) WaitFor(t testing.TB, d time.Duration, what string, ok func([]Span) bool) []Span {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		spans := r.Spans()
		if ok(spans) {
			return spans
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s; the receiver has %d spans from %d requests (rejected: %v): %s", d, what, len(spans), r.Requests(), r.Rejected(), Names(spans))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Names counts the spans by name: "name ×n, …", sorted.
func Names(spans []Span) string {
	n := map[string]int{}
	for _, s := range spans {
		n[s.Name]++
	}
	names := make([]string, 0, len(n))
	for k := range n {
		names = append(names, k)
	}
	sort.Strings(names)
	for i, k := range names {
		names[i] = fmt.Sprintf("%s ×%d", k, n[k])
	}
	return strings.Join(names, ", ")
}

// Tree is a trace's spans by id, and their children, for walking.
type Tree struct {
	ByID     map[string]Span
	Children map[string][]Span
}

// TreeOf indexes spans.
func TreeOf(spans []Span) Tree {
	t := Tree{ByID: map[string]Span{}, Children: map[string][]Span{}}
	for _, s := range spans {
		t.ByID[s.SpanID] = s
		if s.ParentID != "" {
			t.Children[s.ParentID] = append(t.Children[s.ParentID], s)
		}
	}
	return t
}

// Below returns the spans under s (at any depth) named name.
func (t Tree) Below(s Span, name string) []Span {
	var out []Span
	var walk func(id string)
	walk = func(id string) {
		for _, c := range t.Children[id] {
			if c.Name == name {
				out = append(out, c)
			}
			walk(c.SpanID)
		}
	}
	walk(s.SpanID)
	return out
}

// Ancestor returns the nearest span above s named name.
func (t Tree) Ancestor(s Span, name string) (Span, bool) {
	for p, ok := t.ByID[s.ParentID]; ok; p, ok = t.ByID[p.ParentID] {
		if p.Name == name {
			return p, true
		}
	}
	return Span{}, false
}
