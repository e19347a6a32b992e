package main

import (
	"bytes"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities"
)

// TestBatchCrashAndResume: the model answers the multiplication as one
// batch of five clicks; the run is killed (SIGKILL) in the middle of the
// batch and resumed. Every action runs at most once; when the kill fell
// between actions the batch goes on at the next unexecuted one and the
// calculator shows 84.
func TestBatchCrashAndResume(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	w := newWorld(t)
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewSource(seed))
	logPath := filepath.Join(w.state, "actions", "desktop.jsonl")
	id := "batch-crash"
	// Action 1 is clear's AC; actions 2–6 are the batch: kill after the
	// 2nd or 3rd click of the batch has finished.
	k := 3 + rng.Intn(2)
	c := w.cmd(w.flags("run", "cli/testdata/crash.hcl", "--script", "cli/testdata/batch.script.json", "--display", w.display, "--id", id)...)
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	for n := 0; count(logPath, `"phase":"finished"`) < k; n++ {
		if n > 2400 {
			t.Fatalf("the run never reached action %d\n%s", k, out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(time.Duration(rng.Intn(150)) * time.Millisecond)
	c.Process.Kill()
	c.Wait()
	t.Logf("seed %d: killed after %d started and %d finished actions", seed, count(logPath, `"phase":"started"`), count(logPath, `"phase":"finished"`))
	code, res := w.pcflow(w.flags("resume", id, "--display", w.display, "--script", "cli/testdata/batch.script.json")...)
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
	for aid, n := range started {
		if n != 1 {
			t.Errorf("action %s started %d times: an action was repeated", aid, n)
		}
		if !finished[aid] {
			unknown = append(unknown, aid)
		}
	}
	if len(unknown) == 0 {
		if len(started) != 6 {
			t.Errorf("%d distinct actions ran, want 6 (AC, then the batch of 5)", len(started))
		}
		if code != 0 || !strings.Contains(res, "check shown        pass") {
			t.Errorf("resumed run = %d, want success with the calculator showing 84\n%s", code, res)
		}
		return
	}
	// The kill landed inside an action: it was not repeated, the batch
	// stopped there, and the model was told.
	t.Logf("kill inside action %v: outcome unknown, batch stopped", unknown)
	if !strings.Contains(res, "run batch-crash: ") {
		t.Errorf("resume printed no result:\n%s", res)
	}
}
