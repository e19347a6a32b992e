package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/x11"
	"github.com/pcflow/pcflow/internal/freeport"
	"github.com/pcflow/pcflow/internal/tserver"
)

var pcflowBin string

// TestMain makes this test binary the pcflow the tests run: linked again
// under the name pcflow, it is the command (its main), so the suite does
// not link the whole program, the Temporal server in it, a second time.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "pcflow" {
		main()
	}
	if filepath.Base(os.Args[0]) == "pcflow-movewindow" {
		os.Exit(moveWindowMain(os.Args[1:])) // replay_e2e_test.go's setup helper
	}
	dir, err := os.MkdirTemp("", "pcflow-bin")
	if err != nil {
		panic(err)
	}
	pcflowBin = filepath.Join(dir, "pcflow")
	self, err := os.Executable()
	if err == nil {
		if err = os.Link(self, pcflowBin); err != nil {
			err = copyFile(self, pcflowBin)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "pcflow for the tests: %v\n", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// world is a state folder, a headless desktop and free ports for one test.
type world struct {
	t       *testing.T
	state   string
	display string
	port    int
	uiPort  int
}

func newWorld(t *testing.T) *world { return newWorldOn(t, "") }

// newWorldOn is newWorld on a given display (empty: the first free one).
func newWorldOn(t *testing.T, display string) *world { return newWorldIn(t, display, t.TempDir()) }

// newWorldIn is newWorldOn with the state folder given.
func newWorldIn(t *testing.T, display, state string) *world {
	t.Helper()
	w := &world{t: t, state: state}
	d, err := x11.Up(context.Background(), x11.DesktopOptions{Display: display, StateDir: w.state})
	if err != nil {
		t.Fatalf("desktop: %v", err)
	}
	t.Cleanup(func() {
		killApps(d.Display)
		d.Down()
	})
	w.display = d.Display
	w.port, w.uiPort = freePort(t), freePort(t)
	return w
}

// desktopPrograms are the desktop's own processes, which killApps leaves
// running: a device checks its window manager on every observation.
var desktopPrograms = map[string]bool{
	"Xvfb": true, "openbox": true, "dbus-daemon": true, "dbus-launch": true,
	"at-spi-bus-laun": true, "at-spi2-registr": true,
}

// killApps stops the applications a run left on a display, not the desktop.
func killApps(display string) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if comm, err := os.ReadFile(filepath.Join("/proc", e.Name(), "comm")); err == nil && desktopPrograms[strings.TrimSpace(string(comm))] {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, []byte("\x00DISPLAY="+display+"\x00")) && !bytes.HasPrefix(env, []byte("DISPLAY="+display+"\x00")) {
			continue
		}
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "%d", &pid); err == nil && pid != os.Getpid() {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func freePort(t testing.TB) int {
	p, err := freeport.Pick("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// flags are the flags of commands that start work (run, resume, server):
// the state folder and the embedded server's ports.
func (w *world) flags(extra ...string) []string {
	return append(w.iflags(extra...), "--ui-port", fmt.Sprint(w.uiPort))
}

// iflags are the flags of commands that inspect (status, history, cancel).
func (w *world) iflags(extra ...string) []string {
	return append(extra, "--state", w.state, "--port", fmt.Sprint(w.port))
}

func (w *world) cmd(args ...string) *exec.Cmd {
	c := exec.Command(pcflowBin, args...)
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OPENAI_") && !strings.HasPrefix(kv, "PCFLOW_") || strings.HasPrefix(kv, "PCFLOW_CPUPROFILE=") {
			env = append(env, kv)
		}
	}
	c.Env = env
	c.Dir = ".."
	return c
}

// pcflow runs the binary to its end.
func (w *world) pcflow(args ...string) (int, string) {
	w.t.Helper()
	c := w.cmd(args...)
	out, err := c.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatalf("pcflow %v: %v", args, err)
	}
	return code, string(out)
}

func runID(out string) string {
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "run "); ok && strings.HasSuffix(rest, " started") {
			return strings.TrimSuffix(rest, " started")
		}
	}
	return ""
}

