package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/enginetest"
	"github.com/pcflow/pcflow/internal/httpguard"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/workflows"
)

// engine is a real Temporal server, a worker for device "desk" on a fake
// device, and a Server over them.
func engine(t testing.TB) (*enginetest.Env, *fakedevice.Device, *Server) {
	t.Helper()
	e := enginetest.Start(t, scripted.Script{})
	dev := fakedevice.New("OK", "Cancel")
	e.Serve("desk", e.Activities(dev, "desk", e.ModelConfig()), false)
	s, err := New(Options{Client: e.Client, Artifacts: e.Artifacts, DecisionKey: e.DecisionKey})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return e, dev, s
}

// connect is a client session on a new session of s, in memory.
func connect(t testing.TB, s *Server) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	srv, ss := s.newMCP()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _ = srv.Run(ctx, st); ss.release() }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "engine-test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); cancel() })
	return cs
}

// call calls a tool and decodes its result; it returns the tool's error.
func call(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any, out any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		return res.Content[0].(*mcp.TextContent).Text
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
	return ""
}

// TestActOnAnElementOnce: an act on an element of the last observation
// clicks its centre on the device, once however often it is asked.
func TestActOnAnElementOnce(t *testing.T) {
	_, dev, s := engine(t)
	cs := connect(t, s)
	var o ObserveResult
	if e := call(t, cs, "observe", map[string]any{"device": "desk"}, &o); e != "" || len(o.Elements) != 2 || o.Elements[1].Name != "Cancel" {
		t.Fatalf("observe = %+v, %q; want the fake device's two buttons", o, e)
	}
	act := map[string]any{"device": "desk", "request_id": "cancel-1", "kind": "click", "element": 2}
	for i, recorded := range []bool{false, true, true} {
		var r ActResult
		if e := call(t, cs, "act", act, &r); e != "" || r.Outcome != activities.OutcomeDone || r.Recorded != recorded {
			t.Fatalf("act #%d = %+v, %q; want done, recorded %v", i+1, r, e, recorded)
		}
	}
	got := dev.Actions()
	c := o.Elements[1]
	if len(got) != 1 || got[0].Kind != screen.ActClick || got[0].X != c.X+c.W/2 || got[0].Y != c.Y+c.H/2 {
		t.Errorf("the device did %+v, want one click at Cancel's centre", got)
	}
	if e := call(t, cs, "act", map[string]any{"device": "desk", "request_id": "off", "kind": "click", "x": 5000, "y": 1}, &ActResult{}); !strings.Contains(e, "off the 800x600 screen") {
		t.Errorf("a click off the screen: error %q, want it refused", e)
	}
}

// BenchmarkActRoundTrip: one click on the fake device through the MCP
// server (in memory, and over loopback HTTP with the token), through its
// workflow started directly, and as an Act activity inside a running
// workflow (a pcflow step's act).
func BenchmarkActRoundTrip(b *testing.B) {
	e, _, s := engine(b)
	click := func(id string) map[string]any {
		return map[string]any{"device": "desk", "request_id": id, "kind": "click", "x": 10, "y": 10}
	}
	// Every act a request id of its own, across the runs of each
	// sub-benchmark (a repeated one would be answered from its record).
	nonce, n := time.Now().UnixNano(), 0
	next := func(kind string) string { n++; return fmt.Sprintf("%s-%d-%d", kind, nonce, n) }
	b.Run("mcp-in-memory", func(b *testing.B) {
		cs := connect(b, s)
		for i := 0; i < b.N; i++ {
			var r ActResult
			if e := call(b, cs, "act", click(next("mem")), &r); e != "" || r.Outcome != activities.OutcomeDone {
				b.Fatalf("act = %+v, %q", r, e)
			}
		}
	})
	b.Run("mcp-http", func(b *testing.B) {
		token := strings.Repeat("t", 32)
		srv := httptest.NewServer(s.Handler(httpguard.Guard{Token: token}))
		defer srv.Close()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		for i := 0; i < b.N; i++ {
			var r ActResult
			if e := call(b, cs, "act", click(next("http")), &r); e != "" || r.Outcome != activities.OutcomeDone {
				b.Fatalf("act = %+v, %q", r, e)
			}
		}
	})
	b.Run("act-workflow", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			id := next("wf")
			run, err := e.Client.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: workflows.MCPActWorkflowID("desk", id), TaskQueue: workflows.MCPQueue},
				workflows.MCPActWorkflowName, workflows.MCPActInput{Device: "desk", RequestID: id, Action: screen.Action{Kind: screen.ActClick, X: 10, Y: 10}})
			if err != nil {
				b.Fatal(err)
			}
			if err := run.Get(context.Background(), nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("act-activity", func(b *testing.B) {
		w := sdkworker.New(e.Client, "bench", sdkworker.Options{})
		w.RegisterWorkflowWithOptions(actLoop, workflow.RegisterOptions{Name: "bench.actLoop"})
		if err := w.Start(); err != nil {
			b.Fatal(err)
		}
		defer w.Stop()
		b.ResetTimer()
		run, err := e.Client.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{TaskQueue: "bench"}, "bench.actLoop", b.N)
		if err != nil {
			b.Fatal(err)
		}
		if err := run.Get(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
	})
}

// actLoop runs n clicks, each an Act activity on desk's queue.
func actLoop(ctx workflow.Context, n int) error {
	var a *activities.Activities
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{TaskQueue: plan.DeviceQueue("desk"), StartToCloseTimeout: time.Minute})
	for i := range n {
		in := activities.ActInput{ID: fmt.Sprintf("loop-%d", i), Action: screen.Action{Kind: screen.ActClick, X: 10, Y: 10}}
		if err := workflow.ExecuteActivity(ctx, a.Act, in).Get(ctx, nil); err != nil {
			return err
		}
	}
	return nil
}

// bearer adds the token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestPolicySeesTheObservedWindow: the operator's policy decides an act on
// what the session last observed (the window in front, the element), as
// it decides a run's step on what Decide saw.
func TestPolicySeesTheObservedWindow(t *testing.T) {
	e, dev, _ := engine(t)
	pol := &plan.Policy{Source: "test", Rules: []plan.PolicyRule{{Name: "not_in_fake_app", Window: "^Fake App$", Target: "^Cancel$", Decision: plan.PolicyDeny, Message: "no cancelling"}}}
	s, err := New(Options{Client: e.Client, Artifacts: e.Artifacts, DecisionKey: e.DecisionKey, Policy: pol})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	cs := connect(t, s)
	var o ObserveResult
	if e := call(t, cs, "observe", map[string]any{"device": "desk"}, &o); e != "" {
		t.Fatal(e)
	}
	var r ActResult
	if e := call(t, cs, "act", map[string]any{"device": "desk", "request_id": "cancel-2", "kind": "click", "element": 2}, &r); e != "" ||
		r.Outcome != workflows.MCPOutcomeDenied || !strings.Contains(r.Error, "no cancelling") {
		t.Fatalf("a click on Cancel in Fake App = %+v, %q; want denied by the window's rule", r, e)
	}
	if e := call(t, cs, "act", map[string]any{"device": "desk", "request_id": "ok-2", "kind": "click", "element": 1}, &r); e != "" || r.Outcome != activities.OutcomeDone {
		t.Fatalf("a click on OK = %+v, %q; want done", r, e)
	}
	if got := dev.Actions(); len(got) != 1 || got[0].X != o.Elements[0].X+o.Elements[0].W/2 {
		t.Errorf("the device did %+v, want only the click on OK", got)
	}
}
