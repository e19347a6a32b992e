package main

import (
	"flag"
	"io"
	"strings"
	"testing"
)

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
	if m.profile != "uitars-1.5" {
		t.Errorf("Decision profile = %q, want uitars-1.5", m.profile)
	}
	roles, err := m.roleProfiles(e)
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

	if _, _, err := parse(nil, "--profile", "planner=qwen3-vl"); err == nil || !strings.Contains(err.Error(), "decision, reflection, progress and manager") {
		t.Errorf("--profile planner=… = %v, want the roles listed", err)
	}
	m, e, _ = parse(nil, "--profile", "progress=qwen9")
	if _, err := m.roleProfiles(e); err == nil || !strings.Contains(err.Error(), "progress") || !strings.Contains(err.Error(), "qwen9") {
		t.Errorf("--profile progress=qwen9 = %v, want an unknown-profile error naming the agent", err)
	}
	m, e, _ = parse(nil, "--profile", "reflection=anthropic-computer")
	if _, err := m.roleProfiles(e); err == nil || !strings.Contains(err.Error(), "only the Decision agent") {
		t.Errorf("--profile reflection=anthropic-computer = %v, want a refusal", err)
	}
}
