package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/agents"
	"github.com/pcflow/pcflow/activities/agents/profile"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/artifacts"
)

// modelFlags select the model: a real endpoint when OPENAI_API_KEY is set,
// else the scripted model playing a script.
type modelFlags struct {
	script  string
	replay  string
	record  bool
	profile string
	// roles are --profile ROLE=NAME for the agents besides Decision.
	roles map[string]string
}

// setProfile takes one --profile: NAME (the Decision agent's) or
// ROLE=NAME.
func (m *modelFlags) setProfile(v string) error {
	role, name, ok := strings.Cut(v, "=")
	if !ok {
		m.profile = v
		return nil
	}
	role = strings.ToLower(strings.TrimSpace(role))
	if err := agents.CheckRoleProfile(role, profile.Profile{}); err != nil {
		return err
	}
	if role == agent.RoleDecision {
		m.profile = name
		return nil
	}
	if m.roles == nil {
		m.roles = map[string]string{}
	}
	m.roles[role] = name
	return nil
}

// roleProfiles resolves the profiles of the agents besides Decision:
// --profile ROLE=NAME, else $PCFLOW_PROFILE_ROLE (REFLECTION, PROGRESS,
// MANAGER); nil when none is chosen.
func (m *modelFlags) roleProfiles(e *env) (map[string]profile.Profile, error) {
	var out map[string]profile.Profile
	var set *profile.Set
	for _, role := range agents.ProfileRoles {
		name := m.roles[role]
		if name == "" {
			name = e.getenv("PCFLOW_PROFILE_" + strings.ToUpper(role))
		}
		if name == "" {
			continue
		}
		if set == nil {
			var err error
			if set, err = profile.Load(e.getenv("PCFLOW_PROFILES")); err != nil {
				return nil, err
			}
		}
		p, err := set.Get(name)
		if err != nil {
			return nil, fmt.Errorf("the %s agent's profile: %w", role, err)
		}
		if err := agents.CheckRoleProfile(role, p); err != nil {
			return nil, err
		}
		if out == nil {
			out = map[string]profile.Profile{}
		}
		out[role] = p
	}
	return out, nil
}

func (m *modelFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&m.script, "script", "", "play the scripted-model `FILE` instead of calling a real model (default when OPENAI_API_KEY is unset: TASK.script.json beside the task)")
	fs.StringVar(&m.replay, "replay", "", "drive the model from the exchanges recorded by the run `RUN` (see --record)")
	fs.BoolVar(&m.record, "record", false, "record every model request and answer as artifacts, for --replay")
	fs.Func("profile", "the Decision model's profile `NAME` (protocol, coordinates, image size, answer format; default $PCFLOW_PROFILE, else openai-tools), or ROLE=NAME for the reflection, progress or manager agent (default $PCFLOW_PROFILE_ROLE, else openai-tools; repeatable); user profiles come from the JSON file $PCFLOW_PROFILES", m.setProfile)
}

// chosenProfile resolves the profile named by --profile or
// $PCFLOW_PROFILE, with user profiles from $PCFLOW_PROFILES; ok is false
// when none was chosen.
func (m *modelFlags) chosenProfile(e *env) (p profile.Profile, ok bool, err error) {
	name := m.profile
	if name == "" {
		name = e.getenv("PCFLOW_PROFILE")
	}
	if name == "" {
		return p, false, nil
	}
	set, err := profile.Load(e.getenv("PCFLOW_PROFILES"))
	if err != nil {
		return p, false, err
	}
	p, err = set.Get(name)
	return p, err == nil, err
}

// profilesLine says which profile each agent the task's profiles block
// names speaks, and where that came from: the task file, or this
// process's own --profile / environment, which wins (remote workers: their
// own).
func profilesLine(cfg agents.Config, task map[string]string, remote bool) string {
	var parts []string
	for _, role := range append([]string{agent.RoleDecision}, agents.ProfileRoles...) {
		name, ok := task[role]
		if !ok {
			continue
		}
		own := cfg.Roles[role].Name
		if role == agent.RoleDecision {
			own = cfg.Profile.Name
		}
		switch {
		case remote:
			parts = append(parts, fmt.Sprintf("%s %s (task file, unless its worker has its own)", role, name))
		case own != "" && own != name:
			parts = append(parts, fmt.Sprintf("%s %s (--profile or environment; the task file's %s is not used)", role, own, name))
		default:
			parts = append(parts, fmt.Sprintf("%s %s (task file)", role, name))
		}
	}
	return "profiles: " + strings.Join(parts, ", ")
}

