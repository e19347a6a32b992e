package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pcflow/pcflow/activities/x11/procs"
)

// restartExitCode is how a device worker in an overlay sandbox asks the
// eval process for a fresh sandbox after a reset (EX_TEMPFAIL).
const restartExitCode = 75

// restartEnv tells a device worker that its sandbox is dropped and started
// afresh by exiting with restartExitCode after each reset: restartOverlay
// (the task's programs run apart, in a TaskJail) or restartBind (eval
// empties the device's home folder in between).
const (
	restartEnv     = "PCFLOW_SANDBOX_RESTART"
	restartOverlay = "1"
	restartBind    = "bind"
)

// taskNetEnv names, in an overlay device worker's environment, the file
// that holds the task's network namespace (taskNetPath): the sandbox
// makes it, with its loopback interface up, before the worker starts
// (inside, no process has the capability to bring it up).
const (
	taskNetEnv  = "PCFLOW_TASK_NET"
	taskNetPath = "/run/pcflow-task-net"
)

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

// overlayScript runs in a mount namespace of its own (unshare -m): it
// mounts the device's world — the host's root file system, read-only
// below a copy-on-write layer in memory — and its scratch folder, then
// execs bubblewrap with the rest of its arguments. It makes the task's
// network namespace, its loopback interface up, held by the file
// $L/net (shown as taskNetPath), and, for a task that expects a home
// folder ($3) and user ($4), the folder $L/home (shown as the home
// folder, empty) and the user's account in the copy-on-write
// /etc/passwd and /etc/group, unless the base system has it. Everything the sandbox
// wrote lives in that memory and goes with the namespace when its last
// process exits. It also makes the device's /dev: the harmless devices
// of the host and a pseudo-terminal file system of its own whose
// terminals belong to the tty group, as on the host (bubblewrap's --dev
// makes them root's, and a terminal emulator, which hands its terminal to
// that group, fails without the capability to chown: xterm never opened a
// window). $1: a folder for the layers; $2: the scratch base; $3 the
// task's home folder and $4 its user, or "".
const overlayScript = `set -e
L=$1; B=$2; H=$3; U=$4; shift 4
mkdir -p "$L"
mount -t tmpfs -o mode=0755 pcflow-world "$L"
mkdir "$L/up" "$L/work" "$L/root" "$L/sup" "$L/swork" "$L/scratch"
mount -t overlay -o lowerdir=/,upperdir="$L/up",workdir="$L/work" pcflow-root "$L/root"
mount -t overlay -o lowerdir="$B",upperdir="$L/sup",workdir="$L/swork" pcflow-scratch "$L/scratch"
touch "$L/net"
unshare --net="$L/net" true
if ! nsenter --net="$L/net" ip link set lo up; then
  echo "pcflow sandbox: cannot bring up the loopback interface of the task's network namespace (ip link set lo up, from iproute2: apt-get install iproute2)" >&2
  exit 1
fi
if [ -n "$H" ]; then
  mkdir -m 0755 "$L/home"
fi
if [ -n "$U" ] && ! grep -q "^$U:" "$L/root/etc/passwd"; then
  id=1000
  while cut -d: -f3 "$L/root/etc/passwd" "$L/root/etc/group" | grep -qx "$id"; do id=$((id+1)); done
  grep -q "^$U:" "$L/root/etc/group" || echo "$U:x:$id:" >> "$L/root/etc/group"
  gid=$(grep "^$U:" "$L/root/etc/group" | cut -d: -f3)
  echo "$U:x:$id:$gid::$H:/bin/bash" >> "$L/root/etc/passwd"
fi
mkdir "$L/dev" "$L/dev/pts" "$L/dev/shm"
for n in null zero full random urandom tty; do
  touch "$L/dev/$n"
  mount --bind "/dev/$n" "$L/dev/$n"
done
tty=$(getent group tty | cut -d: -f3)
mount -t devpts -o newinstance,ptmxmode=0666,mode=620,gid="${tty:-5}" pcflow-pts "$L/dev/pts"
ln -s pts/ptmx "$L/dev/ptmx"
ln -s /proc/self/fd "$L/dev/fd"
ln -s /proc/self/fd/0 "$L/dev/stdin"
ln -s /proc/self/fd/1 "$L/dev/stdout"
ln -s /proc/self/fd/2 "$L/dev/stderr"
exec "$@"
`

