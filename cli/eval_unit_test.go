package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pcflow/pcflow/workflows"
)

func TestProgressLine(t *testing.T) {
	start := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	runs := func(statuses ...string) []workflows.SuiteRun {
		var out []workflows.SuiteRun
		for _, s := range statuses {
			out = append(out, workflows.SuiteRun{Status: s})
		}
		return out
	}
	for _, tc := range []struct {
		name string
		runs []workflows.SuiteRun
		now  time.Duration
		want string
	}{
		{"nothing done yet", runs("running", "running", "queued"), 5 * time.Second, "[0/3 done · 2 running · 1 queued]"},
		// 4 done in 40 s: 10 s a task; 2 queued and 2 half-done running left.
		{"half way", runs("succeeded", "failed", "succeeded", "succeeded", "running", "running", "queued", "queued"), 40 * time.Second,
			"[4/8 done · 2 running · 2 queued] pass 3/4 (75%) · ETA 30s"},
		{"all done", runs("succeeded", "failed"), time.Minute, "[2/2 done · 0 running · 0 queued] pass 1/2 (50%)"},
	} {
		got := progressLine(workflows.SuiteLive{Started: start, Runs: tc.runs}, start.Add(tc.now))
		if got != tc.want {
			t.Errorf("%s: progressLine = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestPoolNames(t *testing.T) {
	got, err := poolNames([]string{"office-1,office-2", " lab "})
	if d := cmp.Diff([]string{"office-1", "office-2", "lab"}, got); err != nil || d != "" {
		t.Errorf("poolNames = %v, %v (-want +got):\n%s", got, err, d)
	}
	for _, bad := range [][]string{{"a,a"}, {"a b"}, {"x/y"}} {
		if _, err := poolNames(bad); err == nil {
			t.Errorf("poolNames(%q) = nil error, want one", bad)
		}
	}
}

func TestRedactCommand(t *testing.T) {
	argv := []string{"pcflow", "eval", "suite", "--var", "token=hunter22", "--var=dir=/tmp", "-var=token=hunter22", "--var", "n=3"}
	got := redactCommand(argv, map[string]string{"token": "hunter22"})
	want := []string{"pcflow", "eval", "suite", "--var", "token=(sensitive)", "--var=dir=/tmp", "-var=token=(sensitive)", "--var", "n=3"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("redactCommand (-want +got):\n%s", d)
	}
}

// TestSecretValues: `pcflow worker --secret NAME` takes the value from
// PCFLOW_VAR_NAME, else a --var-file; a name without a value is an error
// that says where to give it; the environment variable is removed from
// the worker's environment, so nothing it starts inherits it.
func TestSecretValues(t *testing.T) {
	dir := t.TempDir()
	vf := filepath.Join(dir, "secrets.hcl")
	if err := os.WriteFile(vf, []byte("token = \"from-file\"\npin = 4711\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PCFLOW_VAR_api-key", "from-env")
	e := &env{environ: os.Environ(), getenv: os.Getenv}
	got, err := secretValues(e, []string{"api-key", "token", "pin"}, &varFlags{varFiles: multiFlag{vf}})
	want := map[string]string{"api-key": "from-env", "token": "from-file", "pin": "4711"}
	if d := cmp.Diff(want, got); err != nil || d != "" {
		t.Errorf("secretValues = %v, %v (-want +got):\n%s", got, err, d)
	}
	if v, ok := os.LookupEnv("PCFLOW_VAR_api-key"); ok {
		t.Errorf("PCFLOW_VAR_api-key = %q is still in the environment", v)
	}
	if _, err := secretValues(e, []string{"missing"}, &varFlags{}); err == nil || !strings.Contains(err.Error(), "PCFLOW_VAR_missing") {
		t.Errorf("secretValues(missing) = %v, want an error naming PCFLOW_VAR_missing", err)
	}
}

// TestSuiteFinalLinesPrintWhatPollsMissed: a task run that ends between
// two progress polls (here: the only poll saw it running, or saw nothing)
// gets its ✓ or ✗ line from the suite's final result, once; a run the
// polls already printed as ended is not printed again.
func TestSuiteFinalLinesPrintWhatPollsMissed(t *testing.T) {
	start := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	run := func(key, status string) workflows.SuiteRun {
		r := workflows.SuiteRun{Key: key, Status: status, Started: start, Devices: map[string]string{"main": "local-1"}}
		if status != workflows.StatusRunning {
			r.Ended = start.Add(3 * time.Second)
		}
		if status == workflows.StatusFailed {
			r.Reason, r.Error = "check_failed", "the file holds 41"
		}
		return r
	}
	seen := map[string]string{}
	var out strings.Builder
	printSuiteChanges(&out, workflows.SuiteLive{Started: start, Runs: []workflows.SuiteRun{
		run("early", workflows.StatusRunning), run("done", workflows.StatusSucceeded), run("late", workflows.StatusQueued)}}, seen, start)
	if !strings.Contains(out.String(), "▶ early") || !strings.Contains(out.String(), "✓ done") {
		t.Fatalf("first poll printed:\n%s", out.String())
	}
	out.Reset()
	// The suite ends before the next poll: every run has ended.
	final := workflows.SuiteLive{Started: start, Runs: []workflows.SuiteRun{
		run("early", workflows.StatusSucceeded), run("done", workflows.StatusSucceeded), run("late", workflows.StatusFailed)}}
	printSuiteChanges(&out, final, seen, start.Add(time.Minute))
	got := out.String()
	for _, want := range []string{"✓ early", "✗ late", "check_failed: the file holds 41", "[3/3 done · 0 running · 0 queued] pass 2/3"} {
		if !strings.Contains(got, want) {
			t.Errorf("final lines = %q, want %q in them", got, want)
		}
	}
	if strings.Contains(got, "✓ done") {
		t.Errorf("final lines printed the already printed run again:\n%s", got)
	}

	// A task no device could take never started: no duration (it printed
	// 9223372036.9s, the zero start time's overflow).
	out.Reset()
	never := workflows.SuiteRun{Key: "relay", Status: workflows.StatusFailed, Ended: start, Reason: "device_error", Error: "the task needs 2 devices"}
	printSuiteChanges(&out, workflows.SuiteLive{Started: start, Runs: []workflows.SuiteRun{never}}, map[string]string{}, start)
	if got := out.String(); !strings.Contains(got, "✗ relay") || !strings.Contains(got, " -  device_error") || strings.Contains(got, "9223372036") {
		t.Errorf("a run that never started printed %q, want no duration", got)
	}

	// One task that starts and ends between two polls of a single-task eval.
	out.Reset()
	printSuiteChanges(&out, workflows.SuiteLive{Started: start, Runs: []workflows.SuiteRun{run("only", workflows.StatusSucceeded)}}, map[string]string{}, start)
	if !strings.Contains(out.String(), "✓ only") {
		t.Errorf("a single task that ended unseen printed %q, want its ✓ line", out.String())
	}
}

// TestEvalResumeFlags: eval resume honours --out, and --displays where the
// suite's desktops are; flags that shape the suite are refused by name
// (was: all of them ignored silently).
func TestEvalResumeFlags(t *testing.T) {
	local := suiteRecord{ID: "smoke-1", Local: true, Devices: []string{"smoke-1-d1", "smoke-1-d2"}, Displays: []string{":90", ":91"}}
	pool := suiteRecord{ID: "nightly", Devices: []string{"office-1", "office-2"}}
	for _, tc := range []struct {
		name     string
		rec      suiteRecord
		set      []string
		displays string
		want     string // "" when accepted
	}{
		{"out", local, []string{"out", "quiet", "state"}, "", ""},
		{"same displays", local, []string{"displays"}, ":90,:91", ""},
		{"other displays", local, []string{"displays"}, ":95,:96", "devices are on :90,:91"},
		{"displays of a pool", pool, []string{"displays"}, ":95", "--displays is for local devices"},
		{"shape of the suite", local, []string{"devices", "filter", "out"}, "", "--devices, --filter cannot change on a resume"},
		{"model", pool, []string{"profile"}, "", "--profile cannot change"},
	} {
		set := map[string]bool{}
		for _, n := range tc.set {
			set[n] = true
		}
		got := resumeFlags(tc.rec, set, tc.displays)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("%s: resumeFlags = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestLaunchedProgramSeesThroughWrappers: a task that launches through
// env or a shell is tagged by the program it runs (#23: every such task
// was tagged "env" or "sh" in the report).
func TestLaunchedProgramSeesThroughWrappers(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"galculator"}, "galculator"},
		{[]string{"/usr/bin/mousepad", "/tmp/a.txt"}, "mousepad"},
		{[]string{"env", "LANG=C", "HOME=/home/user", "xterm", "-T", "Terminal"}, "xterm"},
		{[]string{"env", "-u", "DBUS_SESSION_BUS_ADDRESS", "chromium", "--no-sandbox"}, "chromium"},
		{[]string{"sh", "-c", "cd /tmp && exec soffice --calc sheet.xlsx"}, "soffice"},
		{[]string{"sh", "-c", "LANG=C exec galculator &"}, "galculator"},
		{[]string{"bash", "-lc", "mousepad"}, "bash"},
		{[]string{"env", "DISPLAY=:1", "sh", "-c", "nohup xterm -e top"}, "xterm"},
		{[]string{"timeout", "-k", "5", "60", "nice", "-n", "10", "galculator"}, "galculator"},
		{[]string{"setsid", "-f", "mousepad"}, "mousepad"},
		{[]string{"env"}, "env"},
		{nil, ""},
	} {
		if got := launchedProgram(c.argv); got != c.want {
			t.Errorf("launchedProgram(%q) = %q, want %q", c.argv, got, c.want)
		}
	}
}
