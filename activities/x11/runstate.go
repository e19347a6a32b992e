package x11

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pcflow/pcflow/activities"
)

var _ activities.RunStarter = (*Device)(nil)

// lastRunFile, in the desktop's runtime folder, holds the key of the last
// run that started on the desktop.
const lastRunFile = "pcflow-last-run"

// StartRun starts the applications' state afresh for a run other than the
// last one that started on this desktop: the folders Reset empties
// (appStateDirs) are emptied, so what an earlier run typed — mousepad's
// autosave of an unsaved document and the session that restores it — is
// not shown again when the new run opens the editor. The same run again
// (a setup step after the first, a resumed run) keeps its state. A
// display that is not a desktop pcflow started is left alone: its
// folders are a person's own.
func (d *Device) StartRun(ctx context.Context, run string) ([]string, error) {
	if run == "" || !OwnDesktop() {
		return nil, nil
	}
	mark := filepath.Join(os.Getenv("XDG_RUNTIME_DIR"), lastRunFile)
	if b, err := os.ReadFile(mark); err == nil && string(b) == run {
		return nil, nil
	}
	var cleared []string
	for _, dir := range appStateDirs() {
		if err := EmptyDir(dir); err != nil {
			return cleared, fmt.Errorf("empty %s: %w", dir, err)
		}
		cleared = append(cleared, dir)
	}
	if err := os.WriteFile(mark, []byte(run), 0o600); err != nil {
		return cleared, fmt.Errorf("note the run in %s: %w", mark, err)
	}
	return cleared, nil
}
