package main

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pcflow/pcflow/internal/report"
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
	repo := overlayRepo(t)
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
// terminal, fills and saves a LibreOffice sheet, and the fourth task finds
// none of it (CI: no terminal ever opened a window in the overlay sandbox:
// xterm could neither hand its terminal to the tty group nor set its
// shell's groups without capabilities). As root the overlay is eval's
// default: the suite runs without --sandbox. With --video, every task's
// recording plays from its report page (CI: under overlay ffmpeg recorded
// nothing: the server offered shared memory its sandbox could not share,
// and the file's path named the worker's own state descriptor).
func TestEvalTerminalTasksInOverlay(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	if os.Geteuid() != 0 {
		t.Skip("the overlay sandbox mounts an overlay file system: needs root")
	}
	w := newEvalWorld(t)
	code, out := w.pcflow(w.flags("eval", "cli/testdata/eval_terminal", "--devices", "1", "--out", w.out, "--video")...)
	if code != 0 {
		t.Fatalf("eval exited %d:\n%s", code, out)
	}
	if !strings.Contains(out, "sandbox: overlay (the default as root") {
		t.Errorf("eval as root did not say it chose the overlay sandbox:\n%s", out)
	}
	r := readResults(t, w.out)
	if r.Repro.Sandbox != "overlay" {
		t.Errorf("results.json records the sandbox %q, want overlay (the default eval chose)", r.Repro.Sandbox)
	}
	if len(r.Runs) != 4 {
		t.Fatalf("%d runs, want 4:\n%s", len(r.Runs), out)
	}
	for _, row := range r.Runs {
		if row.Status != "succeeded" {
			t.Errorf("%s: %s (%s): %s", row.Key, row.Status, row.Reason, row.Error)
		}
		page, err := os.ReadFile(filepath.Join(w.out, "runs", row.Key+".html"))
		if err != nil {
			t.Errorf("%s: no report page: %v", row.Key, err)
			continue
		}
		srcs := regexp.MustCompile(`<video controls preload="metadata" src="\.\./(video/sha256-[0-9a-f]+\.mp4)">`).FindAllStringSubmatch(string(page), -1)
		if len(srcs) == 0 {
			t.Errorf("%s: its report page plays no video", row.Key)
		}
		for _, m := range srcs {
			if n := videoFrames(t, filepath.Join(w.out, m[1])); n < 3 {
				t.Errorf("%s: the report's %s decodes to %d frames, want ≥ 3", row.Key, m[1], n)
			}
		}
	}
}

// TestEvalTerminalTasksInBind runs the terminal and git tasks of
// TestEvalTerminalTasksInOverlay, then the task that must find none of
// their traces, on one device in the bind sandbox: the home folder is the
// device's own, emptied at every reset (the issue: a task's files under
// $HOME and git's global configuration stayed for the next task). The
// host's home folder — a fresh one the test gives eval — gets none of it.
func TestEvalTerminalTasksInBind(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	w := newEvalWorld(t)
	home := t.TempDir()
	c := w.cmd(w.flags("eval", "cli/testdata/eval_terminal", "--devices", "1", "--out", w.out, "--no-report", "--sandbox", "bind",
		"--filter", "terminal_mkdir", "--filter", "git_identity", "--filter", "clean_start")...)
	c.Env = append(c.Env, "HOME="+home)
	b, err := c.CombinedOutput()
	if _, failed := err.(*exec.ExitError); err != nil && !failed {
		t.Fatalf("eval: %v", err)
	}
	r := readResults(t, w.out)
	if r.Repro.Sandbox != "bind" {
		t.Errorf("results.json records the sandbox %q, want bind", r.Repro.Sandbox)
	}
	if len(r.Runs) != 3 || r.Runs[2].Key != "clean_start" {
		t.Fatalf("%d runs, want terminal_mkdir, git_identity, clean_start:\n%s", len(r.Runs), b)
	}
	for _, row := range r.Runs {
		if row.Status != "succeeded" {
			t.Errorf("%s: %s (%s): %s", row.Key, row.Status, row.Reason, row.Error)
		}
	}
	if left, _ := os.ReadDir(home); len(left) > 0 {
		t.Errorf("the tasks wrote into the host's home folder %s: %v", home, left)
	}
}

