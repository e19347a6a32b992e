package workflows_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/internal/enginetest"
	"github.com/pcflow/pcflow/workflows"
)

// A task with reflection = "never" asks the Reflection agent nothing
// (the scripted model counts its requests by role), yet its steps run
// and the task completes: each verdict the device could not give is taken
// as correct and recorded as assumed.
func TestReflectionNeverAsksNoModel(t *testing.T) {
	t.Parallel()
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{
		"s": {Steps: []scripted.Step{click("A"), click("B"), done(nil)}},
	}})
	dev := fakedevice.New("A", "B")
	env.Serve("desktop", env.Activities(dev, "desktop", env.ModelConfig()), true)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := env.Run(ctx, "never-1", mustPlan(t, `task "never" {
  reflection = "never"
  subtask "s" {
    instruction = "click A, then B"
  }
}`), workflows.Options{})
	if err != nil || res.Reason != workflows.ReasonSuccess {
		t.Fatalf("run: %v %+v", err, res)
	}
	var got []string
	for _, a := range dev.Actions() {
		got = append(got, a.Summary())
	}
	if want := []string{`click #1 "A"`, `click #2 "B"`}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("actions on the device: %q, want %q", got, want)
	}
	roles := map[string]int{}
	for _, r := range env.Model.Requests() {
		roles[r.Role]++
	}
	if roles[agent.RoleReflection] != 0 || roles[agent.RoleDecision] == 0 {
		t.Fatalf("requests by role = %v, want no Reflection request and the Decision's", roles)
	}
	if s := res.Subtasks[0]; s.Judged[activities.ByNothing] != 2 || s.Judged[activities.ByModel] != 0 {
		t.Fatalf("judged = %v, want both steps assumed, none by the model", s.Judged)
	}
}

// TestCascadeEscalatesOnTheSameActionThrice: the same click three times
// in a row, each judged correct, calls the large models: the Reflection
// on the third time and the decision after it. The next, different
// action goes back to the small ones (and the done is confirmed by the
// large Decision model, as always).
func TestCascadeEscalatesOnTheSameActionThrice(t *testing.T) {
	t.Parallel()
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{"s": {
		Steps: []scripted.Step{click("1"), click("1"), click("1"), click("2"), done(nil)},
	}}})
	cfg := env.ModelConfig()
	cfg.ProfilesFile = filepath.Join(t.TempDir(), "profiles.json")
	if err := os.WriteFile(cfg.ProfilesFile, []byte(cascadeProfiles), 0o600); err != nil {
		t.Fatal(err)
	}
	env.Serve("desktop", env.Activities(fakedevice.New("1", "2"), "desktop", cfg), true)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, loop := range []string{"sequential", "pipelined"} {
		before := len(env.Model.Requests())
		res, err := env.Run(ctx, "thrice-"+loop, mustPlan(t, `task "t" {
  max_steps  = 12
  loop       = "`+loop+`"
  reflection = "always"
  profiles {
    decision   = { small = "decide-small", large = "decide-large" }
    reflection = { small = "judge-small", large = "judge-large" }
  }
  subtask "s" {
    instruction = "press 1 three times, then 2"
  }
}`), workflows.Options{})
		if err != nil || res.Reason != workflows.ReasonSuccess {
			t.Fatalf("%s: run: %v %+v", loop, err, res)
		}
		got := map[string][]string{}
		for _, r := range env.Model.Requests()[before:] {
			if r.Role == agent.RoleDecision || r.Role == agent.RoleReflection {
				got[r.Role] = append(got[r.Role], r.Model)
			}
		}
		want := map[string][]string{
			agent.RoleDecision:   {"small-decider", "small-decider", "small-decider", "large-decider", "small-decider", "large-decider"},
			agent.RoleReflection: {"small-judge", "small-judge", "large-judge", "small-judge"},
		}
		for role, w := range want {
			if !equal(got[role], w) {
				t.Errorf("%s: %s answered by %q, want %q", loop, role, got[role], w)
			}
		}
		if hist := scheduled(t, env, "thrice-"+loop+"/s"); !strings.Contains(hist, "[large model: the same action three times]") {
			t.Errorf("%s: the history does not say why the large model answered:\n%s", loop, hist)
		}
	}
}
