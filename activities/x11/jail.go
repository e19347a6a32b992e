package x11

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// TaskJail keeps a task's programs away from what the worker that drives
// them holds. Inside an overlay sandbox the worker keeps the host's
// network (the Temporal frontend, the model, the live view) and the
// capabilities it needs to start programs here; every program a task
// runs — the applications it launches, its setup commands and command
// checks, and everything those start — runs in a network namespace of
// its own with nothing but a loopback interface (up: a server a setup
// starts on 127.0.0.1 is reachable from the task's other programs and
// checks), as root with no capability but CAP_SETGID (a terminal emulator
// sets its shell's groups). A process with fewer capabilities cannot read
// the worker's memory, environment or open files through /proc, so the
// state folder the worker reaches through a descriptor stays out of reach
// too.
type TaskJail struct {
	holder *exec.Cmd // nil when the namespace was given (NewTaskJail's net)
	ns     string
}

// NewTaskJail enters the task's network namespace net (a file that holds
// it: the overlay sandbox makes it, with its loopback interface up, before
// the worker starts), or, when net is "", makes one: a process that sleeps
// in it holds it open for as long as the worker lives. It needs
// CAP_SYS_ADMIN (and nsenter and setpriv from util-linux, which Wrap's
// commands run). It fails when the namespace's loopback interface is down:
// bringing it up takes CAP_NET_ADMIN, which the sandbox gives no process
// inside, so the namespace the sandbox made is the one to use.
func NewTaskJail(net string) (*TaskJail, error) {
	for _, p := range []string{"nsenter", "setpriv", "sleep"} {
		if _, err := exec.LookPath(p); err != nil {
			return nil, fmt.Errorf("the overlay sandbox confines a task's programs with %s (util-linux): %w", p, err)
		}
	}
	j := &TaskJail{ns: net}
	if net == "" {
		h := exec.Command("sleep", "infinity")
		// Not the worker's environment: a reset stops every process whose
		// environment names the display (procs.TermApps), and the jail must
		// outlive resets — without it every confined command after one failed
		// ("nsenter: cannot open /proc/N/ns/net").
		h.Env = []string{"PATH=/usr/bin:/bin"}
		h.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET, Pdeathsig: syscall.SIGKILL, Setsid: true}
		if err := h.Start(); err != nil {
			return nil, fmt.Errorf("make the task's network namespace (needs CAP_SYS_ADMIN): %w", err)
		}
		go func() { _ = h.Wait() }()
		j.holder, j.ns = h, "/proc/"+strconv.Itoa(h.Process.Pid)+"/ns/net"
		if _, err := exec.LookPath("ip"); err == nil {
			cmd := exec.Command("nsenter", "--net="+j.ns, "--", "ip", "link", "set", "lo", "up")
			cmd.WaitDelay = 5 * time.Second
			_ = cmd.Run() // needs CAP_NET_ADMIN; loopbackUp says whether it did
		}
	}
	up, err := loopbackUp(j.ns)
	if err == nil && !up {
		err = errors.New("its loopback interface is down, so a server a task starts on 127.0.0.1 cannot be reached (bringing it up needs CAP_NET_ADMIN in that namespace: pcflow eval's overlay sandbox does it before the worker starts, with ip from iproute2 — apt-get install iproute2)")
	}
	if err != nil {
		j.Close()
		return nil, fmt.Errorf("the task's network namespace %s: %w", j.ns, err)
	}
	return j, nil
}

// loopbackUp reports whether the loopback interface of the network
// namespace ns is up. It looks from a thread locked to its goroutine that
// enters ns and then goes back to the worker's own network; one that
// cannot go back ends with its goroutine. Ending it is the exception: a
// thread's end kills the children it started with a parent-death signal
// (the namespace's holder, when the jail made one).
func loopbackUp(ns string) (bool, error) {
	type answer struct {
		up  bool
		err error
	}
	c := make(chan answer, 1)
	go func() {
		runtime.LockOSThread()
		back := false
		defer func() {
			if back {
				runtime.UnlockOSThread()
			}
		}()
		up, err := func() (bool, error) {
			own, err := os.Open("/proc/thread-self/ns/net")
			if err != nil {
				return false, err
			}
			defer own.Close()
			f, err := os.Open(ns)
			if err != nil {
				return false, err
			}
			defer f.Close()
			if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
				return false, fmt.Errorf("enter it (needs CAP_SYS_ADMIN): %w", err)
			}
			defer func() { back = unix.Setns(int(own.Fd()), unix.CLONE_NEWNET) == nil }()
			fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				return false, err
			}
			defer unix.Close(fd)
			ifr, err := unix.NewIfreq("lo")
			if err != nil {
				return false, err
			}
			if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
				return false, fmt.Errorf("read the flags of lo: %w", err)
			}
			return ifr.Uint16()&unix.IFF_UP != 0, nil
		}()
		c <- answer{up, err}
	}()
	a := <-c
	return a.up, a.err
}

// Wrap returns the command line that runs argv in the jail.
func (j *TaskJail) Wrap(argv []string) []string {
	return append([]string{"nsenter", "--net=" + j.ns, "--", "setpriv", "--bounding-set=-all,+setgid", "--inh-caps=-all", "--ambient-caps=-all", "--"}, argv...)
}

// Close ends the namespace's holder, when the jail made one.
func (j *TaskJail) Close() {
	if j.holder != nil {
		_ = j.holder.Process.Kill()
	}
}
