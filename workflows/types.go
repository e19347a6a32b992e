package workflows

import (
	"time"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
)

// Registered names: stable across Go renames.
const (
	InstructionWorkflowName = "pcflow.Instruction"
	SubtaskWorkflowName     = "pcflow.Subtask"
	// TaskQueue is the shared queue for workflows and text-only model calls.
	TaskQueue = "pcflow"
	// ProgressQuery returns live progress.
	ProgressQuery = "progress"
)

// Termination reasons: a fixed set.
const (
	ReasonSuccess        = "success"
	ReasonAgentFailed    = "agent_failed"
	ReasonStepLimit      = "step_limit"
	ReasonTimeout        = "timeout"
	ReasonInvalidOutput  = "invalid_output"
	ReasonDeviceError    = "device_error"
	ReasonCheckFailed    = "check_failed"
	ReasonBudgetExceeded = "budget_exceeded"
	ReasonCancelled      = "cancelled"
	ReasonSkipped        = "skipped" // a predecessor failed; never started
	// ReasonInfeasible: an infeasible task whose agent rightly gave up
	// (a success).
	ReasonInfeasible = "infeasible"
	// ReasonNotInfeasible: an infeasible task whose agent claimed success.
	ReasonNotInfeasible = "claimed_infeasible_done"
	// ReasonHarnessError: the harness failed the run before the agent
	// could be judged (the start state was wrong: its Error starts with
	// StartStateError). Such a run counts in no success rate.
	ReasonHarnessError = "harness_error"
)

// StartStateError begins the Error of a run whose screen failed the
// task's start checks after setup; DesktopLostError that of a run whose
// device lost the desktop its setup prepared (an X server that died and
// came back empty), which failed the run.
const (
	StartStateError  = "start state"
	DesktopLostError = "desktop lost"
)

// Subtask statuses.
const (
	StatusPending   = "pending"
	StatusRunning   = "running"
	StatusSucceeded = "succeeded"
	StatusFailed    = "failed"
	StatusSkipped   = "skipped"
)

// Options tune a run; zero values mean defaults.
type Options struct {
	// DeviceTimeout is how long a device activity may wait for its worker
	// before the device is reported offline.
	DeviceTimeout time.Duration `json:"device_timeout,omitempty"`
	// ContinueAsNewEvents continues a subtask as new once its history has
	// this many events.
	ContinueAsNewEvents int `json:"continue_as_new_events,omitempty"`
	// ModelTimeout bounds one model activity attempt.
	ModelTimeout time.Duration `json:"model_timeout,omitempty"`
	// SearchAttributes upserts PcflowTask and PcflowStatus (the server must
	// have them registered; the embedded server does).
	SearchAttributes bool `json:"search_attributes,omitempty"`
	// Bind maps the task's logical devices to the physical devices whose
	// queues serve them (a suite's lease); unbound devices are their own.
	Bind map[string]string `json:"bind,omitempty"`
	// Queue is the run's own task queue: its workflows and text-only model
	// calls (Progress, Manager). Empty: the shared TaskQueue. pcflow run
	// gives each run a queue of its own (and binds its local device to a
	// queue of its own through Bind), so concurrent runs on one server
	// never take each other's work.
	Queue string `json:"queue,omitempty"`
	// Approvers are the people the operator lets approve, reject and answer
	// for the run: "NAME" (the user name) or "NAME=UID" (and that uid).
	// Empty: anyone who reaches the server.
	Approvers []string `json:"approvers,omitempty"`
	// Loop is the agent loop of tasks that do not say (plan.Loops; empty:
	// pipelined).
	Loop string `json:"loop,omitempty"`
	// Video records every device's screen during each task (see Video).
	Video bool `json:"video,omitempty"`
}

// queue returns the run's task queue.
func (o Options) queue() string {
	if o.Queue != "" {
		return o.Queue
	}
	return TaskQueue
}

func (o Options) withDefaults() Options {
	if o.DeviceTimeout == 0 {
		o.DeviceTimeout = 60 * time.Second
	}
	if o.ContinueAsNewEvents == 0 {
		o.ContinueAsNewEvents = 2000
	}
	if o.ModelTimeout == 0 {
		o.ModelTimeout = 5 * time.Minute
	}
	return o
}

// InstructionInput starts a run.
type InstructionInput struct {
	Plan    plan.Plan `json:"plan"`
	Options Options   `json:"options"`
	// Done holds outputs of subtasks finished in an earlier run
	// (pcflow resume --from): they are not run again.
	Done map[string]SubtaskResult `json:"done,omitempty"`
	// SkipSetup skips the setup steps (a rerun on a prepared device).
	SkipSetup bool `json:"skip_setup,omitempty"`
	// Vars are the values of the task's variables that are not sensitive,
	// kept in history so that a later replay of this run finds them in
	// what it typed (see Templated).
	Vars map[string]string `json:"vars,omitempty"`
	// Replay, when set, replays an earlier successful run's actions
	// before the agent decides anything (see replay.go).
	Replay *Replay `json:"replay,omitempty"`
}

