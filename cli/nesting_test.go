package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// TestValidateDeepNesting runs validate and eval over files of 50,000
// nested brackets: the probe that asks whether a file is a suite parsed it
// before the nesting limit applied, and overflowed the stack (1.2–1.6 GB,
// then a crash). Each must give the limit's diagnostic with its location.
func TestValidateDeepNesting(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(64 << 20)) // an overflow fails fast instead of taking 1 GB
	const n = 50_000
	dir := t.TempDir()
	task := filepath.Join(dir, "deep.hcl")
	if err := os.WriteFile(task, []byte("task \"deep\" {\n  instruction = "+strings.Repeat("[", n)+strings.Repeat("]", n)+"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	suite := filepath.Join(dir, "suite.hcl")
	if err := os.WriteFile(suite, []byte("suite \"deep\" {\n  repeat = "+strings.Repeat("(", n)+"1"+strings.Repeat(")", n)+"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"validate", task},
		{"validate", suite},
		{"validate", dir},
		{"eval", "--state", t.TempDir(), suite},
	} {
		code, out, errs := runCLI(t, args...)
		want := filepath.Base(args[len(args)-1]) + ":2"
		if args[len(args)-1] == dir {
			want = "suite.hcl:2"
		}
		if code != 1 || !strings.Contains(errs, "nested too deeply") || !strings.Contains(errs, want) {
			t.Errorf("pcflow %s = %d\nstdout: %s\nstderr: %.2000s\nwant 1 and \"nested too deeply\" at %s", strings.Join(args, " "), code, out, errs, want)
		}
	}
}
