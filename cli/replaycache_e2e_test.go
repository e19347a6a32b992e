package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcflow/pcflow/activities/agents/scripted"
)

// TestReplayCacheIDReused: a task remembered by the replay cache as run
// rc1, then another task file of the same task name run as rc1 too: the
// first task's next run must not replay rc1, which now holds the other
// file's steps (it did, and said "the task file and its inputs are that
// run's"); the cache forgets the entry, the agent runs, and that run is
// remembered in its place.
func TestReplayCacheIDReused(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	const note = "Vault code 4711-quartz"
	dir := filepath.Join(t.TempDir(), "notes")
	task := strings.Replace(secretNoteTask, "  max_steps = 20\n", "  max_steps = 20\n  replay    = \"cache\"\n", 1)
	w := newReplayWorld(t, task, map[string][]scripted.Step{"write_note": noteSteps()})
	w.env = []string{"PCFLOW_VAR_note=" + note}
	code, out, calls := w.run("--id", "rc1", "--var", "dir="+dir)
	if code != 0 || calls == 0 || !strings.Contains(out, "replay cache: run rc1 is replayed by the next run") {
		t.Fatalf("first run = %d with %d model requests, want 0, some and the run remembered\n%s", code, calls, out)
	}

	// Another file, the same task name, the same --id.
	first := w.spec
	w.spec = filepath.Join(t.TempDir(), "other.hcl")
	if err := os.WriteFile(w.spec, []byte(strings.Replace(task, "max_steps = 20", "max_steps = 21", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(dir)
	if code, out, _ := w.run("--id", "rc1", "--var", "dir="+dir); code != 0 {
		t.Fatalf("the other file's run as rc1 = %d, want 0\n%s", code, out)
	}

	// The first file again: rc1 is not its run any more.
	w.spec = first
	os.RemoveAll(dir)
	code, out, calls = w.run("--id", "rc2", "--var", "dir="+dir)
	if strings.Contains(out, "replaying run rc1 from the cache") || calls == 0 {
		t.Fatalf("the first file's run after rc1 was reused replayed rc1 (%d model requests)\n%s", calls, out)
	}
	for _, want := range []string{"replay cache: run rc1 cannot be replayed (the id rc1 was given to another run since", "forgotten", "replay cache: run rc2 is replayed by the next run"} {
		if !strings.Contains(out, want) {
			t.Errorf("the run after rc1 was reused lacks %q:\n%s", want, out)
		}
	}
	if code != 0 {
		t.Errorf("the first file's run after rc1 was reused = %d, want 0\n%s", code, out)
	}
}
