package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities"
)

// stormTasks are the smoke suite's calculator and editor tasks: two that
// pass and two that must fail (calc_misread check_failed, editor_missing
// agent_failed), so a kill that turns a pass into a failure, or a failure
// into a pass, shows.
var stormTasks = []string{"calc_add", "calc_misread", "editor_note", "editor_missing"}

// TestEvalStorm kills an eval suite's processes with SIGKILL at random
// points, many of them inside an action: the eval process (then `pcflow
// eval resume`), a device worker (eval starts it again) and the Temporal
// server (a `pcflow server` the suite runs on, started again on the same
// database; an eval that gave up on it is resumed). The embedded server of
// an eval without --temporal lives in the eval process, so a kill of it is
// a kill of eval: the suite runs against a server started apart to kill it
// alone. Every task run must end; none may end as the agent's failure
// because of a kill (its desktop lost: harness_error, or started again and
// ended as it must); no action may start twice; the suite's SR must be the
// runs that passed. PCFLOW_STORM_KILLS sets the number of kills (default 3
// over the 4 tasks; with more than 3, the tasks run 5 times each: 20 runs),
// PCFLOW_STORM_SEED the seed.
func TestEvalStorm(t *testing.T) {
	t.Parallel() // its own desktops, state folder and ports (see newEvalWorld)
	kills, repeat := 3, 1
	if v := os.Getenv("PCFLOW_STORM_KILLS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("PCFLOW_STORM_KILLS=%q: want a positive count", v)
		}
		kills = n
	}
	if kills > 3 {
		repeat = 5
	}
	seed := time.Now().UnixNano()
	if v := os.Getenv("PCFLOW_STORM_SEED"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("PCFLOW_STORM_SEED=%q: want an integer", v)
		}
		seed = n
	}
	s := &storm{w: newEvalWorld(t), rng: rand.New(rand.NewSource(seed)), id: "storm", out: &lockedBuffer{}}
	w := s.w
	s.addr = fmt.Sprintf("127.0.0.1:%d", w.port)
	s.startServer(t)
	defer func() { kill(s.server) }()

	args := []string{"eval"}
	for _, task := range stormTasks {
		args = append(args, filepath.Join("specs", "suites", "smoke", task+".hcl"))
	}
	args = append(args, "--devices", "2", "--repeat", fmt.Sprint(repeat), "--out", w.out, "--no-report", "--id", s.id,
		"--temporal", s.addr, "--state", w.state)
	s.startEval(t, args...)
	defer func() {
		if s.eval != nil {
			kill(s.eval.cmd)
		}
	}()

	byKind := map[string]int{}
	inside := 0
	kinds := []string{killRun, killWorker, killServer}
	for i := 0; i < kills; i++ {
		in, dev, ok := s.waitKillPoint(t)
		if !ok {
			t.Logf("the suite ended after %d of %d kills", i, kills)
			break
		}
		kind := kinds[i%len(kinds)]
		switch kind {
		case killRun:
			s.killEval(t)
		case killWorker:
			if !s.killWorker(t, dev) {
				in = false
			}
		case killServer:
			kill(s.server)
			s.startServer(t)
		}
		byKind[kind]++
		if in {
			inside++
		}
		t.Logf("kill %d: %s (device %s), inside an action: %v", i+1, kind, dev, in)
		if t.Failed() {
			break
		}
	}
	s.finish(t)

	r := readResults(t, w.out)
	passed, harness := 0, 0
	outcomes := map[string]int{}
	for _, row := range r.Runs {
		got := row.Status + "/" + row.Reason
		outcomes[got]++
		t.Logf("%s: %s (retried: %q) %s", row.Key, got, row.Retried, row.Error)
		switch {
		case got == smokeWant[row.Task]:
		case row.Reason == "harness_error":
			harness++
		default:
			t.Errorf("%s: %s (%s), want %s or harness_error: a kill counted against the agent", row.Key, got, row.Error, smokeWant[row.Task])
		}
		if row.Status == "succeeded" {
			passed++
		}
	}
	if want := len(stormTasks) * repeat; len(r.Runs) != want {
		t.Errorf("%d task runs ended, want %d", len(r.Runs), want)
	}
	if o := r.Overall; o.Passed != passed || o.HarnessErrors != harness || o.Runs != len(r.Runs)-harness ||
		o.Runs > 0 && o.SuccessRate != float64(passed)/float64(o.Runs) {
		t.Errorf("overall = %+v, want %d passed of %d scored runs (%d harness errors)", o, passed, len(r.Runs)-harness, harness)
	}
	twice := s.actionsStartedTwice(t)
	t.Logf("storm seed %d: %d kills (eval %d, worker %d, server %d; %d inside an action), %d evals; %d of %d runs ended, SR %.2f (%d passed), outcomes %v, actions started twice: %d",
		seed, byKind[killRun]+byKind[killWorker]+byKind[killServer], byKind[killRun], byKind[killWorker], byKind[killServer], inside,
		s.evals, len(r.Runs), len(stormTasks)*repeat, r.Overall.SuccessRate, passed, outcomes, twice)
	if t.Failed() {
		t.Logf("processes:\n%s", s.out.String())
	}
}