func TestExampleCalculator(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	w := newWorld(t)
	code, out := w.pcflow(w.flags("run", "specs/examples/calculator.hcl", "--display", w.display)...)
	if code != 0 {
		t.Fatalf("pcflow run = %d\n%s", code, out)
	}
	for _, want := range []string{"model: SCRIPTED", "SUCCEEDED (success)", `product="84"`, "check shown        pass", "Temporal UI: http://127.0.0.1:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The progress shows every step once, in order, the last ones before
	// the subtask ended too (it showed only the step that ended last at
	// each look, twice a second).
	at := 0
	for n := 1; n <= 6; n++ {
		re := regexp.MustCompile(fmt.Sprintf(`(?m)^  multiply +step %d/\d+ `, n))
		locs := re.FindAllStringIndex(out, -1)
		if len(locs) != 1 || locs[0][0] < at {
			t.Errorf("the progress shows step %d %d times (want once, after step %d):\n%s", n, len(locs), n-1, out)
			continue
		}
		at = locs[0][0]
	}
	// A run that succeeded leaves a clean screen for the next one.
	if !strings.Contains(out, "stopped what the run launched: galculator") {
		t.Errorf("the run does not say it stopped galculator:\n%s", out)
	}
	for _, p := range programsOn(w.display) {
		if p == "galculator" {
			t.Errorf("galculator, launched by the run that succeeded, still runs on %s", w.display)
		}
	}
	// The run is inspectable: every step is in Temporal's history.
	id := runID(out)
	code, hist := w.pcflow(w.iflags("history", id, "--json")...)
	if code != 0 {
		t.Fatalf("history = %d: %s", code, hist)
	}
	var h History
	if err := json.Unmarshal([]byte(hist), &h); err != nil {
		t.Fatalf("history --json: %v\n%s", err, hist)
	}
	if len(h.Subtasks) != 1 || len(h.Steps) != 7 {
		t.Fatalf("history has %d subtasks and %d steps, want 1 and 7", len(h.Subtasks), len(h.Steps))
	}
	s := h.Steps[1]
	if s.Action != `click #25 "1"` && !strings.HasSuffix(s.Action, `"1"`) || s.Verdict != "correct" || s.Progress == "" {
		t.Errorf("step 2 = %+v", s)
	}
	if _, err := os.Stat(s.Artifacts["before"]); err != nil {
		t.Errorf("step 2's screenshot is not in the artifact store: %v", err)
	}
	code, st := w.pcflow(w.iflags("status")...)
	if code != 0 || !strings.Contains(st, id) || !strings.Contains(st, "completed") {
		t.Errorf("status = %d\n%s", code, st)
	}
	// Runs are findable by task name and pcflow status.
	if code, st := w.pcflow(w.iflags("status", "--task", "calculator", "--status", "succeeded")...); code != 0 || !strings.Contains(st, id) {
		t.Errorf("status --task calculator --status succeeded = %d\n%s", code, st)
	}
	if code, st := w.pcflow(w.iflags("status", "--task", "calculator", "--status", "failed")...); code != 0 || strings.Contains(st, id) {
		t.Errorf("status --status failed lists the succeeded run = %d\n%s", code, st)
	}
}

func TestExampleEditor(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	os.RemoveAll("/tmp/pcflow-editor")
	w := newWorld(t)
	code, out := w.pcflow(w.flags("run", "specs/examples/editor.hcl", "--display", w.display)...)
	if code != 0 {
		t.Fatalf("pcflow run = %d\n%s", code, out)
	}
	b, err := os.ReadFile("/tmp/pcflow-editor/note.txt")
	if err != nil || !strings.Contains(string(b), "Meeting moved to 10:30") {
		t.Errorf("note.txt = %q, %v", b, err)
	}
}

func TestExamplePCEval(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	// The example's LibreOffice profile is fixed: an instance left from an
	// earlier run would take the request and open Calc on its own display.
	exec.Command("pkill", "-f", "pcflow-pceval/lo").Run()
	os.RemoveAll("/tmp/pcflow-pceval")
	w := newWorld(t)
	code, out := w.pcflow(w.flags("run", "specs/examples/pc_eval.hcl", "--display", w.display)...)
	if code != 0 {
		t.Fatalf("pcflow run = %d\n%s", code, out)
	}
	for cell, want := range map[string]string{"A1": "Total", "B1": "2230"} {
		got, err := activities.ReadCell("/tmp/pcflow-pceval/total.ods", "", cell)
		if err != nil || got != want {
			t.Errorf("total.ods %s = %q, %v; want %q", cell, got, err, want)
		}
	}
	if !strings.Contains(out, `total="2230"`) || !strings.Contains(out, "SR=1") {
		t.Errorf("output:\n%s", out)
	}
}

func TestExampleFreeText(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	os.RemoveAll("/tmp/pcflow-free")
	w := newWorld(t)
	code, out := w.pcflow(w.flags("run", "specs/examples/freetext.hcl", "--display", w.display)...)
	if code != 0 {
		t.Fatalf("pcflow run = %d\n%s", code, out)
	}
	if !strings.Contains(out, "compute") || !strings.Contains(out, "write_file") {
		t.Errorf("the Manager's subtasks are not in the result:\n%s", out)
	}
	if b, _ := os.ReadFile("/tmp/pcflow-free/result.txt"); !strings.Contains(string(b), "42") {
		t.Errorf("result.txt = %q", b)
	}
}

// TestExampleTwoDevices runs the CRAB-style task on two displays: the run
// process serves alice, a separate `pcflow worker` serves bob.
func TestExampleTwoDevices(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	os.RemoveAll("/tmp/pcflow-alice")
	os.RemoveAll("/tmp/pcflow-bob")
	w := newWorld(t)
	d2, err := x11.Up(context.Background(), x11.DesktopOptions{StateDir: w.state})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { killApps(d2.Display); d2.Down() })
	run := w.cmd(w.flags("run", "specs/examples/two_devices.hcl", "--display", w.display, "--device", "alice")...)
	var out bytes.Buffer
	run.Stdout, run.Stderr = &out, &out
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	// The worker for bob joins the run's embedded server once it is up.
	waitPort(t, w.port)
	wk := w.cmd("worker", "--device", "bob", "--display", d2.Display, "--state", w.state, "--temporal", fmt.Sprintf("127.0.0.1:%d", w.port),
		"--workflows=false", "--script", "specs/examples/two_devices.script.json")
	var wout bytes.Buffer
	wk.Stdout, wk.Stderr = &wout, &wout
	if err := wk.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { wk.Process.Signal(syscall.SIGTERM); wk.Wait() }()
	err = run.Wait()
	if err != nil {
		t.Fatalf("pcflow run: %v\n%s\nworker:\n%s", err, out.String(), wout.String())
	}
	b, _ := os.ReadFile("/tmp/pcflow-bob/code.txt")
	if !strings.Contains(string(b), "4711-ZULU") {
		t.Errorf("bob's file = %q, want the code read on alice's screen\n%s", b, out.String())
	}
}

