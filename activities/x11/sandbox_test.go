package x11

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities"
)

// TestOverlayScratch runs itself in a bubblewrap sandbox as `pcflow eval
// --sandbox overlay` runs a device's worker: the scratch folder shows the
// base's files, what a task writes there stays inside the sandbox (the
// host's folder and the base are untouched), and a reset drops it while
// the base's files come back unchanged.
func TestOverlayScratch(t *testing.T) {
	if os.Getenv("PCFLOW_OVERLAY_HELPER") == "1" {
		overlayHelper(t)
		return
	}
	if _, err := exec.LookPath("bwrap"); err != nil || os.Geteuid() != 0 {
		t.Skip("needs bubblewrap and root")
	}
	dir := t.TempDir()
	base, scratch := filepath.Join(dir, "base"), filepath.Join(dir, "scratch")
	os.MkdirAll(base, 0o755)
	os.WriteFile(filepath.Join(base, "fixture.txt"), []byte("from the base\n"), 0o644)
	cmd := exec.Command("bwrap", "--dev-bind", "/", "/", "--cap-add", "ALL", "--die-with-parent", "--",
		os.Args[0], "-test.run", "^TestOverlayScratch$", "-test.v")
	cmd.Env = append(os.Environ(), "PCFLOW_OVERLAY_HELPER=1", activities.ScratchEnv+"="+scratch, ScratchBaseEnv+"="+base)
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("in the sandbox: %v", err)
	}
	if _, err := os.Stat(filepath.Join(scratch, "task.txt")); err == nil {
		t.Error("a file written in the sandbox's scratch folder appeared on the host")
	}
	if b, _ := os.ReadFile(filepath.Join(base, "fixture.txt")); string(b) != "from the base\n" {
		t.Errorf("the base changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(base, "task.txt")); err == nil {
		t.Error("the task's file reached the base")
	}
	// Outside a sandbox PrepareScratch refuses to mount on the host.
	t.Setenv(activities.ScratchEnv, scratch)
	t.Setenv(ScratchBaseEnv, base)
	if _, err := PrepareScratch(); err == nil {
		t.Error("PrepareScratch mounted in the host's mount namespace")
	}
}

func overlayHelper(t *testing.T) {
	scratch := os.Getenv(activities.ScratchEnv)
	if _, err := PrepareScratch(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(scratch, "fixture.txt")); err != nil || string(b) != "from the base\n" {
		t.Fatalf("base file in the scratch folder: %q, %v", b, err)
	}
	os.WriteFile(filepath.Join(scratch, "task.txt"), []byte("written by a task"), 0o644)
	os.WriteFile(filepath.Join(scratch, "fixture.txt"), []byte("changed by a task"), 0o644)
	start := time.Now()
	if _, err := PrepareScratch(); err != nil { // what Reset does
		t.Fatal(err)
	}
	t.Logf("overlay dropped and mounted again in %s", time.Since(start))
	if _, err := os.Stat(filepath.Join(scratch, "task.txt")); err == nil {
		t.Error("the task's file survived the reset")
	}
	if b, _ := os.ReadFile(filepath.Join(scratch, "fixture.txt")); string(b) != "from the base\n" {
		t.Errorf("after the reset the base file reads %q", b)
	}
}
