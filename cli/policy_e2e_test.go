package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestOperatorPolicyOnDesktop: the operator's --policy allows only the
// calculator; the task's own policy, which allows everything, cannot lift
// that. The agent's attempt to start the text editor is denied on the
// facts the device reads (open_app names the program it starts), the
// agent goes on in the calculator (its class, Galculator, is allowed) and
// the run succeeds with no editor on the screen.
func TestOperatorPolicyOnDesktop(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	w := newWorld(t)
	code, out := w.pcflow(w.flags("run", "cli/testdata/policy/calculator.hcl", "--display", w.display,
		"--policy", "cli/testdata/policy/only_calculator.hcl")...)
	if code != 0 {
		t.Fatalf("pcflow run = %d\n%s", code, out)
	}
	for _, want := range []string{"SUCCEEDED (success)", `product="84"`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`step 1/15\s+open_app mousepad\s+→ denied`).MatchString(out) {
		t.Errorf("output does not show step 1 (open_app mousepad) denied:\n%s", out)
	}
	c := exec.Command("xprop", "-root", "_NET_CLIENT_LIST")
	c.Env = append(os.Environ(), "DISPLAY="+w.display)
	ids, _ := c.Output()
	for _, id := range strings.Fields(strings.NewReplacer(",", " ").Replace(string(ids))) {
		if !strings.HasPrefix(id, "0x") {
			continue
		}
		c := exec.Command("xprop", "-id", id, "WM_CLASS")
		c.Env = append(os.Environ(), "DISPLAY="+w.display)
		if cls, _ := c.Output(); strings.Contains(strings.ToLower(string(cls)), "mousepad") {
			t.Errorf("a Mousepad window is open (%s): the denied open_app ran", strings.TrimSpace(string(cls)))
		}
	}
}
