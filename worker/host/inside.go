package host

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/x11"
)

// ProtectState keeps a state folder given as an open descriptor
// (/proc/self/fd/N: an overlay sandbox hides the folder itself) from the
// programs this worker starts: none inherits it, and none with fewer
// capabilities reads it through /proc.
func ProtectState(state string) {
	if n, ok := strings.CutPrefix(state, "/proc/self/fd/"); ok {
		if fd, err := strconv.Atoi(n); err == nil {
			syscall.CloseOnExec(fd)
			_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
		}
	}
}

// Inside is a device worker's side of the sandbox StartDeviceWorker
// started it in, as the environment it was given asks.
type Inside struct {
	// Restart is closed once a reset is done in a sandbox that is dropped
	// after each reset: the worker then stops and exits with
	// RestartExitCode, and the supervisor starts it in a fresh sandbox.
	// Never closed outside a sandbox.
	Restart <-chan struct{}
	// Tweak is what the sandbox changes in the worker's activities (see
	// WorkerConfig.Tweak).
	Tweak []func(*activities.Activities)
	jail  *x11.TaskJail
}

// EnterSandbox applies to this worker, driving dev, what its sandbox
// asks of it: the task's home folder (TaskHomeEnv) and the
// applications' settings in it over the desktop's session folders; in
// an overlay sandbox, the task's programs apart from the worker
// (x11.TaskJail, in the network namespace TaskNetEnv names); in a bind
// or an overlay sandbox, a restart after each reset, so that what the
// task wrote anywhere goes with the old sandbox (overlay), or the
// device's home folder is emptied in between (bind). Close releases it.
func EnterSandbox(dev activities.Device) (*Inside, error) {
	if home := os.Getenv(TaskHomeEnv); home != "" {
		for _, kv := range HomeEnv(home) {
			k, v, _ := strings.Cut(kv, "=")
			if err := os.Setenv(k, v); err != nil {
				return nil, err
			}
		}
	}
	restart := make(chan struct{})
	in := &Inside{Restart: restart}
	sandbox := os.Getenv(RestartEnv)
	if sandbox == RestartOverlay {
		// The task's programs run apart from this worker (TaskJail).
		jail, err := x11.NewTaskJail(os.Getenv(TaskNetEnv))
		if err != nil {
			return nil, err
		}
		in.jail = jail
		x, ok := dev.(*x11.Device)
		if !ok {
			jail.Close()
			return nil, fmt.Errorf("the overlay sandbox confines the programs of an X11 device only, not those of a %T", dev)
		}
		x.Confine = jail.Wrap
		in.Tweak = append(in.Tweak, func(a *activities.Activities) { a.Confine = jail.Wrap })
	}
	if sandbox == RestartOverlay || sandbox == RestartBind {
		var once sync.Once
		in.Tweak = append(in.Tweak, func(a *activities.Activities) {
			a.AfterReset = func() {
				once.Do(func() { close(restart) })
				// Stop begins at once: it tells the server to poll no more
				// for this worker before the reset's result, and so the
				// next task's first activity, exists.
				time.Sleep(300 * time.Millisecond)
			}
		})
	}
	return in, nil
}

// Close ends the task jail, if any.
func (in *Inside) Close() {
	if in.jail != nil {
		in.jail.Close()
	}
}
