package main

import (
	"strings"
	"testing"

	"github.com/pcflow/pcflow/internal/testdisplay"
)

// A judge and a simulated user end to end (issue 24): galculator on a real
// desktop, the scripted model playing the agents, Sam (the task's
// simulated user) and the judge, which reads the final screenshot by OCR.

// TestJudgeAndSimulatedUser: Sam answers the agent's question from what
// the persona knows (nobody types pcflow answer); with 7 the calculator
// shows 84 and the judge passes the run, with 6 it shows 72 and the judge
// fails it, saying what it did not see.
func TestJudgeAndSimulatedUser(t *testing.T) {
	w := newWorldOn(t, testdisplay.Reserve(t))
	for _, tc := range []struct {
		number string
		code   int
		want   []string
	}{
		{"7", 0, []string{"the judge says pass", `"84"`}},
		{"6", 1, []string{"the judge says fail", `not seen: /\b84\b/`}},
	} {
		id := "judged-" + tc.number
		code, out := w.pcflow(w.flags("run", "cli/testdata/judge_user.hcl", "--script", "cli/testdata/judge_user.script.json",
			"--display", w.display, "--id", id, "--var", "number="+tc.number)...)
		if code != tc.code {
			t.Errorf("run with %s = exit %d, want %d:\n%s", tc.number, code, tc.code, out)
		}
		for _, want := range tc.want {
			if !strings.Contains(out, want) {
				t.Errorf("run with %s lacks %q:\n%s", tc.number, want, out)
			}
		}
		w.historyHas(id, "person:   the simulated user answered: "+tc.number)
		killApps(w.display) // the next run starts its own calculator
	}
}
