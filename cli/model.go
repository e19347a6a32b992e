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
	"github.com/pcflow/pcflow/activities/x11"
	"github.com/pcflow/pcflow/specs/plan"
)

// modelSpecEnv carries a modelSpec (JSON) from a process to the device
// workers it starts: the one encoding of the model configuration between
// processes. It never holds a key.
const modelSpecEnv = "PCFLOW_MODEL_SPEC"

// scriptedKey is the API key sent to pcflow's own model servers (scripted
// and replay): never a real key.
const scriptedKey = "scripted"

// modelSpec is pcflow's one model configuration: which model answers (a
// real endpoint, the scripted model playing a script, or the exchanges of
// an earlier run replayed), in which profile each agent is spoken to, and
// whether exchanges are recorded. Every command that talks to a model —
// run, resume, eval, eval resume, worker, calibrate, model serve — resolves
// it with resolveModel; run and suite records store it; device workers get
// it in $PCFLOW_MODEL_SPEC. Keys stay in the environment (OPENAI_API_KEY,
// ANTHROPIC_API_KEY) and are never part of it.
type modelSpec struct {
	// Script is the script file the scripted model plays.
	Script string `json:"script,omitempty"`
	// Replay is the run (or suite run) whose recorded exchanges answer.
	Replay string `json:"replay,omitempty"`
	// Record keeps every request and answer as artifacts, for Replay.
	Record bool `json:"record,omitempty"`
	// Profile is the Decision agent's profile; Roles the other agents'.
	Profile string            `json:"profile,omitempty"`
	Roles   map[string]string `json:"roles,omitempty"`
	// LatencyMS makes the scripted model answer after this delay.
	LatencyMS int `json:"latency_ms,omitempty"`
	// Served is the base URL of a scripted or replay server another pcflow
	// process runs for this one (a device worker of `pcflow eval`): use it,
	// with no real key, instead of starting one.
	Served string `json:"served,omitempty"`
}

// modelFlags are the command-line flags that fill a modelSpec.
type modelFlags struct {
	spec modelSpec
}

// setProfile takes one --profile: NAME (the Decision agent's) or
// ROLE=NAME.
func (m *modelFlags) setProfile(v string) error {
	role, name, ok := strings.Cut(v, "=")
	if !ok {
		m.spec.Profile = v
		return nil
	}
	role = strings.ToLower(strings.TrimSpace(role))
	if err := agents.CheckRoleProfile(role, profile.Profile{}); err != nil {
		return err
	}
	if role == agent.RoleDecision {
		m.spec.Profile = name
		return nil
	}
	if m.spec.Roles == nil {
		m.spec.Roles = map[string]string{}
	}
	m.spec.Roles[role] = name
	return nil
}

func (m *modelFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&m.spec.Script, "script", "", "play the scripted-model `FILE` instead of calling a real model (default when OPENAI_API_KEY is unset: TASK.script.json beside the task)")
	fs.StringVar(&m.spec.Replay, "replay", "", "drive the model from the exchanges recorded by the run (or suite run) `RUN` (see --record): no model is called")
	fs.BoolVar(&m.spec.Record, "record", false, "record every model request and answer as artifacts, for --replay")
	fs.Func("profile", "the Decision model's profile `NAME` (protocol, coordinates, image size, answer format; default $PCFLOW_PROFILE, else openai-tools), or ROLE=NAME for the reflection, progress, manager, judge, user or grounder agent (default $PCFLOW_PROFILE_ROLE, else openai-tools; repeatable); user profiles come from the JSON file $PCFLOW_PROFILES", m.setProfile)
}

