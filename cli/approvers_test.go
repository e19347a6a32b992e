package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestApproverList: the operator's approvers come from --approvers, else
// $PCFLOW_APPROVERS, else STATE/approvers; a malformed entry is refused
// with what to write.
func TestApproverList(t *testing.T) {
	state := t.TempDir()
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if got, _, err := approverList("", getenv, state); err != nil || got != nil {
		t.Errorf("no configuration: approverList = %q, %v; want none (anyone)", got, err)
	}
	if err := os.WriteFile(filepath.Join(state, "approvers"), []byte("# who may approve\nfay=1001\n\ngus # on call\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, src, err := approverList("", getenv, state)
	if err != nil || cmp.Diff([]string{"fay=1001", "gus"}, got) != "" || src != filepath.Join(state, "approvers") {
		t.Errorf("approvers file: approverList = %q from %q, %v", got, src, err)
	}
	env[approversEnv] = "hal, ida=0"
	if got, src, _ := approverList("", getenv, state); cmp.Diff([]string{"hal", "ida=0"}, got) != "" || src != "$PCFLOW_APPROVERS" {
		t.Errorf("$PCFLOW_APPROVERS: approverList = %q from %q", got, src)
	}
	if got, src, _ := approverList("jo", getenv, state); cmp.Diff([]string{"jo"}, got) != "" || src != "--approvers" {
		t.Errorf("--approvers: approverList = %q from %q", got, src)
	}
	for _, bad := range []string{"fay=", "fay=abc", "fay@host", "=1001", "two words"} {
		if _, _, err := approverList(bad, getenv, state); err == nil || !strings.Contains(err.Error(), "NAME=UID") {
			t.Errorf("approverList(%q) = %v, want it refused saying what to write", bad, err)
		}
	}
}
