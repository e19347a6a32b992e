package main

import (
	"strings"
	"testing"
)

// TestSensitiveVarOnCommandLineWarns: a sensitive value given with --var
// is visible in ps; pcflow says so and how to give it instead.
func TestSensitiveVarOnCommandLineWarns(t *testing.T) {
	code, _, errs := runCLI(t, "validate", "../specs/testdata/valid/parallel.hcl", "--var", "password=topsecret")
	if code != 0 || !strings.Contains(errs, "warning: --var password") || !strings.Contains(errs, "PCFLOW_VAR_password") || strings.Contains(errs, "topsecret") {
		t.Errorf("validate --var password=… = %d, %q; want a warning naming --var-file and PCFLOW_VAR_password", code, errs)
	}
	if _, _, errs := runCLI(t, "validate", "../specs/testdata/valid/parallel.hcl", "--var", "password=ab"); !strings.Contains(errs, "of 2 characters is masked") {
		t.Errorf("validate with a 2-character secret: %q, want a warning that it masks ordinary text", errs)
	}
	if _, _, errs := runCLI(t, "validate", "../specs/testdata/valid/parallel.hcl"); strings.Contains(errs, "warning: --var") {
		t.Errorf("validate without --var warned: %q", errs)
	}
}