// overlaySandbox is what an overlay device's sandbox shows of the host.
type overlaySandbox struct {
	Layers    string   // host folder the layers are mounted on (in the sandbox's own mount namespace)
	Base      string   // the scratch base
	Hide      []string // host folders that show empty inside
	HideFiles []string // host files that show empty inside
	Bind      []string // host paths shown writable at the same path (after Hide)
	ROBind    []string // host paths shown read-only at the same path (after Hide)
	Home      string   // the task's home folder, shown empty ("": none)
	User      string   // the task's user, made when missing ("": none)
	Command   []string // the worker's argv
}

// argv returns the command that starts the sandbox. Inside: the host's
// root file system under a copy-on-write layer in memory (a write to /etc
// or /usr lands in the layer, never on the host), /tmp, /var/tmp, /run,
// /root, /home and the Hide folders empty, only the Bind/ROBind paths of
// the host visible, a PID namespace (the device's processes only) and an
// IPC namespace of its own, the host's network, and of root's
// capabilities only CAP_SETGID: a terminal emulator sets the groups of the
// shell it starts (xterm's child exited at once without it, and no
// terminal ever opened a window).
func (s overlaySandbox) argv() []string {
	a := []string{"unshare", "--mount", "--propagation", "private", "sh", "-c", overlayScript, "sh", s.Layers, s.Base, s.Home, s.User,
		"bwrap", "--bind", filepath.Join(s.Layers, "root"), "/",
		"--dev-bind", filepath.Join(s.Layers, "dev"), "/dev", "--tmpfs", "/dev/shm", "--proc", "/proc", "--ro-bind", "/sys", "/sys"}
	for _, d := range append([]string{"/tmp", "/var/tmp", "/run", "/root", "/home"}, s.Hide...) {
		a = append(a, "--tmpfs", d)
	}
	for _, p := range s.HideFiles {
		a = append(a, "--ro-bind", "/dev/null", p)
	}
	a = append(a, "--ro-bind", filepath.Join(s.Layers, "net"), taskNetPath)
	if s.Home != "" {
		a = append(a, "--bind", filepath.Join(s.Layers, "home"), s.Home)
	}
	for _, p := range s.Bind {
		a = append(a, "--bind", p, p)
	}
	for _, p := range s.ROBind {
		a = append(a, "--ro-bind", p, p)
	}
	// The worker keeps CAP_SYS_ADMIN and CAP_SETPCAP to start the task's
	// programs apart (x11.TaskJail: a network namespace of their own, no
	// capability but CAP_SETGID).
	a = append(a, "--bind", filepath.Join(s.Layers, "scratch"), ScratchDir,
		"--unshare-pid", "--unshare-ipc", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
		"--cap-add", "CAP_SETGID", "--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SETPCAP", "--")
	return append(a, s.Command...)
}

// bindSandbox is what a bind device's sandbox shows of the host: all of
// it, but a /tmp of the device's own (LibreOffice, for one, finds its
// running instance by a socket in /tmp named after the profile folder, so
// two devices sharing /tmp with the same task file hand documents to each
// other's instance), a home folder of the device's own, which eval empties
// at every reset (a task's files, git's global configuration, a terminal's
// history must not reach the next task), and ScratchDir bound to the
// device's scratch folder. Keep are the host paths under /tmp and under
// the home folder the worker and the desktop's programs need (the X
// socket, the desktop's session folder and D-Bus socket, the state
// folder, the pcflow program, the working folder).
type bindSandbox struct {
	Tmp     string // host folder shown as /tmp
	Home    string // the home folder the task sees ($HOME); "" keeps the host's
	OwnHome string // host folder shown as Home
	Scratch string // host folder shown as ScratchDir
	Keep    []string
}

