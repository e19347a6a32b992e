package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInvalidModelSettingsNamed: model settings the environment gets
// wrong were dropped without a word (the run went on with the defaults);
// each is refused before anything starts, naming the variable.
func TestInvalidModelSettingsNamed(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "k")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
	t.Setenv("PCFLOW_MODEL_TIMEOUT", "-5s")
	t.Setenv("PCFLOW_IMAGE_MAX_SIDE", "abc")
	dir := t.TempDir()
	f := filepath.Join(dir, "t.hcl")
	if err := os.WriteFile(f, []byte("task \"t\" {\n  instruction = \"x\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := runCLI(t, "run", f, "--state", dir)
	for _, want := range []string{`PCFLOW_MODEL_TIMEOUT="-5s" is not a positive duration`, `PCFLOW_IMAGE_MAX_SIDE="abc" is not a positive whole number`} {
		if code != 1 || !strings.Contains(errs, want) {
			t.Errorf("run with invalid model settings = %d, %q; want 1 and %q", code, errs, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "temporal.db")); err == nil {
		t.Error("the run started a server before refusing the settings")
	}
}
