package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunShowsModelRetries: while the model endpoint fails, `pcflow run`
// shows each retry as it happens (which step, which attempt, why), and the
// run goes on once the endpoint answers.
func TestRunShowsModelRetries(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	w := newWorld(t)
	script := filepath.Join(w.state, "flaky.script.json")
	os.WriteFile(script, []byte(`{
  "faults": [{"role": "decision", "subtask": "clear", "kind": "500", "times": 2}],
  "subtasks": {
    "clear": {"steps": [{"action": "done", "args": {"outputs": {"display": "0"}}}]},
    "multiply": {"steps": [{"action": "done", "args": {"outputs": {"product": "84"}}}]}
  }
}`), 0o644)
	_, out := w.pcflow(w.flags("run", "cli/testdata/crash.hcl", "--display", w.display, "--script", script)...)
	for _, want := range []string{"↻ clear", "Decide: attempt 2 after: model endpoint", "HTTP 500", "✓ clear succeeded"} {
		if !strings.Contains(out, want) {
			t.Errorf("run output lacks %q:\n%s", want, out)
		}
	}
}