// storm is the processes of one storm: a server and the eval following
// the suite, with their output in out.
type storm struct {
	w      *evalWorld
	rng    *rand.Rand
	id     string
	addr   string
	out    *lockedBuffer
	server *exec.Cmd
	eval   *evalProc
	evals  int // eval processes started (eval, then each resume)
	gaveUp int // evals in a row that stopped following the suite on their own
}

// evalProc is a running eval; done is closed when it has exited.
type evalProc struct {
	cmd  *exec.Cmd
	done chan struct{}
}

func (p *evalProc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (s *storm) startServer(t *testing.T) {
	t.Helper()
	s.server = s.w.cmd("server", "--state", s.w.state, "--port", fmt.Sprint(s.w.port), "--ui-port", "0")
	s.server.Stdout, s.server.Stderr = s.out, s.out
	if err := s.server.Start(); err != nil {
		t.Fatal(err)
	}
	waitPort(t, s.w.port)
}

func (s *storm) startEval(t *testing.T, args ...string) {
	t.Helper()
	c := s.w.cmd(args...)
	c.Stdout, c.Stderr = s.out, s.out
	fmt.Fprintf(s.out, "--- pcflow %s\n", strings.Join(args, " "))
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	p := &evalProc{cmd: c, done: make(chan struct{})}
	go func() { c.Wait(); close(p.done) }()
	s.eval = p
	s.evals++
}

// resume follows the suite again once the eval before it has gone, with
// its device workers (in their sandboxes they die with it; a loaded
// kernel takes seconds to tear a sandbox's namespaces down).
func (s *storm) resume(t *testing.T) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); len(s.workers()) > 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("device workers outlived their eval: %v", s.workers())
		}
	}
	s.startEval(t, "eval", "resume", s.id, "--no-report", "--state", s.w.state)
}

func (s *storm) killEval(t *testing.T) {
	t.Helper()
	s.gaveUp = 0
	s.eval.cmd.Process.Kill()
	<-s.eval.done
	s.resume(t)
}

// workers maps the suite's devices to the pids of their `pcflow worker`
// processes (not their sandboxes' bwrap and unshare, nor zombies).
func (s *storm) workers() map[string]int {
	out := map[string]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(args) < 4 || args[1] != "worker" {
			continue
		}
		for i, a := range args {
			if a == "--device" && i+1 < len(args) && strings.HasPrefix(args[i+1], s.id+"-d") {
				if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && !strings.Contains(string(st), ") Z ") {
					out[args[i+1]] = pid
				}
			}
		}
	}
	return out
}

