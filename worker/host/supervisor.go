package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pcflow/pcflow/internal/procfs"
)

// DeviceWorkerOptions says which device worker StartDeviceWorker starts, for
// which suite, and in which sandbox.
type DeviceWorkerOptions struct {
	Program  string            // the pcflow program (os.Executable)
	State    string            // the state folder
	Suite    string            // the suite's id: the lease's owner and, under State/suites, the device's folder
	Device   string            // the device's name
	Display  string            // its X display
	Temporal string            // the Temporal frontend's address
	Environ  []string          // the desktop's environment
	Secrets  map[string]string // the sensitive variables, handed over through a pipe
	Sandbox  string            // SandboxBind, SandboxOverlay or SandboxNone
	Home     string            // the task's home folder ("": none)
	User     string            // the task's user ("": none)
	Base     string            // overlay: the folder every device sees in ScratchDir at the start of a task
	// Revive, checked every second, brings the desktop back when it is
	// gone (returning its new environment and true); the worker is then
	// started again on it. A note it returns (a window manager started
	// again) goes to the device's log. Nil: the desktop is not watched.
	Revive func() (environ []string, revived bool, note string, err error)
	// Lost is called when the worker ended on its own (killed, crashed)
	// in a sandbox whose applications went with it (see
	// Sandbox.AppsGoWithWorker), before a fresh one starts: the task the
	// device ran lost its screen, and the suite starts it again from its
	// setup. What it returns goes to the device's log. Nil: nothing is
	// told.
	Lost func() (note string)
}

// maxWorkerCrashes is how many times in crashWindow a local device's
// worker that ended on its own is started again at once; past it, each
// start waits crashLoopWait (a crash loop must not hog the machine). The
// device never leaves the suite for it: a hostile task that kills its
// worker again and again ends as a device failure, and the next task
// gets the device back — the count starts afresh at every reset.
const (
	maxWorkerCrashes = 10
	crashWindow      = 5 * time.Minute
	crashLoopWait    = 30 * time.Second
)

// crashBudget counts a device worker's recent crashes.
type crashBudget struct {
	times []time.Time
}

// crashed notes a crash at now and returns how long to wait before the
// next start and how many crashes crashWindow holds.
func (b *crashBudget) crashed(now time.Time) (time.Duration, int) {
	kept := b.times[:0]
	for _, t := range b.times {
		if now.Sub(t) < crashWindow {
			kept = append(kept, t)
		}
	}
	b.times = append(kept, now)
	if len(b.times) > maxWorkerCrashes {
		return crashLoopWait, len(b.times)
	}
	return time.Second, len(b.times)
}

// clear forgets the crashes: the device was reset for another task.
func (b *crashBudget) clear() { b.times = nil }

// deviceWorker is the process of one local device's worker, started
// again in a fresh sandbox whenever it ends, until stopped.
type deviceWorker struct {
	name    string
	display string
	state   string
	secrets map[string]string
	sandbox Sandbox
	argv    []string // the worker's command, before its sandbox
	extra   []string // what the worker's environment has over the desktop's
	stateFD int      // the state folder's descriptor, when the sandbox hides it
	logf    *os.File // the device's worker.log
	out     *readyWriter
	lost    func() string

	mu       sync.Mutex
	env      []string  // the worker's environment (a revived desktop's is new)
	cmd      *exec.Cmd // the running worker
	stopping bool
	reviving bool          // the worker was killed to start it on a revived desktop
	quit     chan struct{} // closed when eval stops the worker
	exited   chan struct{} // closed when the supervision ends
}

