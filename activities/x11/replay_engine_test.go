package x11

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/internal/enginetest"
	"github.com/pcflow/pcflow/internal/replayrun"
	"github.com/pcflow/pcflow/specs"
	"github.com/pcflow/pcflow/workflows"
)

// sendNoteTask types a note into a real GTK dialog (zenity's editable
// text window, which prints its text when its OK button is pressed) and
// presses that button, whose label and the window's first text are
// inputs: a relabelled button, or a window that opens holding a draft.
const sendNoteTask = `
variable "note" {
  default = "alpha"
}
variable "dir" {}
variable "ok" {
  default = "Send"
}
variable "draft" {
  default = ""
}
task "send_note" {
  max_steps = 12
  timeout   = "3m"
  setup "open" {
    write_file {
      path    = "${var.dir}/draft.txt"
      content = var.draft
    }
    launch          = ["sh", "-c", "exec zenity --text-info --editable --width=500 --height=300 --title=Note --filename='${var.dir}/draft.txt' --ok-label='${var.ok}' >'${var.dir}/note.txt'"]
    wait_for_window = "^Note$"
  }
  subtask "s" {
    instruction = "Type the text '${var.note}' into the Note window, then send it."
    check "sent" {
      file {
        path     = "${var.dir}/note.txt"
        contains = var.note
      }
    }
  }
}`

// TestReplayHandsOverOnARealRenameAndOtherValue replays a run of the note
// task on a real application (zenity under Xvfb) after two kinds of
// drift: the button the run pressed has another label at its place, and
// the text field held a draft, so after the replayed typing it holds
// another value than the recording saw. Each time the replay types the
// note with no model request, sees the drift before the next action,
// hands over to the agent there (which presses the button it finds), and
// the run succeeds with the note sent.
func TestReplayHandsOverOnARealRenameAndOtherValue(t *testing.T) {
	if _, err := os.Stat("/usr/bin/zenity"); err != nil {
		t.Fatal("zenity is not installed: run scripts/setup.sh")
	}
	dev := desktop(t)
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{"s": {Steps: []scripted.Step{
		{Thought: "Type the note into the window's text.", Action: "type", Role: "text", FromInstruction: map[string]string{"text": `^Type the text '([^']+)'`}},
		{Thought: "Press the window's send button.", Action: "click", Target: "Send", Role: "push button"},
		{Action: "done"},
	}}}})
	acts := env.Activities(dev, "desktop", env.ModelConfig())
	// A clock that runs fast: the device's patience with a drifted screen
	// (it observes again for 10 s before handing over, for an effect
	// still on its way) passes in moments; these drifts stay.
	var mu sync.Mutex
	fake := time.Now()
	acts.Now = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		fake = fake.Add(4 * time.Second)
		return fake
	}
	env.Serve("desktop", acts, true)
	run := func(id string, vars map[string]string, rp *workflows.Replay) *workflows.InstructionResult {
		t.Helper()
		defer StopApps(dev.display)
		dir := filepath.Join(t.TempDir(), id)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		vars["dir"] = dir
		res, diags := specs.Parse("send_note.hcl", []byte(sendNoteTask), specs.Options{Vars: vars})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		r, err := env.RunInput(ctx, id, workflows.InstructionInput{Plan: *res.Plan, Vars: res.Values, Replay: rp})
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "note.txt")); r.Status == workflows.StatusSucceeded && !strings.Contains(string(b), vars["note"]) {
			t.Errorf("%s: note.txt = %q after a successful run, want the note %q", id, b, vars["note"])
		}
		return r
	}
	if r := run("first", map[string]string{"note": "alpha"}, nil); r.Status != workflows.StatusSucceeded {
		t.Fatalf("first run: %+v", r)
	}
	rp, err := replayrun.Build(context.Background(), env.Client, env.Artifacts, "first", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		vars  map[string]string
		drift string
	}{
		{name: "renamed", vars: map[string]string{"note": "bravo", "ok": "Send now"},
			drift: `is not on the screen; push button "Send now" is at its place`},
		{name: "prefilled", vars: map[string]string{"note": "alpha", "draft": "draft: "},
			drift: `the recording's focused text held "alpha"; the focused text holds "`},
	} {
		before := len(env.Model.Requests())
		r := run(c.name, c.vars, rp)
		if r.Status != workflows.StatusSucceeded || r.Replayed != 1 || len(r.HandedOver) != 1 ||
			!strings.Contains(r.HandedOver[0], "s step 2: ") || !strings.Contains(r.HandedOver[0], c.drift) {
			t.Errorf("%s: replay = %+v, want the typing replayed, then the agent from step 2 (%s), and success", c.name, r, c.drift)
		}
		reqs := env.Model.Requests()[before:]
		decided := 0
		for _, q := range reqs {
			if q.Role == agent.RoleDecision {
				decided++
				if q.Step < 2 {
					t.Errorf("%s: the agent decided step %d; the replay should have typed the note", c.name, q.Step)
				}
			}
		}
		if decided == 0 {
			t.Errorf("%s: no Decision request after the handover", c.name)
		}
	}
}
