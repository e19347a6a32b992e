package activities

import (
	"context"
	"image"
	"io"
	"io/fs"
	"time"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
)

// Device is what the activities need of a computer.
type Device interface {
	// Observe captures the screen, the Set-of-Marks elements, OCR words,
	// window titles and the clipboard.
	Observe(ctx context.Context) (*screen.Screen, error)
	// Act executes one action in screen coordinates and returns a short
	// note on what it did.
	Act(ctx context.Context, a screen.Action) (string, error)
	// Launch starts a program without waiting for it.
	Launch(ctx context.Context, argv []string) error
	// Windows lists the titles of the open windows, the active one first.
	Windows(ctx context.Context) ([]string, error)
}

// Model is what the activities need of a model: the four agent roles. Each
// adds what its calls cost to u as it goes, so usage survives a failure.
// Errors are *agent.APIError or *agent.InvalidOutputError.
// activities/agents implements it over an OpenAI-compatible endpoint.
type Model interface {
	Decide(ctx context.Context, in agent.DecisionInput, u *screen.Usage) (*agent.Decision, error)
	Reflect(ctx context.Context, in agent.ReflectionInput, u *screen.Usage) (*agent.Reflection, error)
	UpdateProgress(ctx context.Context, in agent.ProgressInput, u *screen.Usage) (*agent.Progress, error)
	Manage(ctx context.Context, in agent.ManagerInput, u *screen.Usage) (*agent.Plan, error)
}

// JudgeModel is a Model that can judge a judge check.
type JudgeModel interface {
	Judge(ctx context.Context, in agent.JudgeInput, u *screen.Usage) (*agent.Judgement, error)
}

// UserModel is a Model that can play a task's simulated user.
type UserModel interface {
	AnswerAsUser(ctx context.Context, in agent.UserInput, u *screen.Usage) (*agent.UserReply, error)
}

// ProfiledModel is a Model that speaks the model profiles a task names
// (its profiles block, agent → profile name): ForTask returns the Model to
// use for that task.
type ProfiledModel interface {
	Model
	ForTask(profiles map[string]string) (Model, error)
}

// InstructionCompiler compiles a Manager-proposed instruction, which may
// refer to the outputs of other subtasks (subtask name → output keys), into
// a plan expression. The task language (specs.ParseTemplate) provides it;
// the worker injects it, so activities stay free of the language's parser.
type InstructionCompiler func(instruction string, outputs map[string][]string) (plan.Expr, error)

// TextReader is a device that reads the text a screenshot shows (OCR).
// Activities call it only when they need words (select, screen_text,
// redaction), and its error reaches the user: a device without OCR is
// not a screen without the text.
type TextReader interface {
	ReadText(ctx context.Context, img image.Image) ([]screen.Word, error)
}

// LaunchReporter is a device that remembers the programs it launched that
// failed later, so a setup that waits in vain for their window says why.
type LaunchReporter interface {
	LaunchFailures() []string
}

// Resetter is a device that can return itself to a clean state between
// the tasks of a suite (the Reset activity): it stops what the task
// started, empties what the task wrote and reports what it did. An error
// that retrying cannot mend (the device is a person's own desktop) is a
// *RefusedError.
type Resetter interface {
	Reset(ctx context.Context) (*ResetResult, error)
}

// RunStarter is a device whose applications keep state between runs (an
// editor's autosave of what was typed, its session to restore): the
// first setup step of every run calls StartRun with a key unique to that
// run (the same for a run resumed on another worker), and the device
// starts the applications' state afresh when the key differs from the
// last run's. It returns the folders it emptied.
type RunStarter interface {
	StartRun(ctx context.Context, run string) ([]string, error)
}

// Recorder is a device that records its screen as video (a run's video,
// see the Record activity). Record writes a fragmented MP4 to path at fps
// frames a second until ctx ends, then finishes the file and returns nil;
// it returns an error when the recording stopped by itself, and a
// *RefusedError when the device cannot record at all.
type Recorder interface {
	Record(ctx context.Context, path string, fps int) error
}

// Files is a device whose files the task's checks read and its setup
// steps write (the file, directory, json, similarity, judge and office
// checks; write_file). Paths are the device's own, as the task names
// them, and its errors name them so. A check or setup step that needs
// files on a device without them fails, saying so.
type Files interface {
	// Stat describes the file or directory at path, following links.
	Stat(ctx context.Context, path string) (fs.FileInfo, error)
	// Open opens the file at path for reading.
	Open(ctx context.Context, path string) (fs.File, error)
	// WriteFile writes data to path with the permissions perm (also
	// when the file was there), making its folder first if need be.
	WriteFile(ctx context.Context, path string, data []byte, perm fs.FileMode) error
	// WalkDir walks the tree at root as filepath.WalkDir does, calling
	// fn with the device's paths.
	WalkDir(ctx context.Context, root string, fn fs.WalkDirFunc) error
}

// LocalFiles is a device whose files are the worker's own (a desktop on
// the worker's host): the readers that need a path on the worker (office
// documents, and LibreOffice converting one) open LocalPath(path) in
// place. Of any other device's Files they read a copy.
type LocalFiles interface {
	Files
	LocalPath(path string) string
}

// Commands is a device that runs programs to completion: a task's setup
// commands and command checks.
type Commands interface {
	// Run runs c and returns its exit code (-1 when a signal ended it);
	// an error says it could not run at all (no such program), with
	// the code -1.
	Run(ctx context.Context, c Command) (int, error)
}

// Command is one program a task runs on its device.
type Command struct {
	// Argv is the program and its arguments.
	Argv []string
	// Env is added to the environment the device gives every program a
	// task starts (see TaskEnv): the task's own variables, NAME=VALUE.
	Env []string
	// Dir is the working folder; "" is the device's default.
	Dir string
	// Stdin is the program's input; nil is none.
	Stdin io.Reader
	// Stdout and Stderr receive its output; one writer for both keeps
	// their order. nil discards it.
	Stdout, Stderr io.Writer
	// Timeout ends the program when it runs longer; 0 is no bound but
	// ctx's.
	Timeout time.Duration
}

// RefusedError is a request a device refuses for good: the activity fails
// without retrying, with Reason as its message.
type RefusedError struct {
	Reason string
}

func (e *RefusedError) Error() string { return e.Reason }

// ArtifactStore keeps screenshots and other large data out of history.
type ArtifactStore interface {
	Put(data []byte, ext string) (string, error)
	Get(ref string) ([]byte, error)
	Path(ref string) string
}

// Clock is the source of time for activities.
type Clock func() time.Time
