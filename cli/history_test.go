package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/workflows"
)

// hostile is text a model or a person might write to take over the
// terminal of whoever reads the run: it clears the screen, sets the
// window title, moves the cursor and reverses the text's direction.
const hostile = "ok\x1b[2J\x1b]0;pwned\x07\r\bfine\u009b31m\u202e"

// noControls fails when out holds a control character other than newline
// and tab, or a C1 control or a bidirectional override.
func noControls(t *testing.T, what, out string) {
	t.Helper()
	for _, r := range out {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == '\u202e' {
			t.Errorf("%s printed the control character %U:\n%q", what, r, out)
			return
		}
	}
	if !strings.Contains(out, `ok\x1b[2J\x1b]0;pwned\x07`) {
		t.Errorf("%s does not show the escape sequence escaped (\\x1b):\n%s", what, out)
	}
}

// TestHistoryPrintsNoEscapes: every text field `pcflow history` prints
// (thought, action, device, reason, person, progress, memory, the run's
// result and check details) shows control characters escaped, while
// --json keeps them exact.
func TestHistoryPrintsNoEscapes(t *testing.T) {
	h := &History{Run: "r1", Subtasks: []string{"s"}, Steps: []Step{{
		Subtask: "s", Device: "d", Step: 1, Thought: "thought " + hostile, Action: "type " + hostile,
		Outcome: "done: " + hostile, Verdict: "success", Reason: "reason " + hostile,
		Progress: "progress " + hostile, Memory: "memory " + hostile,
		Person:    []string{"answered: " + hostile, "had control: note " + hostile},
		Batch:     []string{"type " + hostile + " → done", "key enter → done"},
		Artifacts: map[string]string{"before": "/state/" + hostile},
	}}, Result: &workflows.InstructionResult{
		Status: "failed", Reason: "check " + hostile, Error: "error " + hostile,
		Subtasks: []workflows.SubtaskResult{{Name: "s", Device: "d", Status: "failed", Reason: hostile,
			Checks: []activities.CheckResult{{Name: "c", Detail: "printed " + hostile}}}},
		Checks: []activities.CheckResult{{Name: "t", Detail: "printed " + hostile}},
	}}
	fields := []string{"thought:", "action:", "device:", "verdict:", "person:", "progress:", "memory:", "before:", "check c", "task check t"}
	var out bytes.Buffer
	printHistory(&out, h, &runTrace{ID: "r1"})
	noControls(t, "history", out.String())
	for _, f := range fields {
		if !strings.Contains(out.String(), f) {
			t.Errorf("history printed no %q line:\n%s", f, out.String())
		}
	}
	for _, line := range strings.Split(out.String(), "\n") {
		for _, f := range fields {
			if strings.Contains(line, f) && !strings.Contains(line, `\x1b`) {
				t.Errorf("history line %q shows no escaped text", line)
			}
		}
	}

	out.Reset()
	printHistory(&out, &History{Run: "r2"}, &runTrace{ID: "r2", Ended: "terminated: " + hostile})
	noControls(t, "history of a terminated run", out.String())

	// --json stays exact: the text decodes back to what was recorded.
	b, _ := json.Marshal(h)
	var back History
	if err := json.Unmarshal(b, &back); err != nil || back.Steps[0].Thought != h.Steps[0].Thought {
		t.Errorf("history --json round trip = %q, %v; want the thought exact", back.Steps[0].Thought, err)
	}
}

