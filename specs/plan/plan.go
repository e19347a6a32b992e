// Package plan is the plain-data form of a pcflow task: what the workflows
// take as input. It has no HCL or cty types, serialises to JSON, and its
// expression evaluator is pure and deterministic, so templates can be
// rendered inside Temporal workflows.
package plan

import (
	"fmt"
	"strings"
	"time"
)

// Plan is a parsed, validated task.
type Plan struct {
	Task        string    `json:"task"`
	File        string    `json:"file,omitempty"`
	Instruction string    `json:"instruction,omitempty"`
	MaxSteps    int       `json:"max_steps"`
	Timeout     Duration  `json:"timeout"`
	MaxTokens   int       `json:"max_tokens,omitempty"`
	MaxInvalid  int       `json:"max_invalid"`
	Devices     []Device  `json:"devices"`
	Setup       []Setup   `json:"setup,omitempty"`
	PostRun     []Setup   `json:"post_run,omitempty"`
	Subtasks    []Subtask `json:"subtasks,omitempty"`
	Checks      []Check   `json:"checks,omitempty"`
	Secrets     []string  `json:"secrets,omitempty"`
	Knowledge   []string  `json:"knowledge,omitempty"`
	// Infeasible marks a task that cannot be done: the right answer is an
	// agent calling fail, which scores as success; anything else fails.
	Infeasible bool `json:"infeasible,omitempty"`
	// Video records every device's screen during the task (a task with
	// sensitive variables cannot ask for it).
	Video bool `json:"video,omitempty"`
	// Requires lists programs every device of the task must have on its
	// PATH; the run checks them before setup.
	Requires []string `json:"requires,omitempty"`
	// Policy rules over the task's actions (allow / deny / confirm).
	Policy *Policy `json:"policy,omitempty"`
	// Profiles are the model profiles the task asks for, by agent
	// (decision, reflection, progress, manager → profile name); a worker
	// given its own profile for an agent keeps it.
	Profiles map[string]string `json:"profiles,omitempty"`
	// Loop is the agent loop's shape (Loops; empty: the run's default).
	Loop string `json:"loop,omitempty"`
	// Reflection says when the Reflection agent is asked in the pipelined
	// loop (Reflections; empty: on_doubt).
	Reflection string `json:"reflection,omitempty"`
	// Replay is ReplayCache when a run of the task replays its last
	// successful run with the same task file and inputs (empty: never).
	Replay string `json:"replay,omitempty"`
	// User is the simulated user who answers the agent's questions (and
	// the approvals it may decide) when no person does first; nil: none.
	User *User `json:"user,omitempty"`
	// Start is what the screen must show once setup is done, before the
	// agent starts; nil: anything.
	Start *Start `json:"start,omitempty"`
}

// Start is a task's start condition: checks that must pass after setup.
// A start that fails them is the harness's failure (a dialog left from an
// earlier task, an application still starting), never the agent's: the
// run ends as harness_error before any agent step, and pcflow eval resets
// the devices and runs the setup again, up to Retries times.
type Start struct {
	Checks []Check `json:"checks"`
	// Retries is how many times eval starts the task again after a bad
	// start (the task block's start { retries = N }).
	Retries int `json:"retries"`
}

// DefaultStartRetries is how many times eval starts a task again after a
// start that failed its start checks, unless the start block says.
const DefaultStartRetries = 2

// The agent loop's shapes: Decision, action, Reflection, Progress one
// after another; or, after each action, one observation that Reflection,
// Progress and the next Decision work from at the same time.
const (
	LoopSequential = "sequential"
	LoopPipelined  = "pipelined"
)

// Loops are the values of a task's loop attribute.
var Loops = []string{LoopSequential, LoopPipelined}

// A task's replay attribute: "cache" makes pcflow run replay the task's
// last successful run with the same task file and inputs (a checked
// replay, with no model call); "off", the default, never does.
const (
	ReplayOff   = "off"
	ReplayCache = "cache"
)

// Replays are the values of a task's replay attribute.
var Replays = []string{ReplayOff, ReplayCache}

// When the pipelined loop asks the Reflection agent: on every step; only
// when the device cannot tell from the screens (nothing changed: no_effect;
// the typed text is in the focused field: correct); or never (the device's
// verdict where it has one, otherwise the step counts as correct).
const (
	ReflectAlways  = "always"
	ReflectOnDoubt = "on_doubt"
	ReflectNever   = "never"
)

// Reflections are the values of a task's reflection attribute.
var Reflections = []string{ReflectAlways, ReflectOnDoubt, ReflectNever}

// Device is a computer a subtask acts on; its worker polls DeviceQueue(Name).
type Device struct {
	Name        string `json:"name"`
	Platform    string `json:"platform"`
	Description string `json:"description,omitempty"`
	// Home is the home folder the task expects on the device
	// (OSWorld's /home/user): a sandbox gives the device that folder,
	// empty at each reset, as $HOME. "" keeps the device's own.
	Home string `json:"home,omitempty"`
	// User is the account the task expects on the device (OSWorld's
	// user): the overlay sandbox makes it, with Home as its home.
	User string `json:"user,omitempty"`
}

