// Package enginetest brings up a real engine for tests: an embedded
// Temporal server in memory, the scripted model server on loopback and a
// worker serving the shared queue and one or more devices.
package enginetest

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	sdklog "go.temporal.io/sdk/log"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agents"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/artifacts"
	"github.com/pcflow/pcflow/internal/control"
	"github.com/pcflow/pcflow/internal/freeport"
	"github.com/pcflow/pcflow/internal/signing"
	"github.com/pcflow/pcflow/internal/tserver"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/worker"
	"github.com/pcflow/pcflow/workflows"
)

// Env is a running engine.
type Env struct {
	Server    *tserver.Server
	Client    client.Client
	Model     *scripted.Server
	Artifacts artifacts.Dir
	Dir       string
	// DecisionKey is the key the workers check approvals and answers
	// with (worker.DecisionInterceptor); Signer signs with it.
	DecisionKey signing.Key
	t           testing.TB
}

// Options change the engine Start brings up.
type Options struct {
	// Interceptors are the client's (and so every worker's): tracing's,
	// say (internal/tracing).
	Interceptors []interceptor.ClientInterceptor
}

// Start starts a server and the scripted model.
func Start(t testing.TB, script scripted.Script) *Env {
	t.Helper()
	return StartWith(t, script, Options{})
}

// StartWith is Start with options.
func StartWith(t testing.TB, script scripted.Script, o Options) *Env {
	t.Helper()
	// The server's internal ports are picked free and bound a moment
	// later; an outgoing connection can take one in between (CI saw
	// "bind: address already in use"): start again on fresh ports.
	var srv *tserver.Server
	var err error
	for attempt := 1; ; attempt++ {
		srv, err = tserver.Start(tserver.Options{Port: freePort(t)})
		if err == nil || attempt == 3 || !strings.Contains(err.Error(), "address already in use") {
			break
		}
		t.Logf("start temporal (attempt %d): a port was taken meanwhile; again", attempt)
	}
	if err != nil {
		t.Fatalf("start temporal: %v", err)
	}
	t.Cleanup(srv.Stop)
	var out io.Writer = io.Discard
	if os.Getenv("PCFLOW_TEST_LOG") != "" {
		out = os.Stderr
	}
	c, err := client.Dial(client.Options{HostPort: srv.HostPort, Namespace: tserver.Namespace, Interceptors: o.Interceptors,
		Logger: sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelWarn})))})
	if err != nil {
		t.Fatalf("dial temporal: %v", err)
	}
	t.Cleanup(c.Close)
	m := scripted.New(script)
	if err := m.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	dir := t.TempDir()
	key, err := signing.LoadOrCreate(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &Env{Server: srv, Client: c, Model: m, Dir: dir, Artifacts: artifacts.Dir{Root: filepath.Join(dir, "artifacts")}, DecisionKey: key, t: t}
}

// Signer signs a test's decisions with the workers' key under the name
// and uid the test gives (a pcflow command signs as its process's user).
func (e *Env) Signer() control.Signer { return asGiven{e.DecisionKey} }

type asGiven struct{ k signing.Key }

func (a asGiven) Sign(c *workflows.Claim) (string, error) {
	c.At = time.Now().Unix()
	return a.k.Sign(*c), nil
}

// ModelConfig is an agents config pointing at the scripted server.
func (e *Env) ModelConfig() agents.Config {
	return agents.Config{BaseURL: e.Model.URL, APIKey: "test-key", DecisionModel: "scripted", ReflectionModel: "scripted",
		ProgressModel: "scripted", ManagerModel: "scripted", MaxTokens: 512, Timeout: 30 * time.Second,
		ImageMaxSide: 1024, ImageFormat: "png", MaxReasks: 2, Scripted: true}
}

// Activities builds the activities for one device.
func (e *Env) Activities(dev activities.Device, name string, cfg agents.Config) *activities.Activities {
	e.t.Helper()
	acts, err := worker.NewActivities(worker.ActivitiesConfig{Device: dev, Model: cfg, ActionLog: filepath.Join(e.Dir, "actions-"+name+".jsonl"),
		Artifacts: e.Artifacts, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		e.t.Fatal(err)
	}
	return acts
}

// Serve starts a worker; workflows says whether it also polls the shared queue.
func (e *Env) Serve(device string, acts *activities.Activities, workflowsToo bool) *worker.Worker {
	e.t.Helper()
	w, err := worker.New(worker.Config{Client: e.Client, Device: device, Workflows: workflowsToo, Activities: acts, DecisionKey: e.DecisionKey})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(w.Stop)
	return w
}

// Run starts a run of p and waits for its result.
func (e *Env) Run(ctx context.Context, id string, p plan.Plan, o workflows.Options) (*workflows.InstructionResult, error) {
	return e.RunInput(ctx, id, workflows.InstructionInput{Plan: p, Options: o})
}

// RunInput starts a run of in (a plan with its variables' values, a
// replay, options) and waits for its result.
func (e *Env) RunInput(ctx context.Context, id string, in workflows.InstructionInput) (*workflows.InstructionResult, error) {
	run, err := e.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: workflows.TaskQueue},
		workflows.InstructionWorkflowName, in)
	if err != nil {
		return nil, err
	}
	var res workflows.InstructionResult
	err = run.Get(ctx, &res)
	return &res, err
}

func freePort(t testing.TB) int {
	p, err := freeport.Pick("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	return p
}
