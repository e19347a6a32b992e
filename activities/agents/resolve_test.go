package agents_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/agents"
)

// TestProfilesResolveOneWayReadOnce: the names a command is given (flags,
// environment: what cli's modelSpec.profiles resolves) and the same names
// in a task's profiles block (what a worker's ForTask resolves) become the
// same profiles; what is resolved first wins on both sides; and the
// profiles file is read once per process — a worker keeps resolving after
// the file is gone.
func TestProfilesResolveOneWayReadOnce(t *testing.T) {
	file := filepath.Join(t.TempDir(), "profiles.json")
	if err := os.WriteFile(file, []byte(`[{"name": "mine", "base": "uitars-1.5", "model": "my-uitars"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	ps := agents.NewProfiles(file)
	for _, names := range []map[string]string{
		{agent.RoleDecision: "mine"},
		{agent.RoleDecision: "gemini", agent.RoleReflection: "qwen2.5-vl", agent.RoleGrounder: "mine"},
		{agent.RoleProgress: "mine", agent.RoleJudge: "", "decision_large": "uitars-1.0"},
	} {
		cli, err := ps.Resolve(agents.Chosen{}, names, "")
		if err != nil {
			t.Fatalf("Resolve(%v) = %v", names, err)
		}
		m, err := agents.New(agents.Config{Profiles: ps}).ForTask(names)
		if err != nil {
			t.Fatalf("ForTask(%v) = %v", names, err)
		}
		got := m.(*agents.Client).Config()
		task := agents.Chosen{Decision: got.Profile, Roles: got.Roles}
		if diff := cmp.Diff(cli, task); diff != "" {
			t.Errorf("names %v: the command's resolution and the task's differ (-command +task):\n%s", names, diff)
		}
	}

	// The worker's own choice (resolved first) wins over the task's, the
	// task's fills in the rest: one rule, both sides.
	own, err := ps.Resolve(agents.Chosen{}, map[string]string{agent.RoleDecision: "gemini", agent.RoleProgress: "mine"}, "")
	if err != nil {
		t.Fatal(err)
	}
	taskNames := map[string]string{agent.RoleDecision: "mine", agent.RoleProgress: "qwen3-vl", agent.RoleManager: "mine"}
	want, err := ps.Resolve(own, taskNames, "the task's profiles block")
	if err != nil {
		t.Fatal(err)
	}
	if want.Decision.Name != "gemini" || want.Roles[agent.RoleProgress].Name != "mine" || want.Roles[agent.RoleManager].Model != "my-uitars" {
		t.Errorf("Resolve over the worker's own = %+v; want decision gemini, progress mine (the worker's), manager mine (the task's)", want)
	}

	// The file goes: a process that read it keeps its profiles; a new one
	// says the file cannot be read.
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	m, err := agents.New(agents.Config{Profiles: ps, Profile: own.Decision, Roles: own.Roles}).ForTask(taskNames)
	if err != nil {
		t.Fatalf("ForTask after the profiles file was removed = %v; want the profiles read once, at the first resolution", err)
	}
	got := m.(*agents.Client).Config()
	if diff := cmp.Diff(want, agents.Chosen{Decision: got.Profile, Roles: got.Roles}); diff != "" {
		t.Errorf("ForTask over the worker's own differs from Resolve (-Resolve +ForTask):\n%s", diff)
	}
	if _, err := agents.NewProfiles(file).Resolve(agents.Chosen{}, taskNames, ""); err == nil || !strings.Contains(err.Error(), "read profiles") {
		t.Errorf("Resolve with a new process's profiles of a removed file = %v; want the read error", err)
	}
	if _, err := agents.New(agents.Config{Profiles: ps}).ForTask(map[string]string{agent.RoleReflection: "openai-computer"}); err == nil || !strings.Contains(err.Error(), `the task's profiles block, reflection = "openai-computer"`) {
		t.Errorf("ForTask(reflection = openai-computer) = %v; want the task's profiles block named", err)
	}
}