// withEnv completes a spec from the environment: $PCFLOW_MODEL_SPEC (what
// a parent pcflow process decided) under the flags given, then
// $PCFLOW_PROFILE, $PCFLOW_PROFILE_ROLE and PCFLOW_RECORD.
func (s modelSpec) withEnv(getenv func(string) string) (modelSpec, error) {
	if v := getenv(modelSpecEnv); v != "" {
		var parent modelSpec
		if err := json.Unmarshal([]byte(v), &parent); err != nil {
			return s, fmt.Errorf("$%s: %w (it is set by pcflow for the workers it starts; unset it)", modelSpecEnv, err)
		}
		if s.Script == "" && s.Replay == "" {
			s.Script, s.Replay, s.Served, s.LatencyMS = parent.Script, parent.Replay, parent.Served, parent.LatencyMS
		}
		if s.Profile == "" {
			s.Profile = parent.Profile
		}
		for role, name := range parent.Roles {
			s.defaultRole(role, name)
		}
		s.Record = s.Record || parent.Record
	}
	if s.Profile == "" {
		s.Profile = getenv("PCFLOW_PROFILE")
	}
	for _, role := range agents.ProfileRoles {
		if name := getenv("PCFLOW_PROFILE_" + strings.ToUpper(role)); name != "" {
			s.defaultRole(role, name)
		}
	}
	s.Record = s.Record || getenv("PCFLOW_RECORD") == "1"
	return s, nil
}

// defaultRole gives role the profile name unless it has one.
func (s *modelSpec) defaultRole(role, name string) {
	if _, ok := s.Roles[role]; ok {
		return
	}
	if s.Roles == nil {
		s.Roles = map[string]string{}
	}
	s.Roles[role] = name
}

// profiles resolves the spec's profile names with ps (the built-ins and
// the user profiles of $PCFLOW_PROFILES), by the rule a worker applies to
// a task's profiles block too (agents.Profiles.Resolve).
func (s modelSpec) profiles(ps *agents.Profiles) (agents.Chosen, error) {
	names := map[string]string{}
	for role, name := range s.Roles {
		names[role] = name
	}
	names[agent.RoleDecision] = s.Profile
	return ps.Resolve(agents.Chosen{}, names, "")
}

// resolvedModel is a resolved modelSpec: the agents' configuration and the
// model server this process runs for it (nil for a real endpoint).
type resolvedModel struct {
	spec modelSpec
	cfg  agents.Config
	srv  *scripted.Server
	// kind says what answers: "endpoint", "scripted" or "replay".
	kind string
}

func (r *resolvedModel) close() {
	if r != nil && r.srv != nil {
		r.srv.Close()
	}
}

// modelOpts are what a command knows beyond the spec.
type modelOpts struct {
	// task is the task file, whose TASK.script.json is played when no key
	// is set and no script is given.
	task string
	// script is a script already loaded (a suite's merged scripts).
	script *scripted.Script
	// exchanges loads the recorded exchanges of spec.Replay.
	exchanges func(id string) ([]scripted.Recorded, error)
	// noCheck skips asking a real endpoint whether it answers.
	noCheck bool
	// scripted plays script even when a key is set (calibrate --scripted).
	scripted bool
	// answerInProfile makes the scripted model answer in the Decision
	// profile even when none was chosen (calibrate).
	answerInProfile bool
}

