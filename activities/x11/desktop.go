package x11

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/x11/procs"
	"github.com/pcflow/pcflow/internal/proclock"
)

// Desktop is a headless X desktop: Xvfb, a D-Bus session with
// accessibility switched on, and a window manager.
type Desktop struct {
	Display string            // ":N"
	Env     map[string]string // what programs on this desktop need
	PIDs    []int
}

// DesktopOptions configure Up.
type DesktopOptions struct {
	Display string // ":N"; empty picks the first free one from :90
	Width   int
	Height  int
	// StateDir holds the desktop's env and pid files.
	StateDir string
	// Fresh starts a desktop of the caller's own on Display and never
	// joins a desktop already there: bringing back a desktop that died,
	// whose display another program may have taken in the meantime.
	Fresh bool
	// from is the first display number tried when Display is empty.
	from int
}

func displayNum(d string) (int, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(d, ":"))
	if err != nil || !strings.HasPrefix(d, ":") {
		return 0, fmt.Errorf("display %q: write it as :N, for example :90", d)
	}
	return n, nil
}

func socketFor(n int) string { return fmt.Sprintf("/tmp/.X11-unix/X%d", n) }

// lockFor is the lock file an X server on display n holds: its PID.
func lockFor(n int) string { return fmt.Sprintf("/tmp/.X%d-lock", n) }

// claimDisplays takes the lock pcflow processes hold while they claim a
// display or clear a dead server's files, waiting up to 30 s for it (then
// going on without: a lock someone else keeps is no reason to fail). The
// returned function releases it; calling it again does nothing.
func claimDisplays() func() {
	f, err := os.OpenFile(filepath.Join(os.TempDir(), ".pcflow-displays.lock"), os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return func() {}
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		err := proclock.TryLock(f)
		if err == nil {
			break
		}
		if !errors.Is(err, proclock.ErrHeld) || time.Now().After(deadline) {
			f.Close()
			return func() {}
		}
	}
	var once sync.Once
	return func() { once.Do(func() { f.Close() }) }
}

// clearStale removes the socket and lock file an X server left when it
// died without cleaning up (a killed machine, SIGKILL): the lock names a
// PID that no longer runs, or there is no lock and nothing answers on the
// socket. A display left so is free, not "in use by another X server".
func clearStale(n int) {
	_, lockErr := os.Stat(lockFor(n))
	if lockErr == nil {
		pid := lockOwner(n)
		if pid == 0 || syscall.Kill(pid, 0) != syscall.ESRCH {
			return // its server runs, or is writing its lock
		}
	}
	if c, err := net.DialTimeout("unix", socketFor(n), time.Second); err == nil {
		c.Close()
		return // something answers on it
	} else if lockErr != nil && !errors.Is(err, syscall.ECONNREFUSED) {
		return // no socket and no lock: nothing to clear
	}
	os.Remove(socketFor(n))
	os.Remove(lockFor(n))
}

// EnvFile is where Up writes a desktop's environment.
func EnvFile(stateDir, display string) string {
	return filepath.Join(stateDir, "desktops", strings.TrimPrefix(display, ":")+".env")
}