func (s bindSandbox) argv(command []string) []string {
	a := []string{"bwrap", "--dev-bind", "/", "/", "--bind", s.Tmp, "/tmp"}
	// The home folder after /tmp (it may lie there), the kept paths after
	// both (bubblewrap takes every source from the host's view).
	// A kept folder that holds the home folder (the working folder
	// /tmp/w for a home /tmp/w/h) goes first, or it would show the host's.
	for _, p := range s.Keep {
		if s.Home != "" && strings.HasPrefix(s.Home, p+"/") {
			a = append(a, "--bind", p, p)
		}
	}
	if s.Home != "" {
		a = append(a, "--bind", s.OwnHome, s.Home)
	}
	for _, p := range s.Keep {
		if s.Home == "" || !strings.HasPrefix(s.Home, p+"/") {
			a = append(a, "--bind", p, p)
		}
	}
	a = append(a, "--bind", s.Scratch, ScratchDir, "--die-with-parent", "--")
	return append(a, command...)
}

// taskHomeEnv names, in a sandboxed device worker's environment, the
// home folder the suite's tasks expect (suiteRecord.Home): the worker sets
// homeEnv over the desktop's variables it applies.
const taskHomeEnv = "PCFLOW_TASK_HOME"

// homeEnv is the environment that gives a sandboxed device's task
// programs the home folder home: $HOME, and the folders where
// applications keep their settings, cache and data inside it (where
// OSWorld's getters read ~/.config/...), instead of the desktop's
// session folder.
func homeEnv(home string) []string {
	return []string{"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state")}
}

// privateHome returns the home folder a bind sandbox gives the device a
// folder of its own for: $HOME of environ, "" when it has none of its
// own to hide (unset, relative, /, or /tmp, which is the device's own
// already).
func privateHome(environ []string) string {
	home := ""
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v // the last one wins, as in exec
		}
	}
	home = filepath.Clean(home)
	if !filepath.IsAbs(home) || home == "/" || home == "/tmp" {
		return ""
	}
	return home
}

// keepUnder lists the host paths under dir (/tmp, the home folder) a bind
// device's worker needs to see: the X sockets, the desktop's session
// folder and D-Bus socket (from its environment), the state folder, the
// pcflow program and the working folder; only those that exist, and
// never dir itself.
func keepUnder(dir, exe, state string, environ []string) []string {
	cands := append([]string{"/tmp/.X11-unix", state, exe}, desktopPaths(environ)...)
	if wd, err := os.Getwd(); err == nil {
		cands = append(cands, wd)
	}
	var keep []string
	for _, p := range cands {
		if p == "" {
			continue
		}
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if !strings.HasPrefix(p, dir+"/") || slices.Contains(keep, p) {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			keep = append(keep, p)
		}
	}
	return keep
}

// desktopPaths are the host paths of a desktop's session a sandboxed
// worker needs, from the desktop's environment: its session folder
// (XDG_RUNTIME_DIR: the AT-SPI bus, the applications' settings) and its
// D-Bus socket file (none for an abstract socket).
func desktopPaths(environ []string) []string {
	var paths []string
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "XDG_RUNTIME_DIR":
			paths = append(paths, v)
		case "DBUS_SESSION_BUS_ADDRESS":
			if p := busPath(v); p != "" {
				paths = append(paths, p)
			}
		}
	}
	return paths
}

