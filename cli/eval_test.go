package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
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
	"github.com/pcflow/pcflow/internal/report"
	"github.com/pcflow/pcflow/internal/testdisplay"
)

// evalWorld is a state folder, a port and an output folder for one eval;
// the eval starts its own desktops, which the cleanup stops whatever
// happened.
type evalWorld struct {
	tb    testing.TB
	state string
	out   string
	port  int
}

func newEvalWorld(tb testing.TB) *evalWorld {
	tb.Helper()
	w := &evalWorld{tb: tb, state: tb.TempDir(), out: tb.TempDir(), port: freePort(tb)}
	tb.Cleanup(func() {
		envs, _ := filepath.Glob(filepath.Join(w.state, "desktops", "*.env"))
		for _, f := range envs {
			display := ":" + strings.TrimSuffix(filepath.Base(f), ".env")
			// Only a desktop the eval left running: once eval stopped
			// its own, another test (or package) may hold the display
			// number, and Load finds that desktop (CI: this cleanup
			// stopped the applications of an x11 test on a display the
			// eval had released).
			rec, _ := os.ReadFile(f)
			if d, err := x11.Load(w.state, display); err == nil && len(d.PIDs) > 0 && strings.Contains(string(rec), fmt.Sprintf("# pids %d", d.PIDs[0])) {
				x11.StopApps(display)
				d.Down()
			}
		}
	})
	return w
}

func (w *evalWorld) flags(extra ...string) []string {
	return append(extra, "--state", w.state, "--port", fmt.Sprint(w.port), "--ui-port", "0")
}

func (w *evalWorld) cmd(args ...string) *exec.Cmd {
	c := exec.Command(pcflowBin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OPENAI_") && !strings.HasPrefix(kv, "PCFLOW_") || strings.HasPrefix(kv, "PCFLOW_CPUPROFILE=") {
			c.Env = append(c.Env, kv)
		}
	}
	c.Dir = ".."
	return c
}

func (w *evalWorld) pcflow(args ...string) (int, string) {
	w.tb.Helper()
	out, err := w.cmd(args...).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	} else if err != nil {
		w.tb.Fatalf("pcflow %v: %v", args, err)
	}
	return 0, string(out)
}

func readResults(t testing.TB, dir string) *report.Results {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatalf("results: %v", err)
	}
	var r report.Results
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// smokeWant is the outcome every task of specs/suites/smoke must have.
var smokeWant = map[string]string{
	"calc_add":       "succeeded/success",
	"calc_misread":   "failed/check_failed",
	"editor_note":    "succeeded/success",
	"editor_missing": "failed/agent_failed",
	"sheet_total":    "succeeded/success",
	"browser_search": "succeeded/success",
	"browser_stuck":  "failed/step_limit",
	"relay_code":     "succeeded/success",
}

// checkSmoke checks a smoke suite's results: every task's outcome, and
// the number of tasks (want: how many ran; 0 for the whole suite).
func checkSmoke(t *testing.T, r *report.Results, want int) {
	t.Helper()
	if want == 0 {
		want = len(smokeWant)
	}
	if len(r.Runs) != want {
		t.Errorf("%d task runs, want %d", len(r.Runs), want)
	}
	for _, row := range r.Runs {
		if got := row.Status + "/" + row.Reason; got != smokeWant[row.Key] {
			t.Errorf("%s: %s (%s), want %s", row.Key, got, row.Error, smokeWant[row.Key])
		}
		if row.Key == "relay_code" && (len(row.Devices) != 2 || row.Devices["alice"] == row.Devices["bob"]) {
			t.Errorf("relay_code leased %v, want two distinct devices", row.Devices)
		}
		// The default loop, recorded, and its verdicts counted.
		if got := r.Repro.Loops[row.Key]; got != "pipelined reflection=on_doubt" {
			t.Errorf("%s: results.json records the loop %q, want the default", row.Key, got)
		}
		if row.Key == "calc_add" && row.Judged["model"] == 0 {
			t.Errorf("calc_add: no verdict counted as the model's: %v", row.Judged)
		}
	}
}

