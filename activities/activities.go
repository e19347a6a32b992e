package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
)

// Registered activity names. Workflows call activities through a nil
// *Activities, so Temporal derives each name from the method name; these
// constants pin them, and a test fails if a method is renamed, so a Go
// rename can never silently change what running histories refer to.
const (
	DecideName   = "Decide"
	ActName      = "Act"
	ReflectName  = "Reflect"
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
)

// Act outcomes.
const (
	OutcomeDone    = "done"
	OutcomeUnknown = "unknown" // started before a crash; not run again
	OutcomeError   = "error"   // the device refused (no such window, …)
)

// Activities holds the dependencies of every activity. Workflows call its
// methods through a nil *Activities; the worker registers a real one.
type Activities struct {
	Device    Device
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
}

// logger logs through the redactor: no secret reaches a log.
func (a *Activities) logger() *slog.Logger {
	l := a.Logger
	if l == nil {
		l = slog.Default()
	}
	return slog.New(a.redactor().Handler(l.Handler()))
}

func (a *Activities) redactor() *Redactor { return NewRedactor(a.Secrets) }

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

// modelAttempt accounts for one attempt of a model activity. What earlier
// attempts spent travels in the activity's heartbeat details (Temporal
// hands them to the next attempt), so the usage a result or a failure
// reports covers every attempt: a run that fails still says what it cost.
type modelAttempt struct {
	ctx   context.Context
	prior screen.Usage
	stop  func()
}

func (a *Activities) startModelAttempt(ctx context.Context) *modelAttempt {
	m := &modelAttempt{ctx: ctx}
	if activity.IsActivity(ctx) && activity.HasHeartbeatDetails(ctx) {
		_ = activity.GetHeartbeatDetails(ctx, &m.prior)
	}
	m.stop = heartbeat(ctx, m.prior)
	return m
}

// finish adds the earlier attempts to u and turns a model error into the
// Temporal error of its kind, carrying u as its details. A retryable
// failure is logged as it happens.
func (a *Activities) finish(m *modelAttempt, u *screen.Usage, err error) error {
	m.stop()
	u.Add(m.prior)
	if err == nil {
		return nil
	}
	if activity.IsActivity(m.ctx) {
		activity.RecordHeartbeat(m.ctx, *u)
	}
	var api *agent.APIError
	if errors.As(err, &api) && api.Retryable && activity.IsActivity(m.ctx) {
		info := activity.GetInfo(m.ctx)
		a.logger().Warn("model call failed; retrying", "activity", info.ActivityType.Name, "attempt", info.Attempt,
			"error", api.Msg)
	}
	return modelError(err, *u)
}

// modelError turns a model error into a Temporal error of the right kind,
// with the usage so far as its details.
func modelError(err error, u screen.Usage) error {
	var api *agent.APIError
	if errors.As(err, &api) {
		if api.Retryable {
			return temporal.NewApplicationErrorWithCause(api.Msg, api.Type, err, u)
		}
		return temporal.NewNonRetryableApplicationError(api.Msg, api.Type, err, u)
	}
	var inv *agent.InvalidOutputError
	if errors.As(err, &inv) {
		return temporal.NewNonRetryableApplicationError(inv.Error(), agent.ErrTypeInvalidOutput, err, u)
	}
	return err
}

func (a *Activities) recorder(refs *[]string) func(agent.Exchange) {
	if !a.RecordExchanges {
		return nil
	}
	return func(ex agent.Exchange) {
		b, err := json.Marshal(ex)
		if err == nil {
			// A copy is redacted: the agent goes on with the answer.
			b, err = a.redactor().JSON(b)
		}
		if err != nil {
			a.logger().Warn("model exchange not recorded", "role", ex.Role, "error", err)
			return
		}
		ref, err := a.Artifacts.Put(b, "json")
		if err != nil {
			a.logger().Warn("model exchange not recorded", "role", ex.Role, "error", err)
			return
		}
		*refs = append(*refs, ref)
	}
}

