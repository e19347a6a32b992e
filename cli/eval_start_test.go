package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcflow/pcflow/workflows"
)

// TestEvalStartState runs a suite whose first task's setup leaves a
// dialog in front one time in two, and whose second task never starts
// right. The first start of the first task fails its start check: eval
// resets the device and runs the setup again, and the task succeeds (the
// agent's run is scored once, on the good start). The second ends as
// harness_error (start state) after its one retry, with the screen of the
// bad start, and counts in no rate: the suite's success rate is 1/1.
func TestEvalStartState(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	w := newEvalWorld(t)
	counter := filepath.Join(t.TempDir(), "starts")
	code, out := w.pcflow(w.flags("eval", "cli/testdata/eval_start", "--devices", "1", "--out", w.out, "--sandbox", "none",
		"--var", "counter="+counter, "--id", "starts")...)
	if code != 0 {
		t.Fatalf("eval exited %d:\n%s", code, out)
	}
	r := readResults(t, w.out)
	rows := map[string]int{}
	for i, row := range r.Runs {
		rows[row.Key] = i
		t.Logf("%s: %s %s (bad starts %d): %s", row.Key, row.Status, row.Reason, row.BadStarts, row.Error)
	}
	if b, _ := os.ReadFile(counter); strings.TrimSpace(string(b)) != "2" {
		t.Errorf("the flaky setup ran %q times, want 2 (a bad start, then a good one)", b)
	}
	flaky := r.Runs[rows["a_flaky"]]
	if flaky.Status != workflows.StatusSucceeded || flaky.BadStarts != 1 || !strings.Contains(flaky.Retried, "start state: check editor_in_front failed") {
		t.Errorf("flaky_start = %s/%s, bad starts %d, retried %q; want succeeded on its second start after a start state failure\n%s",
			flaky.Status, flaky.Reason, flaky.BadStarts, flaky.Retried, out)
	}
	never := r.Runs[rows["b_never"]]
	if never.Reason != workflows.ReasonHarnessError || !strings.HasPrefix(never.Error, "start state: check calculator_open failed") || never.BadStarts != 2 || never.Steps != 0 {
		t.Errorf("never_starts = %s/%s after %d bad starts and %d steps: %s; want harness_error (start state) after 2 starts and no step\n%s",
			never.Status, never.Reason, never.BadStarts, never.Steps, never.Error, out)
	}
	if never.StartScreenshot == "" {
		t.Errorf("never_starts has no screenshot of its bad start")
	}
	if o := r.Overall; o.Runs != 1 || o.Passed != 1 || o.SuccessRate != 1 || o.MeanPC != 1 || o.HarnessErrors != 1 {
		t.Errorf("overall = %+v; want 1 scored run, passed (SR 1, PC 1), and 1 harness error apart", o)
	}
	if !strings.Contains(out, "↻ a_flaky                  starts again: start state: check editor_in_front failed") {
		t.Errorf("eval does not say a_flaky starts again after its bad start:\n%s", out)
	}
	if !strings.Contains(out, "1 harness error(s), not scored") || !strings.Contains(out, "b_never: harness_error: start state") {
		t.Errorf("eval's summary does not list the harness error:\n%s", out)
	}
	page, err := os.ReadFile(filepath.Join(w.out, "runs", "b_never.html"))
	if err != nil {
		t.Fatal(err)
	}
	index, _ := os.ReadFile(filepath.Join(w.out, "index.html"))
	if !strings.Contains(string(index), `id="harness-errors"`) || !strings.Contains(string(page), `id="start-screenshot" src="../img/`) {
		t.Errorf("the report does not list the harness error with its screenshot")
	}
	if img := filepath.Join(w.out, "img", filepath.Base(never.StartScreenshot)); func() bool { _, err := os.Stat(img); return err != nil }() {
		t.Errorf("the report's copy of the bad start's screen %s is missing", img)
	}
}
