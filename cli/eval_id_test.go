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
	state := t.TempDir()
	if err := saveSuite(state, suiteRecord{ID: "nightly", Suite: "smoke", Out: "/r/eval-nightly", Started: "2026-11-27T10:00:00Z"}); err != nil {
		t.Fatal(err)
	}
	// --out in a temporary folder: without the refusal the suite runs and
	// would leave its results in the package's folder.
	code, _, errs := runCLI(t, "eval", "testdata/eval_reset", "--state", state, "--id", "nightly", "--sandbox", "none", "--out", t.TempDir())
	if code != 1 || !strings.Contains(errs, "the suite run id nightly is taken: suite smoke ran under it") || !strings.Contains(errs, "another --id") {
		t.Errorf("eval --id nightly again = %d, %q; want 1, the id taken and what to do", code, errs)
	}
	if _, err := os.Stat(state + "/temporal.db"); err == nil {
		t.Error("eval started a server before refusing the id")
	}
}