// observe captures the screen, draws the Set-of-Marks once and stores both
// images and the element list; it returns the annotated image for the model.
func (a *Activities) observe(ctx context.Context) (*screen.Screen, image.Image, screen.Observation, error) {
	s, err := a.Device.Observe(ctx)
	if err != nil {
		return nil, nil, screen.Observation{}, fmt.Errorf("observe: %w", err)
	}
	// What the screen shows is stored and sent to the model: never a
	// secret that was typed into a visible field. The pixels may show one
	// that no element names, so OCR reads them first.
	if r := a.redactor(); !r.Empty() {
		// A device without OCR (ErrNoOCR) has its element text masked only;
		// a device whose OCR fails must not store what it cannot check.
		if _, err := a.words(ctx, s); err != nil && !errors.Is(err, ErrNoOCR) {
			return nil, nil, screen.Observation{}, fmt.Errorf("observe: reading the screen for secrets to hide: %w", err)
		}
		r.Screen(s)
	}
	var ann image.Image
	obs := screen.Observation{ActiveWindow: s.ActiveWindow, Windows: s.Windows, ElementCount: len(s.Elements)}
	if s.Image != nil {
		b := s.Image.Bounds()
		obs.Width, obs.Height = b.Dx(), b.Dy()
		if obs.Screenshot, err = a.putPNG(s.Image); err != nil {
			return nil, nil, obs, err
		}
		ann = Annotate(s.Image, s.Elements)
		if obs.Annotated, err = a.putPNG(ann); err != nil {
			return nil, nil, obs, err
		}
	}
	els, _ := json.Marshal(observationFile{Elements: s.Elements, Words: s.Words, Clipboard: s.Clipboard})
	if obs.Elements, err = a.Artifacts.Put(els, "json"); err != nil {
		return nil, nil, obs, err
	}
	return s, ann, obs, nil
}

// ErrNoOCR says the device cannot read text from the screen.
var ErrNoOCR = errors.New("this device has no OCR")

// words returns the screen's OCR words, reading them through the device
// when Observe did not.
func (a *Activities) words(ctx context.Context, s *screen.Screen) ([]screen.Word, error) {
	if s.Words != nil {
		return s.Words, nil
	}
	r, ok := a.Device.(TextReader)
	if !ok || s.Image == nil {
		return nil, ErrNoOCR
	}
	w, err := r.ReadText(ctx, s.Image)
	if err != nil {
		return nil, fmt.Errorf("OCR: %w", err)
	}
	if w == nil {
		w = []screen.Word{}
	}
	s.Words = w
	return w, nil
}

type observationFile struct {
	Elements  []screen.Element `json:"elements"`
	Words     []screen.Word    `json:"words,omitempty"`
	Clipboard string           `json:"clipboard,omitempty"`
}

func (a *Activities) putPNG(img image.Image) (string, error) {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return "", fmt.Errorf("encode png: %w", err)
	}
	return a.Artifacts.Put(buf.Bytes(), "png")
}

func (a *Activities) loadObservation(obs screen.Observation) (image.Image, observationFile, error) {
	var f observationFile
	b, err := a.Artifacts.Get(obs.Elements)
	if err != nil {
		return nil, f, err
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, f, fmt.Errorf("element list %s: %w", obs.Elements, err)
	}
	if obs.Annotated == "" {
		return nil, f, nil
	}
	img, err := a.loadPNG(obs.Annotated)
	return img, f, err
}

// DecideInput is the turn the Decision agent decides on.
type DecideInput struct {
	agent.Turn
	// Acknowledged are the provider's safety checks a person approved on
	// the previous step: the request sends the call they were on and its
	// output with acknowledged_safety_checks (OpenAI's computer tool).
	Acknowledged []SafetyCheck `json:"acknowledged,omitempty"`
	// Profiles are the task's profiles block (agent → profile name).
	Profiles map[string]string `json:"profiles,omitempty"`
}

// DecideResult is one chosen action and the observation it was chosen on.
type DecideResult struct {
	Thought     string             `json:"thought"`
	Action      screen.Action      `json:"action"`
	Batch       []screen.Action    `json:"batch,omitempty"` // run after Action, in order, in the same step
	Observation screen.Observation `json:"observation"`
	Usage       screen.Usage       `json:"usage"`
	Invalid     int                `json:"invalid,omitempty"`
	Errors      []string           `json:"errors,omitempty"`
	PromptBytes int                `json:"prompt_bytes"`
	Exchanges   []string           `json:"exchanges,omitempty"`
	// Facts: what a policy sees of Action and of each Batch action, in
	// order (see plan.ActionFacts).
	Facts []plan.ActionFacts `json:"facts,omitempty"`
	// SafetyChecks are the provider's own pending safety checks (OpenAI's
	// computer tool): the action runs only after a person approves them,
	// and the next call acknowledges them.
	SafetyChecks []SafetyCheck `json:"safety_checks,omitempty"`
}