// dumpDOM loads a page in headless Chromium, runs its scripts, and returns
// the DOM a person's browser would show.
func dumpDOM(t *testing.T, path string) string {
	t.Helper()
	out, err := exec.Command("chromium", "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=3000",
		"--user-data-dir="+t.TempDir(), "--dump-dom", "file://"+path).Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom %s: %v", path, err)
	}
	return string(out)
}

// TestEvalSmokeSuite runs the repository's smoke suite on three devices:
// every task ends as it must (including the three that must fail, with
// their reasons), the two-device task leases two devices, the results
// record how to reproduce them, and the HTML report shows in a real
// browser the task table, loaded step screenshots and a failed check.
func TestEvalSmokeSuite(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	w := newEvalWorld(t)
	args := w.flags("eval", "specs/suites/smoke", "--devices", "3", "--out", w.out, "--id", "smoke")
	if testing.Short() {
		// CI: under bind, to keep the suite within its time. The default
		// sandbox (overlay as root) carries the smoke suite's office task
		// with three others in TestEvalTerminalTasksInOverlay; without
		// -short this suite runs under the default too.
		args = append(args, "--sandbox", "bind")
	}
	code, out := w.pcflow(args...)
	t.Log(out)
	if code != 0 {
		t.Fatalf("eval exited %d", code)
	}
	if left := suiteWorkers(w.temporalAddr(), "smoke-d"); len(left) > 0 {
		t.Errorf("device workers outlived eval: %v", left)
	}
	r := readResults(t, w.out)
	checkSmoke(t, r, 0)
	if r.Overall.Passed != 5 || r.Overall.Reasons["check_failed"] != 1 {
		t.Errorf("overall = %+v, want 5 passed and one check_failed", r.Overall)
	}
	if r.ByTag["chromium"].Runs != 2 || r.ByTag["chromium"].Passed != 1 {
		t.Errorf("by tag chromium = %+v, want 2 runs, 1 passed", r.ByTag["chromium"])
	}
	for _, f := range []string{"calc_add.hcl", "calc_add.script.json", "relay_code.hcl", "suite.hcl"} {
		abs, _ := filepath.Abs(filepath.Join("..", "specs", "suites", "smoke", f))
		if !strings.HasPrefix(r.Repro.Files[abs], "sha256:") {
			t.Errorf("reproducibility lacks the hash of %s: %v", abs, r.Repro.Files)
		}
	}
	if !r.Repro.Scripted || r.Repro.Models["decision"] != "scripted" || r.Repro.PromptVersion == "" {
		t.Errorf("reproducibility = %+v, want the scripted model and the prompt version", r.Repro)
	}
	for _, f := range []string{"results.jsonl", "results.csv"} {
		if b, err := os.ReadFile(filepath.Join(w.out, f)); err != nil || strings.Count(string(b), "\n") < len(smokeWant) {
			t.Errorf("%s: %v, %d lines", f, err, strings.Count(string(b), "\n"))
		}
	}

	index := dumpDOM(t, filepath.Join(w.out, "index.html"))
	rows := regexp.MustCompile(`<tr data-key="([a-z_]+)"><td><a href="runs/[a-z_]+\.html">[a-z_]+</a></td><td class="(\w+)">`).FindAllStringSubmatch(index, -1)
	if len(rows) != len(smokeWant) {
		t.Fatalf("the report's task table has %d rows, want %d", len(rows), len(smokeWant))
	}
	for _, m := range rows {
		if !strings.HasPrefix(smokeWant[m[1]], m[2]+"/") {
			t.Errorf("task table: %s shows %s, want %s", m[1], m[2], smokeWant[m[1]])
		}
	}
	page := dumpDOM(t, filepath.Join(w.out, "runs", "calc_misread.html"))
	if !regexp.MustCompile(`<tr class="check fail"><td>\(task\)</td><td>correct</td><td>expect</td><td>FAIL</td><td class="score"></td><td class="detail">expect is false</td>`).MatchString(page) {
		t.Errorf("calc_misread's page does not show the failed check with its detail")
	}
	m := regexp.MustCompile(`data-images="(\d+)/(\d+)"`).FindStringSubmatch(page)
	if m == nil || m[1] != m[2] || m[1] == "0" {
		t.Errorf("calc_misread's step screenshots: loaded %v, want all of at least one", m)
	}
	if !strings.Contains(page, `class="action">click #`) || !strings.Contains(page, "I read only the first digit of the display.") {
		t.Errorf("calc_misread's page lacks the steps' actions and thoughts")
	}
}

