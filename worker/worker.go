// Package worker builds the Temporal workers of one pcflow process: the
// shared queue (workflows and text-only model activities) and, for a
// device, the device's own queue (observation, Decision, actions,
// Reflection, setup and checks).
package worker

import (
	"fmt"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/internal/signing"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/workflows"
)

// Config says what one process serves.
type Config struct {
	Client client.Client
	// Device is the device this process drives; empty serves no device.
	Device string
	// Workflows polls the shared queue: workflows, Progress and Manager.
	Workflows bool
	// Queue names the shared queue; empty: workflows.TaskQueue. A run with
	// a queue of its own (workflows.Options.Queue) is served here.
	Queue      string
	Activities *activities.Activities
	// Track, when set, learns which subtask workflow the device serves.
	Track *Tracker
	// DecisionKey verifies the signatures of the approve and answer
	// updates the workflows get (DecisionInterceptor); required with
	// Workflows, unless UnsignedDecisions.
	DecisionKey signing.Key
	// UnsignedDecisions lets the workflows take approvals and answers
	// nobody signed: for engine tests, never a pcflow command.
	UnsignedDecisions bool
}

// Worker is a set of started Temporal workers.
type Worker struct {
	workers []sdkworker.Worker
	atStop  []func()
	stopped sync.Once
	failed  chan error
}

// Fail stops the workers for err, which Failed then delivers.
func (w *Worker) Fail(err error) {
	select {
	case w.failed <- err:
	default:
	}
	w.Stop()
}

// Failed delivers the error that stopped the workers (Fail).
func (w *Worker) Failed() <-chan error { return w.failed }

// AtStop has Stop call f once the workers have stopped.
func (w *Worker) AtStop(f func()) { w.atStop = append(w.atStop, f) }

// RegisterWorkflows registers pcflow's workflows under their stable names.
func RegisterWorkflows(r sdkworker.WorkflowRegistry) {
	r.RegisterWorkflowWithOptions(workflows.InstructionWorkflow, workflow.RegisterOptions{Name: workflows.InstructionWorkflowName})
	r.RegisterWorkflowWithOptions(workflows.SubtaskWorkflow, workflow.RegisterOptions{Name: workflows.SubtaskWorkflowName})
	r.RegisterWorkflowWithOptions(workflows.SuiteWorkflow, workflow.RegisterOptions{Name: workflows.SuiteWorkflowName})
}

// RegisterMCP registers the MCP server's workflows (pcflow mcp polls
// their queue, workflows.MCPQueue).
func RegisterMCP(r sdkworker.WorkflowRegistry) {
	r.RegisterWorkflowWithOptions(workflows.MCPActWorkflow, workflow.RegisterOptions{Name: workflows.MCPActWorkflowName})
	r.RegisterWorkflowWithOptions(workflows.MCPObserveWorkflow, workflow.RegisterOptions{Name: workflows.MCPObserveWorkflowName})
}

// RegisterSharedActivities registers the text-only model activities.
func RegisterSharedActivities(r sdkworker.ActivityRegistry, a *activities.Activities) {
	r.RegisterActivityWithOptions(a.Progress, activity.RegisterOptions{Name: activities.ProgressName})
	r.RegisterActivityWithOptions(a.Manage, activity.RegisterOptions{Name: activities.ManageName})
	r.RegisterActivityWithOptions(a.AnswerAsUser, activity.RegisterOptions{Name: activities.AnswerAsUserName})
}

