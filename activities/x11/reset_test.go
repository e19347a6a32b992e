package x11

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"

	"github.com/pcflow/pcflow/activities"
)

// TestResetRefusesAForeignDesktop: a worker serving a person's own
// display (not a desktop pcflow started) refuses to reset it, without
// retrying, and leaves their configuration folder alone.
func TestResetRefusesAForeignDesktop(t *testing.T) {
	home := t.TempDir()
	config := filepath.Join(home, ".config")
	if err := os.MkdirAll(config, 0o755); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(config, "settings.ini")
	if err := os.WriteFile(keep, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_RUNTIME_DIR", filepath.Join(home, "run-user-1000"))
	t.Setenv("XDG_CONFIG_HOME", config)
	_, err := (&activities.Activities{Device: &Device{display: ":4711"}}).Reset(context.Background(), activities.ResetInput{Device: "office"})
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || !appErr.NonRetryable() || !strings.Contains(appErr.Message(), "not a desktop pcflow started") {
		t.Fatalf("Reset on a foreign desktop = %v, want a non-retryable refusal", err)
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "mine" {
		t.Errorf("the configuration folder was touched: %q, %v", b, err)
	}
}

// TestResetSaysTheDisplayIsGone: a reset that cannot list the windows
// says why, instead of "windows still open" with none named.
func TestResetSaysTheDisplayIsGone(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", filepath.Join(home, "pcflow-xdg-4712"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv(activities.ScratchEnv, "")
	t.Setenv(ScratchBaseEnv, "")
	_, err := (&activities.Activities{Device: &Device{display: ":4712"}}).Reset(context.Background(), activities.ResetInput{Device: "office"})
	if err == nil || !strings.Contains(err.Error(), "list the windows: display :4712: no X server answers") {
		t.Fatalf("Reset with the display gone = %v, want it to say the windows could not be listed and why", err)
	}
}
