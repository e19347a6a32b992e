package tracing

import (
	"context"
	crand "crypto/rand"
	"crypto/sha256"
	"strings"
	"sync"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// A workflow's code runs again whenever its worker replays it: after the
// worker's cache dropped it, and for a query on a workflow no longer
// cached (pcflow's progress display asks each run and subtask once more
// when it ends). Temporal's interceptor starts a RunWorkflow span every
// time. So that a workflow execution is one span, the RunWorkflow span's
// id is derived from what every replay of it shares — its parent (the
// span that started it, carried in the workflow's header), its name and
// its start time (the workflow's) — and a span with an id this process
// already sent is not sent again. The spans made under a replay (activities
// it starts anew) hang under the same id; the span sent is the first to
// end.

const runWorkflowPrefix = "RunWorkflow:"

type seedKey struct{}

// startSpan is the interceptor's SpanStarter: a RunWorkflow span gets its
// id from its seed (ids); every span records an error by its kind only
// (kindOnly).
func startSpan(ctx context.Context, t trace.Tracer, name string, opts ...trace.SpanStartOption) trace.Span {
	if strings.HasPrefix(name, runWorkflowPrefix) {
		if parent := trace.SpanContextFromContext(ctx); parent.IsValid() {
			cfg := trace.NewSpanStartConfig(opts...)
			at := cfg.Timestamp()
			ctx = context.WithValue(ctx, seedKey{}, parent.SpanID().String()+"|"+name+"|"+at.UTC().Format("2006-01-02T15:04:05.000000000"))
		}
	}
	_, span := t.Start(ctx, name, opts...)
	return &kindOnly{Span: span}
}

// ids is the tracer provider's id generator: random ids, but a span id
// derived from the seed in the context when there is one.
type ids struct{}

var _ sdktrace.IDGenerator = ids{}

func (ids) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	var tid trace.TraceID
	for !tid.IsValid() {
		crand.Read(tid[:])
	}
	return tid, ids{}.NewSpanID(ctx, tid)
}

func (ids) NewSpanID(ctx context.Context, tid trace.TraceID) trace.SpanID {
	var sid trace.SpanID
	if seed, ok := ctx.Value(seedKey{}).(string); ok {
		h := sha256.Sum256(append(tid[:], seed...))
		copy(sid[:], h[:8])
		if sid.IsValid() {
			return sid
		}
	}
	for !sid.IsValid() {
		crand.Read(sid[:])
	}
	return sid
}

// onceSent passes each RunWorkflow span on once: a replay's span, with
// the same id, is dropped. It remembers the last maxSent ids.
type onceSent struct {
	sdktrace.SpanProcessor
	mu   sync.Mutex
	sent map[trace.SpanID]bool
	ring []trace.SpanID
	next int
}

const maxSent = 4096

func newOnceSent(next sdktrace.SpanProcessor) *onceSent {
	return &onceSent{SpanProcessor: next, sent: map[trace.SpanID]bool{}, ring: make([]trace.SpanID, maxSent)}
}

func (p *onceSent) OnEnd(s sdktrace.ReadOnlySpan) {
	if strings.HasPrefix(s.Name(), runWorkflowPrefix) {
		id := s.SpanContext().SpanID()
		p.mu.Lock()
		seen := p.sent[id]
		if !seen {
			delete(p.sent, p.ring[p.next])
			p.ring[p.next] = id
			p.next = (p.next + 1) % maxSent
			p.sent[id] = true
		}
		p.mu.Unlock()
		if seen {
			return
		}
	}
	p.SpanProcessor.OnEnd(s)
}
