package x11

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/x11/procs"
)

var _ activities.Resetter = (*Device)(nil)

// Reset returns the desktop to a clean state, as an evaluation VM is
// reverted to its snapshot: every program on the device's display that the
// desktop did not start itself is stopped (the applications a task or the
// agent opened), the per-desktop application configuration, cache, data
// and state ($XDG_CONFIG_HOME, $XDG_CACHE_HOME, $XDG_DATA_HOME,
// $XDG_STATE_HOME) and the scratch folders
// ($PCFLOW_SCRATCH) start empty (in an overlay sandbox, $PCFLOW_SCRATCH_BASE,
// the overlay is dropped and mounted afresh), and the clipboard is cleared.
// It fails, and is retried, if a window is still open afterwards; it
// refuses a display that is not a desktop pcflow started. Idempotent.
func (d *Device) Reset(ctx context.Context) (*activities.ResetResult, error) {
	res := &activities.ResetResult{}
	display := d.display
	if !OwnDesktop() {
		// A person's own desktop: stopping every program on it would end
		// their session, and XDG_CONFIG_HOME is their configuration.
		return nil, &activities.RefusedError{Reason: fmt.Sprintf("display %s is not a desktop pcflow started (pcflow desktop up, pcflow eval --devices): resetting it would stop every program of its session and empty $XDG_CONFIG_HOME; serve the device from a pcflow desktop, or run the suite with --reset=false", display)}
	}
	res.Killed = procs.TermApps(display, 3*time.Second)
	dirs := appStateDirs()
	if os.Getenv(ScratchBaseEnv) != "" {
		// An overlay sandbox: drop the overlay.
		remounted, err := PrepareScratch()
		if err != nil {
			return nil, err
		}
		res.Cleared = append(res.Cleared, remounted...)
	} else {
		for _, d := range filepath.SplitList(os.Getenv(activities.ScratchEnv)) {
			if d != "" {
				dirs = append(dirs, d)
			}
		}
	}
	for _, d := range dirs {
		if err := EmptyDir(d); err != nil {
			return nil, fmt.Errorf("empty %s: %v", d, err)
		}
		res.Cleared = append(res.Cleared, d)
	}
	if _, err := exec.LookPath("xsel"); err == nil {
		_ = exec.CommandContext(ctx, "xsel", "--display", display, "--clipboard", "--clear").Run()
	}
	var wins []string
	for end := time.Now().Add(5 * time.Second); ; {
		var err error
		wins, err = d.Windows(ctx)
		if err == nil && len(wins) == 0 {
			break
		}
		if time.Now().After(end) {
			if err != nil {
				// The desktop cannot be asked (its display gone):
				// say so, not "windows still open".
				return nil, fmt.Errorf("list the windows: %v", err)
			}
			return nil, errors.New("windows still open after stopping the applications: " + strings.Join(wins, " | "))
		}
		time.Sleep(100 * time.Millisecond)
	}
	return res, nil
}

// appStateDirs are the folders where the desktop's applications keep
// their configuration, cache, data and state ($XDG_CONFIG_HOME,
// $XDG_CACHE_HOME, and $XDG_DATA_HOME and $XDG_STATE_HOME where they are
// the desktop's own): an editor's autosave (mousepad keeps what was
// typed, secrets included, in $XDG_DATA_HOME/Mousepad, and the session
// that restores it in its settings) must not reach the next task or run.
func appStateDirs() []string {
	var dirs []string
	for _, k := range []string{"XDG_CONFIG_HOME", "XDG_CACHE_HOME"} {
		if d := os.Getenv(k); d != "" {
			dirs = append(dirs, d)
		}
	}
	runtime := os.Getenv("XDG_RUNTIME_DIR")
	for _, k := range []string{"XDG_DATA_HOME", "XDG_STATE_HOME"} {
		if d := os.Getenv(k); d != "" && strings.HasPrefix(d, runtime+string(filepath.Separator)) {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// OwnDesktop reports whether this process drives a desktop pcflow started
// (Up): its XDG_RUNTIME_DIR, and the configuration and cache folders
// within, belong to that desktop alone.
func OwnDesktop() bool {
	return strings.HasPrefix(filepath.Base(os.Getenv("XDG_RUNTIME_DIR")), "pcflow-xdg-")
}

// StopApps stops every program on display except the desktop's own and
// this process and its ancestors, and returns what it stopped.
func StopApps(display string) []string { return procs.StopApps(display) }

// EmptyDir removes everything in dir (made when missing), and leaves dir.
func EmptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
