package main

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Chaos kinds: what a kill hits.
const (
	killRun    = "run"    // `pcflow run` with its embedded server and worker
	killWorker = "worker" // a `pcflow worker` serving the device
	killServer = "server" // a `pcflow server` the worker and the run use
)

// TestChaos kills pcflow with SIGKILL at random points of runs of the
// crash task (a calculator computing 12 × 7), cycling through the run
// process, the worker alone and the server alone, some kills timed to land
// inside an action. Every run must end in success and no action may start
// twice. PCFLOW_CHAOS_KILLS sets the number of kills (default 3, one of each
// kind; the long version is 20 or more), PCFLOW_CHAOS_SEED the seed.
func TestChaos(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	kills := 3
	if v := os.Getenv("PCFLOW_CHAOS_KILLS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("PCFLOW_CHAOS_KILLS=%q: want a positive count", v)
		}
		kills = n
	}
	seed := time.Now().UnixNano()
	if v := os.Getenv("PCFLOW_CHAOS_SEED"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("PCFLOW_CHAOS_SEED=%q: want an integer", v)
		}
		seed = n
	}
	rng := rand.New(rand.NewSource(seed))
	w := newWorld(t)
	c := &chaos{w: w, rng: rng, log: filepath.Join(w.state, "actions", "desktop.jsonl")}
	kinds := []string{killRun, killWorker, killServer}
	var done, inside, runs int
	for i := 0; done < kills; i++ {
		kind := kinds[i%len(kinds)]
		// One kill per run until each kind had one, then one or two.
		n := 1
		if i >= len(kinds) {
			n = min(1+rng.Intn(2), kills-done)
		}
		id := fmt.Sprintf("chaos-%d-%s", i, kind)
		in := c.run(t, kind, id, n)
		done += n
		inside += in
		runs++
		if t.Failed() {
			break
		}
	}
	t.Logf("chaos seed %d: %d kills (%d inside an action) over %d runs; every run succeeded: %v; no action repeated: %v",
		seed, done, inside, runs, !t.Failed(), c.repeated == 0)
}

type chaos struct {
	w        *world
	rng      *rand.Rand
	log      string
	repeated int
}

// phases reads run id's actions from the device log: how many started and
// finished, how many action ids started more than once, and whether the
// latest action is under way (started, not finished).
func (c *chaos) phases(id string) (started, finished, twice int, underway bool) {
	f, err := os.Open(c.log)
	if err != nil {
		return 0, 0, 0, false
	}
	defer f.Close()
	starts, ends := map[string]int{}, map[string]bool{}
	last := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		i := strings.Index(line, `"id":"`+id+"/")
		if i < 0 {
			continue
		}
		i += len(`"id":"`)
		action := line[i : i+strings.Index(line[i:], `"`)]
		switch {
		case strings.Contains(line, `"phase":"started"`):
			started++
			starts[action]++
			last = action
		case strings.Contains(line, `"phase":"finished"`):
			finished++
			ends[action] = true
		}
	}
	for _, n := range starts {
		if n > 1 {
			twice++
		}
	}
	return started, finished, twice, last != "" && !ends[last]
}

// waitKillPoint waits for a random kill point of run id: a random moment
// after one of its next actions finished, or — inside — while an action is
// under way. The crash task has 7 actions; once they are done the kill
// lands in the checks or after the end. It reports whether the point is
// inside an action.
func (c *chaos) waitKillPoint(t *testing.T, id string) bool {
	t.Helper()
	s0, _, _, _ := c.phases(id)
	k := min(s0+1+c.rng.Intn(3), 7)
	inside := c.rng.Intn(3) == 0
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		s, f, _, underway := c.phases(id)
		if inside && s >= k && underway {
			return true
		}
		if f >= k || s0 >= 7 {
			time.Sleep(time.Duration(c.rng.Intn(900)) * time.Millisecond)
			return false
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("run %s never reached action %d", id, k)
	return false
}

// lockedBuffer collects the output of several processes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// start starts pcflow in the background with its output in out.
func (c *chaos) start(t *testing.T, out *lockedBuffer, args ...string) *exec.Cmd {
	t.Helper()
	cmd := c.w.cmd(args...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

func kill(cmd *exec.Cmd) {
	cmd.Process.Kill() // SIGKILL: no cleanup, no goodbye
	cmd.Wait()
}

// run runs the crash task as id, killing what kind names n times, and
// checks the outcome; it returns how many kills landed inside an action.
func (c *chaos) run(t *testing.T, kind, id string, n int) int {
	t.Helper()
	w := c.w
	inside := 0
	var out lockedBuffer
	var final []string
	switch kind {
	case killRun:
		args := w.flags("run", "cli/testdata/crash.hcl", "--display", w.display, "--id", id)
		for i := 0; i < n; i++ {
			cmd := c.start(t, &out, args...)
			if c.waitKillPoint(t, id) {
				inside++
			}
			kill(cmd)
			args = w.flags("resume", id, "--display", w.display)
		}
		final = args
	default:
		addr := fmt.Sprintf("127.0.0.1:%d", w.port)
		serverArgs := []string{"server", "--state", w.state, "--port", fmt.Sprint(w.port), "--ui-port", "0"}
		workerArgs := []string{"worker", "--device", "desktop", "--display", w.display, "--temporal", addr, "--state", w.state,
			"--script", "cli/testdata/crash.script.json"}
		server := c.start(t, &out, serverArgs...)
		waitPort(t, w.port)
		worker := c.start(t, &out, workerArgs...)
		defer func() {
			kill(worker)
			kill(server)
		}()
		if code, o := w.pcflow("run", "cli/testdata/crash.hcl", "--temporal", addr, "--state", w.state, "--no-worker", "--detach", "--id", id); code != 0 {
			t.Fatalf("pcflow run --detach = %d\n%s", code, o)
		}
		for i := 0; i < n; i++ {
			if c.waitKillPoint(t, id) {
				inside++
			}
			if kind == killWorker {
				kill(worker)
				worker = c.start(t, &out, workerArgs...)
			} else {
				kill(server)
				server = c.start(t, &out, serverArgs...)
				waitPort(t, w.port)
			}
		}
		final = []string{"resume", id, "--temporal", addr, "--state", w.state, "--no-worker"}
	}
	code, res := w.pcflow(final...)
	s, f, twice, _ := c.phases(id)
	c.repeated += twice
	t.Logf("run %s: %d %s kill(s), %d inside an action; %d actions started, %d finished", id, n, kind, inside, s, f)
	if code != 0 || !strings.Contains(res, "SUCCEEDED") || !strings.Contains(res, "check shown        pass") {
		t.Errorf("run %s after %d %s kill(s) = %d, want success\n%s\n--- processes:\n%s", id, n, kind, code, res, out.String())
	}
	if twice > 0 {
		t.Errorf("run %s: %d action(s) started twice", id, twice)
	}
	return inside
}