// StartDeviceWorker starts `pcflow worker` for one local device, in a
// bubblewrap sandbox whose ScratchDir and home folder are the device's own
// folders (bind: the sandbox starts afresh after every reset, with the
// home folder emptied),
// or whose whole file system is a copy-on-write overlay started afresh
// after every reset (overlay). The worker dies with this process; in the
// bind sandbox the desktop's applications do not, so a resumed suite finds
// running tasks where they were. A worker that ends on its own is started
// again (at once up to maxWorkerCrashes times in crashWindow, then after
// crashLoopWait; never given up on). When o.Revive is set, the desktop is
// watched and its worker started again on it when it comes back. The
// function returned stops the worker and its sandbox.
func StartDeviceWorker(o DeviceWorkerOptions) (stop func(), err error) {
	dir := filepath.Join(o.State, "suites", strings.ReplaceAll(o.Suite, "/", "_"), o.Device)
	scratch := filepath.Join(dir, "scratch")
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return nil, err
	}
	w := &deviceWorker{name: o.Device, display: o.Display, state: o.State, secrets: o.Secrets,
		quit: make(chan struct{}), exited: make(chan struct{}), lost: o.Lost}
	w.argv = []string{o.Program, "worker", "--device", o.Device, "--display", o.Display, "--temporal", o.Temporal, "--state", o.State, "--workflows=false"}
	// The worker started again (after a reset, a crash) takes the
	// device's lease over from the one before.
	w.extra = []string{"DISPLAY=" + o.Display, LeaseOwnerEnv + "=suite " + o.Suite}
	if o.Home != "" && o.Sandbox != SandboxNone {
		// The home folder the tasks expect, and the applications'
		// settings in it, where the benchmark's getters read them.
		w.extra = append(append(w.extra, TaskHomeEnv+"="+o.Home), HomeEnv(o.Home)...)
	}
	if len(o.Secrets) > 0 {
		w.argv = append(w.argv, "--secrets-fd", "3")
	}
	switch o.Sandbox {
	case SandboxBind:
		if w.sandbox, err = newBindSandbox(o.Device, dir, scratch, o.Program, o.State); err != nil {
			return nil, err
		}
	case SandboxOverlay:
		w.sandbox = &overlaySandbox{program: o.Program, state: o.State, layers: filepath.Join("/run/pcflow-sandbox", filepath.Base(dir)),
			display: o.Display, base: o.Base, home: o.Home, user: o.User}
	default:
		w.sandbox = noSandbox{}
	}
	if w.sandbox.HidesState() {
		// The worker reaches the state folder through a descriptor: the
		// sandbox shows nothing of it.
		w.stateFD = 3 // after the secrets' pipe, when there is one
		if len(o.Secrets) > 0 {
			w.stateFD = 4
		}
		w.argv[slices.Index(w.argv, "--state")+1] = fmt.Sprintf("/proc/self/fd/%d", w.stateFD)
	}
	w.extra = append(w.extra, w.sandbox.Env()...)
	w.env = append(append([]string(nil), o.Environ...), w.extra...)
	if w.logf, err = os.OpenFile(filepath.Join(dir, "worker.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); err != nil {
		return nil, err
	}
	w.out = &readyWriter{w: w.logf, ready: make(chan time.Time, 1)}
	if w.cmd, err = w.start(); err != nil {
		w.logf.Close()
		return nil, err
	}
	go w.supervise()
	if o.Revive != nil {
		// A worker outlives its display (it reports the display gone on
		// every step): watch the desktop, bring it back when it dies, and
		// start the worker again on it.
		go func() {
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			desktopWatch{logf: w.logf, display: o.Display, name: o.Device,
				locked: func(do func() bool) bool {
					w.mu.Lock()
					defer w.mu.Unlock()
					return !w.stopping && do()
				},
				revive: o.Revive,
				restart: func(environ []string) {
					w.env = append(append([]string(nil), environ...), w.extra...)
					w.reviving = true
					w.kill()
				}}.run(tick.C, w.exited)
		}()
	}
	return w.stop, nil
}

