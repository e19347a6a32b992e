package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgbutil"
	"github.com/jezek/xgbutil/ewmh"
	"github.com/jezek/xgbutil/xwindow"

	"github.com/pcflow/pcflow/activities/agents/scripted"
)

// The checked replay (--replay-run) on a real desktop: an editor task is
// run once by the scripted model, then replayed with no model request,
// with the same and with other inputs; a task over two windows is
// replayed after one window moved, and the agent takes over there.

const replayNoteTask = `
variable "note" {
  default = "Meeting moved to 10:30"
}
variable "dir" {
  default = "/tmp/pcflow-replay"
}

task "replay_note" {
  max_steps = 20
  timeout   = "5m"

  setup "open" {
    command         = ["mkdir", "-p", var.dir]
    launch          = ["mousepad"]
    wait_for_window = "Mousepad"
  }

  subtask "write_note" {
    instruction = "Type the text '${var.note}' into the editor, then save it as ${var.dir}/note.txt."

    check "saved" {
      file {
        path     = "${var.dir}/note.txt"
        contains = var.note
      }
    }
  }
}
`

// noteSteps type the instruction's text, save it under the instruction's
// path, and end: what a model reading the instruction would do.
func noteSteps() []scripted.Step {
	return []scripted.Step{
		{Thought: "Type the note into the editor's text area.", Action: "type", Role: "text",
			FromInstruction: map[string]string{"text": `^Type the text '([^']+)'`}},
		{Thought: "Save with Ctrl+S; this opens Save As for a new document.", Action: "hotkey", Args: map[string]any{"keys": []string{"ctrl", "s"}}},
		{Action: "wait", Args: map[string]any{"seconds": 1}, Expect: &scripted.Probe{Pattern: "Save As"}, RedoFrom: 2},
		{Thought: "Type the full path into the Name field, then press Save.", Action: "type",
			FromInstruction: map[string]string{"text": `save it as (\S+)\.$`}},
		{Action: "click", Target: "Save", Role: "push button"},
		// The name field's completion list can take the click on Save
		// (a suite run: the file never written): a model sees the title
		// still without the file ("/…/note.txt - Mousepad" once saved)
		// and clicks Save again.
		{Action: "wait", Args: map[string]any{"seconds": 1}, Expect: &scripted.Probe{Pattern: `note\.txt - Mousepad`}, RedoFrom: 5},
		{Thought: "The title shows note.txt: saved.", Action: "done"},
	}
}

// replayWorld is a desktop and state folder with a scripted model the
// test counts the requests of.
type replayWorld struct {
	*world
	model *scripted.Server
	spec  string
	// env is added to every run's environment (secrets: PCFLOW_VAR_NAME).
	env []string
}

func newReplayWorld(t *testing.T, task string, steps map[string][]scripted.Step) *replayWorld {
	t.Helper()
	w := &replayWorld{world: newWorld(t)}
	w.spec = filepath.Join(t.TempDir(), "task.hcl")
	if err := os.WriteFile(w.spec, []byte(task), 0o644); err != nil {
		t.Fatal(err)
	}
	sc := scripted.Script{Subtasks: map[string]scripted.SubtaskScript{}}
	for name, st := range steps {
		sc.Subtasks[name] = scripted.SubtaskScript{Steps: st}
	}
	w.model = scripted.New(sc)
	if err := w.model.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.model.Close() })
	return w
}

// run runs the task with args; it returns the exit code, the output and
// how many model requests the run made.
func (w *replayWorld) run(args ...string) (int, string, int) {
	w.t.Helper()
	before := len(w.model.Requests())
	c := w.cmd(w.flags(append([]string{"run", w.spec, "--display", w.display}, args...)...)...)
	c.Env = append(c.Env, "OPENAI_BASE_URL="+w.model.URL, "OPENAI_API_KEY=test", "PCFLOW_MODEL=scripted", "PCFLOW_MODEL_SCRIPTED=1")
	c.Env = append(c.Env, w.env...)
	out, _ := c.CombinedOutput()
	killApps(w.display) // the next run starts its own programs
	return c.ProcessState.ExitCode(), string(out), len(w.model.Requests()) - before
}

// history is a run's `pcflow history --json`.
func (w *replayWorld) history(id string) History {
	w.t.Helper()
	code, out := w.pcflow(w.iflags("history", id, "--json")...)
	var h History
	if err := json.Unmarshal([]byte(out), &h); code != 0 || err != nil {
		w.t.Fatalf("history %s = %d, %v\n%s", id, code, err, out)
	}
	return h
}

