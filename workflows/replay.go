package workflows

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.temporal.io/sdk/workflow"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
)

// This file is a checked replay (pcflow run --replay-run): a subtask
// replays the actions an earlier successful run executed, with no model
// call, as long as the device finds the screen as the recording saw it
// (activities.ReplayStep); at the first drift it hands over to the agent
// loop with the recorded progress, and the loop goes on as in any run.
// A run without a Replay schedules nothing new, so older histories replay
// as they were recorded.

// Replay is what a run replays of an earlier one, by subtask.
type Replay struct {
	// From is the run replayed, Task the task it ran.
	From     string                   `json:"from"`
	Task     string                   `json:"task"`
	Subtasks map[string]ReplaySubtask `json:"subtasks"`
	// Plan is the subtasks the recorded run's Manager planned, for a task
	// given as free text: the replay plans nothing again.
	Plan []plan.Subtask `json:"plan,omitempty"`
}

// ReplaySubtask is one subtask's recorded steps, in order.
type ReplaySubtask struct {
	Steps []RecordedStep `json:"steps"`
	// Done: the recording ended with done and the subtask declares no
	// outputs, so the replay ends it too; otherwise the agent ends it,
	// reading its outputs from the screen as it would.
	Done bool `json:"done,omitempty"`
}

// RecordedStep is a step of the recorded run whose actions all ran.
type RecordedStep struct {
	Step    int             `json:"step"` // the recording's step number
	Thought string          `json:"thought,omitempty"`
	Actions []screen.Action `json:"actions"`
	// Texts are the typed texts of Actions (by index) with the task's
	// variable values turned back into references; an action without one
	// types its Text as recorded.
	Texts map[int]Template `json:"texts,omitempty"`
	// Targets are the elements Actions acted on (by index; nil: none).
	Targets []*activities.ReplayTarget `json:"targets,omitempty"`
	// After is what the screen showed once the step had worked.
	After RecordedAfter `json:"after"`
	// Progress and Memory are the Progress agent's after the step.
	Progress string `json:"progress,omitempty"`
	Memory   string `json:"memory,omitempty"`
}

// RecordedAfter is activities.ReplayExpect with its texts as templates.
type RecordedAfter struct {
	Window      Template `json:"window"`
	Focused     bool     `json:"focused,omitempty"`
	FocusedRole string   `json:"focused_role,omitempty"`
	Value       Template `json:"value,omitempty"`
}

// Template is a text with references to the task's variables.
type Template []TemplatePart

// TemplatePart is literal text or a variable's value.
type TemplatePart struct {
	Text string `json:"text,omitempty"`
	Var  string `json:"var,omitempty"`
}

// Templated turns the values of vars that occur in s back into
// references to those variables, the longest value first. A value counts
// only as a whole: not next to a letter or digit on either side (a
// variable "1" is not every 1 in "10:30").
func Templated(s string, vars map[string]string) Template {
	names := make([]string, 0, len(vars))
	for n, v := range vars {
		if v != "" {
			names = append(names, n)
		}
	}
	sort.Slice(names, func(i, j int) bool {
		if a, b := len(vars[names[i]]), len(vars[names[j]]); a != b {
			return a > b
		}
		return names[i] < names[j]
	})
	var t Template
	lit := ""
	for i := 0; i < len(s); {
		matched := false
		for _, n := range names {
			v := vars[n]
			if !strings.HasPrefix(s[i:], v) || alnumBefore(s, i) && alnumAt(v, 0) || alnumAt(s, i+len(v)) && alnumBefore(v, len(v)) {
				continue
			}
			if lit != "" {
				t = append(t, TemplatePart{Text: lit})
				lit = ""
			}
			t = append(t, TemplatePart{Var: n})
			i += len(v)
			matched = true
			break
		}
		if !matched {
			_, size := utf8.DecodeRuneInString(s[i:])
			lit += s[i : i+size]
			i += size
		}
	}
	if lit != "" || len(t) == 0 {
		t = append(t, TemplatePart{Text: lit})
	}
	return t
}