// TestEvalResetBetweenTasks runs a task that leaves a file and a window
// behind, then on the same device one whose checks find neither — with
// the scratch folder bound into the sandbox and emptied, and as an overlay
// that the reset drops; without the reset the second task fails.
func TestEvalResetBetweenTasks(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	for _, sandbox := range []string{"bind", "overlay"} {
		w := newEvalWorld(t)
		code, out := w.pcflow(w.flags("eval", "cli/testdata/eval_reset", "--devices", "1", "--out", w.out, "--no-report", "--sandbox", sandbox)...)
		if code != 0 {
			t.Fatalf("%s: eval exited %d:\n%s", sandbox, code, out)
		}
		r := readResults(t, w.out)
		for _, row := range r.Runs {
			if row.Status != "succeeded" {
				t.Errorf("%s: %s: %s (%s): %s", sandbox, row.Key, row.Status, row.Reason, row.Error)
			}
		}
		t.Logf("%s: reset after %s took %d ms", sandbox, r.Runs[0].Key, r.Runs[0].ResetMillis)
		if r.Runs[0].ResetMillis <= 0 {
			t.Errorf("%s: no reset time recorded after %s", sandbox, r.Runs[0].Key)
		}
	}

	// The control: the same suite without resets fails the second task.
	w := newEvalWorld(t)
	_, out := w.pcflow(w.flags("eval", "cli/testdata/eval_reset", "--devices", "1", "--out", w.out, "--no-report", "--reset=false")...)
	r := readResults(t, w.out)
	if row := r.Runs[1]; row.Status != "failed" || row.Reason != "check_failed" {
		t.Errorf("without reset, %s = %s (%s), want failed/check_failed:\n%s", row.Key, row.Status, row.Reason, out)
	}
}

