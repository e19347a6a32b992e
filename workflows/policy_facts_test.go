package workflows_test

import (
	"testing"

	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/workflows"
)

// TestPolicyUsesDeviceFacts: the gate decides on the facts the device
// computed in Decide (the element the click targets, the application in
// front), completed with the task's name of the device, so a rule limited
// to a device applies there.
func TestPolicyUsesDeviceFacts(t *testing.T) {
	p := plan.WithOperator(nil, &plan.Policy{Source: "--policy ops.hcl", Rules: []plan.PolicyRule{
		{Name: "not here", Devices: []string{"desktop"}, Target: "^Delete$", Role: "push button", Decision: plan.PolicyDeny},
	}})
	env, dev, run := personRun(t, "facts-1", []scripted.Step{click("Delete"), click("Archive"), done(nil)}, p, "Delete", "Archive")
	res := result(t, run)
	if res.Reason != workflows.ReasonSuccess {
		t.Fatalf("run = %s (%s)", res.Reason, res.Error)
	}
	if got := kinds(dev.Actions()); got["Delete"] != 0 || got["Archive"] != 1 {
		t.Errorf("device ran %v, want Archive only (the rule on device desktop denies Delete)", got)
	}
	// The agent is told which policy denied it: the operator's.
	if len(told(env, "decision", `the policy's rule "not here" (--policy ops.hcl) denies it`)) == 0 {
		t.Error("the next decision was not told the rule and the policy it comes from")
	}
}