// Up starts a desktop and waits until it is ready for applications.
func Up(ctx context.Context, o DesktopOptions) (*Desktop, error) {
	if o.Width == 0 {
		o.Width, o.Height = 1440, 900
	}
	explicit := o.Display != ""
	// From clearing a dead server's files to our Xvfb's lock naming it, no
	// other pcflow process may do the same (two that both found a stale
	// lock each removed the other's fresh one, and two tests shared :90).
	release := claimDisplays()
	defer release()
	if o.Display == "" {
		if o.from < 90 {
			o.from = 90
		}
		for n := o.from; n < 200; n++ {
			clearStale(n)
			_, lockErr := os.Stat(lockFor(n))
			if _, err := os.Stat(socketFor(n)); os.IsNotExist(err) && os.IsNotExist(lockErr) {
				o.Display = fmt.Sprintf(":%d", n)
				break
			}
		}
	}
	n, err := displayNum(o.Display)
	if err != nil {
		return nil, err
	}
	if explicit {
		clearStale(n) // a picked display was cleared as it was looked at
	}
	if _, err := os.Stat(socketFor(n)); err == nil {
		if o.Fresh {
			return nil, fmt.Errorf("display %s was taken by another X server while this desktop was down", o.Display)
		}
		if d, err := Load(o.StateDir, o.Display); err == nil {
			// Already up; its window manager may have died since.
			if err := d.ensureWM(ctx, o.StateDir); err != nil {
				return nil, err
			}
			return d, nil
		}
		return nil, fmt.Errorf("display %s is already in use by another X server; pick another with --display", o.Display)
	}
	for _, bin := range []string{"Xvfb", "dbus-daemon", "openbox"} {
		if _, err := exec.LookPath(bin); err != nil {
			return nil, fmt.Errorf("%s is not installed: run scripts/setup.sh (or apt-get install xvfb dbus openbox at-spi2-core)", bin)
		}
	}
	d := &Desktop{Display: o.Display, Env: map[string]string{}}
	keepInheritedFiles()
	// -noreset: by default Xvfb resets whenever its last client leaves,
	// and a client connecting during the reset (the window manager after
	// our readiness probe) is refused.
	// -nolisten local: no abstract socket, which every process sharing the
	// network namespace reaches (the access control is off, -ac): an eval
	// sandbox sees only its own desktop's socket file.
	xvfb := exec.Command("Xvfb", o.Display, "-screen", "0", fmt.Sprintf("%dx%dx24", o.Width, o.Height), "-nolisten", "tcp", "-nolisten", "local", "-ac", "-noreset")
	xvfb.Env = activities.TaskEnv(os.Environ())
	xvfb.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var xlog bytes.Buffer
	xvfb.Stdout, xvfb.Stderr = &xlog, &xlog
	if err := xvfb.Start(); err != nil {
		return nil, fmt.Errorf("start Xvfb: %w", err)
	}
	exited := make(chan struct{})
	go func() { xvfb.Wait(); close(exited) }()
	d.PIDs = append(d.PIDs, xvfb.Process.Pid)
	// Ready when a client can talk to it, not merely when its socket
	// exists; and it must be this Xvfb that answers: another one that
	// took the display between our look and our start holds its lock file,
	// and ours is about to exit.
	mine := func() bool { return lockOwner(n) == xvfb.Process.Pid }
	_ = waitFor(ctx, 10*time.Second, func() bool {
		select {
		case <-exited:
			return true
		default:
		}
		return mine()
	})
	release()
	err = waitFor(ctx, 30*time.Second, func() bool {
		select {
		case <-exited:
			return true
		default:
		}
		return mine() && exec.Command("xprop", "-display", o.Display, "-root", "RESOURCE_MANAGER").Run() == nil
	})
	if err != nil && !explicit && !mine() {
		// Another X server holds the display and ours has not exited
		// yet: end it (leaving the other's socket and lock) and try the
		// next display.
		_ = xvfb.Process.Kill()
		<-exited
	}
	select {
	case <-exited:
		// It never ran: the display's socket and lock belong to whoever
		// holds the display, so Down must not remove them.
		d.PIDs = nil
		if explicit {
			return nil, fmt.Errorf("Xvfb on %s exited: %s", o.Display, strings.TrimSpace(xlog.String()))
		}
		// Someone holds the display (an X server we cannot see, or one
		// that started between our look and our start): try the next.
		o.Display, o.from = "", n+1
		return Up(ctx, o)
	default:
	}
	if err != nil {
		d.Down()
		return nil, fmt.Errorf("Xvfb on %s did not start: %w", o.Display, err)
	}
	// A folder of this desktop's own, not one per display number: the
	// previous desktop on this display may still be going down, and its
	// Down removes its folder.
	runtimeDir, err := os.MkdirTemp(os.TempDir(), fmt.Sprintf("pcflow-xdg-%d-", n))
	if err != nil {
		d.Down()
		return nil, err
	}
	// A fresh configuration per desktop, as an evaluation VM is reset to a
	// snapshot: no "restore the previous session?" dialogs from an
	// application that was killed on an earlier desktop.
	// Data and state too: an editor's autosave (mousepad writes what was
	// typed, secrets included, to $XDG_DATA_HOME/Mousepad) must not carry
	// into another desktop or a later run. The folder is new: they start
	// empty.
	for _, sub := range []string{"config", "cache", "data", "state"} {
		if err := os.MkdirAll(filepath.Join(runtimeDir, sub), 0o700); err != nil {
			d.Down()
			return nil, err
		}
	}
	d.Env["DISPLAY"] = o.Display
	d.Env["XDG_RUNTIME_DIR"] = runtimeDir
	d.Env["XDG_CONFIG_HOME"] = filepath.Join(runtimeDir, "config")
	d.Env["XDG_CACHE_HOME"] = filepath.Join(runtimeDir, "cache")
	d.Env["XDG_DATA_HOME"] = filepath.Join(runtimeDir, "data")
	d.Env["XDG_STATE_HOME"] = filepath.Join(runtimeDir, "state")
	d.Env["GTK_MODULES"] = "gail:atk-bridge"
	d.Env["NO_AT_BRIDGE"] = "0"
	d.Env["ACCESSIBILITY_ENABLED"] = "1"
	d.Env["QT_ACCESSIBILITY"] = "1"
	d.Env["SAL_USE_VCLPLUGIN"] = "gtk3"
	// The session bus listens on a socket file in the desktop's session
	// folder, not on an abstract socket (what dbus-launch's default gives):
	// an abstract socket belongs to a network namespace, and an overlay
	// sandbox runs the task's programs in one of their own.
	conf, err := confineDir(runtimeDir)
	if err != nil {
		d.Down()
		return nil, fmt.Errorf("the desktop's window manager and bus configuration: %w", err)
	}
	out, err := d.command("dbus-daemon", "--config-file="+filepath.Join(conf, "bus.conf"), "--fork", "--print-address=1", "--print-pid=1",
		"--address=unix:path="+filepath.Join(runtimeDir, "bus")).Output()
	if err != nil {
		d.Down()
		return nil, fmt.Errorf("dbus-daemon --session: %w", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "unix:") {
			d.Env["DBUS_SESSION_BUS_ADDRESS"] = line
		} else if pid, err := strconv.Atoi(line); err == nil {
			d.PIDs = append(d.PIDs, pid)
		}
	}
	if d.Env["DBUS_SESSION_BUS_ADDRESS"] == "" {
		d.Down()
		return nil, fmt.Errorf("dbus-daemon --session printed no bus address: %q", out)
	}
	if err := enableAccessibility(d.Env["DBUS_SESSION_BUS_ADDRESS"]); err != nil {
		d.Down()
		return nil, err
	}
	pid, err := d.startWM(ctx)
	if err != nil {
		d.Down()
		return nil, err
	}
	d.PIDs = append(d.PIDs, pid)
	if err := publish(d.Display, d.record()); err != nil {
		d.Down()
		return nil, fmt.Errorf("record the desktop's environment on %s: %w", o.Display, err)
	}
	if o.StateDir != "" {
		if err := d.save(o.StateDir); err != nil {
			d.Down()
			return nil, err
		}
	}
	return d, nil
}

