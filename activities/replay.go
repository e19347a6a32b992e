package activities

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
)

// ReplayStepName is the registered name of ReplayStep.
const ReplayStepName = "ReplayStep"

// This file is the device's side of a checked replay (pcflow run
// --replay-run): before each recorded step it looks whether the screen is
// still the one the recording saw — the last step's effect, and each target
// of this step where it was — and says where it drifted when it is not.

// ReplayTarget is the element a recorded action acted on: its role and
// name, the window it was in and its box on the screen.
type ReplayTarget struct {
	Role   string      `json:"role"`
	Name   string      `json:"name"`
	Window string      `json:"window"`
	Box    screen.Rect `json:"box"`
}

// String says which element t is, for a drift's reason.
func (t ReplayTarget) String() string {
	return fmt.Sprintf("%s %q in %q at (%d,%d %dx%d)", t.Role, t.Name, t.Window, t.Box.X, t.Box.Y, t.Box.W, t.Box.H)
}

// ReplayExpect is what the recording saw once a step had worked: the
// active window's title, and the focused field's role and value when one
// held a value.
type ReplayExpect struct {
	Window      string `json:"window"`
	Focused     bool   `json:"focused,omitempty"`
	FocusedRole string `json:"focused_role,omitempty"`
	Value       string `json:"value,omitempty"`
}

// ReplayStepInput is one recorded step about to be replayed: the effect
// of the step replayed before it (Expect, nil on the first), and the
// step's actions (nil after the last, when only the effect is checked)
// with the element each acted on in the recording (nil: none).
type ReplayStepInput struct {
	Step    int             `json:"step"`
	Expect  *ReplayExpect   `json:"expect,omitempty"`
	Actions []screen.Action `json:"actions,omitempty"`
	Targets []*ReplayTarget `json:"targets,omitempty"`
	// Confirms is the step whose effect Expect is (0: none), for history.
	Confirms int `json:"confirms,omitempty"`
	// Settled is what the recording showed after the wait steps that
	// followed the step Expect confirms: a wait there means the screen
	// was still changing (a dialog closing), so the recording may have
	// seen the step's effect on its way, and a faster screen already
	// shows where it settled. Matching any of them confirms the step.
	Settled []ReplayExpect `json:"settled,omitempty"`
	// Wait is how long the screen may take to show Expect (0: 10 s: a
	// loaded machine can take seconds to close a dialog, and a drift
	// costs only this wait before the agent takes over).
	Wait time.Duration `json:"wait,omitempty"`
}

// ReplayStepResult is the screen the step is replayed on; Drift, when
// set, says how it differs from the recording's, and nothing may be
// replayed on it. Actions are the step's actions with the current
// screen's element ids; Facts what the policy sees of them.
type ReplayStepResult struct {
	Observation screen.Observation `json:"observation"`
	Drift       string             `json:"drift,omitempty"`
	// Effect: the drift is in the last step's effect, not in this step's
	// targets.
	Effect  bool               `json:"effect,omitempty"`
	Actions []screen.Action    `json:"actions,omitempty"`
	Facts   []plan.ActionFacts `json:"facts,omitempty"`
}