// resolveModel is the one place a model configuration becomes an agents
// configuration: profiles per role, the endpoint, and — for a script or a
// replay — a model server of this process that the configuration points
// at, with no real key anywhere in it (a scripted run never reaches a real
// endpoint, whatever keys the environment holds).
func resolveModel(e *env, spec modelSpec, o modelOpts) (*resolvedModel, error) {
	spec, err := spec.withEnv(e.getenv)
	if err != nil {
		return nil, err
	}
	if err := agents.CheckEnv(e.getenv); err != nil {
		return nil, err
	}
	r := &resolvedModel{spec: spec, cfg: agents.ConfigFromEnv(e.getenv), kind: "endpoint"}
	// One set of profiles for the process: the workers' clients resolve
	// the tasks' profiles blocks in it, and the file is read once.
	r.cfg.Profiles = agents.NewProfiles(r.cfg.ProfilesFile)
	chosen, err := spec.profiles(r.cfg.Profiles)
	if err != nil {
		return nil, err
	}
	if chosen.Decision.Name != "" {
		r.cfg.Profile = chosen.Decision
	}
	r.cfg.Roles = chosen.Roles
	switch {
	case spec.Served != "":
		r.kind = "scripted"
		if spec.Replay != "" {
			r.kind = "replay"
		}
		r.serve(spec.Served)
		return r, nil
	case spec.Replay != "":
		if o.exchanges == nil {
			return nil, fmt.Errorf("--replay needs the run's history: it is read from the Temporal server the run was on")
		}
		recs, err := o.exchanges(spec.Replay)
		if err != nil {
			return nil, err
		}
		r.srv, r.kind = scripted.NewReplay(recs), "replay"
	default:
		script := o.script
		if script == nil {
			path := spec.Script
			if path == "" && o.scripted {
				script = &scripted.Script{}
			}
			if script == nil && path == "" && r.cfg.APIKey == "" && o.task != "" {
				guess := strings.TrimSuffix(o.task, filepath.Ext(o.task)) + ".script.json"
				if _, err := os.Stat(guess); err == nil {
					path = guess
				}
			}
			if script == nil && path == "" {
				if r.cfg.APIKey == "" {
					return nil, fmt.Errorf("no model: set OPENAI_API_KEY (and OPENAI_BASE_URL, PCFLOW_MODEL for other endpoints), or pass --script FILE to play a scripted model")
				}
				if o.noCheck {
					return r, nil
				}
				// Before the first step: an unreachable endpoint is said
				// now, not after minutes of retries.
				return r, agents.New(r.cfg).Check(context.Background(), 15*time.Second)
			}
			if script == nil {
				s, err := scripted.Load(path)
				if err != nil {
					return nil, err
				}
				r.spec.Script = path
				script = &s
			}
		}
		if spec.LatencyMS > 0 {
			script.LatencyMS = spec.LatencyMS
		}
		r.srv, r.kind = scripted.New(*script), "scripted"
		r.srv.SetOCR(x11.OCR) // the scripted grounder reads the screenshot
		if chosen.Decision.Name != "" || o.answerInProfile {
			r.srv.SetProfile(r.cfg.DecisionProfile())
		}
	}
	if err := r.srv.Start("127.0.0.1:0"); err != nil {
		return nil, err
	}
	r.serve(r.srv.URL)
	return r, nil
}

// serve points every agent, whatever its profile's protocol, at pcflow's
// own model server at url.
func (r *resolvedModel) serve(url string) {
	c := &r.cfg
	c.BaseURL, c.APIKey = url, scriptedKey
	c.AnthropicAPIKey, c.AnthropicBaseURL = "", url
	c.Scripted = r.kind == "scripted"
	if r.kind == "scripted" {
		c.DecisionModel, c.ReflectionModel, c.ProgressModel, c.ManagerModel = "scripted", "scripted", "scripted", "scripted"
	}
}

// childEnv is the environment of a device worker this process starts: the
// spec, pointing at this process's model server when it runs one, and no
// model key when it does (a worker of a scripted suite holds no real key).
// No password either (PCFLOW_DB_PASSWORD): a worker talks to the Temporal
// frontend, never to its database.
func (r *resolvedModel) childEnv(environ []string) []string {
	spec := r.spec
	served := r.srv != nil || spec.Served != ""
	if r.srv != nil {
		spec.Served = r.srv.URL
	}
	b, _ := json.Marshal(spec)
	out := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		if k == modelSpecEnv || served && (k == "OPENAI_API_KEY" || k == "ANTHROPIC_API_KEY") || isPasswordName(k) {
			continue
		}
		out = append(out, kv)
	}
	return append(out, modelSpecEnv+"="+string(b))
}

// isPasswordName reports whether a variable names a password (a model's
// credential is a key or a token, never one).
func isPasswordName(k string) bool {
	u := strings.ToUpper(k)
	return strings.HasSuffix(u, "_PASSWORD") || strings.HasSuffix(u, "_PASSWD")
}

// line says what answers, for the first lines of a command's output.
func (r *resolvedModel) line() string {
	switch r.kind {
	case "scripted":
		return "model: SCRIPTED: answers come from a script, not a real model" + r.profileNote()
	case "replay":
		return fmt.Sprintf("model: REPLAYED from the exchanges recorded by run %s: no model is called", r.spec.Replay)
	}
	return fmt.Sprintf("model: %s at %s%s", r.cfg.DecisionModel, r.cfg.BaseURL, r.profileNote())
}