// DeviceQueue is the task queue of a device's worker.
func DeviceQueue(device string) string { return "device." + device }

// Setup is a preparation step run on a device before any subtask.
type Setup struct {
	Name          string      `json:"name"`
	Device        string      `json:"device"`
	WriteFiles    []WriteFile `json:"write_files,omitempty"`
	Command       []Expr      `json:"command,omitempty"`
	Launch        []Expr      `json:"launch,omitempty"`
	WaitForWindow string      `json:"wait_for_window,omitempty"`
	// WaitTimeout bounds the wait for the window (default 60s).
	WaitTimeout Duration `json:"wait_timeout,omitempty"`
	// Commands run after Command, in order, each to completion.
	Commands [][]Expr `json:"commands,omitempty"`
	// Presses send keys to a window, after it is brought to the front.
	Presses []Press `json:"presses,omitempty"`
	// CloseWindow closes the windows whose titles match (alt+F4).
	CloseWindow string `json:"close_window,omitempty"`
	// Sleep waits at the end of the step.
	Sleep Duration `json:"sleep,omitempty"`
}

// Press is a key combination sent to the window whose title matches Window
// (a regular expression; "" is the active window).
type Press struct {
	Window string   `json:"window,omitempty"`
	Keys   []string `json:"keys"`
}

// WriteFile writes Content to Path on the device.
type WriteFile struct {
	Path    Expr `json:"path"`
	Content Expr `json:"content"`
}

// Subtask is one unit of work for the agents on one device.
type Subtask struct {
	Name        string   `json:"name"`
	Device      string   `json:"device"`
	Instruction Expr     `json:"instruction"`
	DependsOn   []string `json:"depends_on,omitempty"`
	MaxSteps    int      `json:"max_steps"`
	Timeout     Duration `json:"timeout"`
	MaxTokens   int      `json:"max_tokens,omitempty"`
	Knowledge   []string `json:"knowledge,omitempty"`
	Outputs     []Output `json:"outputs,omitempty"`
	Checks      []Check  `json:"checks,omitempty"`
}

// Output is a value a subtask must report when it finishes.
type Output struct {
	Key         string `json:"key"`
	Description string `json:"description,omitempty"`
}

// Check kinds.
const (
	CheckFile        = "file"
	CheckCommand     = "command"
	CheckWindowTitle = "window_title"
	CheckScreenText  = "screen_text"
	CheckClipboard   = "clipboard"
	CheckCell        = "cell"
	CheckDirectory   = "directory"
	CheckElement     = "element"
	CheckExpect      = "expect"
)

// Check is one node of the evaluation graph. Conditions that are set must all
// hold. Device checks run on Device; expect checks are evaluated in the
// workflow over outputs.
type Check struct {
	Name   string   `json:"name"`
	Kind   string   `json:"kind"`
	Device string   `json:"device,omitempty"`
	After  []string `json:"after,omitempty"`

	Path     *Expr  `json:"path,omitempty"`
	Argv     []Expr `json:"argv,omitempty"`
	Cell     string `json:"cell,omitempty"`
	Sheet    string `json:"sheet,omitempty"`
	Exists   *bool  `json:"exists,omitempty"`
	Contains *Expr  `json:"contains,omitempty"`
	Matches  *Expr  `json:"matches,omitempty"`
	Equals   *Expr  `json:"equals,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"`
	Expect   *Expr  `json:"expect,omitempty"`

	NotContains *Expr `json:"not_contains,omitempty"`
	// SameAs is a reference file (file checks) or directory (directory
	// checks) the path must equal; Normalize compares text with line ends,
	// trailing spaces and trailing blank lines ignored; Lines compares the
	// lines as Python's splitlines reads them.
	SameAs    *Expr `json:"same_as,omitempty"`
	Normalize bool  `json:"normalize,omitempty"`
	Lines     bool  `json:"lines,omitempty"`
	// Entries are relative paths a directory must hold.
	Entries []string `json:"entries,omitempty"`
	// Capture makes the check report the value it read (CheckValueKey)
	// for the expect checks that read check.NAME.value.
	Capture bool `json:"capture,omitempty"`
	// Role and States select accessibility elements (element checks); the
	// name is tested with Equals, Contains and Matches.
	Role   string   `json:"role,omitempty"`
	States []string `json:"states,omitempty"`
	// Window is a part of the title of the window whose text a screen_text
	// check reads (OCR of that window alone), instead of the whole screen.
	Window string  `json:"window,omitempty"`
	Office *Office `json:"office,omitempty"`
	// Similarity holds a similarity check's expected text and threshold
	// (its reference file is SameAs).
	Similarity *Similarity `json:"similarity,omitempty"`
	// Judge holds a judge check's rubric and evidence.
	Judge *Judge `json:"judge,omitempty"`
	// JSON holds a json check's expected values.
	JSON *JSON `json:"json,omitempty"`
	// Weight is what the check counts for in the task's partial credit;
	// 0 (a plan written before weights) counts as 1. See Credit.
	Weight float64 `json:"weight,omitempty"`
}

