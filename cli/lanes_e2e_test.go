package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities/x11"
	"github.com/pcflow/pcflow/internal/testdisplay"
)

// TestConcurrentRunsOneServer starts two `pcflow run` with the same state
// folder and port, each on its own desktop: the first starts the embedded
// server, the second joins it. Each run's steps must happen on its own
// desktop (the calculator shows 84, the editor saved the note), and
// whichever process ends first must not stop the server under the other.
func TestConcurrentRunsOneServer(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	w := newWorldOn(t, testdisplay.Reserve(t))
	// Its own folder for the note: TestExampleEditor saves to the
	// example's default one, maybe at the same time.
	noteDir := filepath.Join(t.TempDir(), "editor")
	script, err := os.ReadFile("../specs/examples/editor.script.json")
	if err != nil {
		t.Fatal(err)
	}
	scriptPath := filepath.Join(t.TempDir(), "editor.script.json")
	if err := os.WriteFile(scriptPath, bytes.ReplaceAll(script, []byte("/tmp/pcflow-editor"), []byte(noteDir)), 0o644); err != nil {
		t.Fatal(err)
	}
	d2, err := x11.Up(context.Background(), x11.DesktopOptions{Display: testdisplay.Reserve(t), StateDir: w.state})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { killApps(d2.Display); d2.Down() })
	a := w.cmd(w.flags("run", "specs/examples/calculator.hcl", "--display", w.display, "--id", "calc")...)
	var outA, outB bytes.Buffer
	a.Stdout, a.Stderr = &outA, &outA
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	waitPort(t, w.port)
	b := w.cmd(w.flags("run", "specs/examples/editor.hcl", "--display", d2.Display, "--id", "edit", "--var", "dir="+noteDir, "--script", scriptPath)...)
	b.Stdout, b.Stderr = &outB, &outB
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	errA, errB := a.Wait(), b.Wait()
	if errA != nil || !strings.Contains(outA.String(), `product="84"`) || !strings.Contains(outA.String(), "check shown        pass") {
		t.Errorf("calculator run: %v\n%s", errA, outA.String())
	}
	if errB != nil || !strings.Contains(outB.String(), "SUCCEEDED") {
		t.Errorf("editor run: %v\n%s", errB, outB.String())
	}
	if !strings.Contains(outB.String(), "using the pcflow server already on") {
		t.Errorf("the second run does not say it joined the first one's server:\n%s", outB.String())
	}
	if b, err := os.ReadFile(filepath.Join(noteDir, "note.txt")); err != nil || !strings.Contains(string(b), "Meeting moved to 10:30") {
		t.Errorf("note.txt = %q, %v", b, err)
	}
}