// TestEvalKillAndResume kills the eval process with SIGKILL while tasks
// run, then resumes the suite: every task ends as it must (as root, in
// the overlay sandbox, whose running tasks start again from their setup),
// no task that had finished runs again, and no action is executed twice.
func TestEvalKillAndResume(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	w := newEvalWorld(t)
	args := []string{"eval", "specs/suites/smoke", "--devices", "2", "--out", w.out, "--id", "crashy"}
	if os.Geteuid() == 0 {
		// The overlay sandbox goes with the killed eval, and with it the
		// running tasks' applications: resume must start those tasks
		// again from their setup (they went on against an empty screen
		// and failed as the agent's).
		args = append(args, "--sandbox", "overlay")
	}
	want := 0
	if testing.Short() {
		// The calculator and editor tasks, the two-device one among them
		// (five of eight: no LibreOffice, no Chromium).
		args = append(args, "--filter", "galculator", "--filter", "mousepad")
		want = 5
	}
	c := w.cmd(w.flags(args...)...)
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = c.Stdout
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	finished := map[string]bool{}
	running := map[string]bool{}
	sc := bufio.NewScanner(stdout)
	var log strings.Builder
	for sc.Scan() {
		line := sc.Text()
		log.WriteString(line + "\n")
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "▶":
			running[f[1]] = true
		case "✓", "✗":
			finished[f[1]] = true
			delete(running, f[1])
		}
		if len(finished) >= 2 && len(running) > 0 {
			break
		}
	}
	if len(finished) < 2 || len(running) == 0 {
		t.Fatalf("the suite did not reach two finished and one running task:\n%s", log.String())
	}
	// While the eval lives, a second process following the same suite
	// is refused, naming it (it would start a second set of devices).
	if code, msg := w.pcflow(w.flags("eval", "resume", "crashy", "--no-report")...); code == 0 || !strings.Contains(msg, "is followed by process") {
		t.Errorf("eval resume of a live suite = %d %q, want it refused naming the process that follows it", code, msg)
	}
	time.Sleep(500 * time.Millisecond) // into the running task's steps
	_ = c.Process.Signal(syscall.SIGKILL)
	_ = c.Wait()
	killed := time.Now()
	t.Logf("killed with %v finished and %v running", finished, running)
	// The killed eval's device workers (in their bwrap sandboxes) die
	// with it: none is left to take work from the suite's queues.
	// (Waiting up to 30 s: on a loaded machine the kernel takes seconds
	// to tear down a sandbox's namespaces.) A sandbox that was starting
	// when eval died may leave a bubblewrap process that never runs the
	// worker (see host.SweepSandbox): the resume must clear it.
	workers := func() []string {
		var out []string
		for _, w := range suiteWorkers(w.temporalAddr(), "crashy-d") {
			if filepath.Base(strings.Fields(w)[0]) != "bwrap" {
				out = append(out, w)
			}
		}
		return out
	}
	for i := 0; len(workers()) > 0; i++ {
		if i > 300 {
			t.Fatalf("device workers outlived the killed eval: %v", workers())
		}
		time.Sleep(100 * time.Millisecond)
	}
	stuck := suiteWorkers(w.temporalAddr(), "crashy-d")
	t.Logf("sandbox processes left by the killed eval: %d", len(stuck))

	// The resume writes its results where --out says (the suite was
	// started with another).
	out2 := filepath.Join(t.TempDir(), "resumed")
	code, out := w.pcflow(w.flags("eval", "resume", "crashy", "--no-report", "--out", out2)...)
	t.Log(out)
	if code != 0 {
		t.Fatalf("eval resume exited %d", code)
	}
	checkSmoke(t, readResults(t, out2), want)
	// Nothing of either eval's sandboxes is left once the resume ended.
	for i := 0; len(suiteWorkers(w.temporalAddr(), "crashy-d")) > 0; i++ {
		if i > 300 {
			t.Fatalf("sandbox processes left after the resume ended (%d left by the killed eval): %v", len(stuck), suiteWorkers(w.temporalAddr(), "crashy-d"))
		}
		time.Sleep(100 * time.Millisecond)
	}

	// The devices' action logs: each action started once, and nothing of a
	// task that had finished before the kill happened after it.
	logs, _ := filepath.Glob(filepath.Join(w.state, "actions", "crashy-d*.jsonl"))
	if len(logs) != 2 {
		t.Fatalf("action logs: %v", logs)
	}
	started := map[string]int{}
	for _, path := range logs {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var e activities.LogEntry
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if e.Phase == "started" {
				started[e.ID]++
			}
			parts := strings.Split(e.ID, "/")
			if len(parts) < 2 {
				t.Errorf("%s: an action id that names no task run: %s", path, line)
				continue
			}
			task := parts[1]
			if finished[task] && e.Time.After(killed) {
				t.Errorf("%s had finished before the kill, yet acted after it: %s", task, line)
			}
		}
	}
	for id, n := range started {
		if n > 1 {
			t.Errorf("action %s started %d times", id, n)
		}
	}
}