// killWorker kills the worker of device dev (any device's, when dev is
// empty or its worker is being started again), waiting for one to serve
// when eval is starting them; it reports whether dev's worker was killed.
func (s *storm) killWorker(t *testing.T, dev string) bool {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		ws := s.workers()
		if pid, ok := ws[dev]; ok {
			return syscall.Kill(pid, syscall.SIGKILL) == nil
		}
		for _, pid := range ws {
			syscall.Kill(pid, syscall.SIGKILL)
			return false
		}
		if time.Now().After(deadline) {
			t.Fatalf("no device worker of suite %s ran for a minute to be killed:\n%s", s.id, s.out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// actions reads the suite's action logs: how many actions finished, and
// the device of an action under way (started, not finished), if any.
func (s *storm) actions() (finished int, underway string) {
	logs, _ := filepath.Glob(filepath.Join(s.w.state, "actions", s.id+"-d*.jsonl"))
	for _, path := range logs {
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		last, ended := "", map[string]bool{}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var e activities.LogEntry
			if json.Unmarshal(sc.Bytes(), &e) != nil {
				continue // a line being written
			}
			switch e.Phase {
			case "started":
				last = e.ID
			case "finished":
				finished++
				ended[e.ID] = true
			}
		}
		f.Close()
		if last != "" && !ended[last] {
			underway = strings.TrimSuffix(filepath.Base(path), ".jsonl")
		}
	}
	return finished, underway
}

// waitKillPoint waits for a random kill point: a random moment after one
// of the next 1–3 actions finished, or — one time in two — while an action
// is under way. It returns whether the point is inside an action, the
// device it is on ("" for none), and false when the suite ended first.
// An eval that stopped following the suite (its server was gone) is
// resumed on the way.
func (s *storm) waitKillPoint(t *testing.T) (inside bool, dev string, ok bool) {
	t.Helper()
	f0, _ := s.actions()
	k := f0 + 1 + s.rng.Intn(3)
	in := s.rng.Intn(2) == 0
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if s.eval.exited() {
			if s.eval.cmd.ProcessState.ExitCode() == 0 {
				return false, "", false
			}
			if s.gaveUp++; s.gaveUp > 3 {
				t.Fatalf("eval exited %d %d times in a row without a kill of its own:\n%s", s.eval.cmd.ProcessState.ExitCode(), s.gaveUp, s.out.String())
			}
			s.resume(t)
		}
		f, underway := s.actions()
		if in && f >= k-1 && underway != "" {
			return true, underway, true
		}
		if f >= k {
			time.Sleep(time.Duration(s.rng.Intn(900)) * time.Millisecond)
			_, underway = s.actions()
			return underway != "", underway, true
		}
	}
	t.Fatalf("the suite made no action in 3 minutes (waited for %d finished):\n%s", k, s.out.String())
	return false, "", false
}

// finish waits for the suite to end, resuming an eval that stopped
// following it (a server kill) up to three times.
func (s *storm) finish(t *testing.T) {
	t.Helper()
	for i := 0; ; i++ {
		select {
		case <-s.eval.done:
		case <-time.After(10 * time.Minute):
			t.Fatalf("the suite did not end in 10 minutes after the last kill:\n%s", s.out.String())
		}
		if s.eval.cmd.ProcessState.ExitCode() == 0 {
			return
		}
		if i == 3 {
			t.Fatalf("eval exited %d after %d resumes:\n%s", s.eval.cmd.ProcessState.ExitCode(), i, s.out.String())
		}
		s.resume(t)
	}
}

// actionsStartedTwice counts the action ids the devices' logs show
// started more than once, failing the test for each.
func (s *storm) actionsStartedTwice(t *testing.T) int {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(s.w.state, "actions", s.id+"-d*.jsonl"))
	started := map[string]int{}
	for _, path := range logs {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var e activities.LogEntry
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Errorf("%s: a torn line: %v", path, err)
				continue
			}
			if e.Phase == "started" {
				started[e.ID]++
			}
		}
	}
	twice := 0
	for id, n := range started {
		if n > 1 {
			twice++
			t.Errorf("action %s started %d times", id, n)
		}
	}
	if len(started) == 0 {
		t.Error("the devices' action logs hold no action: the storm looked in the wrong place")
	}
	return twice
}

// TestEvalWorkerKilledMidTask kills a device's worker while its task is
// under way, in the overlay sandbox: the sandbox, and the editor the task
// had open, go with the worker. The suite must start the task again from
// its setup (not let the agent go on against an empty screen and count
// the failure against it), once, and no action may start twice.
func TestEvalWorkerKilledMidTask(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the overlay sandbox runs as root")
	}
	t.Parallel() // its own desktop, state folder and ports (see newEvalWorld)
	s := &storm{w: newEvalWorld(t), id: "wkill", out: &lockedBuffer{}}
	w := s.w
	s.startEval(t, w.flags("eval", filepath.Join("specs", "suites", "smoke", "editor_note.hcl"), "--devices", "1", "--sandbox", "overlay",
		"--out", w.out, "--no-report", "--id", s.id)...)
	defer kill(s.eval.cmd)
	// Into the task's steps: its first action done, the editor open.
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if f, _ := s.actions(); f >= 1 {
			break
		}
		if s.eval.exited() || time.Now().After(deadline) {
			t.Fatalf("no action of the task finished (eval exited: %v):\n%s", s.eval.exited(), s.out.String())
		}
	}
	if !s.killWorker(t, s.id+"-d1") {
		t.Fatalf("the worker of %s-d1 was not the one killed", s.id)
	}
	s.finish(t)
	r := readResults(t, w.out)
	if len(r.Runs) != 1 {
		t.Fatalf("%d task runs, want 1:\n%s", len(r.Runs), s.out.String())
	}
	row := r.Runs[0]
	if got := row.Status + "/" + row.Reason; got != smokeWant["editor_note"] || row.Retried != workerLostWhy {
		t.Errorf("editor_note = %s (%s), retried %q; want %s, started again with %q:\n%s", got, row.Error, row.Retried, smokeWant["editor_note"], workerLostWhy, s.out.String())
	}
	if n := s.actionsStartedTwice(t); n > 0 {
		t.Errorf("%d actions started twice", n)
	}
	log, _ := os.ReadFile(filepath.Join(w.state, "suites", s.id, s.id+"-d1", "worker.log"))
	if !strings.Contains(string(log), "editor_note starts again from its setup") {
		t.Errorf("the device's log does not say the task starts again:\n%s", log)
	}
}