// CheckValueKey is where a captured check's value sits among the outputs
// expressions read: Outputs[CheckValueKey(name)]["value"]. A dot never
// appears in a subtask name, so it cannot collide with one.
func CheckValueKey(check string) string { return "check." + check }

// Duration is a time.Duration that reads and writes as "1m30s" in JSON.
type Duration time.Duration

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// Subtask returns the subtask called name, or nil.
func (p *Plan) Subtask(name string) *Subtask {
	for i := range p.Subtasks {
		if p.Subtasks[i].Name == name {
			return &p.Subtasks[i]
		}
	}
	return nil
}

// Device returns the device called name, or nil.
func (p *Plan) Device(name string) *Device {
	for i := range p.Devices {
		if p.Devices[i].Name == name {
			return &p.Devices[i]
		}
	}
	return nil
}

// Validate checks the rules every plan obeys, whether it came from HCL or
// from the Manager agent: names unique, devices known, dependencies known and
// acyclic, referenced outputs declared. The HCL front end reports the same
// problems with source locations before a plan exists; this is the check for
// plans built at run time.
func (p *Plan) Validate() error {
	var errs []string
	devs := map[string]bool{}
	for _, d := range p.Devices {
		devs[d.Name] = true
		if !ValidName(d.Name) {
			errs = append(errs, fmt.Sprintf("device name %q: %s", d.Name, NameRule))
		}
	}
	outs := map[string]map[string]bool{}
	for _, s := range p.Subtasks {
		if !ValidName(s.Name) {
			errs = append(errs, fmt.Sprintf("subtask name %q: %s", s.Name, NameRule))
		}
		if _, dup := outs[s.Name]; dup {
			errs = append(errs, fmt.Sprintf("subtask %q is defined twice", s.Name))
		}
		outs[s.Name] = map[string]bool{}
		for _, o := range s.Outputs {
			outs[s.Name][o.Key] = true
		}
	}
	for _, s := range p.Subtasks {
		if !devs[s.Device] {
			errs = append(errs, fmt.Sprintf("subtask %q: unknown device %q (devices: %s)", s.Name, s.Device, strings.Join(p.deviceNames(), ", ")))
		}
		if s.Instruction.IsZero() {
			errs = append(errs, fmt.Sprintf("subtask %q: empty instruction", s.Name))
		}
		deps := map[string]bool{}
		for _, d := range s.DependsOn {
			deps[d] = true
			if _, ok := outs[d]; !ok {
				errs = append(errs, fmt.Sprintf("subtask %q depends on unknown subtask %q", s.Name, d))
			}
		}
		for _, r := range s.Instruction.OutputRefs() {
			if _, ok := outs[r.Subtask]; !ok {
				errs = append(errs, fmt.Sprintf("subtask %q: instruction refers to unknown subtask %q", s.Name, r.Subtask))
				continue
			}
			if !outs[r.Subtask][r.Key] {
				errs = append(errs, fmt.Sprintf("subtask %q: instruction uses output %q of %q, which %q does not declare", s.Name, r.Key, r.Subtask, r.Subtask))
			}
			if !deps[r.Subtask] {
				errs = append(errs, fmt.Sprintf("subtask %q: uses an output of %q but does not list it in depends_on", s.Name, r.Subtask))
			}
		}
	}
	if _, err := Layers(p.Subtasks); err != nil {
		errs = append(errs, err.Error())
	}
	if err := p.Policy.Validate(); err != nil {
		errs = append(errs, err.Error())
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid plan: %s", strings.Join(errs, "; "))
	}
	return nil
}

func (p *Plan) deviceNames() []string {
	var n []string
	for _, d := range p.Devices {
		n = append(n, d.Name)
	}
	return n
}

// MaxNameLen is the longest name a device, subtask, setup step, check or
// output may have.
const MaxNameLen = 64

// NameRule says which names ValidName accepts.
const NameRule = "use letters, digits, '_' and '-', starting with a letter, at most 64 characters"

// ValidName reports whether s may name a device, subtask, setup step, check
// or output: a letter, then letters, digits, '_' or '-', at most MaxNameLen
// bytes. Names become file names, task queue names and prompt text, so
// nothing else (no '/', '.', spaces or control characters) is allowed.
func ValidName(s string) bool {
	if s == "" || len(s) > MaxNameLen {
		return false
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case (r >= '0' && r <= '9') || r == '_' || r == '-':
			if i == 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}