// TestProgressAndStatusPrintNoEscapes: the live progress lines and the
// waiting lines of `pcflow run` and `pcflow status` show a model's action,
// verdict, question and a failure's reason with control characters
// escaped.
func TestProgressAndStatusPrintNoEscapes(t *testing.T) {
	sl := workflows.SubtaskLive{Done: 2, MaxSteps: 9, LastAction: "type " + hostile, Verdict: hostile}
	lines, _ := stepLines("s", sl, 0, false)
	noControls(t, "progress step line", strings.Join(lines, "\n"))
	sl.Recent = []workflows.StepSeen{{Step: 1, Action: "click " + hostile, Verdict: hostile}, {Step: 2, Action: "type " + hostile, Verdict: hostile}}
	lines, _ = stepLines("s", sl, 0, false)
	noControls(t, "progress step lines", strings.Join(lines, "\n"))
	noControls(t, "progress failure line", subtaskLine("s", workflows.StatusFailed, "error "+hostile))
	now := time.Now()
	for _, w := range []*workflows.Waiting{
		{Kind: workflows.WaitApproval, Since: now, Action: "type " + hostile, Element: "button " + hostile},
		{Kind: workflows.WaitAnswer, Since: now, Question: "which " + hostile},
		{Kind: workflows.WaitTakeover, Since: now, By: "someone " + hostile},
	} {
		lines := strings.Join(waitingLines("r1", w, nil), "\n")
		for _, r := range lines {
			if r < 0x20 && r != '\n' || r >= 0x80 && r <= 0x9f || r == '\u202e' {
				t.Errorf("waiting lines for %s printed %U:\n%q", w.Kind, r, lines)
				break
			}
		}
	}
}

// TestProgressShowsEveryStep: `pcflow run` looks at a subtask twice a
// second, and a fast model, a replay or the steps just before the subtask
// ends can finish several steps between two looks; each is shown once,
// in order, a step waits for its verdict while the subtask runs, and
// when the subtask has ended its last steps are shown whatever their
// verdict. (Before, only the step that ended last was shown: a run on a
// web form showed steps 1 and 2 of 3.)
func TestProgressShowsEveryStep(t *testing.T) {
	sl := workflows.SubtaskLive{MaxSteps: 8, Done: 3, Recent: []workflows.StepSeen{
		{Step: 1, Action: `click #20 "Gift wrap"`, Verdict: "correct"},
		{Step: 2, Action: `click #26 "Express"`, Verdict: "correct"},
		{Step: 3, Action: `click #28 "Place order"`, Verdict: "pending"},
	}}
	lines, last := stepLines("order", sl, 0, false)
	if len(lines) != 2 || last != 2 || !strings.Contains(lines[0], "step 1/8") || !strings.Contains(lines[1], `step 2/8  click #26 "Express"`) {
		t.Fatalf("while running: lines %q up to step %d, want steps 1 and 2 (3 waits for its verdict)", lines, last)
	}
	if again, l := stepLines("order", sl, last, false); len(again) != 0 || l != 2 {
		t.Errorf("a second look with nothing new printed %q (up to %d)", again, l)
	}
	sl.Recent[2].Verdict = "correct"
	lines, last = stepLines("order", sl, last, false)
	if len(lines) != 1 || last != 3 || !strings.Contains(lines[0], `step 3/8  click #28 "Place order"`) || !strings.HasSuffix(lines[0], "→ correct") {
		t.Errorf("once judged: lines %q up to %d, want step 3 → correct", lines, last)
	}
	// A replayed step that handed over never gets its verdict: the
	// step after it shows that none is coming.
	sl.Recent = append(sl.Recent, workflows.StepSeen{Step: 4, Action: "key enter", Verdict: "pending"}, workflows.StepSeen{Step: 5, Action: "click (1,2)", Verdict: "correct"})
	if lines, last = stepLines("order", sl, last, false); len(lines) != 2 || last != 5 || !strings.HasSuffix(lines[0], "→ pending") {
		t.Errorf("a pending step before a judged one: lines %q up to %d, want steps 4 and 5", lines, last)
	}
	sl.Recent = append(sl.Recent, workflows.StepSeen{Step: 6, Action: "type \"x\"", Verdict: "pending"})
	if lines, last = stepLines("order", sl, last, true); len(lines) != 1 || last != 6 {
		t.Errorf("the subtask ended: lines %q up to %d, want step 6 shown as it is", lines, last)
	}
}