// TestEvalSecretStaysOnDevice runs a suite task with a sensitive variable
// on a sandboxed local device: the value reaches the device (the agent
// types it by placeholder, the check reads it there) but not the programs
// the device starts, and no form of it is in the results, the report, the
// suite's record, the Temporal database (suite and task histories), any
// log, eval's output or a command line. Resuming without the value is
// refused, naming the variable.
func TestEvalSecretStaysOnDevice(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	const secret = "plover-8123-Quince"
	w := newEvalWorld(t)
	c := w.cmd(w.flags("eval", "cli/testdata/eval_secret", "--devices", "1", "--out", w.out, "--id", "secretive")...)
	c.Env = append(c.Env, "PCFLOW_VAR_token="+secret)
	var outBuf bytes.Buffer
	c.Stdout, c.Stderr = &outBuf, &outBuf
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	// Every process but eval itself (whose environment the user gave
	// the value in): the desktop, the sandbox, the worker, the apps. A
	// child eval has forked but not yet exec'd still shows eval's
	// command line and environment; the watcher skips those by command
	// line.
	ps := watchProcesses(t, c.Process.Pid, secret)
	c.Wait()
	out := outBuf.Bytes()
	procs := ps()
	seen := procs.cmdlines
	// The documented holders: the task's setup and check commands, which
	// get every sensitive value as PCFLOW_SECRET_NAME (and only there)
	// while they run, and the programs of their pipelines (the value
	// never in an argument: the check hands it to grep on its standard
	// input).
	checkProcs := map[string]bool{
		"mkdir -p /tmp/pcflow-task": true,
		"sh -c printenv PCFLOW_SECRET_token | grep -qFf - /tmp/pcflow-task/token.txt": true,
		"printenv PCFLOW_SECRET_token": true, "grep -qFf - /tmp/pcflow-task/token.txt": true,
		"sh -c ! env | grep -q '^PCFLOW_VAR_'": true, "env": true, "grep -q ^PCFLOW_VAR_": true,
	}
	// In the overlay sandbox a command starts as the jail's nsenter, which
	// execs setpriv, which execs the command, in place with the same
	// environment: the watcher may catch either step.
	jail := regexp.MustCompile(`^(nsenter --net=\S+ -- )?(setpriv --bounding-set=\S+ --inh-caps=\S+ --ambient-caps=\S+ -- )?`)
	for cl, vars := range procs.holders {
		if checkProcs[strings.TrimSpace(jail.ReplaceAllString(cl, ""))] && slices.Equal(vars, []string{"PCFLOW_SECRET_token"}) {
			continue
		}
		t.Errorf("a process started by eval holds the secret in its environment (%v): %s", vars, cl)
	}
	if c.ProcessState.ExitCode() != 0 {
		t.Fatalf("eval exited %d:\n%s", c.ProcessState.ExitCode(), out)
	}
	r := readResults(t, w.out)
	if len(r.Runs) != 1 || r.Runs[0].Status != "succeeded" {
		t.Fatalf("secret_note = %+v, want succeeded (the device typed the value and its programs did not inherit it):\n%s", r.Runs, out)
	}
	check := func(where string, data []byte) {
		t.Helper()
		for _, f := range leakForms(secret) {
			if bytes.Contains(data, []byte(f)) {
				t.Errorf("%s holds %q (a form of the secret)", where, f)
				return
			}
		}
	}
	check("eval's output", out)
	check("the command lines of running processes", []byte(strings.Join(seen, "\n")))
	placeholder := false
	eachStoredFile(func(p string, data []byte) {
		if strings.HasSuffix(p, ".png") {
			return
		}
		check(p, data)
		if strings.HasPrefix(filepath.Base(p), "temporal.db") && bytes.Contains(data, []byte("{{secret.token}}")) {
			placeholder = true
		}
	}, w.out, w.state)
	if !placeholder {
		t.Error("the Temporal database holds no {{secret.token}} placeholder: the search did not look where the history is")
	}
	// The report's screenshots: the editor showed the typed value, masked
	// on the device before any image was stored.
	pngs, _ := filepath.Glob(filepath.Join(w.out, "img", "*.png"))
	if len(pngs) == 0 {
		t.Error("the report holds no screenshots to look at")
	}
	for _, p := range pngs {
		txt, err := exec.Command("tesseract", p, "stdout", "--psm", "11").Output()
		if err != nil {
			t.Fatalf("tesseract %s: %v", p, err)
		}
		if low := strings.ToLower(string(txt)); strings.Contains(low, "plover") || strings.Contains(low, "quince") {
			t.Errorf("the report's screenshot %s shows the secret to OCR:\n%s", p, txt)
		}
	}

	code, rout := w.pcflow(w.flags("eval", "resume", "secretive")...)
	if code != 1 || !strings.Contains(rout, "sensitive variables (token)") || !strings.Contains(rout, "PCFLOW_VAR_token") {
		t.Errorf("eval resume without the value = %d, want 1 naming the variable and where to give it:\n%s", code, rout)
	}
}

