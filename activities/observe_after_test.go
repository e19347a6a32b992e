package activities_test

import (
	"context"
	"testing"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/artifacts"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/activities/screen"
)

// The device gives the verdict only where the screens make it certain: a
// click after which no pixel and no element changed had no effect; text
// typed that now shows in the focused field, and did not before, worked.
// Anything else is left to the Reflection agent.
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

	// Nothing happened on the device since: no effect.
	if r := observe(activities.ObserveInput{Before: before, Action: click, Outcome: done, Judge: true}); r.Verdict != screen.VerdictNoEffect {
		t.Errorf("unchanged screen after a click: verdict %q, want no_effect", r.Verdict)
	}
	// Not asked to judge (reflection = "always"): no verdict.
	if r := observe(activities.ObserveInput{Before: before, Action: click, Outcome: done}); r.Verdict != "" {
		t.Errorf("judge off: verdict %q", r.Verdict)
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
	if r := observe(activities.ObserveInput{Before: before, Action: click, Outcome: activities.ActResult{Outcome: activities.OutcomeError, Error: "no such element"}, Judge: true}); r.Verdict != "" {
		t.Errorf("failed action: verdict %q, want the agent's", r.Verdict)
	}
}