// alnumAt reports whether s has a letter or digit at byte i.
func alnumAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// alnumBefore reports whether s has a letter or digit just before byte i.
func alnumBefore(s string, i int) bool {
	if i <= 0 {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// Render is the text with the values vars gives; a variable it lacks is
// an error.
func (t Template) Render(vars map[string]string) (string, error) {
	var b strings.Builder
	for _, p := range t {
		if p.Var == "" {
			b.WriteString(p.Text)
			continue
		}
		v, ok := vars[p.Var]
		if !ok {
			return "", fmt.Errorf("the recording types var.%s, which this run's task does not give", p.Var)
		}
		b.WriteString(v)
	}
	return b.String(), nil
}

// ByReplay: a step's verdict came from the replay finding the screen the
// recording saw after it.
const ByReplay = "replay"

// replaying reports whether the loop still replays the recording.
func (l *subtaskLoop) replaying() bool {
	return l.in.Replay != nil && l.st.HandedOver == "" && l.st.Replayed <= len(l.in.Replay.Steps)
}

// replayStep checks the screen against the recording and runs the next
// recorded step's actions through the policy's gate, or hands over to
// the agent where the screen drifted.
func (l *subtaskLoop) replayStep() *ending {
	rs, st := l.in.Replay, l.st
	k, step := st.Replayed, st.Step+1
	in := activities.ReplayStepInput{Step: step}
	if k > 0 {
		x, err := rs.Steps[k-1].After.render(l.in.Vars)
		if err != nil {
			return l.handover(err.Error(), false)
		}
		in.Expect, in.Confirms = &x, st.Step
		// Where the screen settled after the waits the recording made next.
		for j := k; j < len(rs.Steps) && onlyWaits(rs.Steps[j].Actions); j++ {
			if x, err := rs.Steps[j].After.render(l.in.Vars); err == nil {
				in.Settled = append(in.Settled, x)
			}
		}
	}
	var rec *RecordedStep
	label := fmt.Sprintf("step %d: check the replayed steps' effect", step)
	if k < len(rs.Steps) {
		rec = &rs.Steps[k]
		acts, err := rec.render(l.in.Vars)
		if err != nil {
			return l.handover(err.Error(), false)
		}
		in.Actions, in.Targets = acts, rec.Targets
		label = fmt.Sprintf("step %d: replay %s (step %d of run %s)", step, summaries(acts), rec.Step, l.in.ReplayFrom)
	}
	l.live.Step, l.live.Phase = step, "replaying"
	dctx := workflow.WithActivityOptions(l.ctx, deviceOptions(l.o, l.s.Device, l.in.Deadline, workflow.Now(l.ctx)))
	var r activities.ReplayStepResult
	if err := workflow.ExecuteActivity(withSummary(dctx, label), a.ReplayStep, in).Get(l.ctx, &r); err != nil {
		return l.fail(err)
	}
	if r.Drift != "" {
		return l.handover(r.Drift, r.Effect)
	}
	if k > 0 {
		st.Verdicts[screen.VerdictCorrect]++
		if st.Judged == nil {
			st.Judged = map[string]int{}
		}
		st.Judged[ByReplay]++
		st.LastVerdict, st.LastReason = screen.VerdictCorrect, "the screen shows what the recording showed after this step"
		l.live.judged(st.LastVerdict)
	}
	if rec == nil {
		st.Replayed++
		if !rs.Done {
			return l.handover("every recorded step is replayed; the agent ends the subtask, reading its outputs from the screen", false)
		}
		done := screen.Action{Kind: screen.ActDone}
		d := activities.DecideResult{Thought: "The recorded run ended here.", Action: done, Observation: r.Observation}
		st.Step = step
		g, _, err := l.gateAt(d, step, 0, done)
		if err != nil {
			return l.finish(ReasonCancelled, "cancelled while waiting for approval")
		}
		if !g.run {
			return l.handover(fmt.Sprintf("the replay's done was %s: %s", g.verdict, g.reason), false)
		}
		return l.done(done, done.Summary()+" (replayed)")
	}
	d := activities.DecideResult{Thought: rec.Thought, Action: r.Actions[0], Batch: r.Actions[1:], Observation: r.Observation, Facts: r.Facts}
	st.Step = step
	b, e := l.act(d, step)
	if e != nil {
		return e
	}
	summary := summaries(b.actions)
	if b.ran < len(b.actions) || b.last.Outcome != activities.OutcomeDone {
		why := b.stop.reason
		if b.stop.verdict != "" {
			why = b.stop.verdict + ": " + why
		} else if b.last.Error != "" {
			why = b.last.Outcome + ": " + b.last.Error
		}
		st.LastAction, st.LastVerdict, st.LastReason = summary, screen.VerdictWrong, why
		return l.handover(fmt.Sprintf("step %d (%s) did not run as recorded: %s", step, summary, why), false)
	}
	st.Replayed++
	st.Progress, st.Memory = rec.Progress, rec.Memory
	st.LastAction, st.LastThought = summary, rec.Thought
	st.LastVerdict, st.LastReason = screen.VerdictPending, "the replay checks its effect before the next step"
	l.live.finished(step, summary, screen.VerdictPending)
	l.live.Progress = rec.Progress
	return nil
}

// handover ends the replay: the agent loop goes on from here with the
// recorded progress, told why. effect: the last replayed step's effect
// is not what the recording saw (a wrong verdict for it).
func (l *subtaskLoop) handover(why string, effect bool) *ending {
	st := l.st
	st.HandedOver = fmt.Sprintf("step %d: %s", st.Step+1, why)
	if effect {
		st.Verdicts[screen.VerdictWrong]++
		st.LastVerdict, st.LastReason = screen.VerdictWrong, why
	}
	note := fmt.Sprintf("(Steps 1–%d replayed run %s; the replay stopped: %s. Go on from the screen as it is.)", st.Step, l.in.ReplayFrom, why)
	st.Progress = strings.TrimSpace(st.Progress + "\n" + note)
	l.live.Progress, l.live.Phase = st.Progress, "handed over to the agent"
	// The agent decides on a fresh observation.
	st.Next, st.Ahead = nil, nil
	workflow.GetLogger(l.ctx).Info("replay handed over to the agent", "subtask", l.s.Name, "why", why)
	return nil
}

// render is the step's actions with its texts rendered.
func (r RecordedStep) render(vars map[string]string) ([]screen.Action, error) {
	acts := append([]screen.Action(nil), r.Actions...)
	for i := range acts {
		t, ok := r.Texts[i]
		if !ok {
			continue
		}
		s, err := t.Render(vars)
		if err != nil {
			return nil, err
		}
		acts[i].Text = s
	}
	return acts, nil
}

func (x RecordedAfter) render(vars map[string]string) (activities.ReplayExpect, error) {
	w, err := x.Window.Render(vars)
	if err != nil {
		return activities.ReplayExpect{}, err
	}
	v, err := x.Value.Render(vars)
	return activities.ReplayExpect{Window: w, Focused: x.Focused, FocusedRole: x.FocusedRole, Value: v}, err
}

// onlyWaits reports whether a recorded step only waited.
func onlyWaits(acts []screen.Action) bool {
	for _, a := range acts {
		if a.Kind != screen.ActWait {
			return false
		}
	}
	return len(acts) > 0
}

// summaries is the actions' summaries joined.
func summaries(acts []screen.Action) string {
	s := make([]string, len(acts))
	for i, a := range acts {
		s[i] = a.Summary()
	}
	return strings.Join(s, "; ")
}

// PackReplays packs a suite's replays (by task run key) for
// SuiteInput.Replays.
func PackReplays(replays map[string]*Replay) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(replays); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// UnpackReplays reads SuiteInput.Replays.
func UnpackReplays(b []byte) (map[string]*Replay, error) {
	replays := map[string]*Replay{}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("suite replays: %w", err)
	}
	if err := json.NewDecoder(zr).Decode(&replays); err != nil {
		return nil, fmt.Errorf("suite replays: %w", err)
	}
	return replays, nil
}
