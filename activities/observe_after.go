package activities

import (
	"context"
	"fmt"
	"image"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

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
	After screen.Observation `json:"after"`
	// Session names the worker's run that observed: another than the one
	// Setup reported means the worker started again since (its desktop
	// may have been brought back empty).
	Session string `json:"session,omitempty"`
	Verdict string `json:"verdict,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// Observe waits for the screen to settle after a step and observes it
// once: the pipelined loop's Reflection, Progress and next Decision all
// work from this observation.
func (a *Activities) Observe(ctx context.Context, in ObserveInput) (*ObserveResult, error) {
	defer heartbeat(ctx)()
	if err := sleep(ctx, a.SettleDelay); err != nil {
		return nil, err
	}
	s, _, obs, err := a.observe(ctx)
	if err != nil {
		return nil, err
	}
	res := &ObserveResult{After: obs, Session: workerSession}
	if in.Outcome.Outcome == OutcomeDone && in.Action.Kind == screen.ActType {
		// Typed text still arriving: the focused field holds the start of
		// it (a busy application takes the keys in bit by bit). What is
		// recorded and judged is the screen once the keys are in.
		last := ""
		for end := time.Now().Add(typingWait); time.Now().Before(end); {
			v, partly := partlyTyped(s.Elements, in.Action.Text)
			if !partly || v == last {
				break
			}
			last = v
			if err := sleep(ctx, 250*time.Millisecond); err != nil {
				return nil, err
			}
			if s, _, res.After, err = a.observe(ctx); err != nil {
				return nil, err
			}
		}
	}
	if !in.Judge || in.Outcome.Outcome != OutcomeDone {
		return res, nil
	}
	var before []screen.Element
	if in.Before.Elements != "" {
		_, bf, err := a.loadObservation(screen.Observation{Elements: in.Before.Elements})
		if err != nil {
			return res, nil // the Reflection agent judges
		}
		before = bf.Elements
	}
	if what, tree := expectedChange(in.Action, before); what != "" && unchanged(in.Before, res.After, tree) {
		// Nothing changed yet where something should have: a slow
		// application gets a moment more before the device says so.
		if err := sleep(ctx, max(a.SettleDelay, recheckDelay)); err != nil {
			return nil, err
		}
		if _, _, res.After, err = a.observe(ctx); err != nil {
			return nil, err
		}
	}
	if t := targetOf(before, in.Action); t != nil && isMenuItem(t.Role) && dialogTitle(t.Name) != "" {
		// An item that opens a dialog: the screen settles once the dialog
		// is in front (the next decision needs what is in it).
		for end := time.Now().Add(dialogWait); res.After.ActiveWindow == in.Before.ActiveWindow && time.Now().Before(end); {
			if err := sleep(ctx, 250*time.Millisecond); err != nil {
				return nil, err
			}
			if _, _, res.After, err = a.observe(ctx); err != nil {
				return nil, err
			}
		}
	}
	res.Verdict, res.Reason = a.deviceVerdict(in, before, res.After)
	return res, nil
}

// typingWait is how long the device waits for typed text to arrive whole
// in the focused field while it keeps arriving.
const typingWait = 3 * time.Second

// partlyTyped says whether the focused field among els ends with a start
// of typed but does not hold it whole, and what it holds. Text with a
// placeholder is never compared (the field holds the value, not the
// placeholder).
func partlyTyped(els []screen.Element, typed string) (string, bool) {
	typed = strings.TrimSpace(typed)
	if typed == "" || strings.Contains(typed, "{{") {
		return "", false
	}
	e := focusedValue(els)
	if e == nil || strings.Contains(e.Value, typed) {
		return "", false
	}
	rs, v := []rune(typed), strings.TrimSpace(e.Value)
	for k := len(rs) - 1; k >= 1; k-- {
		if p := strings.TrimSpace(string(rs[:k])); p != "" && strings.HasSuffix(v, p) {
			return e.Value, true
		}
	}
	return "", false
}

// dialogWait is how long the device waits for the dialog a menu item
// names with an ellipsis to come to the front before it observes the
// screen as it is.
const dialogWait = 3 * time.Second

// recheckDelay is how long the device looks again before it calls an
// action that should have changed something no_effect.
const recheckDelay = 400 * time.Millisecond

// sleep waits d, or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// deviceVerdict is the verdict the screens make certain, or "" for the
// Reflection agent. An action that should change something
// (expectedChange) after which nothing changed (unchanged) had no effect
// (unless the device said so of the same action the step before: then
// the agent looks). Text typed that now shows in the focused field, and
// did not before, worked: correct. Everything else may rightly change
// nothing, or change something else than meant (ctrl+home in A1, a click
// on what is already selected, C on a clear calculator): the agent
// judges it.
func (a *Activities) deviceVerdict(in ObserveInput, before []screen.Element, after screen.Observation) (string, string) {
	what, tree := expectedChange(in.Action, before)
	if what == "" {
		return "", ""
	}
	if unchanged(in.Before, after, tree) {
		if in.Repeated {
			return "", ""
		}
		return screen.VerdictNoEffect, what + " changed nothing on the screen or in the element tree (judged by the device)"
	}
	_, af, err := a.loadObservation(screen.Observation{Elements: after.Elements})
	if err != nil {
		return "", ""
	}
	if in.Action.Kind != screen.ActType {
		if what := appeared(in.Action, before, af.Elements, in.Before, after); what != "" {
			return screen.VerdictCorrect, what + " (judged by the device)"
		}
		return "", ""
	}
	typed := strings.TrimRight(in.Action.Text, "\n")
	was, now := focusedValue(before), focusedValue(af.Elements)
	if now != nil && strings.Contains(now.Value, typed) && (was == nil || !strings.Contains(was.Value, typed)) {
		return screen.VerdictCorrect, fmt.Sprintf("the focused %s now holds the typed text (judged by the device)", now.Role)
	}
	return "", ""
}

// expectedChange says what about an action, done on the screen whose
// elements are before, must change the screen if it took effect ("": it
// may rightly change nothing), and whether the element tree alone shows
// that change. See docs/language.md (the agent loop) for the list and why
// each is certain:
//   - text typed (no placeholder left in it), and a key that types one
//     printable character while an editable field has the focus: the
//     pixels count too (a terminal's text is in no element);
//   - a click or double click on a disabled element (it cannot have done
//     anything), on a menu item (a working one closes its menu), on a menu
//     not open yet (it opens), on a check box (its state toggles), on a
//     radio button or a page tab not yet checked or selected (it becomes
//     so): the tree alone, since the pointer's moving lights controls up
//     and brings tooltips and takes them away.
//
// A click on a push button, a field or anything already selected, and
// every other key, are left to the Reflection agent.
func expectedChange(act screen.Action, before []screen.Element) (what string, tree bool) {
	switch act.Kind {
	case screen.ActType:
		if typed := strings.TrimRight(act.Text, "\n"); typed != "" && !strings.Contains(typed, "{{") {
			return "the typed text", false
		}
	case screen.ActHotkey:
		if len(act.Keys) != 1 || utf8.RuneCountInString(act.Keys[0]) != 1 {
			return "", false
		}
		r, _ := utf8.DecodeRuneInString(act.Keys[0])
		if f := focused(before); unicode.IsPrint(r) && !unicode.IsSpace(r) && f != nil && hasState(f, "editable") {
			return fmt.Sprintf("the key %q typed into the focused %s", act.Keys[0], f.Role), false
		}
	case screen.ActClick, screen.ActDoubleClick:
		e := targetOf(before, act)
		if e == nil {
			return "", false
		}
		switch {
		case hasState(e, "disabled"):
			return fmt.Sprintf("a click on the disabled %s %q", e.Role, e.Name), true
		case e.Role == "menu item" || e.Role == "check menu item" || e.Role == "radio menu item",
			e.Role == "menu" && !hasState(e, "selected"),
			e.Role == "check box",
			(e.Role == "radio button" || e.Role == "page tab") && !hasState(e, "checked") && !hasState(e, "selected"):
			return fmt.Sprintf("a click on the %s %q", e.Role, e.Name), true
		}
	}
	return "", false
}

// appeared says what a click made appear that is what such a click is
// for, so the step worked whatever the task ("": the agent judges):
//   - a menu not open yet: it is open now (selected), with items shown
//     under it that were not before;
//   - a menu item whose name ends in an ellipsis ("Save As…"), the mark
//     of an item that opens a dialog: a window named after the item
//     ("Save As") is new in front;
//   - a check box: its checked state flipped;
//   - a radio button or a page tab not yet checked or selected: it is now.
//
// What each is matched by is its role and name at the same place: the
// tree after the click numbers its elements anew.
func appeared(act screen.Action, before, after []screen.Element, bobs, aobs screen.Observation) string {
	if act.Kind != screen.ActClick && act.Kind != screen.ActDoubleClick {
		return ""
	}
	e := targetOf(before, act)
	if e == nil || hasState(e, "disabled") {
		return ""
	}
	now := sameElement(after, e)
	switch {
	case e.Role == "menu" && !hasState(e, "selected"):
		if now == nil || !hasState(now, "selected") {
			return ""
		}
		for i := range after {
			if isMenuItem(after[i].Role) && sameElement(before, &after[i]) == nil {
				return fmt.Sprintf("the menu %q opened", e.Name)
			}
		}
	case isMenuItem(e.Role):
		title := dialogTitle(e.Name)
		if title != "" && aobs.ActiveWindow != bobs.ActiveWindow && !slices.Contains(bobs.Windows, aobs.ActiveWindow) &&
			strings.Contains(strings.ToLower(aobs.ActiveWindow), strings.ToLower(title)) {
			return fmt.Sprintf("the window %q the menu item %q opens is in front", aobs.ActiveWindow, e.Name)
		}
	case e.Role == "check box":
		if now != nil && hasState(now, "checked") != hasState(e, "checked") {
			return fmt.Sprintf("the check box %q toggled", e.Name)
		}
	case e.Role == "radio button" || e.Role == "page tab":
		if !hasState(e, "checked") && !hasState(e, "selected") && now != nil && (hasState(now, "checked") || hasState(now, "selected")) {
			return fmt.Sprintf("the %s %q is selected", e.Role, e.Name)
		}
	}
	return ""
}

func isMenuItem(role string) bool {
	return role == "menu item" || role == "check menu item" || role == "radio menu item"
}

// dialogTitle is the title of the dialog a menu item names with an
// ellipsis ("Save _As…" → "Save As"), or "" for an item without one or
// too short a name to tell.
func dialogTitle(name string) string {
	var t string
	switch {
	case strings.HasSuffix(name, "…"):
		t = strings.TrimSuffix(name, "…")
	case strings.HasSuffix(name, "..."):
		t = strings.TrimSuffix(name, "...")
	default:
		return ""
	}
	t = strings.TrimSpace(strings.ReplaceAll(t, "_", ""))
	if utf8.RuneCountInString(t) < 3 {
		return ""
	}
	return t
}

// sameElement is the element of els with e's role and name at e's place
// (near: within two pixels), or nil.
func sameElement(els []screen.Element, e *screen.Element) *screen.Element {
	for i := range els {
		o := &els[i]
		if o.Role == e.Role && o.Name == e.Name && near(o.Box, e.Box) {
			return o
		}
	}
	return nil
}

// unchanged reports whether nothing changed from before to after: the
// same element tree, the same window in front, and, unless tree, the
// same pixels.
func unchanged(before, after screen.Observation, tree bool) bool {
	return before.Screenshot != "" && before.Elements == after.Elements && before.ActiveWindow == after.ActiveWindow &&
		(tree || before.Screenshot == after.Screenshot)
}

// hasState reports whether e has the state s.
func hasState(e *screen.Element, s string) bool {
	return slices.Contains(e.States, s)
}

// focused is the focused element, if any.
func focused(els []screen.Element) *screen.Element {
	for i := range els {
		if hasState(&els[i], "focused") {
			return &els[i]
		}
	}
	return nil
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
