package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcflow/pcflow/activities/agents"
	"github.com/pcflow/pcflow/activities/agents/profile"
)

func roleProfilesOf(m *modelFlags, e *env) (map[string]profile.Profile, error) {
	s, err := m.spec.withEnv(e.getenv)
	if err != nil {
		return nil, err
	}
	chosen, err := s.profiles(agents.NewProfiles(e.getenv("PCFLOW_PROFILES")))
	return chosen.Roles, err
}

// TestRoleProfileFlags: --profile NAME is the Decision agent's, --profile
// ROLE=NAME another agent's (over $PCFLOW_PROFILE_ROLE); a wrong role, an
// unknown profile or a computer-use profile for another agent is an error
// that says what to write.
func TestRoleProfileFlags(t *testing.T) {
	parse := func(environ map[string]string, args ...string) (*modelFlags, *env, error) {
		var m modelFlags
		fs := flag.NewFlagSet("run", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		m.register(fs)
		e := &env{getenv: func(k string) string { return environ[k] }}
		return &m, e, fs.Parse(args)
	}
	m, e, err := parse(map[string]string{"PCFLOW_PROFILE_MANAGER": "qwen3-vl", "PCFLOW_PROFILE_PROGRESS": "gemini"},
		"--profile", "uitars-1.5", "--profile", "reflection=qwen2.5-vl", "--profile", "Progress=qwen2.5-vl")
	if err != nil {
		t.Fatal(err)
	}
	if m.spec.Profile != "uitars-1.5" {
		t.Errorf("Decision profile = %q, want uitars-1.5", m.spec.Profile)
	}
	roles, err := roleProfilesOf(m, e)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for r, p := range roles {
		got[r] = p.Name
	}
	want := map[string]string{"reflection": "qwen2.5-vl", "progress": "qwen2.5-vl", "manager": "qwen3-vl"}
	for r, n := range want {
		if got[r] != n {
			t.Errorf("%s's profile = %q, want %q (flags over $PCFLOW_PROFILE_ROLE)", r, got[r], n)
		}
	}

	if _, _, err := parse(nil, "--profile", "planner=qwen3-vl"); err == nil || !strings.Contains(err.Error(), "decision, reflection, progress, manager") {
		t.Errorf("--profile planner=… = %v, want the roles listed", err)
	}
	m, e, _ = parse(nil, "--profile", "progress=qwen9")
	if _, err := roleProfilesOf(m, e); err == nil || !strings.Contains(err.Error(), "progress") || !strings.Contains(err.Error(), "qwen9") {
		t.Errorf("--profile progress=qwen9 = %v, want an unknown-profile error naming the agent", err)
	}
	m, e, _ = parse(nil, "--profile", "reflection=anthropic-computer")
	if _, err := roleProfilesOf(m, e); err == nil || !strings.Contains(err.Error(), "only the Decision agent") {
		t.Errorf("--profile reflection=anthropic-computer = %v, want a refusal", err)
	}
}

// TestScriptedModelConfigHoldsNoRealEndpoint: resolved for a script, the
// configuration points every protocol (OpenAI and Anthropic) at the
// scripted server with no real key, whatever keys the environment holds;
// the environment a device worker gets carries the same model
// configuration (profiles, recording) and no key; and the worker,
// resolving from it, speaks the same profile to the same server.
func TestScriptedModelConfigHoldsNoRealEndpoint(t *testing.T) {
	script := filepath.Join(t.TempDir(), "s.json")
	if err := os.WriteFile(script, []byte(`{"subtasks":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	environ := map[string]string{"OPENAI_API_KEY": "sk-real", "ANTHROPIC_API_KEY": "sk-ant-real", "OPENAI_BASE_URL": "https://api.example.com/v1"}
	e := &env{getenv: func(k string) string { return environ[k] }}
	spec := modelSpec{Script: script, Profile: "anthropic-computer", Roles: map[string]string{"reflection": "qwen2.5-vl"}, Record: true}
	m, err := resolveModel(e, spec, modelOpts{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.close()
	c := m.cfg
	if c.APIKey != scriptedKey || c.AnthropicAPIKey != "" || c.BaseURL != m.srv.URL || c.AnthropicBaseURL != m.srv.URL || !c.Scripted {
		t.Errorf("scripted config = key %q, anthropic key %q, base %q, anthropic base %q, scripted %v; want only the scripted server %s",
			c.APIKey, c.AnthropicAPIKey, c.BaseURL, c.AnthropicBaseURL, c.Scripted, m.srv.URL)
	}
	child := m.childEnv([]string{"OPENAI_API_KEY=sk-real", "ANTHROPIC_API_KEY=sk-ant-real", "HOME=/root"})
	joined := strings.Join(child, "\n")
	if strings.Contains(joined, "sk-real") || strings.Contains(joined, "sk-ant-real") {
		t.Errorf("a device worker of a scripted run gets a real key: %q", child)
	}
	childEnv := map[string]string{}
	for _, kv := range child {
		k, v, _ := strings.Cut(kv, "=")
		childEnv[k] = v
	}
	we := &env{getenv: func(k string) string { return childEnv[k] }}
	wm, err := resolveModel(we, modelSpec{}, modelOpts{})
	if err != nil {
		t.Fatal(err)
	}
	if wm.srv != nil {
		t.Error("the worker started a model server of its own instead of using its parent's")
	}
	wc := wm.cfg
	if wc.BaseURL != m.srv.URL || wc.APIKey != scriptedKey || wc.AnthropicAPIKey != "" || wc.Profile.Name != "anthropic-computer" ||
		wc.Roles["reflection"].Name != "qwen2.5-vl" || !wm.spec.Record || !wc.Scripted {
		t.Errorf("the worker resolved base %q key %q anthropic key %q profile %q reflection %q record %v scripted %v; want its parent's model",
			wc.BaseURL, wc.APIKey, wc.AnthropicAPIKey, wc.Profile.Name, wc.Roles["reflection"].Name, wm.spec.Record, wc.Scripted)
	}
	if got := roleProfiles(wc); got["decision"] != "anthropic-computer" || got["reflection"] != "qwen2.5-vl" || got["progress"] != "openai-tools" {
		t.Errorf("recorded profiles = %v", got)
	}
}
