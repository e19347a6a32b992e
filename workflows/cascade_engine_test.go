package workflows_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/internal/enginetest"
	"github.com/pcflow/pcflow/internal/report"
	"github.com/pcflow/pcflow/workflows"
)

// cascadeProfiles are a small and a large profile for the Decision and
// Reflection agents, each naming its model (what the requests ask for).
const cascadeProfiles = `[
  {"name": "decide-small", "base": "openai-tools", "model": "small-decider"},
  {"name": "decide-large", "base": "openai-tools", "model": "large-decider"},
  {"name": "judge-small", "base": "openai-tools", "model": "small-judge"},
  {"name": "judge-large", "base": "openai-tools", "model": "large-judge"}
]`

// TestCascadeEscalatesAfterRepeatedNoEffect runs a task whose Decision and
// Reflection agents have a cascade through the real engine (Temporal, the
// activities, the scripted model over HTTP): the small models answer until
// the same click had no effect twice, then the large ones answer; the
// large Decision model confirms the milestone done. The scripted model
// records which model each request asked for; the result and the eval
// row carry calls and tokens per model.
func TestCascadeEscalatesAfterRepeatedNoEffect(t *testing.T) {
	t.Parallel() // its own server (enginetest.Start); much of it waits
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{"multiply": {
		Steps: []scripted.Step{click("1"), click("2"), done(map[string]any{"product": "12"})},
		// The first click has no effect twice (workflow steps 1 and 2).
		Reflections: []string{"no_effect", "no_effect"},
	}}})
	cfg := env.ModelConfig()
	cfg.ProfilesFile = filepath.Join(t.TempDir(), "profiles.json")
	if err := os.WriteFile(cfg.ProfilesFile, []byte(cascadeProfiles), 0o600); err != nil {
		t.Fatal(err)
	}
	dev := fakedevice.New("1", "2")
	env.Serve("desktop", env.Activities(dev, "desktop", cfg), true)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := env.Run(ctx, "cascade", mustPlan(t, `task "t" {
  max_steps = 12
  loop      = "sequential"
  profiles {
    decision   = { small = "decide-small", large = "decide-large" }
    reflection = { small = "judge-small", large = "judge-large" }
  }
  subtask "multiply" {
    instruction = "type 12"
    output "product" {}
  }
}`), workflows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != workflows.ReasonSuccess {
		t.Fatalf("reason = %s (%s)", res.Reason, res.Error)
	}
	// Who answered each request, by role and workflow step.
	got := map[string][]string{}
	for _, r := range env.Model.Requests() {
		if r.Role == agent.RoleDecision || r.Role == agent.RoleReflection {
			got[r.Role] = append(got[r.Role], r.Model)
		}
	}
	want := map[string][]string{
		// Steps 1 and 2 small; step 3 (after two no_effect) large; step 4
		// large too (the same click three times in a row); step 5 small
		// again, then its done confirmed by the large model.
		agent.RoleDecision:   {"small-decider", "small-decider", "large-decider", "large-decider", "small-decider", "large-decider"},
		agent.RoleReflection: {"small-judge", "small-judge", "large-judge", "small-judge"},
	}
	for role, w := range want {
		if !equal(got[role], w) {
			t.Errorf("%s answered by %q, want %q", role, got[role], w)
		}
	}
	by := res.Usage.ByModel
	for _, m := range []string{"small-decider", "large-decider", "small-judge", "large-judge"} {
		if by[m].Calls == 0 || by[m].PromptTokens == 0 {
			t.Errorf("usage of %s = %+v, want its calls and tokens", m, by[m])
		}
	}
	if by["large-decider"].Calls != 3 || by["small-decider"].Calls != 3 {
		t.Errorf("decision calls by model = %+v, want 3 small and 3 large", by)
	}
	row := report.RowOf(workflows.SuiteRun{Key: "cascade", Status: workflows.StatusSucceeded, Result: res})
	if row.Models["large-judge"].Calls != 1 || row.Models["small-judge"].Calls != 3 {
		t.Errorf("eval row's models = %+v, want the reflection calls of each model", row.Models)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
