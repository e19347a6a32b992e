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

// TestFileSameLines: file { same_as, lines = true } compares the lines as
// Python's splitlines reads them, as OSWorld's compare_csv does: CRLF or
// LF, a final line break or none, are the same lines; a trailing space, a
// blank line more, another cell, and text that is not UTF-8 differ.
func TestFileSameLines(t *testing.T) {
	dir := t.TempDir()
	ref := filepath.Join(dir, "gold.csv")
	if err := os.WriteFile(ref, []byte("name,total\nNorth,12\nSouth,7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, body string
		pass       bool
		detail     string
	}{
		{"as saved by Calc", "name,total\r\nNorth,12\r\nSouth,7\r\n", true, "same as"},
		{"no final line break", "name,total\nNorth,12\nSouth,7", true, "same as"},
		{"a trailing space", "name,total\nNorth,12 \nSouth,7\n", false, `line 2 is "North,12 ", want "North,12"`},
		{"a blank line more", "name,total\nNorth,12\nSouth,7\n\n", false, `line 4 "" is extra`},
		{"another total", "name,total\nNorth,13\nSouth,7\n", false, `line 2 is "North,13", want "North,12"`},
		{"not UTF-8", "name,total\nN\xf6rth,12\nSouth,7\n", false, "not UTF-8 text"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".csv")
			if err := os.WriteFile(path, []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			lit := func(s string) *plan.Expr { return &plan.Expr{Kind: plan.ExprLit, Lit: s} }
			in, err := activities.NewCheckInput(plan.Check{Name: "c", Kind: plan.CheckFile, Path: lit(path), SameAs: lit(ref), Lines: true}, nil)
			if err != nil {
				t.Fatal(err)
			}
			r, err := (&activities.Activities{Device: fakedevice.New()}).Check(context.Background(), in)
			if err != nil {
				t.Fatal(err)
			}
			if r.Passed != tt.pass || !strings.Contains(r.Detail, tt.detail) {
				t.Errorf("file %q against the reference = %v %q, want %v with %q", tt.body, r.Passed, r.Detail, tt.pass, tt.detail)
			}
		})
	}
}