// busPath returns the socket file of a D-Bus address (unix:path=...), or
// "" for an abstract socket (reachable through the shared network
// namespace).
func busPath(addr string) string {
	for _, part := range strings.Split(addr, ",") {
		if p, ok := strings.CutPrefix(part, "unix:path="); ok {
			return p
		}
	}
	return ""
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

// systemDirs are the top folders of the base system a sandbox keeps.
var systemDirs = map[string]bool{"usr": true, "etc": true, "var": true, "opt": true, "bin": true, "sbin": true,
	"lib": true, "lib32": true, "lib64": true, "libx32": true, "boot": true, "srv": true, "mnt": true, "media": true, "snap": true, "nix": true}

// hiddenFiles are files of the base system a sandbox shows empty: the
// host's password hashes.
var hiddenFiles = []string{"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-"}

// hiddenSystemDirs are folders of the base system a sandbox shows empty:
// host keys, private keys, databases, logs, mail and backups.
var hiddenSystemDirs = []string{"/etc/ssh", "/etc/ssl/private", "/var/lib/postgresql", "/var/lib/mysql",
	"/var/log", "/var/mail", "/var/spool", "/var/backups"}

// hostOnlyDirs lists what an overlay sandbox hides of the host's root:
// every top folder that is not part of the base system (systemDirs) or
// made anew inside (/proc, /sys, /dev, /tmp, /run, /root, /home), and the
// hiddenSystemDirs that exist.
func hostOnlyDirs() []string {
	var out []string
	entries, _ := os.ReadDir("/")
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() || systemDirs[n] || slices.Contains([]string{"proc", "sys", "dev", "tmp", "run", "root", "home", "lost+found"}, n) {
			continue
		}
		out = append(out, "/"+n)
	}
	for _, d := range hiddenSystemDirs {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			out = append(out, d)
		}
	}
	return out
}

// hiddenWorkDir returns the folder to hide for the working folder wd: its
// top folder (/work for /work/repo: the repository's siblings are as
// private), or wd itself under a folder of the base system ("" for /).
func hiddenWorkDir(wd string) string {
	wd = filepath.Clean(wd)
	top, _, _ := strings.Cut(strings.TrimPrefix(wd, "/"), "/")
	if top == "" || systemDirs[top] {
		if wd == "/" {
			return ""
		}
		return wd
	}
	return "/" + top
}

// sweepSandbox kills what is left of an earlier sandbox of the same
// device: bubblewrap processes (argv[0] bwrap) with marker among their
// arguments — a path only that device's sandbox uses — that this process
// did not start. They are left when eval is killed while a sandbox
// starts: bubblewrap's outer process dies with eval, and its child,
// which has not yet set its own parent-death signal, waits forever for
// the word to go on (reproduced by killing bwrap's parent 5 ms after it
// started: 2 of 10 stayed). Such a process never runs the worker, but it
// holds the sandbox's namespaces and memory. It returns how many it
// killed.
func sweepSandbox(marker string) int {
	// Each match's parent, read before anything is killed: once a
	// match's parent is killed and reaped, the match is re-parented and
	// would be counted as a sandbox of its own (CI and -count=40: "killed
	// 2 processes, want 1" when the map's order killed the parent first).
	matched := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if filepath.Base(args[0]) != "bwrap" || !slices.Contains(args[1:], marker) || descendsFromMe(pid) {
			continue
		}
		matched[pid] = procs.ParentOf(pid)
	}
	n := 0
	for pid, ppid := range matched {
		// A match whose parent matches too is that process's child
		// between fork and exec (it has its parent's arguments until
		// then): killed with it, not counted as another sandbox.
		_, parent := matched[ppid]
		if syscall.Kill(pid, syscall.SIGKILL) == nil && !parent {
			n++
		}
	}
	return n
}

// descendsFromMe reports whether pid is this process's child, grandchild
// or further: a sandbox this process runs, or a process that sandbox has
// forked and not yet exec'd (it holds bwrap's arguments until then).
func descendsFromMe(pid int) bool {
	for range 32 {
		pid = procs.ParentOf(pid)
		if pid <= 1 {
			return false
		}
		if pid == os.Getpid() {
			return true
		}
	}
	return false
}

// childrenOf lists the child processes of pid (Linux: /proc/PID/task/*/children).
func childrenOf(pid int) []int {
	var out []int
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "children"))
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}
