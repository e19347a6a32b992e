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
	Script   string   `json:"script,omitempty"`
	Profile  string   `json:"profile,omitempty"` // --profile, so the resumed Decision agent speaks the same way
	// RoleProfiles are the --profile ROLE=NAME given, for the same reason.
	RoleProfiles map[string]string `json:"role_profiles,omitempty"`
	Started      string            `json:"started"`
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