func waitPort(t *testing.T, port int) {
	deadline := time.Now().Add(60 * time.Second)
	for tserver.PortFree("127.0.0.1", port) {
		if time.Now().After(deadline) {
			t.Fatalf("nothing listens on %d", port)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestCrashAndResume kills `pcflow run` with SIGKILL at random points
// inside a subtask (twice), resumes it with `pcflow resume`, and checks
// from the device's own action log that no action ran twice and that the
// finished subtask was not run again.
func TestCrashAndResume(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	w := newWorld(t)
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewSource(seed))
	logPath := filepath.Join(w.state, "actions", "desktop.jsonl")
	id := "crash-test"
	// Kill points: a random moment after the k-th action of the task has
	// finished (the first subtask has one action, so both are inside
	// "multiply").
	kills := []int{2 + rng.Intn(2), 4 + rng.Intn(3)}
	args := w.flags("run", "cli/testdata/crash.hcl", "--display", w.display, "--id", id)
	for i, k := range kills {
		c := w.cmd(args...)
		var out bytes.Buffer
		c.Stdout, c.Stderr = &out, &out
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		for n := 0; count(logPath, `"phase":"finished"`) < k; n++ {
			if n > 2400 {
				t.Fatalf("kill %d: the run never reached action %d\n%s", i, k, out.String())
			}
			time.Sleep(25 * time.Millisecond)
		}
		time.Sleep(time.Duration(rng.Intn(900)) * time.Millisecond)
		c.Process.Kill() // SIGKILL: no cleanup, no goodbye
		c.Wait()
		t.Logf("seed %d: killed after %d started and %d finished actions", seed, count(logPath, `"phase":"started"`), count(logPath, `"phase":"finished"`))
		args = w.flags("resume", id, "--display", w.display)
	}
	code, out := w.pcflow(args...)
	if !strings.Contains(out, "run crash-test: ") {
		t.Fatalf("pcflow resume = %d, printed no result\n%s", code, out)
	}
	entries, err := activities.ReadActionLog(logPath)
	if err != nil {
		t.Fatal(err)
	}
	started, finished := map[string]int{}, map[string]bool{}
	for _, e := range entries {
		switch e.Phase {
		case activities.PhaseStarted:
			started[e.ID]++
		case activities.PhaseFinished:
			finished[e.ID] = true
		}
	}
	var unknown []string
	for id, n := range started {
		if n != 1 {
			t.Errorf("action %s started %d times: an action was repeated", id, n)
		}
		if !finished[id] {
			unknown = append(unknown, id)
		}
	}
	// 1 action in clear, 6 in multiply; a step cut off by a kill and
	// found missing on the screen is done again, as a new action.
	if len(unknown) == 0 && len(started) != 7 || len(started) < 7 {
		t.Errorf("%d distinct actions ran (%d cut off), want the script's 7", len(started), len(unknown))
	}
	clearRuns := 0
	for id := range started {
		if strings.Contains(id, "/clear/") {
			clearRuns++
		}
	}
	if clearRuns != 1 {
		t.Errorf("subtask clear executed %d actions, want 1: a finished subtask was run again", clearRuns)
	}
	// The scripted model looks at the screen: an action cut off mid-way is
	// judged by what the screen shows and done again if it had no effect,
	// so the run must succeed whatever the kills hit.
	if code != 0 || !strings.Contains(out, "check shown        pass") {
		t.Errorf("resumed run = %d, want success with the check passing\n%s", code, out)
	}
	if len(unknown) > 0 {
		t.Logf("action(s) %v were cut off mid-way and not repeated", unknown)
		_, hist := w.pcflow(w.iflags("history", id)...)
		if !strings.Contains(hist, "device:   unknown: the worker stopped while this action ran") {
			t.Errorf("history does not record the unknown outcome:\n%s", hist)
		}
	}
}

func count(path, needle string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.Contains(sc.Text(), needle) {
			n++
		}
	}
	return n
}

// TestUIServed fetches the Web UI's page from the embedded server.
func TestUIServed(t *testing.T) {
	w := &world{t: t, state: t.TempDir(), port: freePort(t), uiPort: freePort(t)}
	c := w.cmd(w.flags("server")...)
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { c.Process.Signal(syscall.SIGINT); c.Wait() }()
	waitPort(t, w.uiPort)
	var body []byte
	for i := 0; i < 50; i++ {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/namespaces/default/workflows", w.uiPort))
		if err == nil {
			body, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !bytes.Contains(body, []byte("<html")) || !bytes.Contains(body, []byte("/_app/immutable/")) {
		t.Errorf("UI page does not look like the Temporal UI (%d bytes):\n%.300s", len(body), body)
	}
	// The UI's API answers from the server: the namespace pcflow uses.
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/api/v1/namespaces", w.uiPort))
	if err != nil {
		t.Fatal(err)
	}
	api, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(api, []byte(`"name": "default"`)) {
		t.Errorf("UI API /api/v1/namespaces = %d:\n%.300s", resp.StatusCode, api)
	}
}

// TestResumeFrom reruns a failed run from its failed subtask: the subtask
// before it is kept (its action is not executed again), and the rerun
// succeeds with a model that does better.
func TestResumeFrom(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	w := newWorld(t)
	code, out := w.pcflow(w.flags("run", "cli/testdata/crash.hcl", "--display", w.display, "--id", "fails",
		"--script", "cli/testdata/crash_fails.script.json")...)
	if code != 1 || !strings.Contains(out, "FAILED (agent_failed)") || !strings.Contains(out, "cannot find the buttons") {
		t.Fatalf("first run = %d, want agent_failed\n%s", code, out)
	}
	// The failed run's application does not outlive it.
	for _, p := range programsOn(w.display) {
		if p == "galculator" {
			t.Errorf("galculator, launched by the failed run, still runs on %s", w.display)
		}
	}
	code, out = w.pcflow(w.flags("resume", "fails", "--from", "multiply", "--display", w.display,
		"--script", "cli/testdata/crash.script.json", "--keep-open")...)
	if code != 0 || !strings.Contains(out, "keeping clear") || !strings.Contains(out, `product="84"`) {
		t.Fatalf("resume --from multiply = %d\n%s", code, out)
	}
	// --keep-open: the calculator the rerun launched stays, and is named.
	if !strings.Contains(out, "left open (--keep-open): galculator") || !slices.Contains(programsOn(w.display), "galculator") {
		t.Errorf("resume --keep-open: galculator not left open (running: %v):\n%s", programsOn(w.display), out)
	}
	if n := count(filepath.Join(w.state, "actions", "desktop.jsonl"), `/clear/step-`); n != 2 {
		t.Errorf("AC logged %d times (started+finished), want 2: the kept subtask ran again", n)
	}
	if code, out := w.pcflow(w.flags("resume", "fails", "--from", "nope")...); code != 2 || !strings.Contains(out, "no subtask \"nope\"") {
		t.Errorf("resume --from an unknown subtask = %d\n%s", code, out)
	}
}

// TestRecordAndReplay records a run's model exchanges and drives a second
// run from the recording, without the script.
func TestRecordAndReplay(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	w := newWorld(t)
	code, out := w.pcflow(w.flags("run", "specs/examples/calculator.hcl", "--display", w.display, "--id", "recorded", "--record")...)
	if code != 0 {
		t.Fatalf("recorded run = %d\n%s", code, out)
	}
	code, out = w.pcflow(w.flags("run", "specs/examples/calculator.hcl", "--display", w.display, "--id", "replayed", "--replay", "recorded")...)
	if code != 0 || !strings.Contains(out, "model: REPLAYED from the exchanges recorded by run recorded") || !strings.Contains(out, `product="84"`) {
		t.Fatalf("replayed run = %d\n%s", code, out)
	}
	code, out = w.pcflow(w.flags("run", "specs/examples/calculator.hcl", "--display", w.display, "--replay", "replayed")...)
	if code != 1 || !strings.Contains(out, "recorded no model exchanges") {
		t.Errorf("replaying a run that recorded nothing = %d\n%s", code, out)
	}
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o755)
}