// secretNoteTask is the note task with the note a sensitive variable:
// the model reads its placeholder in the instruction and types that, and
// the device types the value.
var secretNoteTask = strings.Replace(replayNoteTask, "variable \"note\" {\n  default = \"Meeting moved to 10:30\"\n}", "variable \"note\" {\n  sensitive = true\n}", 1)

// TestReplayRunTypesWithoutModel: (a) a replay of a successful run makes
// no model request and the task's checks pass, its steps in history as
// replayed; (c) a replay with other variable values types the new ones.
// The typed note is a secret: the recording holds its placeholder, never
// its value, so the replay with another secret types the new one, and
// neither value shows in any byte of the state folder (the database with
// the histories and the replays' scripts, the logs, the artifacts), the
// terminal or the history.
func TestReplayRunTypesWithoutModel(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	const note, other = "Vault code 4711-quartz", "Locker code 9052-walnut"
	if secretNoteTask == replayNoteTask {
		t.Fatal("the note task no longer declares var.note as this test expects")
	}
	dir := filepath.Join(t.TempDir(), "notes")
	task := strings.Replace(secretNoteTask, "  max_steps = 20\n", "  max_steps = 20\n  replay    = \"cache\"\n", 1)
	w := newReplayWorld(t, task, map[string][]scripted.Step{"write_note": noteSteps()})
	w.env = []string{"PCFLOW_VAR_note=" + note}
	code, out, calls := w.run("--id", "first", "--var", "dir="+dir)
	if code != 0 || calls == 0 || !strings.Contains(out, "replay cache: run first is replayed by the next run") {
		t.Fatalf("first run = %d with %d model requests, want 0, some and the run remembered\n%s", code, calls, out)
	}
	outs := out

	// The task opts into the replay cache: the same task with the same
	// inputs replays the first run by itself.
	os.RemoveAll(dir)
	code, out, calls = w.run("--id", "again", "--var", "dir="+dir)
	if code != 0 || calls != 0 {
		t.Fatalf("replay = %d with %d model requests, want 0 and 0\n%s", code, calls, out)
	}
	outs += out
	for _, want := range []string{"replaying run first from the cache: 6 recorded steps", "replay: 6 steps replayed without the model", "check saved", "model calls=0"} {
		if !strings.Contains(out, want) {
			t.Errorf("the replay's output lacks %q:\n%s", want, out)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "note.txt")); !strings.Contains(string(b), note) {
		t.Errorf("note.txt after the replay = %q", b)
	}
	h := w.history("again")
	replayed := 0
	for _, s := range h.Steps {
		if strings.HasPrefix(s.Replay, "replayed") {
			replayed++
		}
	}
	if replayed != 6 {
		t.Errorf("history shows %d replayed steps, want 6: %+v", replayed, h.Steps)
	}
	code, text := w.pcflow(w.iflags("history", "again")...)
	if code != 0 || !strings.Contains(text, "replay:   replayed the recorded step") || !strings.Contains(text, "{{secret.note}}") {
		t.Errorf("pcflow history again = %d, want replayed steps typing the placeholder\n%s", code, text)
	}
	outs += text

	// Other inputs: the new values are typed (the secret and the folder).
	dir2 := filepath.Join(t.TempDir(), "other")
	w.env = []string{"PCFLOW_VAR_note=" + other}
	code, out, calls = w.run("--id", "other", "--var", "dir="+dir2, "--replay-run", "first")
	if code != 0 || calls != 0 {
		t.Fatalf("replay with other values = %d with %d model requests, want 0 and 0\n%s", code, calls, out)
	}
	outs += out
	if b, _ := os.ReadFile(filepath.Join(dir2, "note.txt")); !strings.Contains(string(b), other) || strings.Contains(string(b), note) {
		t.Errorf("note.txt after the replay with another secret = %q, want the new one typed, not the recorded one", b)
	}
	noSecrets(t, w.state, outs, note, other)

	// Only a successful run of the same task replays.
	if code, out, _ := w.run("--replay-run", "nope"); code != 1 || !strings.Contains(out, "--replay-run nope: no run nope") {
		t.Errorf("replay of an unknown run = %d\n%s", code, out)
	}
}

