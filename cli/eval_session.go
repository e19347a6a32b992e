package main

import (
	"cmp"
	"context"
	"fmt"
	"os"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/pcflow/pcflow/activities/agents"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/worker/host"
)

// suiteSession is a connected engine, the shared worker, the scripted
// model and the local devices with their workers.
type suiteSession struct {
	eng      *engine
	model    *resolvedModel
	cfg      agents.Config
	models   map[string]string
	endpoint string
	cleanup  []func()
	// keepDesktops leaves the local desktops (and the applications of the
	// running tasks) up, for `pcflow eval resume`.
	keepDesktops bool
}

func (s *suiteSession) close() {
	for i := len(s.cleanup) - 1; i >= 0; i-- {
		s.cleanup[i]()
	}
}

// startSuiteSession connects to Temporal, starts the scripted model when
// the suite has a script, the local desktops and their workers, and a
// worker for the workflows in this process.
func startSuiteSession(ctx context.Context, e *env, f *evalFlags, rec *suiteRecord, secrets map[string]string) (*suiteSession, int) {
	s := &suiteSession{}
	fail := func(err error) (*suiteSession, int) {
		s.close()
		fmt.Fprintln(e.stderr, "pcflow eval:", err)
		return nil, 1
	}
	eng, err := f.eng.connect(ctx, e, true)
	if err != nil {
		return fail(err)
	}
	s.eng = eng
	s.cleanup = append(s.cleanup, eng.close)
	spec := rec.Model
	if spec.Script == "" && spec.Replay == "" {
		spec.Script = rec.Script // a record written before Model
	}
	o := modelOpts{exchanges: exchangeLoader(ctx, eng, f.eng.state)}
	if spec.Script != "" {
		sc, err := scripted.Load(spec.Script)
		if err != nil {
			return fail(err)
		}
		o.script = &sc
	}
	m, err := resolveModel(e, spec, o)
	if err != nil {
		return fail(err)
	}
	s.cleanup = append(s.cleanup, m.close)
	if !f.quiet {
		fmt.Fprintln(e.stdout, m.line())
	}
	cfg := m.cfg
	s.model, s.cfg = m, cfg
	s.endpoint = cfg.BaseURL
	s.models = map[string]string{"decision": cfg.DecisionModel, "reflection": cfg.ReflectionModel, "progress": cfg.ProgressModel, "manager": cfg.ManagerModel,
		"judge": cmp.Or(cfg.JudgeModel, cfg.DecisionModel), "user": cmp.Or(cfg.UserModel, cfg.DecisionModel)}
	if f.newID != "" {
		// Before any device comes up: a second suite under the same id
		// would serve the first one's device queues.
		if d, err := eng.client.DescribeWorkflowExecution(ctx, f.newID, ""); err == nil && d.WorkflowExecutionInfo.Status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
			return fail(fmt.Errorf("%s is already running (a %s workflow): follow a suite with `pcflow eval resume %s`, or give this one another --id", f.newID, d.WorkflowExecutionInfo.GetType().GetName(), f.newID))
		}
	}
	logger, closeLog, err := host.FileLogger(f.eng.state)
	if err != nil {
		return fail(err)
	}
	s.cleanup = append(s.cleanup, closeLog)
	if rec.Local {
		exe, err := os.Executable()
		if err != nil {
			return fail(err)
		}
		for i, name := range rec.Devices {
			display := ""
			if i < len(rec.Displays) {
				display = rec.Displays[i]
			}
			desk, err := host.UpDesktop(ctx, display, f.eng.state)
			if err != nil {
				return fail(fmt.Errorf("device %s: %w", name, err))
			}
			if i >= len(rec.Displays) {
				rec.Displays = append(rec.Displays, desk.Display())
			}
			s.cleanup = append(s.cleanup, func() {
				if !s.keepDesktops {
					desk.Down()
				}
			})
			// A device worker sends its spans where this process does.
			childEnv := func(environ []string) []string { return f.eng.traceEnv(m.childEnv(environ)) }
			stop, err := host.StartDeviceWorker(host.DeviceWorkerOptions{Program: exe, State: f.eng.state, Suite: rec.ID, Device: name, Display: desk.Display(),
				Temporal: eng.addr, Environ: childEnv(desk.Environ()), Secrets: secrets, Sandbox: rec.Sandbox, Home: rec.Home, User: rec.User, Base: rec.Base,
				Revive: desk.Revive(ctx, childEnv),
				Lost:   func() string { return restartOnDevice(ctx, eng.client, rec.ID, name) }})
			if err != nil {
				return fail(fmt.Errorf("device %s: %w", name, err))
			}
			s.cleanup = append(s.cleanup, stop)
			if !f.quiet {
				fmt.Fprintf(e.stdout, "device %s: desktop %s, worker on queue %s; live view: pcflow view %s\n", name, desk.Display(), plan.DeviceQueue(name), name)
			}
		}
	}
	if f.detach {
		// The pool's workers run the suite: this process is about to go.
		return s, -1
	}
	// No device: "suite" only names the (unused) action log.
	w, err := host.StartWorker(host.WorkerConfig{Client: eng.client, State: f.eng.state, Device: "suite", Model: cfg, Secrets: secrets, Logger: logger,
		Workflows: true, Record: m.spec.Record})
	if err != nil {
		return fail(err)
	}
	s.cleanup = append(s.cleanup, w.Stop)
	return s, -1
}
