package main

import (
	"strings"
	"testing"

	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/workflows"
)

// TestSuiteMachine: the suite's local devices give every task one home
// folder and user, so tasks that expect different ones are refused, by
// name; tasks that expect none run with the others'.
func TestSuiteMachine(t *testing.T) {
	dev := func(home, user string) plan.Plan {
		return plan.Plan{Devices: []plan.Device{{Name: "desktop", Platform: "linux", Home: home, User: user}}}
	}
	st := &compiledSuite{
		tasks: []workflows.SuiteTask{{Key: "plain", PlanHash: "p"}, {Key: "osworld", PlanHash: "o"}, {Key: "again", PlanHash: "o"}},
		plans: map[string]plan.Plan{"p": dev("", ""), "o": dev("/home/user", "user")},
	}
	home, user, err := suiteMachine(st)
	if err != nil || home != "/home/user" || user != "user" {
		t.Errorf("suiteMachine = %q, %q, %v; want /home/user, user", home, user, err)
	}
	st.tasks = append(st.tasks, workflows.SuiteTask{Key: "other", PlanHash: "x"})
	st.plans["x"] = dev("/home/alice", "alice")
	if _, _, err := suiteMachine(st); err == nil || !strings.Contains(err.Error(), "osworld") || !strings.Contains(err.Error(), "other") {
		t.Errorf("suiteMachine(two homes) = %v, want an error naming osworld and other", err)
	}
}
