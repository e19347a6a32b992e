package activities

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/office"
)

// Registered activity names. Workflows call activities through a nil
// *Activities, so Temporal derives each name from the method name; these
// constants pin them, and a test fails if a method is renamed, so a Go
// rename can never silently change what running histories refer to.
const (
	DecideName   = "Decide"
	ActName      = "Act"
	ReflectName  = "Reflect"
	ObserveName  = "Observe"
	ProgressName = "Progress"
	ManageName   = "Manage"
	SetupName    = "Setup"
	CheckName    = "Check"
)

// Error types of non-retryable device failures; workflows branch on these.
// Model failures carry the agent.ErrType* types.
const (
	ErrTypeDevice = "DeviceError"
	ErrTypeSetup  = "SetupFailed"
	// ErrTypeSetupCommand is a setup command of the task's own that ran and
	// exited with a failure: the task's error (a file its cache lacks, a
	// command that does not work), neither the device's nor the agent's.
	ErrTypeSetupCommand = "SetupCommandFailed"
)

// Act outcomes.
const (
	OutcomeDone    = "done"
	OutcomeUnknown = "unknown" // started before a crash; not run again
	OutcomeError   = "error"   // the device refused (no such window, …)
)

// Activities holds the dependencies of every activity. Workflows call its
// methods through a nil *Activities; a worker registers a real one, wired
// by worker.NewActivities.
type Activities struct {
	devLock deviceLock
	Device  Device
	// Platform is the platform of Device (plan.Platforms: "linux"), the
	// one its worker serves; "" when unknown (a test's device): then any
	// task's platform is taken.
	Platform  string
	Model     Model
	Artifacts ArtifactStore
	Log       *ActionLog
	Logger    *slog.Logger
	// CompileInstruction compiles the Manager's proposed instructions; Manage
	// needs it.
	CompileInstruction InstructionCompiler
	// Secrets are the values of sensitive variables, substituted for their
	// placeholders only here, on the device.
	Secrets map[string]string
	// RecordExchanges stores every model request and answer as artifacts.
	RecordExchanges bool
	Now             Clock
	// SettleDelay is how long Reflect waits for the screen to settle.
	SettleDelay time.Duration
	// AfterReset, when set, runs at the end of every successful Reset,
	// before its result is reported: a worker in an overlay sandbox stops
	// taking work there, to be started again in a fresh sandbox.
	AfterReset func()
	// Office converts office files for the checks that read them; nil:
	// LibreOffice (office.Soffice). A test that checks the same files many
	// times shares an office.Cache here.
	Office office.Converter
	// Confine, when set, wraps the command line of every command a task
	// runs (setup commands, command checks) before it starts: the overlay
	// sandbox runs them where the worker's network and capabilities are
	// out of reach (see x11.TaskJail).
	Confine func(argv []string) []string
	// VideoDir holds the recordings of running tasks (the Record
	// activity) until the Video activity stores them; empty: a folder
	// under the system's temporary one.
	VideoDir string

	// HostSecrets are the operator's credentials in the worker's own
	// environment (model keys, the database password: see HostSecrets),
	// by name. No task program is given them (TaskEnv); a value that
	// still shows in a command's output is masked before it is stored or
	// sent (OutputRedactor).
	HostSecrets map[string]string

	redactOnce sync.Once
	redact     *Redactor
	outOnce    sync.Once
	outRedact  *Redactor
	images     recentImages
}

// confine wraps a task's command line (Confine).
func (a *Activities) confine(argv []string) []string {
	if a.Confine == nil {
		return argv
	}
	return a.Confine(argv)
}

// office is the converter the checks use.
func (a *Activities) office() office.Converter {
	if a.Office != nil {
		return a.Office
	}
	return office.Soffice{}
}

// logger logs through the redactor: no secret reaches a log.
func (a *Activities) logger() *slog.Logger {
	l := a.Logger
	if l == nil {
		l = slog.Default()
	}
	return slog.New(a.OutputRedactor().Handler(l.Handler()))
}

// Redactor is the Activities' redactor over Secrets, built at its first
// use (NewRedactor compiles a pattern per secret) and shared from then
// on: Secrets must be set before the Activities serve.
func (a *Activities) Redactor() *Redactor {
	a.redactOnce.Do(func() { a.redact = NewRedactor(a.Secrets) })
	return a.redact
}

// OutputRedactor masks the task's secrets and the operator's
// (HostSecrets): it redacts what leaves the worker (every activity's
// result and error, logs) and what a task's commands print. Redactor,
// over the task's secrets only, decides what a secret placeholder
// resolves to and whether an observation must be read by OCR first.
func (a *Activities) OutputRedactor() *Redactor {
	a.outOnce.Do(func() {
		if len(a.HostSecrets) == 0 {
			a.outRedact = a.Redactor()
			return
		}
		a.outRedact = NewRedactor(a.outputSecrets())
	})
	return a.outRedact
}

// model is the Model that speaks a task's profiles (see ProfiledModel);
// a profile that cannot be had fails the step without retrying.
func (a *Activities) model(profiles map[string]string) (Model, error) {
	pm, ok := a.Model.(ProfiledModel)
	if len(profiles) == 0 || !ok {
		return a.Model, nil
	}
	m, err := pm.ForTask(profiles)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), agent.ErrTypeModelRequest, nil)
	}
	return m, nil
}

// heartbeat keeps a long activity alive until the returned stop is called;
// details, if any, go with every heartbeat.
func heartbeat(ctx context.Context, details ...any) func() {
	if !activity.IsActivity(ctx) {
		return func() {}
	}
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(2 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx, details...)
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			<-stopped
		})
	}
}
