package x11

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/artifacts"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
)

// pressModel answers every Decision request by pressing the button it
// finds by name in the element list it was sent: by its id, as the
// Set-of-Marks profiles do, or at its centre, as the coordinate profiles
// do.
type pressModel struct {
	button  string
	byPoint bool
}

func (m pressModel) Decide(ctx context.Context, in agent.DecisionInput, u *screen.Usage) (*agent.Decision, error) {
	for _, e := range in.Elements {
		if e.Name != m.button {
			continue
		}
		a := screen.Action{Kind: screen.ActClick}
		a.X, a.Y = e.Box.Center()
		if !m.byPoint {
			a.Element, a.Target = e.ID, e.Name
		}
		return &agent.Decision{Thought: "press " + m.button, Action: a}, nil
	}
	return nil, fmt.Errorf("no element %q on the screen", m.button)
}

var errUnused = errors.New("not used by this test")

func (pressModel) Reflect(context.Context, agent.ReflectionInput, *screen.Usage) (*agent.Reflection, error) {
	return nil, errUnused
}

func (pressModel) UpdateProgress(context.Context, agent.ProgressInput, *screen.Usage) (*agent.Progress, error) {
	return nil, errUnused
}

func (pressModel) Manage(context.Context, agent.ManagerInput, *screen.Usage) (*agent.Plan, error) {
	return nil, errUnused
}

// TestDecideFactsOnGalculator: the Decide activity on a real desktop says
// which element a click targets, by id and by point, and in which
// application, so a policy limited to the calculator allows it and a rule
// on the "7" button catches it either way.
func TestDecideFactsOnGalculator(t *testing.T) {
	dev := desktop(t)
	app(t, dev, "galculator", "galculator")
	pol := &plan.Policy{Default: plan.PolicyDeny, Rules: []plan.PolicyRule{
		{Name: "seven waits", Target: "^7$", Role: "button", Decision: plan.PolicyConfirm},
		{Name: "calculator only", App: "^galculator$", Decision: plan.PolicyAllow},
	}}
	for _, byPoint := range []bool{false, true} {
		t.Run(fmt.Sprintf("byPoint=%v", byPoint), func(t *testing.T) {
			a := &activities.Activities{Device: dev, Model: pressModel{button: "7", byPoint: byPoint}, Artifacts: artifacts.Dir{Root: t.TempDir()}}
			res, err := a.Decide(context.Background(), activities.DecideInput{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Facts) != 1 {
				t.Fatalf("Decide facts = %+v, want one", res.Facts)
			}
			f := res.Facts[0]
			if f.Kind != "click" || f.Target != "7" || f.Role != "toggle button" || f.ElementID == 0 {
				t.Errorf("facts = %+v, want a click on toggle button \"7\" (galculator's buttons are toggle buttons)", f)
			}
			if f.App != "Galculator" || f.Window != res.Observation.ActiveWindow || f.Window == "" {
				t.Errorf("facts = %+v, want app Galculator in window %q", f, res.Observation.ActiveWindow)
			}
			if v := pol.Decide(f); v.Decision != plan.PolicyConfirm || v.Rule != "seven waits" {
				t.Errorf("policy verdict on %+v = %+v, want confirm by \"seven waits\"", f, v)
			}
		})
	}
	// Another button of the same application: allowed by the app rule.
	a := &activities.Activities{Device: dev, Model: pressModel{button: "8", byPoint: true}, Artifacts: artifacts.Dir{Root: t.TempDir()}}
	res, err := a.Decide(context.Background(), activities.DecideInput{})
	if err != nil {
		t.Fatal(err)
	}
	if v := pol.Decide(res.Facts[0]); v.Decision != plan.PolicyAllow || res.Facts[0].Target != "8" {
		t.Errorf("policy verdict on %+v = %+v, want allow by \"calculator only\"", res.Facts[0], v)
	}
}