// TestResumeAfterTaskFileMoved kills a run, removes its task file and
// resumes it: the plan comes from the run's history.
func TestResumeAfterTaskFileMoved(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	w := newWorldOn(t, testdisplay.Reserve(t))
	src, err := os.ReadFile("testdata/crash.hcl")
	if err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(t.TempDir(), "crash.hcl")
	if err := os.WriteFile(spec, src, 0o644); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(w.state, "actions", "desktop.jsonl")
	c := w.cmd(w.flags("run", spec, "--display", w.display, "--id", "moved", "--script", "cli/testdata/crash.script.json")...)
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it just after its second action finished, before the next one.
	for n := 0; count(logPath, `"phase":"finished"`) < 2; n++ {
		if n > 4800 {
			t.Fatalf("the run never reached its second action\n%s", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	c.Process.Kill()
	c.Wait()
	if err := os.Remove(spec); err != nil {
		t.Fatal(err)
	}
	code, res := w.pcflow(w.flags("resume", "moved", "--display", w.display)...)
	if code != 0 || !strings.Contains(res, "is gone; continuing from the plan in the run's history") || !strings.Contains(res, `product="84"`) {
		t.Errorf("resume after the task file moved = %d\n%s", code, res)
	}
}

// TestDesktopDownRemovesRuntime: desktop down leaves no runtime folder
// (D-Bus and accessibility sockets, application configuration) behind.
func TestDesktopDownRemovesRuntime(t *testing.T) {
	state, display := t.TempDir(), testdisplay.Reserve(t)
	code, out, errs := runCLI(t, "desktop", "up", "--display", display, "--state", state)
	if code != 0 {
		t.Fatalf("desktop up = %d: %s", code, errs)
	}
	dir, xdg := "", map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(strings.TrimPrefix(line, "export "), "="); ok && strings.HasPrefix(k, "XDG_") {
			xdg[k] = strings.Trim(v, "'")
		}
	}
	dir = xdg["XDG_RUNTIME_DIR"]
	if _, err := os.Stat(dir); dir == "" || err != nil {
		t.Fatalf("desktop up made no runtime folder (%q, %v):\n%s", dir, err, out)
	}
	// Whatever applications keep per user — settings, caches, data such
	// as an editor's autosave of what was typed — lives in the desktop's
	// own folder, not in the host's home, and goes with it.
	for _, k := range []string{"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"} {
		if !strings.HasPrefix(xdg[k], dir+"/") {
			t.Errorf("%s = %q, want a folder inside the desktop's %s", k, xdg[k], dir)
		}
	}
	if code, _, errs := runCLI(t, "desktop", "down", "--display", display, "--state", state); code != 0 {
		t.Fatalf("desktop down = %d: %s", code, errs)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("desktop down left %s behind", dir)
	}
	if _, err := os.Stat(x11.EnvFile(state, display)); err == nil {
		t.Errorf("desktop down left its record %s behind", x11.EnvFile(state, display))
	}
}

// programsOn lists the programs running on an X display.
func programsOn(display string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(append([]byte{0}, env...), []byte("\x00DISPLAY="+display+"\x00")) {
			continue
		}
		comm, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		out = append(out, strings.TrimSpace(string(comm)))
	}
	return out
}

// TestResumeTakesOverAtOnce: `pcflow run` is killed while an action runs
// on its worker (a 3-second wait). The resume knows that worker is gone
// (its process died holding the run's lock) and has the action's attempt
// retried at once on its own worker, instead of after the attempt's
// heartbeat timeout; the action is not done twice, and the run succeeds.
func TestResumeTakesOverAtOnce(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	w := newWorld(t)
	dir := t.TempDir()
	spec := filepath.Join(dir, "pause.hcl")
	os.WriteFile(spec, []byte("task \"pause\" {\n  subtask \"pause\" {\n    instruction = \"Wait three seconds, then finish.\"\n  }\n}\n"), 0o644)
	script := filepath.Join(dir, "pause.script.json")
	os.WriteFile(script, []byte(`{"subtasks": {"pause": {"steps": [{"action": "wait", "args": {"seconds": 3}}, {"action": "done"}]}}}`), 0o644)
	logPath := filepath.Join(w.state, "actions", "desktop.jsonl")
	c := w.cmd(w.flags("run", spec, "--display", w.display, "--id", "paused", "--script", script)...)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill() })
	waitFor(t, "the run's wait to start", func() bool { return count(logPath, `"phase":"started"`) >= 1 })
	c.Process.Kill() // mid-wait: the action's attempt is left started
	c.Wait()
	if n := count(logPath, `"phase":"finished"`); n != 0 {
		t.Fatalf("the wait finished before the kill (%d finished): the test proves nothing", n)
	}
	code, res := w.pcflow(w.flags("resume", "paused", "--display", w.display)...)
	if code != 0 || !strings.Contains(res, "SUCCEEDED") {
		t.Fatalf("resume = %d\n%s", code, res)
	}
	if !strings.Contains(res, "1 step(s) the killed process (pid ") || !strings.Contains(res, "retried now on this worker") {
		t.Errorf("the resume did not take over the killed process's action at once:\n%s", res)
	}
	if n := count(logPath, `"phase":"started"`); n != 1 {
		t.Errorf("the wait started %d times, want once (cut off, not repeated)", n)
	}
}
