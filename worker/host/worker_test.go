package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkerRefusesUnsafeDeviceName: a device name becomes the action log's
// file name, so one with path separators must not reach the file system
// (pcflow worker --device takes it from the command line, not a task file).
func TestWorkerRefusesUnsafeDeviceName(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	_, err := StartWorker(WorkerConfig{State: state, Device: "../escaped", Physical: "../escaped"})
	if err == nil || !strings.Contains(err.Error(), `device name "../escaped"`) {
		t.Errorf("StartWorker(device ../escaped) = %v, want a device name error", err)
	}
	if _, err := os.Stat(filepath.Join(state, "escaped.jsonl")); err == nil {
		t.Errorf("the worker wrote %s, outside the actions folder", filepath.Join(state, "escaped.jsonl"))
	}
}
