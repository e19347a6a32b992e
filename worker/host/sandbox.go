package host

import (
	"os"
	"os/exec"
	"path/filepath"
)

// The kinds of sandbox a suite's local devices get (pcflow eval --sandbox).
const (
	SandboxBind    = "bind"
	SandboxOverlay = "overlay"
	SandboxNone    = "none"
)

// ScratchDir is the folder a task's files belong in: under `pcflow eval`
// each device sees its own, emptied by the reset between tasks.
const ScratchDir = "/tmp/pcflow-task"

// RestartExitCode is how a device worker in a sandbox asks the eval
// process for a fresh sandbox after a reset (EX_TEMPFAIL).
const RestartExitCode = 75

// RestartEnv tells a device worker that its sandbox is dropped and started
// afresh by exiting with RestartExitCode after each reset: RestartOverlay
// (the task's programs run apart, in a TaskJail) or RestartBind (eval
// empties the device's home folder in between).
const (
	RestartEnv     = "PCFLOW_SANDBOX_RESTART"
	RestartOverlay = "1"
	RestartBind    = "bind"
)

// TaskNetEnv names, in an overlay device worker's environment, the file
// that holds the task's network namespace (TaskNetPath): the sandbox
// makes it, with its loopback interface up, before the worker starts
// (inside, no process has the capability to bring it up).
const (
	TaskNetEnv  = "PCFLOW_TASK_NET"
	TaskNetPath = "/run/pcflow-task-net"
)

// TaskHomeEnv names, in a sandboxed device worker's environment, the
// home folder the suite's tasks expect: the worker sets HomeEnv over the
// desktop's variables it applies.
const TaskHomeEnv = "PCFLOW_TASK_HOME"

// LeaseOwnerEnv names what started a device's worker (pcflow eval's
// suite): a worker of the same owner takes the device's lease over at
// once.
const LeaseOwnerEnv = "PCFLOW_LEASE_OWNER"

// Sandbox keeps a device worker, and the programs of its tasks, apart from
// the host. Every start of the worker is in a fresh sandbox: what a task
// wrote goes with the one before.
type Sandbox interface {
	// Env is what the worker's environment gains in this sandbox.
	Env() []string
	// Command returns the command that runs the worker's command in a
	// fresh sandbox, for the desktop's environment environ (a desktop
	// brought back has a new D-Bus socket).
	Command(command, environ []string) ([]string, error)
	// Marker is an argument only this device's sandbox has (see
	// SweepSandbox); "" for none.
	Marker() string
	// HidesState reports whether the sandbox shows nothing of the state
	// folder: the worker then reaches it through a descriptor.
	HidesState() bool
	// Between runs after a worker asked for a fresh sandbox (a reset),
	// before the next one starts.
	Between() error
	// AppsGoWithWorker reports whether the applications a task started
	// end with the worker that started them (a sandbox with a PID
	// namespace of its own): a worker that crashes mid-task takes the
	// task's screen with it.
	AppsGoWithWorker() bool
}

var (
	_ Sandbox = (*bindSandbox)(nil)
	_ Sandbox = (*overlaySandbox)(nil)
	_ Sandbox = noSandbox{}
)

// noSandbox runs the worker on the host, as it is.
type noSandbox struct{}

func (noSandbox) Env() []string                                 { return nil }
func (noSandbox) Command(command, _ []string) ([]string, error) { return command, nil }
func (noSandbox) Marker() string                                { return "" }
func (noSandbox) HidesState() bool                              { return false }
func (noSandbox) Between() error                                { return nil }
func (noSandbox) AppsGoWithWorker() bool                        { return false }

// DefaultSandbox is the isolation a suite's local devices get unless
// --sandbox says: the overlay (every task from the same file system, as a
// benchmark's VM snapshot gives) where it can run — as root, with
// bubblewrap and util-linux's unshare, nsenter and setpriv — else bind.
func DefaultSandbox() string {
	if os.Geteuid() != 0 {
		return SandboxBind
	}
	for _, p := range []string{"bwrap", "unshare", "nsenter", "setpriv"} {
		if _, err := exec.LookPath(p); err != nil {
			return SandboxBind
		}
	}
	return SandboxOverlay
}

// HomeEnv is the environment that gives a sandboxed device's task
// programs the home folder home: $HOME, and the folders where
// applications keep their settings, cache and data inside it (where
// OSWorld's getters read ~/.config/...), instead of the desktop's
// session folder.
func HomeEnv(home string) []string {
	return []string{"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state")}
}
