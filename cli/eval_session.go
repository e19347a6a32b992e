package main

import (
	"cmp"
	"context"
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

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agents"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/x11"
	"github.com/pcflow/pcflow/specs/plan"
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
	logger, closeLog, err := fileLogger(f.eng.state)
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
			desk, err := x11.Up(ctx, x11.DesktopOptions{Display: display, StateDir: f.eng.state})
			if err != nil {
				return fail(fmt.Errorf("device %s: %w", name, err))
			}
			if i >= len(rec.Displays) {
				rec.Displays = append(rec.Displays, desk.Display)
			}
			var deskMu sync.Mutex
			s.cleanup = append(s.cleanup, func() {
				deskMu.Lock()
				defer deskMu.Unlock()
				if !s.keepDesktops {
					x11.StopApps(desk.Display)
					desk.Down()
				}
			})
			// A desktop that died under a task (its X server killed or
			// crashed) takes its worker with it: the worker is started
			// again on the desktop brought up afresh, so the device serves
			// the suite on instead of leaving the pool.
			revive := func() ([]string, bool, string, error) {
				deskMu.Lock()
				defer deskMu.Unlock()
				if desk.Alive() {
					// A window manager a task ended (through the X
					// server, which every program on the display can
					// reach) is started again: the device's observations
					// need it.
					switch started, err := desk.EnsureWM(ctx, f.eng.state); {
					case err != nil:
						return nil, false, "", fmt.Errorf("its window manager is gone and did not start again: %w", err)
					case started:
						return nil, false, "its window manager was gone (a task can end it through the X server): started it again", nil
					}
					return nil, false, "", nil
				}
				x11.StopApps(desk.Display)
				desk.Down()
				// Its own desktop again, never one another program
				// started on the number meanwhile (the device would drive
				// that one's screen).
				nd, err := x11.Up(ctx, x11.DesktopOptions{Display: desk.Display, StateDir: f.eng.state, Fresh: true})
				if err != nil {
					return nil, false, "", err
				}
				desk = nd
				return m.childEnv(nd.Environ()), true, "", nil
			}
			stop, err := startDeviceWorker(exe, f, rec, name, desk.Display, eng.addr, m.childEnv(desk.Environ()), secrets, revive)
			if err != nil {
				return fail(fmt.Errorf("device %s: %w", name, err))
			}
			s.cleanup = append(s.cleanup, stop)
			if !f.quiet {
				fmt.Fprintf(e.stdout, "device %s: desktop %s, worker on queue %s; live view: pcflow view %s\n", name, desk.Display, plan.DeviceQueue(name), name)
			}
		}
	}
	if f.detach {
		// The pool's workers run the suite: this process is about to go.
		return s, -1
	}
	var noDevice activities.Device
	// No device: "suite" only names the (unused) action log.
	w, err := startWorker(eng, f.eng.state, "suite", "", "", noDevice, cfg, secrets, logger, true, m.spec.Record, nil)
	if err != nil {
		return fail(err)
	}
	s.cleanup = append(s.cleanup, w.Stop)
	return s, -1
}

