package activities_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/specs"
	"github.com/pcflow/pcflow/specs/plan"
)

// TestCheckKindsMatchLanguage fails when a check kind is added to the
// language without its evaluation here, or the other way round.
func TestCheckKindsMatchLanguage(t *testing.T) {
	lang := specs.CheckKinds()
	if len(lang) == 0 {
		t.Fatal("the language has no check kinds")
	}
	if diff := cmp.Diff(slices.Sorted(maps.Keys(toSet(lang))), activities.CheckKinds()); diff != "" {
		t.Errorf("check kinds of the language and of the worker differ (-language +worker):\n%s", diff)
	}
}

func toSet(s []string) map[string]bool {
	m := map[string]bool{}
	for _, x := range s {
		m[x] = true
	}
	return m
}

// TestCheckFileAndCommand evaluates rendered plan checks against a real file
// and a real program, passing and failing.
func TestCheckFileAndCommand(t *testing.T) {
	dir := t.TempDir()
	memo := filepath.Join(dir, "memo.txt")
	if err := os.WriteFile(memo, []byte("total 84\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	str := func(s string) *plan.Expr { x := plan.Lit(s); return &x }
	f, tr := false, true
	zero := 0
	tests := []struct {
		name   string
		ck     plan.Check
		passed bool
		detail string
	}{
		{"file matches", plan.Check{Kind: plan.CheckFile, Path: str(memo), Matches: str(`total \d+`)}, true, "ok"},
		{"file equals differs", plan.Check{Kind: plan.CheckFile, Path: str(memo), Equals: str("total 85")}, false, `want "total 85"`},
		{"file exists", plan.Check{Kind: plan.CheckFile, Path: str(memo), Exists: &tr}, true, "ok"},
		{"missing file must not exist", plan.Check{Kind: plan.CheckFile, Path: str(memo + ".no"), Exists: &f}, true, "does not exist"},
		{"missing file", plan.Check{Kind: plan.CheckFile, Path: str(memo + ".no"), Exists: &tr}, false, "exists=false, want true"},
		{"command output", plan.Check{Kind: plan.CheckCommand, Argv: []plan.Expr{plan.Lit("cat"), plan.Lit(memo)}, ExitCode: &zero, Contains: str("84")}, true, "ok"},
		{"file not_contains", plan.Check{Kind: plan.CheckFile, Path: str(memo), NotContains: str("total 84")}, false, `contains "total 84", which it must not`},
		{"file not_contains holds", plan.Check{Kind: plan.CheckFile, Path: str(memo), NotContains: str("ERROR")}, true, "ok"},
		{"command stdout equals", plan.Check{Kind: plan.CheckCommand, Argv: []plan.Expr{plan.Lit("echo"), plan.Lit("a b")}, ExitCode: &zero, Equals: str("a b")}, true, "ok"},
		{"command stdout differs", plan.Check{Kind: plan.CheckCommand, Argv: []plan.Expr{plan.Lit("echo"), plan.Lit("a b")}, ExitCode: &zero, Equals: str("a c")}, false, `is "a b\n", want "a c"`},
		{"command exit code", plan.Check{Kind: plan.CheckCommand, Argv: []plan.Expr{plan.Lit("false")}, ExitCode: &zero}, false, "exited 1, want 0"},
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
				t.Fatalf("Check(%+v) = %v", in, err)
			}
			if r.Passed != tt.passed || !strings.Contains(r.Detail, tt.detail) || r.Name != "c" || r.Kind != tt.ck.Kind {
				t.Errorf("Check(%s) = %+v, want passed=%v with detail containing %q", tt.name, r, tt.passed, tt.detail)
			}
		})
	}
	if _, err := a.Check(context.Background(), activities.CheckInput{Name: "x", Kind: "smell"}); err == nil || !strings.Contains(err.Error(), "unknown kind") {
		t.Errorf("Check of an unknown kind = %v, want an unknown kind error", err)
	}
}
