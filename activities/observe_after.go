package activities

import (
	"context"
	"fmt"
	"image"
	"strings"
	"time"

	"github.com/pcflow/pcflow/activities/screen"
)

// Who gave a step's verdict.
const (
	ByModel   = "model"   // the Reflection agent
	ByDevice  = "device"  // the device, certain from the screens alone
	ByNothing = "assumed" // reflection = "never": taken as correct, unjudged
)

// ObserveInput is a step just acted: the observation it was decided on,
// its action and what the device said of it.
type ObserveInput struct {
	Before  screen.Observation `json:"before"`
	Action  screen.Action      `json:"action"`
	Outcome ActResult          `json:"outcome"`
	// Judge lets the device give the verdict where the screens make it
	// certain (reflection = "on_doubt" or "never").
	Judge bool `json:"judge,omitempty"`
	// Repeated: the device judged the same action no_effect the step
	// before; this time the Reflection agent looks.
	Repeated bool `json:"repeated,omitempty"`
}

// ObserveResult is the screen after the step and, when the device is
// certain, its verdict (empty: the Reflection agent decides).
type ObserveResult struct {
	After   screen.Observation `json:"after"`
	Verdict string             `json:"verdict,omitempty"`
	Reason  string             `json:"reason,omitempty"`
}

// Observe waits for the screen to settle after a step and observes it
// once: the pipelined loop's Reflection, Progress and next Decision all
// work from this observation.
func (a *Activities) Observe(ctx context.Context, in ObserveInput) (*ObserveResult, error) {
	defer heartbeat(ctx)()
	if a.SettleDelay > 0 {
		select {
		case <-time.After(a.SettleDelay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	_, _, obs, err := a.observe(ctx)
	if err != nil {
		return nil, err
	}
	res := &ObserveResult{After: obs}
	if in.Judge {
		res.Verdict, res.Reason = a.deviceVerdict(in, obs)
	}
	return res, nil
}

// deviceVerdict is the verdict the screens make certain, or "" for the
// Reflection agent. Text typed that left every pixel and every element as
// they were went nowhere: no_effect (unless the device said so of the
// same action the step before: then the agent looks). Text typed that now
// shows in the focused field, and did not before, worked: correct. Other
// actions may rightly change nothing (ctrl+home in A1, a click on what is
// already selected): the agent judges them.
func (a *Activities) deviceVerdict(in ObserveInput, after screen.Observation) (string, string) {
	typed := strings.TrimRight(in.Action.Text, "\n")
	if in.Outcome.Outcome != OutcomeDone || in.Action.Kind != screen.ActType || typed == "" || strings.Contains(typed, "{{") {
		return "", ""
	}
	before := in.Before
	if before.Screenshot != "" && before.Screenshot == after.Screenshot && before.Elements == after.Elements && before.ActiveWindow == after.ActiveWindow {
		if in.Repeated {
			return "", ""
		}
		return screen.VerdictNoEffect, "the typed text changed nothing on the screen or in the element tree (judged by the device)"
	}
	_, bf, err1 := a.loadObservation(screen.Observation{Elements: before.Elements})
	_, af, err2 := a.loadObservation(screen.Observation{Elements: after.Elements})
	if err1 != nil || err2 != nil {
		return "", ""
	}
	was, now := focusedValue(bf.Elements), focusedValue(af.Elements)
	if now != nil && strings.Contains(now.Value, typed) && (was == nil || !strings.Contains(was.Value, typed)) {
		return screen.VerdictCorrect, fmt.Sprintf("the focused %s now holds the typed text (judged by the device)", now.Role)
	}
	return "", ""
}

// focusedValue is the focused element that holds a value, if any.
func focusedValue(els []screen.Element) *screen.Element {
	for i, e := range els {
		for _, s := range e.States {
			if s == "focused" && e.Value != "" {
				return &els[i]
			}
		}
	}
	return nil
}

// recall rebuilds the screen of an observation this worker stored, for a
// Decision or Reflection made on it without observing again.
func (a *Activities) recall(obs screen.Observation) (*screen.Screen, image.Image, error) {
	ann, f, err := a.loadObservation(obs)
	if err != nil {
		return nil, nil, err
	}
	s := &screen.Screen{ActiveWindow: obs.ActiveWindow, Windows: obs.Windows, Elements: f.Elements, Words: f.Words, Clipboard: f.Clipboard, App: f.App}
	if obs.Screenshot != "" {
		if s.Image, err = a.loadPNG(obs.Screenshot); err != nil {
			return nil, nil, err
		}
	}
	return s, ann, nil
}

// observeOr recalls the stored observation obs when given and still held
// here, and observes the device otherwise.
func (a *Activities) observeOr(ctx context.Context, obs *screen.Observation) (*screen.Screen, image.Image, screen.Observation, error) {
	if obs != nil {
		s, ann, err := a.recall(*obs)
		if err == nil {
			return s, ann, *obs, nil
		}
		a.logger().Warn("stored observation unavailable; observing again", "error", err)
	}
	return a.observeNow(ctx)
}

// observeNow observes the device while no other activity uses it.
func (a *Activities) observeNow(ctx context.Context) (*screen.Screen, image.Image, screen.Observation, error) {
	release, err := a.useDevice(ctx)
	if err != nil {
		return nil, nil, screen.Observation{}, err
	}
	defer release()
	return a.observe(ctx)
}