// ReplayStep waits for the screen to settle and compares it with the
// recording's, observing again for a while when the last step's effect
// is not there yet. It runs no action and asks no model.
func (a *Activities) ReplayStep(ctx context.Context, in ReplayStepInput) (*ReplayStepResult, error) {
	defer heartbeat(ctx)()
	wait := in.Wait
	if wait <= 0 {
		wait = 10 * time.Second
	}
	now := time.Now
	if a.Now != nil {
		now = a.Now
	}
	deadline := now().Add(wait)
	pause := a.SettleDelay
	if in.Expect == nil {
		pause = 0
	}
	for {
		if pause > 0 {
			select {
			case <-time.After(pause):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		s, _, obs, err := a.observeNow(ctx)
		if err != nil {
			return nil, err
		}
		res := &ReplayStepResult{Observation: obs}
		res.Drift, res.Effect = drift(s, in)
		if res.Drift == "" || !now().Before(deadline) {
			if res.Drift == "" {
				res.Actions = make([]screen.Action, len(in.Actions))
				for i, act := range in.Actions {
					act.Element = 0
					if e := targetOf(s.Elements, act); e != nil && i < len(in.Targets) && in.Targets[i] != nil {
						act.Element, act.Target = e.ID, e.Name
					}
					res.Actions[i] = act
				}
				res.Facts = ActionFacts(s, a.Redactor(), res.Actions...)
			}
			return res, nil
		}
		pause = 250 * time.Millisecond
	}
}

// drift says how screen s differs from what the recording saw (empty:
// it does not), and whether it is the last step's effect that differs.
func drift(s *screen.Screen, in ReplayStepInput) (string, bool) {
	if e := in.Expect; e != nil {
		if msg := effectDrift(s, *e, in.Confirms); msg != "" && !slices.ContainsFunc(in.Settled, func(x ReplayExpect) bool { return effectDrift(s, x, in.Confirms) == "" }) {
			return msg, true
		}
	}
	for i, act := range in.Actions {
		if i >= len(in.Targets) || in.Targets[i] == nil {
			continue
		}
		t := *in.Targets[i]
		act.Element = 0
		e := targetOf(s.Elements, act)
		if s.ActiveWindow != t.Window {
			return fmt.Sprintf("the target, %s: the window in front is %q", t, s.ActiveWindow), false
		}
		if e != nil && e.Role == t.Role && e.Name == t.Name {
			if near(e.Box, t.Box) {
				continue
			}
			return fmt.Sprintf("the target, %s, is at (%d,%d %dx%d) now (the window moved?)", t, e.Box.X, e.Box.Y, e.Box.W, e.Box.H), false
		}
		// Not at its place: elsewhere (moved), or gone (renamed, closed).
		for _, o := range s.Elements {
			if o.Role == t.Role && o.Name == t.Name {
				return fmt.Sprintf("the target, %s, is at (%d,%d %dx%d) now (the window moved?)", t, o.Box.X, o.Box.Y, o.Box.W, o.Box.H), false
			}
		}
		if e == nil {
			return fmt.Sprintf("the target, %s, is not on the screen, and nothing is at its place", t), false
		}
		return fmt.Sprintf("the target, %s, is not on the screen; %s %q is at its place", t, e.Role, e.Name), false
	}
	return "", false
}

// effectDrift says how screen s differs from what the recording showed
// after step n (empty: it does not).
func effectDrift(s *screen.Screen, e ReplayExpect, n int) string {
	if s.ActiveWindow != e.Window {
		return fmt.Sprintf("after step %d the recording showed the window %q in front, the screen shows %q", n, e.Window, s.ActiveWindow)
	}
	if e.Focused {
		f := focusedValue(s.Elements)
		switch {
		case f == nil:
			return fmt.Sprintf("after step %d the recording's focused %s held %q; no focused field holds a value now", n, e.FocusedRole, e.Value)
		case f.Role != e.FocusedRole || strings.TrimSpace(f.Value) != strings.TrimSpace(e.Value):
			return fmt.Sprintf("after step %d the recording's focused %s held %q; the focused %s holds %q", n, e.FocusedRole, e.Value, f.Role, f.Value)
		}
	}
	return ""
}

// near reports whether two boxes are the same within two pixels.
func near(a, b screen.Rect) bool {
	d := func(x, y int) bool { return x-y <= 2 && y-x <= 2 }
	return d(a.X, b.X) && d(a.Y, b.Y) && d(a.W, b.W) && d(a.H, b.H)
}

// RecordedTarget is the element action act acted on in a recorded
// observation (its elements and active window), or nil: the element at
// its point, else the focused one for an action typed into focus.
func RecordedTarget(els []screen.Element, window string, act screen.Action) *ReplayTarget {
	act.Element = 0
	e := targetOf(els, act)
	if e == nil {
		return nil
	}
	return &ReplayTarget{Role: e.Role, Name: e.Name, Window: window, Box: e.Box}
}

// RecordedExpect is what a recorded observation shows of a step's effect.
func RecordedExpect(els []screen.Element, window string) ReplayExpect {
	x := ReplayExpect{Window: window}
	if f := focusedValue(els); f != nil {
		x.Focused, x.FocusedRole, x.Value = true, f.Role, f.Value
	}
	return x
}

// LoadScreen reads a stored observation as the screen it was, without
// its pixels: elements, words, clipboard, the application in front, the
// windows.
func LoadScreen(store ArtifactStore, obs screen.Observation) (*screen.Screen, error) {
	a := &Activities{Artifacts: store}
	_, f, err := a.loadObservation(screen.Observation{Elements: obs.Elements})
	if err != nil {
		return nil, err
	}
	return &screen.Screen{Elements: f.Elements, Words: f.Words, Clipboard: f.Clipboard, App: f.App,
		ActiveWindow: obs.ActiveWindow, Windows: obs.Windows}, nil
}

// LoadElements reads a stored observation's element list.
func LoadElements(store ArtifactStore, obs screen.Observation) ([]screen.Element, error) {
	a := &Activities{Artifacts: store}
	_, f, err := a.loadObservation(screen.Observation{Elements: obs.Elements})
	return f.Elements, err
}