// suiteWorkers lists the command lines of live `pcflow worker` processes
// (and their bwrap sandboxes) of the Temporal server at addr (one test's
// own) for devices whose names start with prefix: another test's, or
// another suite's on the same machine, are not this test's.
func suiteWorkers(addr, prefix string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if !slices.Contains(args, addr) {
			continue // another test's (or another suite's) worker
		}
		for i, a := range args {
			if a == "--device" && i+1 < len(args) && strings.HasPrefix(args[i+1], prefix) {
				if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && strings.Contains(string(st), ") Z ") {
					break // a zombie: dead, waiting to be reaped
				}
				out = append(out, strings.Join(args, " "))
				break
			}
		}
	}
	return out
}

// TestEvalDesktopComesBack kills a device's X server while a task runs on
// it: the worker goes with its display, and eval brings the desktop and
// the worker back; the task's run fails there (its calculator is gone),
// which is the device's failure, not the agent's: the task starts again on
// the desktop brought back and succeeds, and the next task runs on the
// same device and succeeds; no device leaves the pool.
func TestEvalDesktopComesBack(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	w := newEvalWorld(t)
	display := testdisplay.Reserve(t)
	c := w.cmd(w.flags("eval", "specs/suites/smoke/calc_add.hcl", "specs/suites/smoke/editor_note.hcl", "--devices", "1",
		"--displays", display, "--model-latency", "1s", "--out", w.out, "--no-report", "--id", "phoenix")...)
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.Stderr = c.Stdout
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "▶ calc_add") {
			break
		}
	}
	// Into its steps: after its first action (CI: killed 4 s after the
	// start, under load, the desktop went during the setup, whose retry
	// launched the calculator again on the desktop brought back).
	logPath := filepath.Join(w.state, "actions", "phoenix-d1.jsonl")
	for deadline := time.Now().Add(2 * time.Minute); count(logPath, `"phase":"finished"`) < 1; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			c.Process.Kill()
			t.Fatalf("calc_add made no action in 2 minutes:\n%s", log.String())
		}
	}
	if err := exec.Command("pkill", "-KILL", "-f", "^Xvfb "+display+" ").Run(); err != nil {
		t.Fatalf("kill the X server of %s: %v\n%s", display, err, log.String())
	}
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
	}
	if err := c.Wait(); err != nil {
		t.Fatalf("eval: %v\n%s", err, log.String())
	}
	r := readResults(t, w.out)
	for _, row := range r.Runs {
		t.Logf("%s: %s %s after %.1fs: %s", row.Key, row.Status, row.Reason, row.WallSeconds, row.Error)
	}
	// The desktop died under calc_add: the harness's failure, never the
	// agent's (it was agent_failed … 0 elements); it starts once more on
	// the desktop brought back, and succeeds there.
	if len(r.Runs) != 2 || r.Runs[0].Status != "succeeded" || !strings.HasPrefix(r.Runs[0].Retried, "desktop lost: device ") || r.Runs[1].Status != "succeeded" {
		t.Errorf("runs = %+v, want calc_add started again after its desktop was lost, and succeeded, and editor_note succeeded\n%s", r.Runs, log.String())
	}
	if o := r.Overall; o.Runs != 2 || o.Passed != 2 {
		t.Errorf("overall = %+v, want both runs scored and passed", o)
	}
	if len(r.Removed) > 0 {
		t.Errorf("devices left the pool: %+v", r.Removed)
	}
	wl, _ := os.ReadFile(filepath.Join(w.state, "suites", "phoenix", "phoenix-d1", "worker.log"))
	if !strings.Contains(string(wl), "the desktop "+display+" of phoenix-d1 was gone: brought it up again") {
		t.Errorf("the worker log does not say the desktop came back:\n%s", wl)
	}
}

// temporalAddr is the address of the eval world's embedded Temporal server.
func (w *evalWorld) temporalAddr() string { return fmt.Sprintf("127.0.0.1:%d", w.port) }