// start starts the worker in a fresh sandbox, after killing what is left
// of an earlier one.
func (w *deviceWorker) start() (*exec.Cmd, error) {
	argv, err := w.sandbox.Command(w.argv, w.env)
	if err != nil {
		return nil, err
	}
	if marker := w.sandbox.Marker(); marker != "" {
		if n := SweepSandbox(marker); n > 0 {
			fmt.Fprintf(w.logf, "pcflow eval: killed %d process(es) left of an earlier sandbox of %s\n", n, w.name)
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = w.env
	cmd.Stdout, cmd.Stderr = w.out, w.out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if len(w.secrets) > 0 {
		// Sensitive values go through a pipe: never a command line or
		// an environment (/proc/PID/environ keeps a process's first
		// environment for every program of the same user to read).
		r, pw, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		go func() {
			_ = json.NewEncoder(pw).Encode(w.secrets)
			pw.Close()
		}()
		cmd.ExtraFiles = []*os.File{r} // fd 3
		defer r.Close()
	}
	if w.stateFD != 0 {
		d, err := os.Open(w.state)
		if err != nil {
			return nil, err
		}
		cmd.ExtraFiles = append(cmd.ExtraFiles, d) // fd stateFD
		defer d.Close()
	}
	// A sandbox process that outlives the worker must not keep Wait
	// on its output forever.
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start worker: %w", err)
	}
	return cmd, nil
}

// supervise waits for the worker and starts it again, in a fresh
// sandbox, whenever it ends, until stop.
func (w *deviceWorker) supervise() {
	defer close(w.exited)
	var crashes crashBudget
	for {
		err := w.cmd.Wait()
		var ee *exec.ExitError
		w.mu.Lock()
		reset := errors.As(err, &ee) && ee.ExitCode() == RestartExitCode
		revived := w.reviving
		w.reviving = false
		if w.stopping {
			w.mu.Unlock()
			return
		}
		if reset {
			crashes.clear()
			if err := w.sandbox.Between(); err != nil {
				fmt.Fprintf(w.logf, "pcflow eval: %v\n", err)
			}
			if w.sandbox.AppsGoWithWorker() {
				w.mu.Unlock()
				w.awaitGone()
				w.mu.Lock()
				if w.stopping {
					w.mu.Unlock()
					return
				}
			}
		} else {
			// Killed from inside (kill -9 -1), crashed, or gone with
			// its display: the worker keeps no state, so a fresh one
			// (in a fresh sandbox) serves the device on.
			wait, n := crashes.crashed(time.Now())
			if wait > time.Second {
				fmt.Fprintf(w.logf, "pcflow eval: the worker of %s ended (%v): %d times in %v, a crash loop: starting it again in %v\n", w.name, err, n, crashWindow, wait)
			} else {
				fmt.Fprintf(w.logf, "pcflow eval: the worker of %s ended (%v): starting it again (%d in %v)\n", w.name, err, n, crashWindow)
			}
			w.mu.Unlock()
			if w.sandbox.AppsGoWithWorker() {
				w.awaitGone()
			}
			if w.lost != nil && !revived && w.sandbox.AppsGoWithWorker() {
				// A desktop brought back is told apart by the task itself
				// (its run ends as "desktop lost" and starts again).
				if note := w.lost(); note != "" {
					fmt.Fprintf(w.logf, "pcflow eval: %s\n", note)
				}
			}
			select {
			case <-w.quit:
				return
			case <-time.After(wait):
			}
			w.mu.Lock()
			if w.stopping {
				w.mu.Unlock()
				return
			}
		}
		// The worker reset its device and asks for a fresh sandbox:
		// its overlay went with its mount namespace.
		select {
		case <-w.out.ready: // the old worker's
		default:
		}
		t0 := time.Now()
		next, err := w.start()
		if err != nil {
			w.mu.Unlock()
			fmt.Fprintf(w.logf, "pcflow eval: restart the sandbox of %s: %v\n", w.name, err)
			return
		}
		w.cmd = next
		w.mu.Unlock()
		select {
		case t := <-w.out.ready:
			fmt.Fprintf(w.logf, "pcflow eval: sandbox of %s restarted: worker ready %d ms after the old one exited\n", w.name, t.Sub(t0).Milliseconds())
		case <-time.After(30 * time.Second):
		case <-w.quit:
			// Stopped while the fresh sandbox started (a reset just
			// before the suite ended): eval waited out the 30 s.
		}
	}
}

// awaitGone waits for the processes of the sandbox that ended to be gone
// from the device's display (awaitSandboxGone), saying in the device's
// log when some outlived the wait.
func (w *deviceWorker) awaitGone() {
	if n := awaitSandboxGone(w.display, 20*time.Second); n > 0 {
		fmt.Fprintf(w.logf, "pcflow eval: %d process(es) of the ended sandbox of %s still run on %s after 20 s\n", n, w.name, w.display)
	}
}

// kill ends the worker and its sandbox: the sandbox's PID 1 first,
// which ends every process of the sandbox (bwrap's --die-with-parent
// alone was seen not to when the sandbox had just started). The caller
// holds w.mu.
func (w *deviceWorker) kill() {
	for _, pid := range procfs.Children(w.cmd.Process.Pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	_ = w.cmd.Process.Kill()
}

// stop stops the worker for good. The worker keeps no state of its own:
// Temporal holds it.
func (w *deviceWorker) stop() {
	w.mu.Lock()
	if !w.stopping {
		close(w.quit)
	}
	w.stopping = true
	w.kill()
	w.mu.Unlock()
	<-w.exited
	if marker := w.sandbox.Marker(); marker != "" {
		// The overlay's folder on the host: empty once its mount
		// namespace is gone, one per device ever run otherwise.
		if err := os.Remove(filepath.Dir(marker)); err != nil && !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(w.logf, "pcflow eval: remove the sandbox folder of %s: %v\n", w.name, err)
		}
	}
	w.logf.Close()
}

// reviveTries is how many times in a row a desktopWatch tries to bring a
// dead desktop back before the device leaves the pool; the waits between
// tries double from one tick (1, 2, 4, 8 s).
const reviveTries = 5

// desktopWatch watches the desktop display of device name for its
// worker.
type desktopWatch struct {
	logf    io.Writer // the device's log
	display string
	name    string
	// locked runs a call under the worker's lock, unless the worker is
	// stopping (then it returns false).
	locked  func(func() bool) bool
	revive  func() ([]string, bool, string, error) // DeviceWorkerOptions.Revive
	restart func([]string)                         // starts the worker again on a desktop brought back, with its environment
}

// run calls revive on every tick until exited is closed or locked says
// the worker is stopping. A desktop brought back gives its environment to
// restart; one that does not come back is tried again, reviveTries times
// in a row with doubling waits, each failure logged, before the device
// is given up (a display number another program held for a moment, a
// disk briefly full are not the end of a device).
func (d desktopWatch) run(tick <-chan time.Time, exited <-chan struct{}) {
	logf, display, name := d.logf, d.display, d.name
	failures, skip := 0, 0
	for {
		select {
		case <-exited:
			return
		case <-tick:
		}
		if skip > 0 {
			skip--
			continue
		}
		goOn := d.locked(func() bool {
			environ, revived, note, err := d.revive()
			switch {
			case note != "":
				fmt.Fprintf(logf, "pcflow eval: the desktop %s of %s: %s\n", display, name, note)
			case err != nil:
				failures++
				if failures >= reviveTries {
					fmt.Fprintf(logf, "pcflow eval: the desktop %s of %s is gone and did not come back after %d tries: %v; the device leaves the pool\n", display, name, failures, err)
					return false
				}
				skip = 1<<failures - 1
				fmt.Fprintf(logf, "pcflow eval: the desktop %s of %s is gone and did not come back (try %d of %d): %v; trying again in %d s\n", display, name, failures, reviveTries, err, skip+1)
				return true
			case revived:
				fmt.Fprintf(logf, "pcflow eval: the desktop %s of %s was gone: brought it up again; its worker starts again on it\n", display, name)
				d.restart(environ)
			}
			failures = 0
			return true
		})
		if !goOn {
			return
		}
	}
}

// readyWriter copies a worker's output to w and
// sends on ready (buffered, never blocking) at each line that says a
// worker is serving its queue.
type readyWriter struct {
	w     *os.File
	mu    sync.Mutex
	buf   []byte
	ready chan time.Time
}

func (r *readyWriter) Write(p []byte) (int, error) {
	r.mu.Lock()
	r.buf = append(r.buf, p...)
	if i := bytes.LastIndexByte(r.buf, '\n'); i >= 0 {
		if bytes.Contains(r.buf[:i], []byte("worker for device ")) {
			select {
			case r.ready <- time.Now():
			default:
			}
		}
		r.buf = r.buf[i+1:]
	}
	r.mu.Unlock()
	return r.w.Write(p)
}
