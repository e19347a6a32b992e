package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// runRecord is what `pcflow resume` needs to bring a run's local worker back.
type runRecord struct {
	ID       string   `json:"id"`
	Spec     string   `json:"spec"`
	Vars     []string `json:"vars,omitempty"` // non-sensitive --var flags only
	VarFiles []string `json:"var_files,omitempty"`
	Device   string   `json:"device"`
	Display  string   `json:"display,omitempty"`
	// Model is the run's model configuration, so the resumed agents are
	// the same: its script, replay, recording and profiles.
	Model   modelSpec `json:"model"`
	Started string    `json:"started"`
	// Script, Profile and RoleProfiles are what records written before
	// Model held; read only (see model).
	Script       string            `json:"script,omitempty"`
	Profile      string            `json:"profile,omitempty"`
	RoleProfiles map[string]string `json:"role_profiles,omitempty"`
}

// model is the record's model configuration, from the fields an older
// record held when it has no Model.
func (r runRecord) model() modelSpec {
	m := r.Model
	if m.Script == "" && m.Replay == "" {
		m.Script = r.Script
	}
	if m.Profile == "" {
		m.Profile = r.Profile
	}
	if m.Roles == nil {
		m.Roles = r.RoleProfiles
	}
	m.Served = ""
	return m
}

func recordPath(state, id string) string {
	return filepath.Join(state, "runs", strings.ReplaceAll(id, "/", "_")+".json")
}

func saveRecord(state string, r runRecord) error {
	if err := os.MkdirAll(filepath.Join(state, "runs"), 0o755); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(r, "", "  ")
	return os.WriteFile(recordPath(state, r.ID), b, 0o644)
}

func loadRecord(state, id string) (runRecord, error) {
	var r runRecord
	b, err := os.ReadFile(recordPath(state, id))
	if err != nil {
		return r, fmt.Errorf("no record of run %q in %s (list runs with `pcflow status`)", id, state)
	}
	return r, json.Unmarshal(b, &r)
}