// SubtaskInput starts (or continues) one subtask.
type SubtaskInput struct {
	Subtask     plan.Subtask `json:"subtask"`
	Instruction string       `json:"instruction"` // rendered
	Knowledge   []string     `json:"knowledge,omitempty"`
	MaxInvalid  int          `json:"max_invalid"`
	// Deadline is absolute, so it survives continue-as-new.
	Deadline time.Time `json:"deadline"`
	// TokenBudget is what this subtask may still spend (0: unlimited).
	TokenBudget int `json:"token_budget,omitempty"`
	// Upstream outputs, for expect checks.
	Upstream plan.Outputs `json:"upstream,omitempty"`
	Options  Options      `json:"options"`
	State    *LoopState   `json:"state,omitempty"`
	// Policy is the task's rules over actions (nil: every action runs).
	Policy *plan.Policy `json:"policy,omitempty"`
	// Profiles are the task's model profiles by agent (plan.Plan.Profiles).
	Profiles map[string]string `json:"profiles,omitempty"`
	// User is the task's simulated user (plan.Plan.User; nil: none).
	User *plan.User `json:"user,omitempty"`
	// Loop and Reflection are the task's (plan.Plan); an empty Loop takes
	// Options.Loop.
	Loop       string `json:"loop,omitempty"`
	Reflection string `json:"reflection,omitempty"`
	// Replay is the subtask's recorded steps to replay first (nil: none),
	// from run ReplayFrom, typed with the values of Vars.
	Replay     *ReplaySubtask    `json:"replay,omitempty"`
	ReplayFrom string            `json:"replay_from,omitempty"`
	Vars       map[string]string `json:"vars,omitempty"`
}

// LoopState is what a subtask carries across continue-as-new: the steps
// taken, the agent's state (see agent.Turn) and the run's accounts.
type LoopState struct {
	Step int `json:"step"`
	agent.State
	LastObservation screen.Observation `json:"last_observation"`
	Usage           screen.Usage       `json:"usage"`
	Invalid         int                `json:"invalid"`
	ConsecutiveBad  int                `json:"consecutive_invalid"`
	Verdicts        map[string]int     `json:"verdicts,omitempty"`
	Runs            int                `json:"runs"`
	// Hold is the person-in-the-loop state (paused, taken over, what the
	// agent must be told); Held is the time spent waiting for a person.
	Hold Hold          `json:"hold,omitzero"`
	Held time.Duration `json:"held,omitempty"`
	// Acknowledged are the provider's safety checks a person approved on
	// the last step; the next Decide acknowledges them.
	Acknowledged []activities.SafetyCheck `json:"acknowledged,omitempty"`
	// The pipelined loop: Next is the decision made during the last step,
	// which its Reflection let stand; Ahead the observation to decide on
	// when it did not; Earlier the last verdict Progress has not seen.
	Next    *activities.DecideResult `json:"next,omitempty"`
	Ahead   *screen.Observation      `json:"ahead,omitempty"`
	Earlier string                   `json:"earlier,omitempty"`
	// Judged counts verdicts by who gave them (activities.ByModel, ...);
	// Dropped the decisions made ahead that Reflection rejected.
	Judged  map[string]int `json:"judged,omitempty"`
	Dropped int            `json:"dropped,omitempty"`
	// LastBy is who gave the last step's verdict.
	LastBy string `json:"last_by,omitempty"`
	// SameNoEffect counts the same action in a row with no effect (the
	// cascade's monitor, cascade.go).
	SameNoEffect int `json:"same_no_effect,omitempty"`
	// SameAction counts the same action in a row, whatever its verdicts
	// (the cascade's monitor).
	SameAction int `json:"same_action,omitempty"`
	// Replayed counts the recorded steps replayed (and checked); HandedOver
	// says where and why the replay handed over to the agent.
	Replayed   int    `json:"replayed,omitempty"`
	HandedOver string `json:"handed_over,omitempty"`
}

// SubtaskResult is the outcome of one subtask.
type SubtaskResult struct {
	Name     string                   `json:"name"`
	Device   string                   `json:"device"`
	Status   string                   `json:"status"`
	Reason   string                   `json:"reason"`
	Error    string                   `json:"error,omitempty"`
	Outputs  map[string]string        `json:"outputs,omitempty"`
	Checks   []activities.CheckResult `json:"checks,omitempty"`
	Steps    int                      `json:"steps"`
	Usage    screen.Usage             `json:"usage"`
	Invalid  int                      `json:"invalid,omitempty"`
	Verdicts map[string]int           `json:"verdicts,omitempty"`
	// Judged and Dropped: see LoopState (the pipelined loop).
	Judged  map[string]int `json:"judged,omitempty"`
	Dropped int            `json:"dropped,omitempty"`
	Summary string         `json:"summary,omitempty"`
	// GaveUp is set when the agent itself called fail.
	GaveUp bool `json:"gave_up,omitempty"`
	// Held is the time the subtask waited for a person (paused, taken
	// over, an approval, an answer); it did not count against its limit.
	Held time.Duration `json:"held,omitempty"`
	// Replayed is how many steps a replay ran without the agent;
	// HandedOver where and why it handed over to the agent (empty: it
	// did not).
	Replayed   int    `json:"replayed,omitempty"`
	HandedOver string `json:"handed_over,omitempty"`
}