// RegisterDeviceActivities registers the activities that touch a device.
func RegisterDeviceActivities(r sdkworker.ActivityRegistry, a *activities.Activities) {
	// Those that use the screen or the input throughout take turns at it.
	r.RegisterActivityWithOptions(a.Decide, activity.RegisterOptions{Name: activities.DecideName})
	r.RegisterActivityWithOptions(activities.Exclusive(a, a.Act), activity.RegisterOptions{Name: activities.ActName})
	r.RegisterActivityWithOptions(activities.Exclusive(a, a.Observe), activity.RegisterOptions{Name: activities.ObserveName})
	r.RegisterActivityWithOptions(a.Reflect, activity.RegisterOptions{Name: activities.ReflectName})
	r.RegisterActivityWithOptions(a.ReplayStep, activity.RegisterOptions{Name: activities.ReplayStepName})
	r.RegisterActivityWithOptions(activities.Exclusive(a, a.Setup), activity.RegisterOptions{Name: activities.SetupName})
	r.RegisterActivityWithOptions(activities.Exclusive(a, a.Check), activity.RegisterOptions{Name: activities.CheckName})
	r.RegisterActivityWithOptions(activities.Exclusive(a, a.Reset), activity.RegisterOptions{Name: activities.ResetName})
	r.RegisterActivityWithOptions(activities.ExclusiveErr(a, a.Requires), activity.RegisterOptions{Name: activities.RequiresName})
	r.RegisterActivityWithOptions(activities.Exclusive(a, a.Zoom), activity.RegisterOptions{Name: activities.ZoomName})
	// The recording runs beside all of them for the whole task.
	r.RegisterActivityWithOptions(a.Record, activity.RegisterOptions{Name: activities.RecordName})
	r.RegisterActivityWithOptions(a.Video, activity.RegisterOptions{Name: activities.VideoName})
}

// New builds (but does not start) the workers.
func New(cfg Config) (*Worker, error) {
	if cfg.Client == nil {
		return nil, fmt.Errorf("worker: no Temporal client")
	}
	if !cfg.Workflows && cfg.Device == "" {
		return nil, fmt.Errorf("worker: serves neither workflows nor a device")
	}
	w := &Worker{failed: make(chan error, 1)}
	// Every activity result and error passes through redaction before it
	// leaves this process.
	var redact []interceptor.WorkerInterceptor
	if cfg.Activities != nil {
		redact = append(redact, &RedactInterceptor{Redactor: cfg.Activities.OutputRedactor()})
	}
	if cfg.Workflows {
		queue := cfg.Queue
		if queue == "" {
			queue = workflows.TaskQueue
		}
		ics := redact
		switch {
		case len(cfg.DecisionKey) > 0:
			ics = append(append([]interceptor.WorkerInterceptor{}, redact...), &DecisionInterceptor{Key: cfg.DecisionKey})
		case !cfg.UnsignedDecisions:
			return nil, fmt.Errorf("worker: runs workflows without a key to check who approves (DecisionKey)")
		}
		sw := sdkworker.New(cfg.Client, queue, sdkworker.Options{Interceptors: ics})
		RegisterWorkflows(sw)
		RegisterSharedActivities(sw, cfg.Activities)
		w.workers = append(w.workers, sw)
	}
	if cfg.Device != "" {
		ics := redact
		if cfg.Track != nil {
			ics = append(append([]interceptor.WorkerInterceptor{}, redact...), &trackInterceptor{t: cfg.Track})
		}
		// A device has one mouse and one keyboard: its activities take
		// turns at it (activities.useDevice), while the pipelined loop's
		// Reflection and next Decision wait for the model side by side; a
		// run's video (the Record activity) takes one more slot throughout.
		opts := sdkworker.Options{
			MaxConcurrentActivityExecutionSize: 4,
			Interceptors:                       ics,
		}
		if cfg.Activities != nil && cfg.Activities.AfterReset != nil {
			// The worker stops after a reset: Stop must wait for the
			// reset's result to reach the server, and nothing may start
			// here after it (retireInterceptor).
			opts.WorkerStopTimeout = 30 * time.Second
			opts.Interceptors = append(append([]interceptor.WorkerInterceptor{}, opts.Interceptors...), retireAfterReset(cfg.Activities, cfg.Device))
		}
		dw := sdkworker.New(cfg.Client, plan.DeviceQueue(cfg.Device), opts)
		RegisterDeviceActivities(dw, cfg.Activities)
		w.workers = append(w.workers, dw)
	}
	return w, nil
}

// Start starts every worker.
func (w *Worker) Start() error {
	for i, x := range w.workers {
		if err := x.Start(); err != nil {
			for _, y := range w.workers[:i] {
				y.Stop()
			}
			return fmt.Errorf("start worker: %w", err)
		}
	}
	return nil
}

// Stop stops every worker.
func (w *Worker) Stop() {
	w.stopped.Do(func() {
		for _, x := range w.workers {
			x.Stop()
		}
		for _, f := range w.atStop {
			f()
		}
	})
}
