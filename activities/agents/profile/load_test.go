package profile_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcflow/pcflow/activities/agents/profile"
)

// TestLoadRefusesEndlessAndLargeFiles: a profiles file that is a device
// (PCFLOW_PROFILES=/dev/zero grew memory without bound), a folder or more
// than 1 MiB is refused, saying which; a small regular file loads.
func TestLoadRefusesEndlessAndLargeFiles(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, []byte("["+strings.Repeat(" ", profile.MaxFileSize)+"]"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(`[{"name": "mine", "base": "openai-tools"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, want string
	}{
		{"device", "/dev/zero", "/dev/zero is not a regular file (a device)"},
		{"folder", dir, "is not a regular file (a folder)"},
		{"larger than 1 MiB", big, "big.json is larger than 1 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := profile.Load(tt.path)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load(%q) = %v, want an error with %q", tt.path, err, tt.want)
			}
		})
	}
	s, err := profile.Load(good)
	if err != nil {
		t.Fatalf("Load(%q) = %v", good, err)
	}
	if _, err := s.Get("mine"); err != nil {
		t.Errorf("Load(%q).Get(mine) = %v", good, err)
	}
}