// startWM starts openbox and waits until it runs: its process is alive and
// its check window exists. Under load openbox has been seen to exit at
// start, so it is tried three times.
func (d *Desktop) startWM(ctx context.Context) (int, error) {
	xu, err := connectDisplay(d.Display)
	if err != nil {
		return 0, err
	}
	defer xu.Conn().Close()
	var wmLog bytes.Buffer
	for attempt := 1; ; attempt++ {
		conf, err := confineDir(d.Env["XDG_RUNTIME_DIR"])
		if err != nil {
			return 0, fmt.Errorf("the window manager's configuration: %w", err)
		}
		wm := d.command("openbox", "--sm-disable", "--config-file", filepath.Join(conf, "rc.xml"))
		wm.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		wmLog.Reset()
		wm.Stdout, wm.Stderr = &wmLog, &wmLog
		if err := wm.Start(); err != nil {
			return 0, fmt.Errorf("start openbox: %w", err)
		}
		exited := make(chan struct{})
		go func() { wm.Wait(); close(exited) }()
		running := func() bool {
			select {
			case <-exited:
				return false
			default:
				return wmRunning(xu, d.Display) == nil
			}
		}
		if waitFor(ctx, 10*time.Second, running) == nil {
			// Seen alive; look once more after a moment, since an openbox
			// that fails (another manager, a bad config) exits right away.
			time.Sleep(100 * time.Millisecond)
			if running() {
				return wm.Process.Pid, nil
			}
		}
		_ = wm.Process.Kill()
		if attempt == 3 {
			return 0, fmt.Errorf("openbox on %s did not start: %s", d.Display, strings.TrimSpace(wmLog.String()))
		}
	}
}

