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
// text typed after which no pixel and no element changed went nowhere
// (no_effect, but not twice in a row for the same action); text typed that
// now shows in the focused field, and did not before, worked. Anything
// else is left to the Reflection agent: ctrl+home in A1 rightly changes
// nothing.
func TestDeviceVerdicts(t *testing.T) {
	ctx := context.Background()
	dev := fakedevice.New("A")
	dev.Elements = append(dev.Elements, screen.Element{ID: 2, Role: "text", Name: "Field", States: []string{"focused"}, Source: "a11y"})
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
	// An action that failed on the device: the agent judges.
	if r := observe(activities.ObserveInput{Before: before, Action: lost, Outcome: activities.ActResult{Outcome: activities.OutcomeError, Error: "no such element"}, Judge: true}); r.Verdict != "" {
		t.Errorf("failed action: verdict %q, want the agent's", r.Verdict)
	}
}