// SafetyCheck is a provider's pending safety check on a proposed action.
type SafetyCheck = agent.SafetyCheck

// Decide observes the device and asks the Decision agent for one action.
func (a *Activities) Decide(ctx context.Context, in DecideInput) (*DecideResult, error) {
	m := a.startModelAttempt(ctx)
	defer m.stop()
	s, ann, obs, err := a.observe(ctx)
	if err != nil {
		return nil, err
	}
	res := &DecideResult{Observation: obs}
	var locate func(string) ([]screen.Rect, error)
	if _, ok := a.Device.(TextReader); ok || s.Words != nil {
		locate = func(text string) ([]screen.Rect, error) {
			w, err := a.words(ctx, s)
			return FindText(w, text), err
		}
	}
	// What a person typed (answers, notes, reasons) comes through the
	// workflow unredacted: a secret's value in it stops here.
	a.redactor().Value(&in.Turn)
	model, err := a.model(in.Profiles)
	if err != nil {
		return nil, err
	}
	zoom, err := a.zoomView(in.Turn.Zoom)
	if err != nil {
		return nil, err
	}
	d, err := model.Decide(ctx, agent.DecisionInput{
		Turn: in.Turn, ActiveWindow: s.ActiveWindow, Windows: s.Windows, Clipboard: s.Clipboard,
		Elements: s.Elements, Image: ann, Locate: locate, Record: a.recorder(&res.Exchanges),
		Acknowledged: in.Acknowledged, Zoom: zoom,
	}, &res.Usage)
	if d != nil {
		res.Thought, res.Action, res.Invalid, res.Errors, res.PromptBytes = d.Thought, d.Action, d.Invalid, d.Errors, d.Prompt
		res.Batch, res.SafetyChecks = d.Batch, d.SafetyChecks
	}
	if err := a.finish(m, &res.Usage, err); err != nil {
		return res, err
	}
	res.Facts = actionFacts(s, a.redactor(), append([]screen.Action{res.Action}, res.Batch...)...)
	return res, nil
}

// ActInput is one action to execute, with an id unique to its step.
type ActInput struct {
	ID     string        `json:"id"`
	Action screen.Action `json:"action"`
}

// ActResult says what became of the action.
type ActResult struct {
	Outcome string `json:"outcome"`
	Note    string `json:"note,omitempty"`
	Error   string `json:"error,omitempty"`
}

// Act executes an action at most once per id (see the package doc).
func (a *Activities) Act(ctx context.Context, in ActInput) (*ActResult, error) {
	defer heartbeat(ctx)()
	// The log answers for this run only: the same action id in a later run
	// of a reused workflow id is a new action.
	run := ""
	if activity.IsActivity(ctx) {
		run = activity.GetInfo(ctx).WorkflowExecution.RunID
	}
	if e, ok := a.Log.Last(in.ID, run); ok {
		switch e.Phase {
		case PhaseFinished:
			return &ActResult{Outcome: OutcomeDone, Note: e.Note}, nil
		case PhaseFailed:
			return &ActResult{Outcome: OutcomeError, Error: e.Error}, nil
		default:
			a.logger().Warn("action outcome unknown: not repeating it", "action_id", in.ID, "action", e.Summary)
			return &ActResult{Outcome: OutcomeUnknown, Note: "the worker stopped while this action ran; it was not repeated"}, nil
		}
	}
	now := time.Now
	if a.Now != nil {
		now = a.Now
	}
	red := a.redactor()
	logged := in.Action
	red.Value(&logged)
	act := in.Action
	for _, f := range []*string{&act.Text, &act.Start, &act.End} {
		v, err := red.Resolve(*f, a.Secrets)
		if err != nil {
			return nil, err
		}
		*f = v
	}
	if err := a.Log.Append(LogEntry{ID: in.ID, Run: run, Phase: PhaseStarted, Time: now(), Action: logged, Summary: in.Action.Summary()}); err != nil {
		return nil, err
	}
	note, err := a.Device.Act(ctx, act)
	// What the device says goes to history, logs and the model: never with
	// a secret in it.
	note = red.String(note)
	if err != nil {
		msg := red.String(err.Error())
		if lerr := a.Log.Append(LogEntry{ID: in.ID, Run: run, Phase: PhaseFailed, Time: now(), Action: logged, Error: msg, Summary: in.Action.Summary()}); lerr != nil {
			return nil, lerr
		}
		return &ActResult{Outcome: OutcomeError, Error: msg}, nil
	}
	if err := a.Log.Append(LogEntry{ID: in.ID, Run: run, Phase: PhaseFinished, Time: now(), Action: logged, Note: note, Summary: in.Action.Summary()}); err != nil {
		return nil, err
	}
	return &ActResult{Outcome: OutcomeDone, Note: note}, nil
}