const replayTwoWindowsTask = `
variable "note" {
  default = "12 x 7 is 84"
}
variable "dir" {
  default = "/tmp/pcflow-replay2"
}
variable "mover" {
  default = ""
}
variable "x" {
  default = 700
}

task "replay_two" {
  max_steps = 30
  timeout   = "5m"

  setup "open" {
    command         = ["mkdir", "-p", var.dir]
    launch          = ["galculator"]
    wait_for_window = "galculator"
  }
  setup "editor" {
    launch          = ["mousepad"]
    wait_for_window = "Mousepad"
  }
  setup "place" {
    command = [var.mover, "Mousepad", "${var.x}", "200"]
  }

  subtask "both" {
    instruction = "In the calculator, compute 12 × 7 by clicking its buttons; then in the editor type the text '${var.note}' and save it as ${var.dir}/note.txt."

    check "saved" {
      file {
        path     = "${var.dir}/note.txt"
        contains = var.note
      }
    }
  }
}
`

// TestReplayRunHandsOverOnDrift: (b) the replay of a task over two
// windows, after one of them moved and with another text to type, replays
// the calculator's steps, finds the editor's text area elsewhere, and
// hands over to the agent there, which finishes the task.
func TestReplayRunHandsOverOnDrift(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	mover := filepath.Join(t.TempDir(), "pcflow-movewindow")
	if err := os.Link(pcflowBin, mover); err != nil {
		if err := copyFile(pcflowBin, mover); err != nil {
			t.Fatal(err)
		}
	}
	steps := []scripted.Step{
		{Thought: "Bring the calculator to the front.", Action: "switch_window", Args: map[string]any{"title": "galculator"}},
		{Thought: "Clear the display first.", Action: "click", Target: "AC", Expect: &scripted.Probe{Role: "text", Pattern: "^0$"}},
		{Action: "click", Target: "1", Expect: &scripted.Probe{Role: "text", Pattern: "^1$"}, RedoFrom: 2},
		{Action: "click", Target: "2", Expect: &scripted.Probe{Role: "text", Pattern: "^12$"}, RedoFrom: 2},
		{Action: "click", Target: "*"},
		{Action: "click", Target: "7", Expect: &scripted.Probe{Role: "text", Pattern: "^7$"}, RedoFrom: 2},
		{Action: "click", Target: "=", Expect: &scripted.Probe{Role: "text", Pattern: "^84$"}, RedoFrom: 2},
		{Thought: "Now the editor.", Action: "switch_window", Args: map[string]any{"title": "Mousepad"}},
	}
	steps = append(steps, noteSteps()...)
	steps[8].FromInstruction = map[string]string{"text": `type the text '([^']+)'`}
	steps[11].FromInstruction = map[string]string{"text": `save it as (\S+)\.$`}
	steps[10].RedoFrom = 10
	steps[13].RedoFrom = 13
	w := newReplayWorld(t, replayTwoWindowsTask, map[string][]scripted.Step{"both": steps})
	dir := filepath.Join(t.TempDir(), "notes")
	code, out, first := w.run("--id", "first", "--var", "dir="+dir, "--var", "mover="+mover)
	if code != 0 {
		t.Fatalf("first run = %d\n%s", code, out)
	}
	before := len(w.model.Requests())
	dir2 := filepath.Join(t.TempDir(), "other")
	code, out, calls := w.run("--id", "moved", "--var", "dir="+dir2, "--var", "mover="+mover, "--var", "x=100",
		"--var", "note=12 x 7 makes 84", "--replay-run", "first")
	if code != 0 {
		t.Fatalf("replay after the editor moved = %d\n%s", code, out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir2, "note.txt")); !strings.Contains(string(b), "12 x 7 makes 84") {
		t.Errorf("note.txt after the drifted replay = %q, want the new note", b)
	}
	if !strings.Contains(out, "replay: 8 steps replayed without the model") || !strings.Contains(out, "replay: handed over to the agent at both step 9: ") ||
		!strings.Contains(out, "the window moved?") {
		t.Errorf("the replay's output does not say it replayed 8 steps and handed over at step 9 because the window moved:\n%s", out)
	}
	if calls == 0 || calls >= first {
		t.Errorf("the drifted replay made %d model requests, the first run %d: want some, fewer", calls, first)
	}
	for _, r := range w.model.Requests()[before:] {
		if r.Role == "decision" && r.Step < 9 {
			t.Errorf("the agent decided step %d: the replay should have run steps 1–8", r.Step)
		}
	}
	h := w.history("moved")
	for _, s := range h.Steps {
		if s.Step == 9 && !strings.Contains(s.Replay, "handed over to the agent") {
			t.Errorf("history's step 9 = %+v, want the replay's handover", s)
		}
	}
}