// enableAccessibility sets org.a11y.Status.IsEnabled on the session bus,
// which starts the accessibility bus that applications register with.
func enableAccessibility(addr string) error {
	conn, err := dbus.Connect(addr)
	if err != nil {
		return fmt.Errorf("connect to the desktop's D-Bus session: %w", err)
	}
	defer conn.Close()
	obj := conn.Object("org.a11y.Bus", "/org/a11y/bus")
	if err := obj.SetProperty("org.a11y.Status.IsEnabled", dbus.MakeVariant(true)); err != nil {
		return fmt.Errorf("switch accessibility on (is at-spi2-core installed?): %w", err)
	}
	var a11yAddr string
	if err := obj.Call("org.a11y.Bus.GetAddress", 0).Store(&a11yAddr); err != nil {
		return fmt.Errorf("start the accessibility bus: %w", err)
	}
	return nil
}

// command is a program of the desktop itself (its bus, its window
// manager), with the desktop's environment and none of the caller's
// credentials: what they start (an application the window manager's menu
// opens, a service the bus activates) inherits it.
func (d *Desktop) command(name string, args ...string) *exec.Cmd {
	c := exec.Command(name, args...)
	c.Env = activities.TaskEnv(d.Environ())
	return c
}

// Environ is os.Environ with the desktop's variables.
func (d *Desktop) Environ() []string {
	env := os.Environ()
	for _, k := range sortedKeys(d.Env) {
		env = append(env, k+"="+d.Env[k])
	}
	return env
}

func sortedKeys(m map[string]string) []string {
	k := make([]string, 0, len(m))
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}

// Exports renders the environment as shell export lines.
func (d *Desktop) Exports() string {
	var b strings.Builder
	for _, k := range sortedKeys(d.Env) {
		fmt.Fprintf(&b, "export %s='%s'\n", k, d.Env[k])
	}
	return b.String()
}

// record is the desktop as text: its environment as shell exports and a
// comment with its processes.
func (d *Desktop) record() string {
	var b strings.Builder
	b.WriteString(d.Exports())
	var pids []string
	for _, p := range d.PIDs {
		pids = append(pids, strconv.Itoa(p))
	}
	fmt.Fprintf(&b, "# pids %s\n", strings.Join(pids, " "))
	return b.String()
}

func parseRecord(display, text string) *Desktop {
	d := &Desktop{Display: display, Env: map[string]string{}}
	for _, line := range strings.Split(text, "\n") {
		if rest, ok := strings.CutPrefix(line, "# pids "); ok {
			for _, p := range strings.Fields(rest) {
				if n, err := strconv.Atoi(p); err == nil {
					d.PIDs = append(d.PIDs, n)
				}
			}
			continue
		}
		if k, v, ok := strings.Cut(strings.TrimPrefix(line, "export "), "="); ok {
			d.Env[k] = strings.Trim(v, "'")
		}
	}
	return d
}

func (d *Desktop) save(stateDir string) error {
	path := EnvFile(stateDir, d.Display)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(d.record()), 0o644)
}

