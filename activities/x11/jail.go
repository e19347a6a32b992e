package x11

import (
	"fmt"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// TaskJail keeps a task's programs away from what the worker that drives
// them holds. Inside an overlay sandbox the worker keeps the host's
// network (the Temporal frontend, the model, the live view) and the
// capabilities it needs to start programs here; every program a task
// runs — the applications it launches, its setup commands and command
// checks, and everything those start — runs in a network namespace of
// its own with nothing but a loopback interface, as root with no
// capability but CAP_SETGID (a terminal emulator sets its shell's
// groups). A process with fewer capabilities cannot read the worker's
// memory, environment or open files through /proc, so the state folder
// the worker reaches through a descriptor stays out of reach too.
type TaskJail struct {
	holder *exec.Cmd
	ns     string
}

// NewTaskJail makes the network namespace: a process that sleeps in it
// holds it open for as long as the worker lives. It needs CAP_SYS_ADMIN
// (and nsenter and setpriv from util-linux, which Wrap's commands run).
func NewTaskJail() (*TaskJail, error) {
	for _, p := range []string{"nsenter", "setpriv", "sleep"} {
		if _, err := exec.LookPath(p); err != nil {
			return nil, fmt.Errorf("the overlay sandbox confines a task's programs with %s (util-linux): %w", p, err)
		}
	}
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
	j := &TaskJail{holder: h, ns: "/proc/" + strconv.Itoa(h.Process.Pid) + "/ns/net"}
	// The loopback interface, for programs of the task that talk to each
	// other over TCP; best effort (without ip, there is none).
	if _, err := exec.LookPath("ip"); err == nil {
		cmd := exec.Command("nsenter", "--net="+j.ns, "--", "ip", "link", "set", "lo", "up")
		cmd.WaitDelay = 5 * time.Second
		_ = cmd.Run()
	}
	return j, nil
}

// Wrap returns the command line that runs argv in the jail.
func (j *TaskJail) Wrap(argv []string) []string {
	return append([]string{"nsenter", "--net=" + j.ns, "--", "setpriv", "--bounding-set=-all,+setgid", "--inh-caps=-all", "--ambient-caps=-all", "--"}, argv...)
}

// Close ends the namespace's holder.
func (j *TaskJail) Close() {
	_ = j.holder.Process.Kill()
}
