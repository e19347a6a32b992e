package specs

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseSuiteFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.hcl"), []byte(`task "a" {}`), 0o644)
	path := filepath.Join(dir, "suite.hcl")
	os.WriteFile(path, []byte(`suite "smoke" {
  repeat = 2
  task "a" {
    file      = "a.hcl"
    tags      = ["calc"]
    vars      = { n = 3 }
    timeout   = "90s"
    max_steps = 5
  }
  task "b" {
    file   = "a.hcl"
    repeat = 1
  }
}`), 0o644)
	s, _, diags := ParseSuiteFile(path)
	if diags.HasErrors() {
		t.Fatalf("ParseSuiteFile: %v", diags)
	}
	a, b := s.Tasks[0], s.Tasks[1]
	if s.Name != "smoke" || a.File != filepath.Join(dir, "a.hcl") || a.Repeat != 2 || b.Repeat != 1 || a.Vars["n"] != "3" ||
		a.Timeout != 90*time.Second || a.MaxSteps != 5 || a.Tags[0] != "calc" {
		t.Errorf("ParseSuiteFile = %+v", s)
	}
}

func TestParseSuiteFileDiagnostics(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"missing file", `suite "s" {
  task "a" {
    file = "nope.hcl"
  }
}`, "suite.hcl:3:12: Task file not found"},
		{"bad timeout", `suite "s" {
  task "a" {
    file    = "suite.hcl"
    timeout = "soon"
  }
}`, "suite.hcl:4:15: Invalid timeout"},
		{"unknown attribute", `suite "s" {
  task "a" {
    file = "suite.hcl"
    tagz = ["x"]
  }
}`, "suite.hcl:4:5: Unsupported argument"},
		{"duplicate", `suite "s" {
  task "a" { file = "suite.hcl" }
  task "a" { file = "suite.hcl" }
}`, "suite.hcl:3:8: Duplicate task"},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		path := filepath.Join(dir, "suite.hcl")
		os.WriteFile(path, []byte(tt.src), 0o644)
		_, _, diags := ParseSuiteFile(path)
		var got []string
		for _, d := range diags {
			if d.Subject != nil {
				got = append(got, filepath.Base(d.Subject.Filename)+":"+itoa(d.Subject.Start.Line)+":"+itoa(d.Subject.Start.Column)+": "+d.Summary)
			}
		}
		if !strings.Contains(strings.Join(got, "\n"), tt.want) {
			t.Errorf("%s: diagnostics %q, want %q", tt.name, got, tt.want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