// Load finds a desktop started by Up. The display's root window carries
// its record (environment and processes) for as long as its X server
// runs, so a worker started with any state folder finds the desktop's
// D-Bus session and accessibility tree; the state folder's copy serves
// when the display cannot be asked.
func Load(stateDir, display string) (*Desktop, error) {
	n, err := displayNum(display)
	if err != nil {
		return nil, err
	}
	b, ferr := os.ReadFile(EnvFile(stateDir, display))
	if _, err := os.Stat(socketFor(n)); err != nil {
		if ferr == nil {
			return nil, fmt.Errorf("desktop %s is recorded but its X server is gone: run `pcflow desktop up --display %s` again", display, display)
		}
		return nil, fmt.Errorf("no desktop %s in %s: start it with `pcflow desktop up --display %s`", display, stateDir, display)
	}
	if text, err := published(display); err == nil {
		return parseRecord(display, text), nil
	} else if ferr != nil {
		return nil, err
	}
	return parseRecord(display, string(b)), nil
}

// Apply sets the desktop's session variables in this process (its D-Bus
// session, runtime and XDG folders), so AT-SPI and launched applications
// use them. Its display is not among them: a device is given its display
// (New), and gives it to the programs it starts.
func (d *Desktop) Apply() error {
	for k, v := range d.Env {
		if k == "DISPLAY" {
			continue
		}
		if err := os.Setenv(k, v); err != nil {
			return err
		}
	}
	return nil
}

// Alive reports whether the desktop's X server still runs.
func (d *Desktop) Alive() bool {
	n, err := displayNum(d.Display)
	if err != nil || len(d.PIDs) == 0 {
		return false
	}
	if _, err := os.Stat(socketFor(n)); err != nil {
		return false
	}
	return procs.OnDisplay(d.PIDs[0], d.Display)
}

// Down stops the desktop's processes (and the applications on it, which
// lose their display).
func (d *Desktop) Down() {
	// Only the processes that are still this desktop's: a recorded one
	// that exited (its X server killed, its window manager gone with it)
	// may have left its PID to another program.
	var ours []int
	for _, p := range d.PIDs {
		if procs.OnDisplay(p, d.Display) {
			ours = append(ours, p)
		}
	}
	for i := len(ours) - 1; i >= 0; i-- {
		_ = syscall.Kill(ours[i], syscall.SIGTERM)
	}
	deadline := time.Now().Add(3 * time.Second)
	for _, p := range ours {
		for procs.OnDisplay(p, d.Display) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
			reap(p)
		}
		if procs.OnDisplay(p, d.Display) {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		reap(p)
	}
	// The socket and lock file are the X server's only while its lock
	// names it: another server may hold the display now.
	if n, err := displayNum(d.Display); err == nil && len(d.PIDs) > 0 {
		release := claimDisplays()
		if lockOwner(n) == d.PIDs[0] {
			os.Remove(socketFor(n))
			os.Remove(lockFor(n))
		}
		release()
	}
	// The runtime folder Up made (D-Bus and AT-SPI sockets, fresh
	// application configuration) goes with the desktop.
	if dir := d.Env["XDG_RUNTIME_DIR"]; strings.HasPrefix(filepath.Base(dir), "pcflow-xdg-") {
		os.RemoveAll(dir)
		os.RemoveAll(filepath.Join(filepath.Dir(dir), "pcflow-wm-"+strings.TrimPrefix(filepath.Base(dir), "pcflow-xdg-")))
	}
}

// lockOwner returns the PID in display n's lock file (0: none or
// unreadable). Xvfb writes it at start, padded, before it listens.
func lockOwner(n int) int {
	b, err := os.ReadFile(lockFor(n))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// keepInheritedFiles marks the files this process inherited (beyond
// stdin, stdout and stderr) close-on-exec, so the long-lived programs it
// starts do not hold them: a desktop started under `flock LOCK cmd` kept
// the lock for as long as its Xvfb ran.
func keepInheritedFiles() {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}

// reap collects a child that has exited, so it does not linger as a zombie
// (which kill(pid, 0) would still find).
func reap(pid int) {
	var ws syscall.WaitStatus
	_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
}

func waitFor(ctx context.Context, d time.Duration, ok func() bool) error {
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %s", d)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}
