package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOverlayLeavesNoFolder: an overlay sandbox mounts its world on a
// folder of /run/pcflow-sandbox in a mount namespace of its own; the
// folder stayed on the host, empty, once the device stopped (one per
// device ever run). Eval removes it when it stops the device.
func TestOverlayLeavesNoFolder(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the overlay sandbox needs root")
	}
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	w := newEvalWorld(t)
	code, out := w.pcflow(w.flags("eval", "cli/testdata/eval_reset/a_leave.hcl", "--devices", "1", "--out", w.out, "--no-report",
		"--sandbox", "overlay", "--id", "sbx-folder")...)
	if code != 0 {
		t.Fatalf("eval exited %d:\n%s", code, out)
	}
	dir := filepath.Join("/run/pcflow-sandbox", "sbx-folder-d1")
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("the overlay's folder %s is left on the host after eval ended", dir)
		os.Remove(dir)
	}
}
