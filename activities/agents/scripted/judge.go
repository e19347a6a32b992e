package scripted

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/pcflow/pcflow/activities/screen"
)

// The place in the script. The scripted agents write it into their own
// answers: the Decision agent's thought starts with the step it plays
// ("[script step N]"), the progress summary ends with the step to go on
// from ("[next: script step N]"). The turn facts carry both back verbatim
// (the thought to Reflection and Progress, the summary to the next
// Decision and Progress), and the workflow's state holds them, so the
// place survives a crash of the process serving the script and a step can
// be done again after no_effect.
var (
	reStepMarker = regexp.MustCompile(`\[script step (\d+)\]`)
	reNextMarker = regexp.MustCompile(`\[next: script step (\d+)\]`)
)

func stepMarker(k int) string { return fmt.Sprintf("[script step %d]", k) }
func nextMarker(k int) string { return fmt.Sprintf("[next: script step %d]", k) }

// marked reads the number a marker carries in text, or def.
func marked(re *regexp.Regexp, text string, def int) int {
	if m := re.FindStringSubmatch(text); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			return n
		}
	}
	return def
}

// reflection judges a step: by its Expect against the screen after it,
// else by the script's Reflections, else correct.
func (s *Server) reflection(rec Request) (verdict, reason string) {
	sc := s.script.Subtasks[rec.Subtask]
	k := marked(reStepMarker, rec.Turn.Thought, rec.Step)
	if k >= 1 && k <= len(sc.Steps) && sc.Steps[k-1].Expect != nil {
		p := *sc.Steps[k-1].Expect
		after := screenOf(*rec.Turn)
		match, _, ok, err := after.find(p)
		switch {
		case err != nil:
			return screen.VerdictWrong, fmt.Sprintf("scripted step %d expects %s: %v", k, after.describe(p), err)
		case ok:
			return screen.VerdictCorrect, fmt.Sprintf("the screen shows %q", match)
		}
		return screen.VerdictNoEffect, fmt.Sprintf("the screen does not show %s", after.describe(p))
	}
	if rec.Step >= 1 && rec.Step <= len(sc.Reflections) && sc.Reflections[rec.Step-1] != "" {
		return sc.Reflections[rec.Step-1], "scripted reflection"
	}
	return screen.VerdictCorrect, "scripted reflection"
}

// progress keeps the last three steps as the summary and the place in the
// script to go on from: the next step after a correct one, else the same
// step again (or its RedoFrom).
func (s *Server) progress(rec Request) map[string]any {
	turn := *rec.Turn
	prevSum := strings.TrimSpace(reNextMarker.ReplaceAllString(turn.Progress, ""))
	// Keep the last three steps: a short summary, not a log.
	parts := strings.Split(prevSum, "; ")
	if prevSum == "" {
		parts = nil
	}
	parts = append(parts, fmt.Sprintf("step %d %s (%s)", rec.Step, turn.Action, turn.Verdict))
	if len(parts) > 3 {
		parts = parts[len(parts)-3:]
	}
	summary := strings.Join(parts, "; ")
	mem := turn.Memory
	if turn.Verdict == screen.VerdictHandedBack {
		// A person had the device: no step of the script was taken; go on
		// where the summary said (the next decision looks afresh).
		return map[string]any{"summary": summary + " " + nextMarker(marked(reNextMarker, turn.Progress, rec.Step)), "memory": mem}
	}
	sc := s.script.Subtasks[rec.Subtask]
	k := marked(reStepMarker, turn.Thought, rec.Step)
	if k >= 1 && k <= len(sc.Steps) && sc.Steps[k-1].Memory != "" {
		mem = sc.Steps[k-1].Memory
	}
	return map[string]any{"summary": summary + " " + nextMarker(sc.after(k, turn.Verdict)), "memory": mem}
}

// after is the script's step to go on from after step k had verdict: the
// next after a correct one, else the same step again (or its RedoFrom).
// A denied or rejected action, or an answered question, moves on: what a
// model told so would choose. A pending verdict (the pipelined loop's
// next decision runs while Reflection judges) moves on too, as a model
// expecting its action to work would; a rejected step is decided again.
func (sc SubtaskScript) after(k int, verdict string) int {
	if movesOn(verdict) || verdict == screen.VerdictPending || k < 1 || k > len(sc.Steps) {
		return k + 1
	}
	if st := sc.Steps[k-1]; st.RedoFrom > 0 {
		return st.RedoFrom
	}
	return k
}

// movesOn reports whether a step with this outcome moves the script on.
func movesOn(verdict string) bool {
	switch verdict {
	case screen.VerdictCorrect, screen.VerdictDenied, screen.VerdictRejected, screen.VerdictAnswered, screen.VerdictLooked:
		return true
	}
	return false
}
