package activities_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/specs/plan"
)

// TestCheckDirectoriesAndReferenceFiles: directory checks (exists,
// entries, same tree as a reference) and file checks against a reference
// file, exact and normalised, each passing and failing with a detail that
// says what differed.
func TestCheckDirectoriesAndReferenceFiles(t *testing.T) {
	root := t.TempDir()
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("out/a.txt", "alpha\n")
	write("out/sub/b.txt", "beta\r\n\n")
	write("ref/a.txt", "alpha\n")
	write("ref/sub/b.txt", "beta\n")
	write("ref2/a.txt", "alpha\n")
	write("ref2/sub/c.txt", "gamma\n")
	p := func(rel string) *plan.Expr { x := plan.Lit(filepath.Join(root, rel)); return &x }
	tr, f := true, false
	tests := []struct {
		name   string
		ck     plan.Check
		passed bool
		detail string
	}{
		{"file exists on a directory", plan.Check{Kind: plan.CheckFile, Path: p("out"), Exists: &tr}, true, "exists (a directory)"},
		{"file content of a directory", plan.Check{Kind: plan.CheckFile, Path: p("out"), Contains: p("x")}, false, "is a directory, not a file"},
		{"dir exists", plan.Check{Kind: plan.CheckDirectory, Path: p("out"), Exists: &tr}, true, "ok"},
		{"dir must not exist", plan.Check{Kind: plan.CheckDirectory, Path: p("out"), Exists: &f}, false, "exists; want exists=false"},
		{"file is not a dir", plan.Check{Kind: plan.CheckDirectory, Path: p("out/a.txt"), Exists: &tr}, false, "is a file, not a directory"},
		{"entries", plan.Check{Kind: plan.CheckDirectory, Path: p("out"), Entries: []string{"a.txt", "sub/", "sub/b.txt"}}, true, "ok"},
		{"missing entries", plan.Check{Kind: plan.CheckDirectory, Path: p("out"), Entries: []string{"a.txt", "a.txt/", "c.txt"}}, false, "lacks a.txt/, c.txt (it holds: a.txt, sub/, sub/b.txt)"},
		{"same tree differs in content", plan.Check{Kind: plan.CheckDirectory, Path: p("out"), SameAs: p("ref")}, false, "different content: sub/b.txt"},
		{"same tree", plan.Check{Kind: plan.CheckDirectory, Path: p("ref"), SameAs: p("ref")}, true, "ok"},
		{"tree differs in entries", plan.Check{Kind: plan.CheckDirectory, Path: p("out"), SameAs: p("ref2")}, false, "missing: sub/c.txt; extra: sub/b.txt"},
		{"file same as", plan.Check{Kind: plan.CheckFile, Path: p("out/a.txt"), SameAs: p("ref/a.txt")}, true, "same as"},
		{"file differs exactly", plan.Check{Kind: plan.CheckFile, Path: p("out/sub/b.txt"), SameAs: p("ref/sub/b.txt")}, false, `line 1 is "beta\r", want "beta"`},
		{"file same normalised", plan.Check{Kind: plan.CheckFile, Path: p("out/sub/b.txt"), SameAs: p("ref/sub/b.txt"), Normalize: true}, true, "same as"},
		{"file differs normalised", plan.Check{Kind: plan.CheckFile, Path: p("out/a.txt"), SameAs: p("ref2/sub/c.txt"), Normalize: true}, false, `line 1 is "alpha", want "gamma"`},
	}
	a := &activities.Activities{Device: fakedevice.New()}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.ck.Name = "c"
			in, err := activities.NewCheckInput(tt.ck, nil)
			if err != nil {
				t.Fatal(err)
			}
			r, err := a.Check(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if r.Passed != tt.passed || !strings.Contains(r.Detail, tt.detail) {
				t.Errorf("Check(%s) = passed=%v %q, want passed=%v with %q", tt.name, r.Passed, r.Detail, tt.passed, tt.detail)
			}
		})
	}
}