func (r *resolvedModel) profileNote() string {
	var parts []string
	if r.cfg.Profile.Name != "" {
		parts = append(parts, "decision "+r.cfg.Profile.Name)
	}
	for _, role := range agents.ProfileRoles {
		if p, ok := r.cfg.Roles[role]; ok {
			parts = append(parts, role+" "+p.Name)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (profiles: " + strings.Join(parts, ", ") + ")"
}

// roleProfiles names the profile each agent speaks (openai-tools when none
// was chosen): what results record.
func roleProfiles(cfg agents.Config) map[string]string {
	out := map[string]string{agent.RoleDecision: cfg.DecisionProfile().Name}
	for _, role := range agents.ProfileRoles {
		name := "openai-tools"
		if role == agent.RoleGrounder {
			name = "none" // no grounder unless one is chosen
		}
		if p, ok := cfg.Roles[role]; ok && p.Name != "" {
			name = p.Name
		}
		out[role] = name
	}
	return out
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
		if large := task[plan.LargeProfile(role)]; large != "" {
			name += ", large " + large // a cascade
		}
		own := cfg.Roles[role].Name
		if role == agent.RoleDecision {
			own = cfg.Profile.Name
		}
		switch {
		case remote:
			parts = append(parts, fmt.Sprintf("%s %s (task file, unless its worker has its own)", role, name))
		case own != "" && own != task[role]:
			parts = append(parts, fmt.Sprintf("%s %s (--profile or environment; the task file's %s is not used)", role, own, name))
		default:
			parts = append(parts, fmt.Sprintf("%s %s (task file)", role, name))
		}
	}
	return "profiles: " + strings.Join(parts, ", ")
}

func cmdModel(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 || args[0] != "serve" {
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
			fmt.Fprintln(e.stdout, "Usage: pcflow model serve --script FILE [--addr 127.0.0.1:8090] [--profile NAME]\n\nServe the scripted OpenAI-compatible model: point OPENAI_BASE_URL at it.")
			return 0
		}
		fmt.Fprintln(e.stderr, "pcflow model: usage: pcflow model serve --script FILE [--addr HOST:PORT]")
		return 2
	}
	var mf modelFlags
	fs := newFlags(e, "model serve", "--script FILE [--addr HOST:PORT] [--profile NAME]", "Serve the scripted OpenAI-compatible model, for workers on other machines or for\ntrying a script by hand: OPENAI_BASE_URL=http://ADDR/v1. With --profile it answers\nin that profile's format and coordinates.")
	fs.StringVar(&mf.spec.Script, "script", "", "script `FILE` (JSON)")
	fs.Func("profile", "answer the Decision agent in the profile `NAME` (default $PCFLOW_PROFILE, else openai-tools)", mf.setProfile)
	addr := fs.String("addr", "127.0.0.1:8090", "listen address `HOST:PORT`")
	if _, code := parseFlags(fs, args[1:]); code >= 0 {
		return code
	}
	if mf.spec.Script == "" {
		fmt.Fprintln(e.stderr, "pcflow model serve: --script FILE is required")
		return 2
	}
	spec, err := mf.spec.withEnv(e.getenv)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow model serve:", err)
		return 1
	}
	chosen, err := spec.profiles(agents.NewProfiles(e.getenv("PCFLOW_PROFILES")))
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow model serve:", err)
		return 1
	}
	s, err := scripted.Load(spec.Script)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow model serve:", err)
		return 1
	}
	srv := scripted.New(s)
	srv.SetOCR(x11.OCR)
	if chosen.Decision.Name != "" {
		srv.SetProfile(chosen.Decision)
	}
	if err := srv.Start(*addr); err != nil {
		fmt.Fprintln(e.stderr, "pcflow model serve:", err)
		return 1
	}
	defer srv.Close()
	fmt.Fprintf(e.stdout, "scripted model at %s\nstart workers with: OPENAI_BASE_URL=%s OPENAI_API_KEY=%s PCFLOW_MODEL_SCRIPTED=1 pcflow worker ...\n", srv.URL, srv.URL, scriptedKey)
	<-ctx.Done()
	return 0
}
