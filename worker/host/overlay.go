package host

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pcflow/pcflow/activities"
)

// overlaySandbox is the overlay kind of Sandbox: the whole file system a
// copy-on-write overlay in memory over the host's, dropped with the
// sandbox after every reset; the state folder hidden (the worker reaches
// it through a descriptor); its own PID namespace; the task's programs
// in a network namespace of their own (see overlayMounts).
type overlaySandbox struct {
	program string // the pcflow program
	state   string // the state folder
	layers  string // the host folder the layers are mounted on
	display string // the device's X display
	base    string // the scratch base
	home    string // the task's home folder ("": none)
	user    string // the task's user ("": none)
}

func (s *overlaySandbox) Env() []string {
	return []string{activities.ScratchEnv + "=" + ScratchDir, RestartEnv + "=" + RestartOverlay, TaskNetEnv + "=" + TaskNetPath}
}

func (s *overlaySandbox) Command(command, environ []string) ([]string, error) {
	m, err := s.mounts(environ, command)
	return m.argv(), err
}

func (s *overlaySandbox) Marker() string   { return filepath.Join(s.layers, "root") }
func (s *overlaySandbox) HidesState() bool { return true }
func (s *overlaySandbox) Between() error   { return nil }

// AppsGoWithWorker: the sandbox's PID namespace ends with its worker.
func (s *overlaySandbox) AppsGoWithWorker() bool { return true }

// mounts says what an overlay device's sandbox shows of the host:
// the base system (the top folders of systemDirs), the worker's program,
// the device's X socket and desktop session folder. Nothing of the state
// folder is there: the worker reaches it through a descriptor
// that no program of the task can use. The working folder, every
// other top folder of the host, the host's /tmp, /root and /home, and the
// base system's secrets (hiddenFiles, hiddenDirs) show empty.
func (s *overlaySandbox) mounts(environ []string, command []string) (overlayMounts, error) {
	sb := overlayMounts{Layers: s.layers, Base: s.base, Home: s.home, User: s.user, Command: command}
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
	if err := os.MkdirAll(s.base, 0o755); err != nil {
		return sb, err
	}
	if wd, err := os.Getwd(); err == nil && hiddenWorkDir(wd) != "" {
		sb.Hide = append(sb.Hide, hiddenWorkDir(wd))
	}
	sb.Hide = append(sb.Hide, s.state)
	sb.Hide = append(sb.Hide, hostOnlyDirs()...)
	for _, f := range hiddenFiles {
		if fi, err := os.Lstat(f); err == nil && fi.Mode().IsRegular() {
			sb.HideFiles = append(sb.HideFiles, f)
		}
	}
	sb.ROBind = []string{s.program, "/tmp/.X11-unix/X" + strings.TrimPrefix(s.display, ":")}
	sb.Bind = append(sb.Bind, desktopPaths(environ)...)
	return sb, nil
}

// overlayScript runs in a mount namespace of its own (unshare -m): it
// mounts the device's world — the host's root file system, read-only
// below a copy-on-write layer in memory — and its scratch folder, then
// execs bubblewrap with the rest of its arguments. It makes the task's
// network namespace, its loopback interface up, held by the file
// $L/net (shown as TaskNetPath), and, for a task that expects a home
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

// overlayMounts is what an overlay device's sandbox shows of the host.
type overlayMounts struct {
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
func (s overlayMounts) argv() []string {
	a := []string{"unshare", "--mount", "--propagation", "private", "sh", "-c", overlayScript, "sh", s.Layers, s.Base, s.Home, s.User,
		"bwrap", "--bind", filepath.Join(s.Layers, "root"), "/",
		"--dev-bind", filepath.Join(s.Layers, "dev"), "/dev", "--tmpfs", "/dev/shm", "--proc", "/proc", "--ro-bind", "/sys", "/sys"}
	for _, d := range append([]string{"/tmp", "/var/tmp", "/run", "/root", "/home"}, s.Hide...) {
		a = append(a, "--tmpfs", d)
	}
	for _, p := range s.HideFiles {
		a = append(a, "--ro-bind", "/dev/null", p)
	}
	a = append(a, "--ro-bind", filepath.Join(s.Layers, "net"), TaskNetPath)
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
