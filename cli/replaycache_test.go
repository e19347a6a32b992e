package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcflow/pcflow/specs"
)

// TestReplayCacheKey: the replay cache is keyed by the task file and
// every input, secrets included, and only for a task that opts in; what
// it stores holds no input.
func TestReplayCacheKey(t *testing.T) {
	state := t.TempDir()
	const secret = "Vault code 4711-quartz"
	cached := strings.Replace(secretNoteTask, "  max_steps = 20\n", "  max_steps = 20\n  replay    = \"cache\"\n", 1)
	open := func(task string, vars map[string]string) replayCache {
		t.Helper()
		res, diags := specs.Parse("note.hcl", []byte(task), specs.Options{Vars: vars})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		rc, err := openReplayCache(state, res)
		if err != nil {
			t.Fatal(err)
		}
		return rc
	}
	base := map[string]string{"dir": "/tmp/a", "note": secret}
	rc := open(cached, base)
	if rc.key == "" || rc.lookup().Run != "" {
		t.Fatalf("an opted-in task's cache = %+v, lookup %q; want a key and no run yet", rc, rc.lookup())
	}
	if err := rc.save("first", "run-1", "replay_note"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		task string
		vars map[string]string
		want string
	}{
		{"the same file and inputs", cached, base, "first"},
		{"another variable value", cached, map[string]string{"dir": "/tmp/b", "note": secret}, ""},
		{"another secret", cached, map[string]string{"dir": "/tmp/a", "note": secret + "!"}, ""},
		{"another task file", strings.Replace(cached, "max_steps = 20", "max_steps = 21", 1), base, ""},
		{"a task without replay = \"cache\"", secretNoteTask, base, ""},
	} {
		if got := open(c.task, c.vars).lookup().Run; got != c.want {
			t.Errorf("%s: the cache gives run %q, want %q", c.name, got, c.want)
		}
	}
	filepath.WalkDir(state, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			for _, in := range []string{secret, "/tmp/a"} {
				if bytes.Contains(b, []byte(in)) {
					t.Errorf("%s holds the input %q", p, in)
				}
			}
		}
		return nil
	})
	rc.forget()
	if got := rc.lookup().Run; got != "" {
		t.Errorf("after forget the cache gives run %q", got)
	}
}
