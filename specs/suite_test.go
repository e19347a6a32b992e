package specs

import (
	"os"
	"path/filepath"
	"runtime/debug"
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

// TestParseSuiteFileDeepNesting gives a suite file 50,000 nested brackets:
// the limit applies before HCL's recursive parser, so it is a located
// diagnostic, not a stack overflow (which no recover catches).
func TestParseSuiteFileDeepNesting(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(64 << 20)) // an overflow fails fast instead of taking 1 GB
	const n = 50_000
	path := filepath.Join(t.TempDir(), "suite.hcl")
	src := "suite \"deep\" {\n  repeat = " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, files, diags := ParseSuiteFile(path)
	if !diags.HasErrors() || diags[0].Summary != "Expression nested too deeply" {
		t.Fatalf("ParseSuiteFile(50,000 brackets) = %v, want \"Expression nested too deeply\"", diags)
	}
	if s := diags[0].Subject; s == nil || s.Filename != path || s.Start.Line != 2 {
		t.Errorf("diagnostic at %v, want %s line 2", s, path)
	}
	var buf strings.Builder
	if err := WriteDiagnostics(&buf, files, diags, false); err != nil || !strings.Contains(buf.String(), "suite.hcl:2") {
		t.Errorf("WriteDiagnostics = %q, %v; want the location suite.hcl:2", buf.String(), err)
	}
}