// startDeviceWorker starts `pcflow worker` for one local device, in a
// bubblewrap sandbox whose ScratchDir and home folder are the device's own
// folders (bind: the sandbox starts afresh after every reset, with the
// home folder emptied),
// or whose whole file system is a copy-on-write overlay started afresh
// after every reset (overlay). The worker dies with this process; in the
// bind sandbox the desktop's applications do not, so a resumed suite finds
// running tasks where they were. A worker that ends on its own is started
// again (at once up to maxWorkerCrashes times in crashWindow, then after
// crashLoopWait; never given up on). revive, checked every second,
// brings the desktop back when it is gone (returning its new environment
// and true); the worker is then started again on it. A note it returns
// (a window manager started again) goes to the device's log.
func startDeviceWorker(exe string, f *evalFlags, rec *suiteRecord, name, display, addr string, environ []string, secrets map[string]string,
	revive func() ([]string, bool, string, error)) (func(), error) {
	dir := filepath.Join(f.eng.state, "suites", strings.ReplaceAll(rec.ID, "/", "_"), name)
	scratch := filepath.Join(dir, "scratch")
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return nil, err
	}
	argv := []string{exe, "worker", "--device", name, "--display", display, "--temporal", addr, "--state", f.eng.state, "--workflows=false"}
	// The worker started again (after a reset, a crash) takes the
	// device's lease over from the one before.
	extra := []string{"DISPLAY=" + display, leaseOwnerEnv + "=suite " + rec.ID}
	if rec.Home != "" && rec.Sandbox != sandboxNone {
		// The home folder the tasks expect, and the applications'
		// settings in it, where the benchmark's getters read them.
		extra = append(append(extra, taskHomeEnv+"="+rec.Home), homeEnv(rec.Home)...)
	}
	if len(secrets) > 0 {
		argv = append(argv, "--secrets-fd", "3")
	}
	stateFD := 0 // the state folder's descriptor, when the sandbox hides it
	// wrap puts the worker's command in its sandbox for the desktop's
	// environment (a desktop brought back has a new D-Bus socket).
	wrap := func([]string) ([]string, error) { return argv, nil }
	// marker is an argument only this device's sandbox has (see
	// sweepSandbox).
	marker := ""
	ownHome := "" // bind: the host folder the device sees as its home
	switch rec.Sandbox {
	case sandboxBind:
		tmp := filepath.Join(dir, "tmp")
		if err := os.MkdirAll(tmp, 0o755); err != nil {
			return nil, err
		}
		// World-writable with the sticky bit, as /tmp is (MkdirAll applies
		// the umask and drops the bit).
		if err := os.Chmod(tmp, 0o777|os.ModeSticky); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(ScratchDir, 0o755); err != nil {
			return nil, err
		}
		// The device's own home folder, empty at the start of every task
		// (emptied below, between the sandbox a reset ends and the next).
		ownHome = filepath.Join(dir, "home")
		if err := os.MkdirAll(ownHome, 0o700); err != nil {
			return nil, err
		}
		marker = scratch
		wrap = func(env []string) ([]string, error) {
			sb := bindSandbox{Tmp: tmp, Scratch: scratch, Keep: keepUnder("/tmp", exe, f.eng.state, env)}
			if sb.Home = privateHome(env); sb.Home != "" {
				sb.OwnHome = ownHome
				for _, p := range keepUnder(sb.Home, exe, f.eng.state, env) {
					if !slices.Contains(sb.Keep, p) {
						sb.Keep = append(sb.Keep, p)
					}
				}
			}
			return sb.argv(argv), nil
		}
		extra = append(extra, activities.ScratchEnv+"="+ScratchDir, restartEnv+"="+restartBind)
	case sandboxOverlay:
		// The worker reaches the state folder through a descriptor: the
		// sandbox shows nothing of it (see deviceSandbox).
		stateFD = 3 // after the secrets' pipe, when there is one
		if len(secrets) > 0 {
			stateFD = 4
		}
		inner := slices.Clone(argv)
		inner[slices.Index(inner, "--state")+1] = fmt.Sprintf("/proc/self/fd/%d", stateFD)
		wrap = func(env []string) ([]string, error) {
			sb, err := deviceSandbox(exe, f.eng.state, rec, name, dir, display, env, inner)
			marker = filepath.Join(sb.Layers, "root")
			return sb.argv(), err
		}
		extra = append(extra, activities.ScratchEnv+"="+ScratchDir, restartEnv+"="+restartOverlay, taskNetEnv+"="+taskNetPath)
	}
	env := append(append([]string(nil), environ...), extra...)
	logf, err := os.OpenFile(filepath.Join(dir, "worker.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	out := &readyWriter{w: logf, ready: make(chan time.Time, 1)}
	start := func() (*exec.Cmd, error) {
		argv, err := wrap(env)
		if err != nil {
			return nil, err
		}
		if marker != "" {
			if n := sweepSandbox(marker); n > 0 {
				fmt.Fprintf(logf, "pcflow eval: killed %d process(es) left of an earlier sandbox of %s\n", n, name)
			}
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = out, out
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if len(secrets) > 0 {
			// Sensitive values go through a pipe: never a command line or
			// an environment (/proc/PID/environ keeps a process's first
			// environment for every program of the same user to read).
			r, w, err := os.Pipe()
			if err != nil {
				return nil, err
			}
			go func() {
				_ = json.NewEncoder(w).Encode(secrets)
				w.Close()
			}()
			cmd.ExtraFiles = []*os.File{r} // fd 3
			defer r.Close()
		}
		if stateFD != 0 {
			d, err := os.Open(f.eng.state)
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
	cmd, err := start()
	if err != nil {
		logf.Close()
		return nil, err
	}
	var mu sync.Mutex
	stopping := false
	quit := make(chan struct{}) // closed when eval stops the worker
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		var crashes crashBudget
		for {
			err := cmd.Wait()
			var ee *exec.ExitError
			mu.Lock()
			reset := errors.As(err, &ee) && ee.ExitCode() == restartExitCode
			if stopping {
				mu.Unlock()
				return
			}
			if reset {
				crashes.clear()
				// The bind device's home folder, emptied here, outside
				// and between two sandboxes (inside, ~/.pcflow would be
				// the state folder itself): the next task finds it empty,
				// as an overlay device finds its own.
				if ownHome != "" {
					if err := x11.EmptyDir(ownHome); err != nil {
						fmt.Fprintf(logf, "pcflow eval: empty the home folder of %s (%s): %v\n", name, ownHome, err)
					}
				}
			} else {
				// Killed from inside (kill -9 -1), crashed, or gone with
				// its display: the worker keeps no state, so a fresh one
				// (in a fresh sandbox) serves the device on.
				wait, n := crashes.crashed(time.Now())
				if wait > time.Second {
					fmt.Fprintf(logf, "pcflow eval: the worker of %s ended (%v): %d times in %v, a crash loop: starting it again in %v\n", name, err, n, crashWindow, wait)
				} else {
					fmt.Fprintf(logf, "pcflow eval: the worker of %s ended (%v): starting it again (%d in %v)\n", name, err, n, crashWindow)
				}
				mu.Unlock()
				select {
				case <-quit:
					return
				case <-time.After(wait):
				}
				mu.Lock()
				if stopping {
					mu.Unlock()
					return
				}
			}
			// The worker reset its device and asks for a fresh sandbox:
			// its overlay went with its mount namespace.
			select {
			case <-out.ready: // the old worker's
			default:
			}
			t0 := time.Now()
			next, err := start()
			if err != nil {
				mu.Unlock()
				fmt.Fprintf(logf, "pcflow eval: restart the sandbox of %s: %v\n", name, err)
				return
			}
			cmd = next
			mu.Unlock()
			select {
			case t := <-out.ready:
				fmt.Fprintf(logf, "pcflow eval: sandbox of %s restarted: worker ready %d ms after the old one exited\n", name, t.Sub(t0).Milliseconds())
			case <-time.After(30 * time.Second):
			case <-quit:
				// Stopped while the fresh sandbox started (a reset just
				// before the suite ended): eval waited out the 30 s.
			}
		}
	}()
	// kill ends the worker and its sandbox: the sandbox's PID 1 first,
	// which ends every process of the sandbox (bwrap's --die-with-parent
	// alone was seen not to when the sandbox had just started).
	kill := func() {
		for _, pid := range childrenOf(cmd.Process.Pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		_ = cmd.Process.Kill()
	}
	if revive != nil {
		// A worker outlives its display (it reports the display gone on
		// every step): watch the desktop, bring it back when it dies, and
		// start the worker again on it.
		go func() {
			tick := time.NewTicker(time.Second)
			defer tick.Stop()
			watchDesktop(tick.C, exited, logf, display, name, func(do func() bool) bool {
				mu.Lock()
				defer mu.Unlock()
				return !stopping && do()
			}, revive, func(environ []string) {
				env = append(append([]string(nil), environ...), extra...)
				kill()
			})
		}()
	}
	return func() {
		// The worker keeps no state of its own: Temporal holds it.
		mu.Lock()
		if !stopping {
			close(quit)
		}
		stopping = true
		kill()
		mu.Unlock()
		<-exited
		if marker != "" {
			// The overlay's folder on the host: empty once its mount
			// namespace is gone, one per device ever run otherwise.
			if err := os.Remove(filepath.Dir(marker)); err != nil && !errors.Is(err, os.ErrNotExist) {
				fmt.Fprintf(logf, "pcflow eval: remove the sandbox folder of %s: %v\n", name, err)
			}
		}
		logf.Close()
	}, nil
}

// deviceSandbox says what an overlay device's sandbox shows of the host:
// the base system (the top folders of systemDirs), the worker's program,
// the device's X socket and desktop session folder. Nothing of the state
// folder is there: the worker reaches it through a descriptor
// (stateFD) that no program of the task can use. The working folder, every
// other top folder of the host, the host's /tmp, /root and /home, and the
// base system's secrets (hiddenFiles, hiddenDirs) show empty.
func deviceSandbox(exe, state string, rec *suiteRecord, name, dir, display string, environ []string, command []string) (overlaySandbox, error) {
	sb := overlaySandbox{Layers: filepath.Join("/run/pcflow-sandbox", filepath.Base(dir)), Base: rec.Base, Home: rec.Home, User: rec.User, Command: command}
	if os.Geteuid() != 0 {
		return sb, errors.New("--sandbox overlay mounts an overlay file system and needs root; run eval as root or pass --sandbox bind")
	}
	for _, p := range []string{"unshare", "mount", "nsenter", "setpriv"} {
		if _, err := exec.LookPath(p); err != nil {
			return sb, fmt.Errorf("--sandbox overlay needs %s (util-linux): apt-get install util-linux mount, or pass --sandbox bind", p)
		}
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return sb, errors.New("--sandbox overlay brings up the loopback interface of the task's network with ip (iproute2): apt-get install iproute2, or pass --sandbox bind")
	}
	if err := os.MkdirAll(rec.Base, 0o755); err != nil {
		return sb, err
	}
	if wd, err := os.Getwd(); err == nil && hiddenWorkDir(wd) != "" {
		sb.Hide = append(sb.Hide, hiddenWorkDir(wd))
	}
	sb.Hide = append(sb.Hide, state)
	sb.Hide = append(sb.Hide, hostOnlyDirs()...)
	for _, f := range hiddenFiles {
		if fi, err := os.Lstat(f); err == nil && fi.Mode().IsRegular() {
			sb.HideFiles = append(sb.HideFiles, f)
		}
	}
	sb.ROBind = []string{exe, "/tmp/.X11-unix/X" + strings.TrimPrefix(display, ":")}
	sb.Bind = append(sb.Bind, desktopPaths(environ)...)
	return sb, nil
}

// reviveTries is how many times in a row watchDesktop tries to bring a
// dead desktop back before the device leaves the pool; the waits between
// tries double from one tick (1, 2, 4, 8 s).
const reviveTries = 5

// watchDesktop calls revive on every tick until exited is closed or
// locked (which runs a call under the worker's lock) says the worker is
// stopping. A desktop brought back gives its environment to restart; one
// that does not come back is tried again, reviveTries times in a row with
// doubling waits, each failure logged, before the device is given up (a
// display number another program held for a moment, a disk briefly full
// are not the end of a device).
func watchDesktop(tick <-chan time.Time, exited <-chan struct{}, logf io.Writer, display, name string,
	locked func(func() bool) bool, revive func() ([]string, bool, string, error), restart func([]string)) {
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
		goOn := locked(func() bool {
			environ, revived, note, err := revive()
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
				restart(environ)
			}
			failures = 0
			return true
		})
		if !goOn {
			return
		}
	}
}
