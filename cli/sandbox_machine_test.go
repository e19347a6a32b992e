package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/workflows"
)

// TestOverlaySandboxMachine: an overlay sandbox shows the worker the
// task's network namespace the sandbox's script made (the worker cannot
// bring a loopback interface up itself), and the task's home folder, made
// afresh in the sandbox's memory, over the empty /home — after it, so
// that the folder is not hidden again.
func TestOverlaySandboxMachine(t *testing.T) {
	sb := overlaySandbox{Layers: "/run/pcflow-sandbox/d", Base: "/s/base", Home: "/home/user", User: "user", Command: []string{"w"}}
	a := sb.argv()
	got := strings.Join(a, " ")
	if !strings.Contains(got, " sh /run/pcflow-sandbox/d /s/base /home/user user bwrap ") {
		t.Errorf("the script is not given the layers, base, home and user in order: %s", got)
	}
	if !strings.Contains(got, " --ro-bind /run/pcflow-sandbox/d/net "+taskNetPath+" ") {
		t.Errorf("the task's network namespace is not shown at %s: %s", taskNetPath, got)
	}
	home := slices.Index(a, "/run/pcflow-sandbox/d/home")
	hide := slices.Index(a, "--tmpfs") // the hidden folders come first
	if home < 0 || a[home-1] != "--bind" || a[home+1] != "/home/user" || home < hide || home < slices.Index(a, "/home") {
		t.Errorf("the home folder is not bound over the hidden /home: %s", got)
	}
	if s := (overlaySandbox{Layers: "/l", Command: []string{"w"}}).argv(); slices.Contains(s, "/l/home") {
		t.Errorf("a sandbox with no task home binds one: %s", strings.Join(s, " "))
	}
	for _, want := range []string{"unshare --net=\"$L/net\"", "ip link set lo up", "exit 1", `"$U:x:$id:$gid::$H:/bin/bash"`} {
		if !strings.Contains(overlayScript, want) {
			t.Errorf("the sandbox's script lacks %q", want)
		}
	}
}

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
