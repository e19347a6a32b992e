package main

import (
	"os"
	"strings"
	"testing"
)

// TestEvalRefusesATakenID: a suite run id a finished suite used was taken
// over without a word (its record, results folder and latest history
// replaced); eval refuses it before anything starts and says what to do.
func TestEvalRefusesATakenID(t *testing.T) {
	state, done := t.TempDir(), t.TempDir()
	if err := os.WriteFile(done+"/results.json", []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := saveSuite(state, suiteRecord{ID: "nightly", Suite: "smoke", Out: done, Started: "2026-11-27T10:00:00Z"}); err != nil {
		t.Fatal(err)
	}
	// A suite with no results yet runs (detached) or stopped before its
	// end: said so, as the server's check does once eval has started
	// (TestEvalPoolDetachResume met one or the other by timing).
	if err := saveSuite(state, suiteRecord{ID: "detached", Suite: "smoke", Out: t.TempDir(), Started: "2026-11-27T11:00:00Z"}); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, "eval", "testdata/eval_reset", "--state", state, "--id", "detached", "--sandbox", "none", "--out", t.TempDir())
	if code != 1 || !strings.Contains(errs, "detached is already running, or stopped before its end") || !strings.Contains(errs, "pcflow eval resume detached") {
		t.Errorf("eval --id of a suite with no results = %d, %q; want 1, that it runs and how to follow it", code, errs)
	}
	// --out in a temporary folder: without the refusal the suite runs and
	// would leave its results in the package's folder.
	code, _, errs = runCLI(t, "eval", "testdata/eval_reset", "--state", state, "--id", "nightly", "--sandbox", "none", "--out", t.TempDir())
	if code != 1 || !strings.Contains(errs, "the suite run id nightly is taken: suite smoke ran under it") || !strings.Contains(errs, "another --id") {
		t.Errorf("eval --id nightly again = %d, %q; want 1, the id taken and what to do", code, errs)
	}
	if _, err := os.Stat(state + "/temporal.db"); err == nil {
		t.Error("eval started a server before refusing the id")
	}
}