// moveWindowMain is the pcflow-movewindow helper the two-window task's
// setup runs: it moves the first window whose title holds TITLE to X,Y
// through the window manager, and waits until it is there.
func moveWindowMain(args []string) int {
	if len(args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: pcflow-movewindow TITLE X Y")
		return 2
	}
	x, _ := strconv.Atoi(args[1])
	y, _ := strconv.Atoi(args[2])
	xu, err := xgbutil.NewConn()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		wins, _ := ewmh.ClientListGet(xu)
		for _, win := range wins {
			name, _ := ewmh.WmNameGet(xu, win)
			if !strings.Contains(name, args[0]) {
				continue
			}
			if err := ewmh.MoveWindow(xu, win, x, y); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
			for i := 0; i < 20; i++ {
				time.Sleep(100 * time.Millisecond)
				if g, err := xwindow.New(xu, win).DecorGeometry(); err == nil && g.X() <= x+60 && g.X() >= x-60 {
					time.Sleep(300 * time.Millisecond)
					return 0
				}
			}
			return 0
		}
	}
	fmt.Fprintf(os.Stderr, "no window titled %q\n", args[0])
	return 1
}

// TestEvalReplayRun: pcflow eval --replay-run replays each task run of an
// earlier suite run that succeeded, and says per task how many steps it
// replayed.
func TestEvalReplayRun(t *testing.T) {
	t.Parallel() // its own desktops, state folder and ports
	w := newEvalWorld(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "note.hcl"), []byte(replayNoteTask), 0o644); err != nil {
		t.Fatal(err)
	}
	script, _ := json.Marshal(scripted.Script{Subtasks: map[string]scripted.SubtaskScript{"write_note": {Steps: noteSteps()}}})
	if err := os.WriteFile(filepath.Join(dir, "note.script.json"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(dir, "note.hcl")
	code, out := w.pcflow(w.flags("eval", spec, "--devices", "1", "--sandbox", "bind", "--out", filepath.Join(w.out, "1"), "--id", "recorded")...)
	if code != 0 {
		t.Fatalf("eval = %d\n%s", code, out)
	}
	code, out = w.pcflow(w.flags("eval", spec, "--devices", "1", "--sandbox", "bind", "--out", filepath.Join(w.out, "2"), "--id", "replayed",
		"--replay-run", "recorded")...)
	if code != 0 || !strings.Contains(out, "replaying suite run recorded: 1 of 1 task runs") ||
		!strings.Contains(out, "replay note: 6 steps replayed without the model") {
		t.Fatalf("eval --replay-run = %d, want each task replayed and said so:\n%s", code, out)
	}
	if r := readResults(t, filepath.Join(w.out, "2")); r.Overall.Passed != 1 {
		t.Errorf("the replayed suite passed %d of 1", r.Overall.Passed)
	}
	// The report's run page marks each replayed step as such.
	pages, _ := filepath.Glob(filepath.Join(w.out, "2", "runs", "*.html"))
	if len(pages) != 1 {
		t.Fatalf("report run pages: %v, want one", pages)
	}
	page, _ := os.ReadFile(pages[0])
	if n := strings.Count(string(page), `<dd class="replay">replayed the recorded step`); n != 6 {
		t.Errorf("the run page marks %d steps as replayed, want 6:\n%s", n, page)
	}
}

// noSecrets fails t where a form of a secret shows: in the text the
// commands printed or in any file under the state folder; it checks that
// the database holds placeholders, so the search looked where runs are.
func noSecrets(t *testing.T, state, printed string, secrets ...string) {
	t.Helper()
	check := func(where string, data []byte) {
		t.Helper()
		for _, s := range secrets {
			for _, f := range leakForms(s) {
				if bytes.Contains(data, []byte(f)) {
					t.Errorf("%s holds %q (a form of a secret)", where, f)
					break
				}
			}
		}
	}
	check("what the commands printed", []byte(printed))
	placeholder := false
	eachStoredFile(func(p string, data []byte) {
		check(p, data)
		if strings.HasPrefix(filepath.Base(p), "temporal.db") && bytes.Contains(data, []byte("{{secret.")) {
			placeholder = true
		}
	}, state)
	if !placeholder {
		t.Error("the database never shows a placeholder: the search did not look where the runs are")
	}
}
