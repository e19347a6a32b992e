package activities_test

import (
	"context"
	"testing"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/artifacts"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/activities/screen"
)

// The device gives the verdict only where the screens make it certain:
// an action that should change something (text typed, a character key
// into an editable field, a click on a disabled element, a menu item, a
// tab not selected) after which nothing changed had no effect (no_effect,
// but not twice in a row for the same action); text typed that now shows
// in the focused field, and did not before, worked. Anything else is left
// to the Reflection agent: ctrl+home in A1, a click on the selected tab,
// rightly change nothing.
func TestDeviceVerdicts(t *testing.T) {
	ctx := context.Background()
	dev := fakedevice.New("A")
	dev.Elements = append(dev.Elements, screen.Element{ID: 2, Role: "text", Name: "Field", States: []string{"focused", "editable"}, Source: "a11y"},
		screen.Element{ID: 3, Role: "menu item", Name: "Undo", States: []string{"disabled"}, Source: "a11y"},
		screen.Element{ID: 4, Role: "menu item", Name: "Copy", Source: "a11y"},
		screen.Element{ID: 5, Role: "page tab", Name: "General", States: []string{"selected"}, Source: "a11y"},
		screen.Element{ID: 6, Role: "page tab", Name: "Advanced", Source: "a11y"},
		screen.Element{ID: 7, Role: "menu", Name: "Edit", States: []string{"selected"}, Source: "a11y"})
	a := &activities.Activities{Device: dev, Artifacts: artifacts.Dir{Root: t.TempDir()}}
	observe := func(in activities.ObserveInput) *activities.ObserveResult {
		t.Helper()
		r, err := a.Observe(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	before := observe(activities.ObserveInput{}).After
	done := activities.ActResult{Outcome: activities.OutcomeDone}
	click := screen.Action{Kind: screen.ActClick, Target: "A"}

	lost := screen.Action{Kind: screen.ActType, Text: "lost"}
	// Typed, and nothing changed: no effect.
	if r := observe(activities.ObserveInput{Before: before, Action: lost, Outcome: done, Judge: true}); r.Verdict != screen.VerdictNoEffect {
		t.Errorf("unchanged screen after typing: verdict %q, want no_effect", r.Verdict)
	}
	// The second time in a row, or not asked to judge (reflection =
	// "always"): the agent judges.
	if r := observe(activities.ObserveInput{Before: before, Action: lost, Outcome: done, Judge: true, Repeated: true}); r.Verdict != "" {
		t.Errorf("repeated: verdict %q", r.Verdict)
	}
	if r := observe(activities.ObserveInput{Before: before, Action: lost, Outcome: done}); r.Verdict != "" {
		t.Errorf("judge off: verdict %q", r.Verdict)
	}
	// A hotkey or a click that changed nothing: the agent judges.
	for _, act := range []screen.Action{click, {Kind: screen.ActHotkey, Keys: []string{"ctrl", "home"}}} {
		if r := observe(activities.ObserveInput{Before: before, Action: act, Outcome: done, Judge: true}); r.Verdict != "" {
			t.Errorf("%s changing nothing: verdict %q, want the agent's", act.Summary(), r.Verdict)
		}
	}
	// Clicks that must change something if they worked, and a key that
	// types into the editable field in focus: no effect.
	for _, act := range []screen.Action{
		{Kind: screen.ActClick, Element: 3, Target: "Undo"},     // disabled
		{Kind: screen.ActClick, Element: 4, Target: "Copy"},     // a menu item closes its menu
		{Kind: screen.ActClick, Element: 6, Target: "Advanced"}, // a tab not yet selected
		{Kind: screen.ActHotkey, Keys: []string{"x"}},
	} {
		if r := observe(activities.ObserveInput{Before: before, Action: act, Outcome: done, Judge: true}); r.Verdict != screen.VerdictNoEffect {
			t.Errorf("%s changing nothing: verdict %q, want no_effect", act.Summary(), r.Verdict)
		}
	}
	// What may rightly change nothing: the selected tab, the open menu,
	// a key that types nothing (enter, a shortcut).
	for _, act := range []screen.Action{
		{Kind: screen.ActClick, Element: 5, Target: "General"},
		{Kind: screen.ActClick, Element: 7, Target: "Edit"},
		{Kind: screen.ActHotkey, Keys: []string{"Return"}},
		{Kind: screen.ActHotkey, Keys: []string{"ctrl", "s"}},
	} {
		if r := observe(activities.ObserveInput{Before: before, Action: act, Outcome: done, Judge: true}); r.Verdict != "" {
			t.Errorf("%s changing nothing: verdict %q, want the agent's", act.Summary(), r.Verdict)
		}
	}
	// A wait changes nothing by design: the agent judges.
	if r := observe(activities.ObserveInput{Before: before, Action: screen.Action{Kind: screen.ActWait}, Outcome: done, Judge: true}); r.Verdict != "" {
		t.Errorf("wait: verdict %q, want none", r.Verdict)
	}
	// Typed text now in the focused field: correct.
	typed := screen.Action{Kind: screen.ActType, Text: "hello"}
	if _, err := dev.Act(ctx, typed); err != nil {
		t.Fatal(err)
	}
	after := observe(activities.ObserveInput{Before: before, Action: typed, Outcome: done, Judge: true})
	if after.Verdict != screen.VerdictCorrect {
		t.Errorf("typed text in the focused field: verdict %q (%s), want correct", after.Verdict, after.Reason)
	}
	// A click that changed the screen: the agent judges.
	if _, err := dev.Act(ctx, click); err != nil {
		t.Fatal(err)
	}
	if r := observe(activities.ObserveInput{Before: after.After, Action: click, Outcome: done, Judge: true}); r.Verdict != "" {
		t.Errorf("a click that changed the screen: verdict %q, want the agent's", r.Verdict)
	}
	// Pixels changed (the pointer lights controls up, tooltips come and
	// go) but not the element tree: a click on a menu item did nothing;
	// typed text may have gone where no element shows it (a terminal).
	undo := screen.Action{Kind: screen.ActClick, Element: 3, Target: "Undo"}
	if r := observe(activities.ObserveInput{Before: after.After, Action: undo, Outcome: done, Judge: true}); r.Verdict != screen.VerdictNoEffect {
		t.Errorf("%s with only pixels changed: verdict %q, want no_effect", undo.Summary(), r.Verdict)
	}
	if r := observe(activities.ObserveInput{Before: after.After, Action: lost, Outcome: done, Judge: true}); r.Verdict != "" {
		t.Errorf("typing with only pixels changed: verdict %q, want the agent's", r.Verdict)
	}
	// An action that failed on the device: the agent judges.
	if r := observe(activities.ObserveInput{Before: before, Action: lost, Outcome: activities.ActResult{Outcome: activities.OutcomeError, Error: "no such element"}, Judge: true}); r.Verdict != "" {
		t.Errorf("failed action: verdict %q, want the agent's", r.Verdict)
	}
}

// slowTyping is a device whose focused field takes typed text in two
// characters per observation, as a busy application takes its keys.
type slowTyping struct {
	*fakedevice.Device
	pending []rune
}

func (d *slowTyping) Act(ctx context.Context, a screen.Action) (string, error) {
	if a.Kind == screen.ActType {
		d.pending = append(d.pending, []rune(a.Text)...)
		return "typed", nil
	}
	return d.Device.Act(ctx, a)
}

func (d *slowTyping) Observe(ctx context.Context) (*screen.Screen, error) {
	n := min(2, len(d.pending))
	d.Device.Elements[0].Value += string(d.pending[:n])
	d.pending = d.pending[n:]
	return d.Device.Observe(ctx)
}

// TestObserveWaitsForTypedText: after text is typed, the screen is
// observed once the focused field holds it whole, not while the keys are
// still arriving (a recording of a run would otherwise keep "al" for
// "alpha", and its replay would see drift that is not there); and the
// device judges the typing correct.
func TestObserveWaitsForTypedText(t *testing.T) {
	ctx := context.Background()
	fd := fakedevice.New()
	fd.Elements = []screen.Element{{ID: 1, Role: "text", Name: "Note", States: []string{"focused", "editable"}, Source: "a11y"}}
	dev := &slowTyping{Device: fd}
	a := &activities.Activities{Device: dev, Artifacts: artifacts.Dir{Root: t.TempDir()}}
	before, err := a.Observe(ctx, activities.ObserveInput{})
	if err != nil {
		t.Fatal(err)
	}
	typed := screen.Action{Kind: screen.ActType, Text: "alpha bravo"}
	if _, err := dev.Act(ctx, typed); err != nil {
		t.Fatal(err)
	}
	r, err := a.Observe(ctx, activities.ObserveInput{Before: before.After, Action: typed,
		Outcome: activities.ActResult{Outcome: activities.OutcomeDone}, Judge: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := fd.Elements[0].Value; got != "alpha bravo" {
		t.Errorf("the field held %q when the screen was observed, want the whole text", got)
	}
	if r.Verdict != screen.VerdictCorrect {
		t.Errorf("verdict %q (%s), want correct from the device", r.Verdict, r.Reason)
	}
}
