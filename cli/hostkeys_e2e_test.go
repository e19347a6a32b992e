package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pcflow/pcflow/activities/agents/scripted"
)

// The operator's credentials planted by TestOperatorKeysStayOut.
const (
	opKey = "sk-pcflowtest-Zq81xVb2Lm44Rt9"
	opDB  = "pw-Kestrel-7731-Dune"
)

// keysTask is an untrusted task that looks for the operator's keys: its
// setup fails, printing the whole environment, when it finds one there;
// one command check passes only when its environment holds neither; the
// other prints them (from its environment, and from its parent's
// /proc/PID/environ, which a task run outside the overlay sandbox can
// read) and fails, so what it printed lands in the results.
const keysTask = `task "keys" {
  max_steps = 3
  timeout   = "2m"

  setup "probe" {
    command = ["sh", "-c", "if env | grep -q -e '^OPENAI_API_KEY=' -e '^PCFLOW_DB_PASSWORD='; then env; printenv OPENAI_API_KEY PCFLOW_DB_PASSWORD; exit 3; fi"]
  }

  subtask "look" {
    instruction = "Look at the desktop, then finish."
  }

  check "env_clean" {
    command {
      # grep -c prints 0 and exits 1 when no line matches.
      argv      = ["sh", "-c", "env | grep -c -e '^OPENAI_API_KEY=' -e '^PCFLOW_DB_PASSWORD='"]
      exit_code = 1
    }
  }

  check "printed" {
    command {
      argv      = ["sh", "-c", "printenv OPENAI_API_KEY; printenv PCFLOW_DB_PASSWORD; tr '\\0' '\\n' < /proc/$PPID/environ | grep -e '^OPENAI_API_KEY=' -e '^PCFLOW_DB_PASSWORD='; echo end; exit 1"]
      exit_code = 0
    }
  }
}
`

// TestOperatorKeysStayOut runs a task that hunts for the operator's
// model key and database password (OPENAI_API_KEY, PCFLOW_DB_PASSWORD set
// in pcflow's environment) with `pcflow eval` (its device in the default
// overlay sandbox) and with `pcflow run`: its setup and command checks
// see neither variable, and no form of either value is in the results
// (json, csv, report), eval's or run's output, the state folder (the
// Temporal database with the histories, logs, artifacts) or `pcflow
// history`; under `pcflow run` the check reads the worker's own
// environment through /proc and what it printed is shown as the
// variable's placeholder.
func TestOperatorKeysStayOut(t *testing.T) {
	t.Parallel() // its own desktops, state folders and ports
	dir := t.TempDir()
	suite := filepath.Join(dir, "suite")
	if err := os.MkdirAll(suite, 0o755); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(suite, "keys.hcl")
	if err := os.WriteFile(spec, []byte(keysTask), 0o644); err != nil {
		t.Fatal(err)
	}
	model := func() *scripted.Server {
		m := scripted.New(scripted.Script{Subtasks: map[string]scripted.SubtaskScript{"look": {Steps: []scripted.Step{
			{Thought: "The desktop is empty.", Action: "done"},
		}}}})
		if err := m.Start("127.0.0.1:0"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		return m
	}
	keyEnv := func(url string) []string {
		return []string{"OPENAI_BASE_URL=" + url, "OPENAI_API_KEY=" + opKey, "PCFLOW_DB_PASSWORD=" + opDB,
			"PCFLOW_MODEL=scripted", "PCFLOW_MODEL_SCRIPTED=1"}
	}
	check := func(where string, data []byte) {
		t.Helper()
		for _, s := range []string{opKey, opDB} {
			for _, f := range leakForms(s) {
				if bytes.Contains(data, []byte(f)) {
					t.Errorf("%s holds %q (a form of an operator's credential)", where, f)
					break
				}
			}
		}
	}
	wantChecks := func(who, errText string) {
		t.Helper()
		if regexp.MustCompile(`env_clean\s+(failed|FAIL)`).MatchString(errText) || strings.Contains(errText, "probe") {
			t.Errorf("%s: a task program saw the operator's keys in its environment: %s", who, errText)
		}
		if !strings.Contains(errText, "printed") {
			t.Errorf("%s: the error does not name the failing check printed: %s", who, errText)
		}
	}

	// eval, its device in the overlay sandbox (the default as root).
	overlayRepo(t) // skips unless root
	ew := newEvalWorld(t)
	c := ew.cmd(ew.flags("eval", suite, "--devices", "1", "--out", ew.out, "--id", "keys")...)
	c.Env = append(c.Env, keyEnv(model().URL)...)
	out, _ := c.CombinedOutput()
	r := readResults(t, ew.out)
	if len(r.Runs) != 1 || r.Runs[0].Status != "failed" {
		t.Fatalf("eval: runs = %+v, want keys failed on its check printed:\n%s", r.Runs, out)
	}
	wantChecks("eval", r.Runs[0].Error)
	check("eval's output", out)
	for _, f := range []string{"results.json", "results.csv"} {
		if _, err := os.Stat(filepath.Join(ew.out, f)); err != nil {
			t.Errorf("eval wrote no %s: %v", f, err)
		}
	}
	htmls, _ := filepath.Glob(filepath.Join(ew.out, "*.html"))
	if len(htmls) == 0 {
		t.Errorf("eval wrote no HTML report in %s", ew.out)
	}
	eachStoredFile(func(p string, data []byte) { check(p, data) }, ew.out, ew.state)

	// run: the worker is pcflow run itself, the task's programs its
	// children.
	w := newWorld(t)
	c = w.cmd(w.flags("run", spec, "--display", w.display, "--id", "keys-run")...)
	m := model()
	c.Env = append(c.Env, keyEnv(m.URL)...)
	out, _ = c.CombinedOutput()
	if code := c.ProcessState.ExitCode(); code != 1 || !strings.Contains(string(out), "check_failed") {
		t.Fatalf("run = %d, want 1 (check_failed on printed):\n%s", code, out)
	}
	wantChecks("run", string(out))
	// The worker (pcflow run) started itself again without the keys in
	// its environment: /proc/$PPID/environ, which the check read, holds
	// neither, not even to be masked; yet the model was asked with the
	// key.
	if strings.Contains(string(out), "{{secret.") || !strings.Contains(string(out), "end") {
		t.Errorf("run: the check read the operator's keys from its parent's /proc/PID/environ (or did not run):\n%s", out)
	}
	if reqs := m.Requests(); len(reqs) == 0 || reqs[0].Auth != "Bearer "+opKey {
		t.Errorf("run: the model was not asked with the operator's key (%d requests)", len(reqs))
	}
	check("run's output", out)
	code, hist := w.pcflow(w.iflags("history", "keys-run", "--json")...)
	if code != 0 || !strings.Contains(hist, "printed") {
		t.Errorf("pcflow history keys-run --json = %d, want the run's checks:\n%.2000s", code, hist)
	}
	check("pcflow history --json", []byte(hist))
	eachStoredFile(func(p string, data []byte) { check(p, data) }, w.state)
}