// ReflectInput is one action to judge.
type ReflectInput struct {
	Subtask     string             `json:"subtask"`
	Instruction string             `json:"instruction"`
	Step        int                `json:"step"`
	Action      screen.Action      `json:"action"`
	Thought     string             `json:"thought"`
	Outcome     ActResult          `json:"outcome"`
	Before      screen.Observation `json:"before"`
	// Profiles are the task's profiles block (agent → profile name).
	Profiles map[string]string `json:"profiles,omitempty"`
}

// ReflectResult is the verdict and the observation after the action.
type ReflectResult struct {
	Verdict   string             `json:"verdict"`
	Reason    string             `json:"reason"`
	After     screen.Observation `json:"after"`
	Usage     screen.Usage       `json:"usage"`
	Exchanges []string           `json:"exchanges,omitempty"`
}

// Reflect observes the device again and asks the Reflection agent whether
// the action did what was intended.
func (a *Activities) Reflect(ctx context.Context, in ReflectInput) (*ReflectResult, error) {
	m := a.startModelAttempt(ctx)
	defer m.stop()
	if a.SettleDelay > 0 {
		select {
		case <-time.After(a.SettleDelay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	after, afterImg, obs, err := a.observe(ctx)
	if err != nil {
		return nil, err
	}
	res := &ReflectResult{After: obs}
	beforeImg, before, err := a.loadObservation(in.Before)
	if err != nil {
		a.logger().Warn("before-observation unavailable; reflecting on the after screen only", "error", err)
	}
	note := in.Outcome.Note
	if in.Outcome.Error != "" {
		note = "the device reported an error: " + in.Outcome.Error
	}
	model, err := a.model(in.Profiles)
	if err != nil {
		return nil, err
	}
	r, err := model.Reflect(ctx, agent.ReflectionInput{
		Subtask: in.Subtask, Instruction: in.Instruction, Action: in.Action.Summary(), Thought: in.Thought,
		Note: note, Step: in.Step, BeforeWindow: in.Before.ActiveWindow, AfterWindow: after.ActiveWindow,
		Before: before.Elements, After: after.Elements, BeforeImage: beforeImg, AfterImage: afterImg,
		Record: a.recorder(&res.Exchanges),
	}, &res.Usage)
	if err := a.finish(m, &res.Usage, err); err != nil {
		return res, err
	}
	res.Verdict, res.Reason = r.Verdict, r.Reason
	return res, nil
}

// ProgressInput is the step the Progress agent folds into its summary: the
// turn just taken and its outcome.
type ProgressInput struct {
	agent.Turn
	agent.Outcome
	// Profiles are the task's profiles block (agent → profile name).
	Profiles map[string]string `json:"profiles,omitempty"`
}

// ProgressResult is the new summary and memory.
type ProgressResult struct {
	Summary     string       `json:"summary"`
	Memory      string       `json:"memory"`
	Usage       screen.Usage `json:"usage"`
	PromptBytes int          `json:"prompt_bytes"`
	Exchanges   []string     `json:"exchanges,omitempty"`
}

// Progress asks the Progress agent (text only) to update summary and memory.
func (a *Activities) Progress(ctx context.Context, in ProgressInput) (*ProgressResult, error) {
	m := a.startModelAttempt(ctx)
	defer m.stop()
	res := &ProgressResult{}
	r := a.redactor()
	r.Value(&in.Turn)
	r.Value(&in.Outcome)
	model, err := a.model(in.Profiles)
	if err != nil {
		return nil, err
	}
	p, err := model.UpdateProgress(ctx, agent.ProgressInput{Turn: in.Turn, Outcome: in.Outcome, Record: a.recorder(&res.Exchanges)}, &res.Usage)
	if err := a.finish(m, &res.Usage, err); err != nil {
		return res, err
	}
	res.Summary, res.Memory, res.PromptBytes = p.Summary, p.Memory, p.Prompt
	return res, nil
}

// ManageInput is a free-text instruction to decompose.
type ManageInput struct {
	Instruction string        `json:"instruction"`
	Devices     []plan.Device `json:"devices"`
	Knowledge   []string      `json:"knowledge,omitempty"`
	MaxSteps    int           `json:"max_steps"`
	// Profiles are the task's profiles block (agent → profile name).
	Profiles map[string]string `json:"profiles,omitempty"`
}

// ManageResult is the Manager's plan, validated like an HCL plan.
type ManageResult struct {
	Subtasks  []plan.Subtask `json:"subtasks"`
	Usage     screen.Usage   `json:"usage"`
	Invalid   int            `json:"invalid,omitempty"`
	Exchanges []string       `json:"exchanges,omitempty"`
}

// Manage asks the Manager agent to decompose the instruction into subtasks,
// valid against the same rules as HCL subtasks; an invalid plan is re-asked
// with the problem.
func (a *Activities) Manage(ctx context.Context, in ManageInput) (*ManageResult, error) {
	m := a.startModelAttempt(ctx)
	defer m.stop()
	res := &ManageResult{}
	var devs []string
	for _, d := range in.Devices {
		devs = append(devs, strings.TrimSuffix(d.Name+": "+d.Description, ": "))
	}
	var built []plan.Subtask
	if a.CompileInstruction == nil {
		return nil, temporal.NewNonRetryableApplicationError("manage: this worker has no instruction compiler (Activities.CompileInstruction)", agent.ErrTypeModelRequest, nil)
	}
	validate := func(ps []agent.PlannedSubtask) error {
		built = built[:0]
		outs := map[string][]string{}
		for _, s := range ps {
			outs[s.Name] = []string{}
			for _, o := range s.Outputs {
				outs[s.Name] = append(outs[s.Name], o.Key)
			}
		}
		for _, s := range ps {
			st := plan.Subtask{Name: s.Name, Device: s.Device, DependsOn: s.DependsOn, MaxSteps: in.MaxSteps}
			if st.Device == "" && len(in.Devices) == 1 {
				st.Device = in.Devices[0].Name
			}
			x, err := a.CompileInstruction(s.Instruction, outs)
			if err != nil {
				return fmt.Errorf("subtask %q: %w", s.Name, err)
			}
			st.Instruction = x
			for _, o := range s.Outputs {
				st.Outputs = append(st.Outputs, plan.Output{Key: o.Key, Description: o.Description})
			}
			built = append(built, st)
		}
		p := plan.Plan{Devices: in.Devices, Subtasks: built}
		return p.Validate()
	}
	model, err := a.model(in.Profiles)
	if err != nil {
		return nil, err
	}
	p, err := model.Manage(ctx, agent.ManagerInput{
		Instruction: in.Instruction, Devices: devs, Knowledge: in.Knowledge, Validate: validate,
		Record: a.recorder(&res.Exchanges),
	}, &res.Usage)
	if p != nil {
		res.Invalid = p.Invalid
	}
	if err := a.finish(m, &res.Usage, err); err != nil {
		return res, err
	}
	res.Subtasks = built
	return res, nil
}

// SetupInput is one rendered setup step.
type SetupInput struct {
	Name          string        `json:"name"`
	WriteFiles    []FileWrite   `json:"write_files,omitempty"`
	Command       []string      `json:"command,omitempty"`
	Launch        []string      `json:"launch,omitempty"`
	WaitForWindow string        `json:"wait_for_window,omitempty"`
	WaitTimeout   time.Duration `json:"wait_timeout,omitempty"`
	Commands      [][]string    `json:"commands,omitempty"`
	Presses       []KeyPress    `json:"presses,omitempty"`
	CloseWindow   string        `json:"close_window,omitempty"`
	Sleep         time.Duration `json:"sleep,omitempty"`
}

// KeyPress is a key combination sent to the window whose title matches
// Window ("" is the active window).
type KeyPress struct {
	Window string   `json:"window,omitempty"`
	Keys   []string `json:"keys"`
}

// FileWrite is a file a setup step writes.
type FileWrite struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// SetupResult says what a setup step did.
type SetupResult struct {
	Notes []string `json:"notes"`
}

// Setup prepares the device: writes files, runs a command, launches a
// program (unless a window matching wait_for_window is already open, so a
// retry does not launch it twice) and waits for its window.
func (a *Activities) Setup(ctx context.Context, in SetupInput) (*SetupResult, error) {
	defer heartbeat(ctx)()
	res := &SetupResult{}
	red := a.redactor()
	// fail keeps the cause, redacted: its text reaches history too.
	fail := func(cause error, format string, args ...any) error {
		msg := red.String(fmt.Sprintf("setup %q: ", in.Name) + fmt.Sprintf(format, args...))
		if cause != nil {
			cause = errors.New(red.String(cause.Error()))
		}
		return temporal.NewNonRetryableApplicationError(msg, ErrTypeSetup, cause)
	}
	for _, w := range in.WriteFiles {
		path, err := red.Resolve(w.Path, a.Secrets)
		if err != nil {
			return nil, err
		}
		content, err := red.Resolve(w.Content, a.Secrets)
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fail(err, "%v", err)
		}
		// A file that holds a secret is readable by its owner only.
		mode := os.FileMode(0o644)
		if content != w.Content {
			mode = 0o600
		}
		if err := writeFileMode(path, []byte(content), mode); err != nil {
			return nil, fail(err, "%v", err)
		}
		res.Notes = append(res.Notes, "wrote "+w.Path)
	}
	for _, cmd := range append([][]string{in.Command}, in.Commands...) {
		if len(cmd) == 0 {
			continue
		}
		argv, err := a.resolveArgv(cmd)
		if err != nil {
			return nil, err
		}
		out, code, err := runCommand(ctx, argv, a.secretEnv())
		if err != nil || code != 0 {
			return nil, fail(err, "%s", commandFailure(cmd, code, err, red.String(out)))
		}
		res.Notes = append(res.Notes, "ran "+strings.Join(cmd, " "))
	}
	var re *regexp.Regexp
	if in.WaitForWindow != "" {
		var err error
		if re, err = regexp.Compile(in.WaitForWindow); err != nil {
			return nil, fail(err, "wait_for_window: %v", err)
		}
	}
	if len(in.Launch) > 0 {
		already := false
		if re != nil {
			if wins, err := a.Device.Windows(ctx); err == nil {
				already = matchAny(re, wins)
			}
		}
		if !already {
			argv, err := a.resolveArgv(in.Launch)
			if err != nil {
				return nil, err
			}
			if err := a.Device.Launch(ctx, argv); err != nil {
				return nil, fail(err, "launch %s: %v", strings.Join(in.Launch, " "), err)
			}
			res.Notes = append(res.Notes, "launched "+strings.Join(in.Launch, " "))
		}
	}
	if re != nil {
		timeout := in.WaitTimeout
		if timeout == 0 {
			timeout = 60 * time.Second
		}
		deadline := time.Now().Add(timeout)
		var wins []string
		for {
			var err error
			wins, err = a.Device.Windows(ctx)
			if err == nil && matchAny(re, wins) {
				break
			}
			if time.Now().After(deadline) {
				why := ""
				if r, ok := a.Device.(LaunchReporter); ok {
					if exits := r.LaunchFailures(); len(exits) > 0 {
						why = "; a launched program failed: " + exits[len(exits)-1]
					}
				}
				return nil, fail(nil, "no window matching %q after %s (open windows: %s)%s", in.WaitForWindow, timeout, strings.Join(wins, " | "), why)
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(200 * time.Millisecond):
			}
		}
		res.Notes = append(res.Notes, "window "+in.WaitForWindow+" is open")
	}
	for _, kp := range in.Presses {
		if err := a.toFront(ctx, kp.Window); err != nil {
			return nil, fail(err, "press %s: %v", strings.Join(kp.Keys, "+"), err)
		}
		if _, err := a.Device.Act(ctx, screen.Action{Kind: screen.ActHotkey, Keys: kp.Keys}); err != nil {
			return nil, fail(err, "press %s: %v", strings.Join(kp.Keys, "+"), err)
		}
		res.Notes = append(res.Notes, fmt.Sprintf("pressed %s in %q", strings.Join(kp.Keys, "+"), kp.Window))
	}
	if in.CloseWindow != "" {
		if err := a.closeWindows(ctx, in.CloseWindow, in.WaitTimeout); err != nil {
			return nil, fail(err, "close_window: %v", err)
		}
		res.Notes = append(res.Notes, "closed "+in.CloseWindow)
	}
	if in.Sleep > 0 {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(in.Sleep):
		}
		res.Notes = append(res.Notes, "slept "+in.Sleep.String())
	}
	return res, nil
}

// toFront brings the first window whose title matches pattern to the
// front ("" leaves the active window).
func (a *Activities) toFront(ctx context.Context, pattern string) error {
	if pattern == "" {
		return nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return err
	}
	wins, err := a.Device.Windows(ctx)
	if err != nil {
		return err
	}
	for _, w := range wins {
		if re.MatchString(w) {
			_, err := a.Device.Act(ctx, screen.Action{Kind: screen.ActSwitchWindow, Title: w})
			return err
		}
	}
	return fmt.Errorf("no window matching %q (open windows: %s)", pattern, strings.Join(wins, " | "))
}

// closeWindows closes every window whose title matches pattern with
// alt+F4 and waits (up to timeout, default 10s) until none is left. No
// matching window is not an error: the application may have closed.
func (a *Activities) closeWindows(ctx context.Context, pattern string, timeout time.Duration) error {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return err
	}
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	deadline := time.Now().Add(timeout)
	for {
		wins, err := a.Device.Windows(ctx)
		if err != nil {
			return err
		}
		var open string
		for _, w := range wins {
			if re.MatchString(w) {
				open = w
				break
			}
		}
		if open == "" {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%q is still open after %s (a dialog may ask to save)", open, timeout)
		}
		if _, err := a.Device.Act(ctx, screen.Action{Kind: screen.ActSwitchWindow, Title: open}); err != nil {
			return err
		}
		if _, err := a.Device.Act(ctx, screen.Action{Kind: screen.ActHotkey, Keys: []string{"alt", "F4"}}); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func matchAny(re *regexp.Regexp, s []string) bool {
	for _, x := range s {
		if re.MatchString(x) {
			return true
		}
	}
	return false
}

// resolveArgv refuses a command line that holds a secret placeholder: a
// command line is visible to every user of the machine (ps, /proc), so
// secrets reach commands only through the environment (see secretEnv).
// The language refuses such task files already; this guards plans built
// another way.
func (a *Activities) resolveArgv(argv []string) ([]string, error) {
	for _, s := range argv {
		if m := plan.SecretPattern.FindString(s); m != "" {
			return nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf(
				"%s in a command line: command lines are visible to every user (ps), so secrets are not put there; "+
					"the command reads it from the environment variable %s instead",
				m, plan.SecretEnv(plan.SecretPattern.FindStringSubmatch(m)[1])), ErrTypeSecret, nil)
		}
	}
	return argv, nil
}

// secretEnv passes every sensitive variable to commands as
// PCFLOW_SECRET_NAME (readable only by the user running the command).
func (a *Activities) secretEnv() []string {
	var env []string
	for name, v := range a.Secrets {
		env = append(env, plan.SecretEnv(name)+"="+v)
	}
	return env
}

func writeFileMode(path string, b []byte, mode os.FileMode) error {
	if err := os.WriteFile(path, b, mode); err != nil {
		return err
	}
	return os.Chmod(path, mode)
}

func runCommand(ctx context.Context, argv []string, env []string) (string, int, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code, err = ee.ExitCode(), nil
	} else if err != nil {
		code = -1
	}
	return out.String(), code, err
}