// Metrics are CRAB-style success metrics of a run.
type Metrics struct {
	SR  float64 `json:"sr"`  // task success (0 or 1)
	SSR float64 `json:"ssr"` // subtask success rate
	CR  float64 `json:"cr"`  // completion ratio: checks passed / checks
	EE  float64 `json:"ee"`  // execution efficiency: CR per step
	CE  float64 `json:"ce"`  // cost efficiency: CR per 1,000 tokens
	// PC is partial credit: the weighted share of checks passed, a
	// similarity check earning its weight × its score (see partialCredit).
	PC float64 `json:"pc"`
}

// InstructionResult is the outcome of a run.
type InstructionResult struct {
	Task     string                   `json:"task"`
	Status   string                   `json:"status"`
	Reason   string                   `json:"reason"`
	Error    string                   `json:"error,omitempty"`
	Subtasks []SubtaskResult          `json:"subtasks"`
	Checks   []activities.CheckResult `json:"checks,omitempty"`
	Steps    int                      `json:"steps"`
	Usage    screen.Usage             `json:"usage"`
	Metrics  Metrics                  `json:"metrics"`
	// Judged and Dropped sum the subtasks' (see LoopState).
	Judged  map[string]int `json:"judged,omitempty"`
	Dropped int            `json:"dropped,omitempty"`
	// PostRun says what each post_run step did, in order.
	PostRun []StepNotes `json:"post_run,omitempty"`
	// Videos are the devices' recordings of the run, when it asked for
	// video.
	Videos []Video `json:"videos,omitempty"`
	// Replayed sums the subtasks' replayed steps; HandedOver lists where a
	// replay handed over to the agent ("SUBTASK step N: why").
	Replayed   int      `json:"replayed,omitempty"`
	HandedOver []string `json:"handed_over,omitempty"`
	// StartChecks are the results of the task's start checks, and
	// StartScreenshot the screen (an artifact) when they failed.
	StartChecks     []activities.CheckResult `json:"start_checks,omitempty"`
	StartScreenshot string                   `json:"start_screenshot,omitempty"`
}

// StepNotes is what a setup or post_run step reported.
type StepNotes struct {
	Name  string   `json:"name"`
	Notes []string `json:"notes"`
}

// Live is what the progress query returns.
type Live struct {
	Task     string            `json:"task"`
	Phase    string            `json:"phase"`
	Layers   [][]string        `json:"layers,omitempty"`
	Subtasks map[string]string `json:"subtasks"` // name → status
	Reasons  map[string]string `json:"reasons,omitempty"`
	// Per running subtask: its child workflow id.
	Children map[string]string `json:"children,omitempty"`
}

// SubtaskLive is a subtask's progress query answer.
type SubtaskLive struct {
	Subtask    string `json:"subtask"`
	Device     string `json:"device"`
	Step       int    `json:"step"`
	MaxSteps   int    `json:"max_steps"`
	Phase      string `json:"phase"`
	LastAction string `json:"last_action,omitempty"`
	Verdict    string `json:"verdict,omitempty"`
	Progress   string `json:"progress,omitempty"`
	Tokens     int    `json:"tokens"`
	// Done counts finished steps; Done, LastAction and Verdict change together.
	Done int `json:"done"`
	// Recent are the last finished steps (up to maxRecent), oldest first,
	// so that a follower that looks less often than steps end (a fast
	// model, a replay, the last steps before the subtask ends) shows each.
	Recent []StepSeen `json:"recent,omitempty"`
	// Waiting is set while the loop waits for a person (see control.go).
	Waiting *Waiting `json:"waiting,omitempty"`
}

// StepSeen is one finished step as progress shows it.
type StepSeen struct {
	Step    int    `json:"step"`
	Action  string `json:"action"`
	Verdict string `json:"verdict,omitempty"`
}

// maxRecent bounds SubtaskLive.Recent.
const maxRecent = 16

// finished records that step ended with action and verdict.
func (sl *SubtaskLive) finished(step int, action, verdict string) {
	sl.Verdict, sl.LastAction, sl.Done = verdict, action, step
	seen := StepSeen{Step: step, Action: action, Verdict: verdict}
	switch n := len(sl.Recent); {
	case n > 0 && sl.Recent[n-1].Step == step:
		sl.Recent[n-1] = seen
	case n == maxRecent: // the oldest goes, in place
		copy(sl.Recent, sl.Recent[1:])
		sl.Recent[n-1] = seen
	default:
		sl.Recent = append(sl.Recent, seen)
	}
}

// judged gives the last finished step its verdict, which came after it
// (a replayed step's, checked before the next one).
func (sl *SubtaskLive) judged(verdict string) {
	sl.Verdict = verdict
	if n := len(sl.Recent); n > 0 {
		sl.Recent[n-1].Verdict = verdict
	}
}