// TestEvalHostileTask runs tasks that attack from inside their device
// (cli/testdata/eval_hostile). The first ends the window manager through
// the X server: the device starts it again and serves on. In the overlay
// sandbox the second one's forged
// action-log lines and artifacts reach nothing of the host's state
// folder, it reads neither the host's password hashes nor the
// repository, it reaches neither the Temporal frontend, nor the Web UI,
// nor the live view's VNC server, nor that server's password — and its
// calculator still runs and shows its buttons to the device. The same
// task under bind: the test says which attempts bind lets through, and
// at least the frontend must be among them (the checks can fail).
func TestEvalHostileTask(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	repo := overlayRepo(t)
	run := func(sandbox string) (*evalWorld, *report.Results, string) {
		w := newEvalWorld(t)
		ui := freePort(t)
		args := w.flags("eval", "cli/testdata/eval_hostile", "--devices", "1", "--out", w.out, "--no-report", "--sandbox", sandbox,
			"--var", "repo="+repo, "--var", "state="+w.state, "--var", fmt.Sprintf("frontend_port=%d", w.port), "--var", fmt.Sprintf("ui_port=%d", ui))
		args = append(args, "--ui-port", fmt.Sprint(ui))
		_, out := w.pcflow(args...)
		r := readResults(t, w.out)
		if len(r.Runs) != 2 || r.Runs[1].Key != "hostile" {
			t.Fatalf("%s: %d runs, want kill_wm and hostile:\n%s", sandbox, len(r.Runs), out)
		}
		return w, r, out
	}

	w, r, out := run("overlay")
	for _, row := range r.Runs {
		if row.Status != "succeeded" {
			t.Errorf("overlay: %s: %s (%s): %s\n%s", row.Key, row.Status, row.Reason, row.Error, out)
		}
	}
	logs, _ := filepath.Glob(filepath.Join(w.state, "suites", "*", "*", "worker.log"))
	viewed, wm := false, false
	for _, f := range logs {
		b, _ := os.ReadFile(f)
		viewed = viewed || strings.Contains(string(b), "live view:")
		wm = wm || strings.Contains(string(b), "window manager was gone")
	}
	if !wm {
		t.Errorf("overlay: no worker log (%v) says the window manager the task ended was started again", logs)
	}
	if !viewed {
		t.Errorf("overlay: no worker log (%v) names a live view: the task had no VNC server to attack", logs)
	}
	forged := func(w *evalWorld) []string {
		var found []string
		_ = filepath.WalkDir(w.state, func(p string, e fs.DirEntry, err error) error {
			if err != nil || !e.Type().IsRegular() || strings.Contains(p, string(filepath.Separator)+"suites"+string(filepath.Separator)) {
				return nil
			}
			if b, _ := os.ReadFile(p); e.Name() == "forged" || strings.Contains(string(b), `"key":"forged"`) {
				found = append(found, p)
			}
			return nil
		})
		return found
	}
	if f := forged(w); len(f) > 0 {
		t.Errorf("overlay: the task's forgeries reached the state folder: %v", f)
	}

	w, r, _ = run("bind")
	row := r.Runs[1]
	var through []string
	for _, c := range []string{"no_shadow", "no_repo", "no_state", "no_frontend", "no_ui", "no_view", "no_wm_config", "no_bus_env"} {
		if strings.Contains(row.Error, "check "+c+" failed") {
			through = append(through, c)
		}
	}
	if f := forged(w); len(f) > 0 {
		through = append(through, fmt.Sprintf("forged state files %v", f))
	}
	t.Logf("bind does not protect against: %s", strings.Join(through, ", "))
	if !strings.Contains(row.Error, "check no_frontend failed") {
		t.Errorf("bind: %s (%s), want check no_frontend failed (the bind sandbox shares the host's network)", row.Status, row.Error)
	}
}

// overlayRepo skips a test of the overlay sandbox unless it runs as root,
// and returns the repository's folder, which the sandbox must hide.
func overlayRepo(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the overlay sandbox mounts an overlay file system: needs root")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return repo
}