// model returns the agents config and, for a script, the running scripted
// server (close it when done).
func (m *modelFlags) model(e *env, specPath string) (agents.Config, *scripted.Server, error) {
	cfg := agents.ConfigFromEnv(e.getenv)
	prof, chosen, err := m.chosenProfile(e)
	if err != nil {
		return cfg, nil, err
	}
	if chosen {
		cfg.Profile = prof
	}
	if cfg.Roles, err = m.roleProfiles(e); err != nil {
		return cfg, nil, err
	}
	script := m.script
	if script == "" && cfg.APIKey != "" {
		// Before the first step: an unreachable endpoint is said now, not
		// after minutes of retries.
		return cfg, nil, agents.New(cfg).Check(context.Background(), 15*time.Second)
	}
	if script == "" && specPath != "" {
		guess := strings.TrimSuffix(specPath, filepath.Ext(specPath)) + ".script.json"
		if _, err := os.Stat(guess); err == nil {
			script = guess
		}
	}
	if script == "" {
		return cfg, nil, fmt.Errorf("no model: set OPENAI_API_KEY (and OPENAI_BASE_URL, PCFLOW_MODEL for other endpoints), or pass --script FILE to play a scripted model")
	}
	s, err := scripted.Load(script)
	if err != nil {
		return cfg, nil, err
	}
	srv := scripted.New(s)
	if chosen {
		srv.SetProfile(prof)
	}
	if err := srv.Start("127.0.0.1:0"); err != nil {
		return cfg, nil, err
	}
	cfg.BaseURL, cfg.APIKey, cfg.AnthropicAPIKey = srv.URL, "scripted", ""
	cfg.DecisionModel, cfg.ReflectionModel, cfg.ProgressModel, cfg.ManagerModel = "scripted", "scripted", "scripted", "scripted"
	return cfg, srv, nil
}

// replayModel serves the exchanges recorded by an earlier run.
func (m *modelFlags) replayModel(ctx context.Context, e *env, g *engine, state string) (agents.Config, *scripted.Server, error) {
	cfg := agents.ConfigFromEnv(e.getenv)
	t, err := readRun(ctx, g.client, m.replay, true)
	if err != nil {
		return cfg, nil, err
	}
	refs := t.exchanges()
	if len(refs) == 0 {
		return cfg, nil, fmt.Errorf("run %s recorded no model exchanges: run it with --record (or PCFLOW_RECORD=1)", m.replay)
	}
	store := artifacts.Dir{Root: filepath.Join(state, "artifacts")}
	var recs []scripted.Recorded
	for _, ref := range refs {
		b, err := store.Get(ref)
		if err != nil {
			return cfg, nil, fmt.Errorf("recorded exchange of run %s: %w (replay on the machine that recorded it)", m.replay, err)
		}
		var r scripted.Recorded
		if err := json.Unmarshal(b, &r); err != nil {
			return cfg, nil, fmt.Errorf("recorded exchange %s: %w", ref, err)
		}
		recs = append(recs, r)
	}
	srv := scripted.NewReplay(recs)
	if err := srv.Start("127.0.0.1:0"); err != nil {
		return cfg, nil, err
	}
	cfg.BaseURL, cfg.APIKey = srv.URL, "replay"
	return cfg, srv, nil
}

func cmdModel(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 || args[0] != "serve" {
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
			fmt.Fprintln(e.stdout, "Usage: pcflow model serve --script FILE [--addr 127.0.0.1:8090]\n\nServe the scripted OpenAI-compatible model: point OPENAI_BASE_URL at it.")
			return 0
		}
		fmt.Fprintln(e.stderr, "pcflow model: usage: pcflow model serve --script FILE [--addr HOST:PORT]")
		return 2
	}
	fs := newFlags(e, "model serve", "--script FILE [--addr HOST:PORT]", "Serve the scripted OpenAI-compatible model, for workers on other machines or for\ntrying a script by hand: OPENAI_BASE_URL=http://ADDR/v1.")
	script := fs.String("script", "", "script `FILE` (JSON)")
	addr := fs.String("addr", "127.0.0.1:8090", "listen address `HOST:PORT`")
	if _, code := parseFlags(fs, args[1:]); code >= 0 {
		return code
	}
	if *script == "" {
		fmt.Fprintln(e.stderr, "pcflow model serve: --script FILE is required")
		return 2
	}
	s, err := scripted.Load(*script)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow model serve:", err)
		return 1
	}
	srv := scripted.New(s)
	if err := srv.Start(*addr); err != nil {
		fmt.Fprintln(e.stderr, "pcflow model serve:", err)
		return 1
	}
	defer srv.Close()
	fmt.Fprintf(e.stdout, "scripted model at %s (OPENAI_BASE_URL=%s)\n", srv.URL, srv.URL)
	<-ctx.Done()
	return 0
}
