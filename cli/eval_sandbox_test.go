package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalOverlaySandbox runs a suite whose first task writes into /etc,
// /root and /usr and looks for the host: in the overlay sandbox its
// command checks find neither a file the test put in the host's /tmp, nor
// the repository, nor a process outside the device, and the next task on
// the same device finds none of the first one's writes. The control: the
// bind sandbox, which shows the host but for a /tmp of the device's own,
// fails the same checks but that one.
func TestEvalOverlaySandbox(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	if os.Geteuid() != 0 {
		t.Skip("the overlay sandbox mounts an overlay file system: needs root")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	const marker = "/tmp/pcflow-host-marker"
	if err := os.WriteFile(marker, []byte("host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	proc := exec.Command("bash", "-c", "exec -a pcflow-host-marker sleep 600")
	if err := proc.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		proc.Process.Kill()
		proc.Wait()
		os.Remove(marker)
		// The bind control writes these on the host.
		for _, f := range []string{"/etc/pcflow-left", "/root/pcflow-left", "/usr/pcflow-left"} {
			os.Remove(f)
		}
	})

	w := newEvalWorld(t)
	code, out := w.pcflow(w.flags("eval", "cli/testdata/eval_isolation", "--var", "repo="+repo, "--devices", "1", "--out", w.out, "--no-report", "--sandbox", "overlay")...)
	if code != 0 {
		t.Fatalf("overlay: eval exited %d:\n%s", code, out)
	}
	r := readResults(t, w.out)
	for _, row := range r.Runs {
		if row.Status != "succeeded" {
			t.Errorf("overlay: %s: %s (%s): %s", row.Key, row.Status, row.Reason, row.Error)
		}
	}
	if len(r.Runs) == 2 && r.Runs[0].Devices["desktop"] != r.Runs[1].Devices["desktop"] {
		t.Errorf("overlay: the tasks ran on %v and %v, want one device", r.Runs[0].Devices, r.Runs[1].Devices)
	}
	logs, _ := filepath.Glob(filepath.Join(w.state, "suites", "*", "*", "worker.log"))
	restarted := false
	for _, f := range logs {
		b, _ := os.ReadFile(f)
		restarted = restarted || strings.Contains(string(b), "restarted: worker ready")
	}
	if !restarted {
		t.Errorf("overlay: no worker log (%v) says the sandbox was restarted after the reset", logs)
	}
	if _, err := os.Stat("/etc/pcflow-left"); err == nil {
		t.Errorf("overlay: the task's write to /etc reached the host")
	}

	// The control: the bind sandbox shares the host's file system
	// (but /tmp, its own per device) and processes.
	w = newEvalWorld(t)
	_, out = w.pcflow(w.flags("eval", "cli/testdata/eval_isolation", "--var", "repo="+repo, "--devices", "1", "--out", w.out, "--no-report", "--sandbox", "bind")...)
	r = readResults(t, w.out)
	if len(r.Runs) != 2 {
		t.Fatalf("bind: %d runs, want 2:\n%s", len(r.Runs), out)
	}
	for _, check := range []string{"no_repo", "no_host_process"} {
		if !strings.Contains(r.Runs[0].Error, "check "+check+" failed") {
			t.Errorf("bind: %s's error = %q, want check %s failed", r.Runs[0].Key, r.Runs[0].Error, check)
		}
	}
	// A /tmp of the device's own: two devices on one host running the
	// same task file must not meet there (LibreOffice's instance socket).
	if strings.Contains(r.Runs[0].Error, "check no_host_tmp failed") {
		t.Errorf("bind: the device sees the host's /tmp: %s", r.Runs[0].Error)
	}
	if row := r.Runs[1]; row.Status != "failed" || !strings.Contains(row.Error, "etc_clean") {
		t.Errorf("bind: %s = %s (%s), want failed on etc_clean", row.Key, row.Status, row.Error)
	}
}

// TestEvalTerminalTasksInOverlay runs OSWorld-style OS tasks one after the
// other on one device in the overlay sandbox: the agent makes a folder in
// the home folder from a terminal, sets git's global user name from a
// terminal, and the third task finds neither (CI: no terminal ever opened
// a window in the overlay sandbox: xterm could neither hand its terminal
// to the tty group nor set its shell's groups without capabilities).
func TestEvalTerminalTasksInOverlay(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	if os.Geteuid() != 0 {
		t.Skip("the overlay sandbox mounts an overlay file system: needs root")
	}
	w := newEvalWorld(t)
	code, out := w.pcflow(w.flags("eval", "cli/testdata/eval_terminal", "--devices", "1", "--out", w.out, "--no-report", "--sandbox", "overlay")...)
	if code != 0 {
		t.Fatalf("eval exited %d:\n%s", code, out)
	}
	r := readResults(t, w.out)
	if len(r.Runs) != 3 {
		t.Fatalf("%d runs, want 3:\n%s", len(r.Runs), out)
	}
	for _, row := range r.Runs {
		if row.Status != "succeeded" {
			t.Errorf("%s: %s (%s): %s", row.Key, row.Status, row.Reason, row.Error)
		}
	}
}
