package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestEvalTaskMachine runs, under the overlay sandbox and then the bind
// sandbox, a task that expects OSWorld's machine (home folder /home/user,
// user "user") and a second one after it on the same device. The first's
// setup starts a server on 127.0.0.1:8099 and runs git config --global;
// its command checks reach the server (CI: under overlay the task's
// loopback interface was down, curl exited 7), read ~/.gitconfig in
// /home/user (the overlay showed /home empty and read-only), find the
// account, and find the applications' settings folders in the home
// folder (they were under /tmp/pcflow-xdg-N-…). The second finds the home
// folder again, writable and empty.
func TestEvalTaskMachine(t *testing.T) {
	t.Parallel() // its own desktops, state folders and ports (see newWorld)
	if os.Geteuid() != 0 {
		t.Skip("the overlay sandbox mounts an overlay file system: needs root")
	}
	for _, p := range []string{"/usr/bin/python3", "curl", "git", "ip"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("needs %s", p)
		}
	}
	for _, sandbox := range []string{"overlay", "bind"} {
		w := newEvalWorld(t)
		_, out := w.pcflow(w.flags("eval", "cli/testdata/eval_machine", "--devices", "1", "--out", w.out, "--no-report", "--sandbox", sandbox)...)
		r := readResults(t, w.out)
		if len(r.Runs) != 2 {
			t.Fatalf("%s: %d runs, want 2:\n%s", sandbox, len(r.Runs), out)
		}
		for _, row := range r.Runs {
			if sandbox == "bind" && row.Key == "a_home" {
				// The bind sandbox shows the host's users (no account
				// "user" here, unless the host has one): the home folder
				// and its settings folders are the task's own.
				others := strings.Count(row.Error, "check ") - strings.Count(row.Error, "check account failed")
				if row.Status != "succeeded" && (others > 0 || !strings.Contains(row.Error, "check account failed")) {
					t.Errorf("%s: %s: %s (%s): %s; want it to pass but for the account", sandbox, row.Key, row.Status, row.Reason, row.Error)
				}
				continue
			}
			if row.Status != "succeeded" {
				t.Errorf("%s: %s: %s (%s): %s", sandbox, row.Key, row.Status, row.Reason, row.Error)
			}
		}
	}
}
