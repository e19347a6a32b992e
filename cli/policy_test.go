package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pcflow/pcflow/specs/plan"
)

// TestPolicyFlagAndEnvironment: the operator's policy file joins the plan
// a run starts with, from --policy or $PCFLOW_POLICY (the flag wins), and
// a broken one stops the command with its location.
func TestPolicyFlagAndEnvironment(t *testing.T) {
	const task = "../specs/testdata/policy/permissive_task.hcl"
	const op = "../specs/testdata/policy/operator.hcl"
	operatorOf := func(args ...string) string {
		t.Helper()
		code, out, errs := runCLI(t, append([]string{"plan", "--json", task}, args...)...)
		if code != 0 {
			t.Fatalf("plan --json %v = %d\n%s", args, code, errs)
		}
		var p plan.Plan
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatal(err)
		}
		if p.Policy == nil || p.Policy.Operator == nil {
			return ""
		}
		if v := p.Policy.Decide(plan.ActionFacts{Kind: "click", App: "firefox"}); v.Decision != plan.PolicyDeny {
			t.Errorf("plan %v: Decide(click in firefox) = %+v, want the operator's deny", args, v)
		}
		return p.Policy.Operator.Source
	}
	if got := operatorOf(); got != "" {
		t.Errorf("without a policy: operator %q, want none", got)
	}
	if got := operatorOf("--policy", op); got != "--policy "+op {
		t.Errorf("--policy: operator %q", got)
	}
	t.Setenv("PCFLOW_POLICY", op)
	if got := operatorOf(); got != "$PCFLOW_POLICY "+op {
		t.Errorf("$PCFLOW_POLICY: operator %q", got)
	}
	t.Setenv("PCFLOW_POLICY", "../specs/testdata/policy/two_blocks.hcl")
	code, _, errs := runCLI(t, "validate", task)
	if code != 1 || !strings.Contains(errs, "two_blocks.hcl:4:1") || !strings.Contains(errs, "Not one policy block") {
		t.Errorf("validate with a broken $PCFLOW_POLICY = %d\n%s", code, errs)
	}
}
