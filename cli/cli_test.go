package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"examples valid", []string{"validate", "../specs/examples/calculator.hcl", "../specs/examples/pc_eval.hcl"}, 0, "pc_eval.hcl: valid", ""},
		{"invalid with location", []string{"validate", "../specs/testdata/invalid/unknown_subtask.hcl"}, 1, "", "unknown_subtask.hcl:7:36"},
		{"caret under the name", []string{"validate", "../specs/testdata/invalid/unknown_subtask.hcl"}, 1, "", "^^^^"},
		{"missing file", []string{"validate", "nope.hcl"}, 1, "", "Cannot read task file"},
		{"no args", []string{"validate"}, 2, "", "name at least one task file"},
		{"suite file", []string{"validate", "../specs/suites/smoke/suite.hcl"}, 0, "suite.hcl: valid (suite smoke, 8 tasks)", ""},
		{"suite folder", []string{"validate", "../specs/suites/smoke"}, 0, "suite.hcl: valid (suite smoke, 8 tasks)", ""},
		{"suite with a bad task", []string{"validate", "testdata/suite_bad/suite.hcl"}, 1, "", `task "broken"`},
		{"suite task location", []string{"validate", "testdata/suite_bad/suite.hcl"}, 1, "", "unknown_subtask.hcl:7:36"},
		{"var sets value", []string{"validate", "../specs/testdata/invalid/missing_var_value.hcl", "--var", "token=x"}, 1, "", "Sensitive value not allowed here"},
		// A suite's command-line variables go to every task, each using
		// those it declares; one that no task declares is a mistake.
		{"suite vars some tasks declare", []string{"validate", "testdata/eval_hostile", "--var", "repo=/r", "--var", "state=/s", "--var", "frontend_port=1", "--var", "ui_port=2"}, 0, "valid (suite hostile, 2 tasks)", ""},
		{"suite var no task declares", []string{"validate", "testdata/eval_hostile", "--var", "repo=/r", "--var", "state=/s", "--var", "frontend_port=1", "--var", "ui_port=2", "--var", "stat=3"}, 1, "", "--var stat: no task of the suite that runs declares it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCLI(t, tt.args...)
			if code != tt.code {
				t.Errorf("pcflow %v = %d, want %d\nstdout: %s\nstderr: %s", tt.args, code, tt.code, out, errs)
			}
			if !strings.Contains(out, tt.stdout) || !strings.Contains(errs, tt.stderr) {
				t.Errorf("pcflow %v output:\nstdout: %s\nstderr: %s\nwant stdout ⊇ %q, stderr ⊇ %q", tt.args, out, errs, tt.stdout, tt.stderr)
			}
		})
	}
}

func TestPlanLayersAndJSON(t *testing.T) {
	code, out, errs := runCLI(t, "plan", "../specs/testdata/valid/parallel.hcl")
	if code != 0 || !strings.Contains(out, "layer 1  (2 in parallel)") || !strings.Contains(out, "c on left ← a, b") {
		t.Fatalf("plan = %d\n%s%s", code, out, errs)
	}
	code, out, _ = runCLI(t, "plan", "../specs/testdata/valid/parallel.hcl", "--json", "--var", "password=topsecret")
	if code != 0 || !strings.Contains(out, `"subtasks"`) {
		t.Fatalf("plan --json = %d\n%s", code, out)
	}
	if strings.Contains(out, "topsecret") {
		t.Error("plan --json printed a sensitive value")
	}
}

func TestFmt(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "t.hcl")
	os.WriteFile(f, []byte("# keep me\ntask \"t\" {\ninstruction=\"x\" # and me\n}\n"), 0o644)
	if code, out, _ := runCLI(t, "fmt", "-check", f); code != 1 || !strings.Contains(out, f) {
		t.Errorf("fmt -check on unformatted file = %d, %q; want 1 and the file name", code, out)
	}
	if code, _, errs := runCLI(t, "fmt", "-w", f); code != 0 {
		t.Fatalf("fmt -w = %d: %s", code, errs)
	}
	b, _ := os.ReadFile(f)
	if !strings.Contains(string(b), `instruction = "x" # and me`) || !strings.Contains(string(b), "# keep me") {
		t.Errorf("fmt -w wrote:\n%s", b)
	}
	if code, _, _ := runCLI(t, "fmt", "-check", f); code != 0 {
		t.Errorf("fmt -check after fmt -w = %d, want 0 (idempotent)", code)
	}
	bad := filepath.Join(dir, "bad.hcl")
	os.WriteFile(bad, []byte("task \"t\" {\n"), 0o644)
	if code, _, errs := runCLI(t, "fmt", bad); code != 1 || !strings.Contains(errs, "bad.hcl:") {
		t.Errorf("fmt on a syntax error = %d, %q; want 1 with its location", code, errs)
	}
}

func TestHelpAndUnknown(t *testing.T) {
	if code, out, _ := runCLI(t, "help"); code != 0 || !strings.Contains(out, "resume") || !strings.Contains(out, "desktop") {
		t.Errorf("help = %d\n%s", code, out)
	}
	if code, out, _ := runCLI(t, "run", "--help"); code != 0 || !strings.Contains(out, "-var") || !strings.Contains(out, "scripted") {
		t.Errorf("run --help = %d\n%s", code, out)
	}
	if code, _, errs := runCLI(t, "frobnicate"); code != 2 || !strings.Contains(errs, "unknown command") {
		t.Errorf("unknown command = %d, %q", code, errs)
	}
}

func TestRunWithoutModelSaysHowToFix(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	dir := t.TempDir()
	f := filepath.Join(dir, "t.hcl")
	os.WriteFile(f, []byte("task \"t\" {\n  instruction = \"x\"\n}\n"), 0o644)
	code, _, errs := runCLI(t, "run", f, "--state", dir)
	if code != 1 || !strings.Contains(errs, "OPENAI_API_KEY") || !strings.Contains(errs, "--script") {
		t.Errorf("run without a model = %d, %q; want 1 and how to configure one", code, errs)
	}
}

// TestRunWithUnreachableModelSaysSo: a configured endpoint that is down is
// reported before the run starts, with its URL and what to do.
func TestRunWithUnreachableModelSaysSo(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String() + "/v1"
	l.Close()
	t.Setenv("OPENAI_API_KEY", "k")
	t.Setenv("OPENAI_BASE_URL", url)
	dir := t.TempDir()
	f := filepath.Join(dir, "t.hcl")
	os.WriteFile(f, []byte("task \"t\" {\n  instruction = \"x\"\n}\n"), 0o644)
	code, _, errs := runCLI(t, "run", f, "--state", dir)
	if code != 1 || !strings.Contains(errs, "model endpoint "+url+" is unreachable") || !strings.Contains(errs, "OPENAI_BASE_URL") {
		t.Errorf("run with an unreachable model = %d, %q; want 1, the URL and how to fix it", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "temporal.db")); err == nil {
		t.Error("the run started a server before finding the model unreachable")
	}
}

// TestFlagHelp renders every command's --help: each flag's placeholder is
// one word (Go's flag package takes a back-quoted phrase in the usage as
// the type name), and no command lists flags it does not use.
// goTypeNames are the placeholders the flag package invents when the
// usage text has none.
var goTypeNames = map[string]bool{"string": true, "int": true, "uint": true, "int64": true, "uint64": true,
	"float": true, "duration": true, "value": true}

func TestFlagHelp(t *testing.T) {
	cmds := [][]string{{"desktop", "up"}, {"desktop", "down"}, {"model", "serve"}}
	for _, c := range commands() {
		if c.name != "desktop" && c.name != "model" {
			cmds = append(cmds, []string{c.name})
		}
	}
	for _, c := range cmds {
		code, out, errs := runCLI(t, append(c, "--help")...)
		if code != 0 {
			t.Errorf("pcflow %v --help = %d: %s", c, code, errs)
			continue
		}
		for _, line := range strings.Split(out, "\n") {
			if !strings.HasPrefix(line, "  -") {
				continue
			}
			head, _, _ := strings.Cut(line, "\t") // one-letter flags share the line
			f := strings.Fields(head)
			if len(f) > 2 {
				t.Errorf("pcflow %v --help: flag line %q has a placeholder of %d words", c, line, len(f)-1)
			}
			// Go's type names ("-devices int") say nothing to a user.
			if len(f) == 2 && goTypeNames[f[1]] {
				t.Errorf("pcflow %v --help: flag line %q names a Go type; give the flag a placeholder in `backquotes`", c, line)
			}
		}
	}
	unused := map[string][]string{
		"desktop up":   {"-port", "-temporal", "-ui-port"},
		"desktop down": {"-port", "-temporal", "-ui-port", "-size"},
		"server":       {"-temporal"},
		"status":       {"-ui-port"},
		"history":      {"-ui-port"},
		"cancel":       {"-ui-port"},
	}
	for cmd, flags := range unused {
		_, out, _ := runCLI(t, append(strings.Fields(cmd), "--help")...)
		for _, f := range flags {
			if strings.Contains(out, "  "+f+" ") || strings.Contains(out, "  "+f+"\n") {
				t.Errorf("pcflow %s --help lists %s, which it does not use:\n%s", cmd, f, out)
			}
		}
	}
	if _, out, _ := runCLI(t, "desktop", "up", "--help"); !strings.Contains(out, "-display :N") || !strings.Contains(out, "-state DIR") {
		t.Errorf("desktop up --help:\n%s", out)
	}
}

// TestFmtWriteIsAtomic runs fmt -w with a file size limit smaller than the
// formatted file, as a full disk would: the task file must keep its old
// content, not be cut off.
func TestFmtWriteIsAtomic(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "t.hcl")
	var src strings.Builder
	src.WriteString("# a long task\ntask \"t\" {\n")
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&src, "subtask \"s%d\" {\ninstruction=\"step %d of the long task\"\n}\n", i, i)
	}
	src.WriteString("}\n")
	if err := os.WriteFile(f, []byte(src.String()), 0o640); err != nil {
		t.Fatal(err)
	}
	// ulimit -f counts 512-byte blocks: the formatted file (3.4 KB) cannot
	// be written in full.
	out, err := exec.Command("sh", "-c", `ulimit -f 1; exec "$0" fmt -w "$1"`, pcflowBin, f).CombinedOutput()
	if err == nil {
		t.Fatalf("fmt -w under a 512-byte file size limit succeeded:\n%s", out)
	}
	got, _ := os.ReadFile(f)
	if string(got) != src.String() {
		t.Errorf("fmt -w that could not write left the file with %d of %d bytes (want it unchanged); said:\n%s", len(got), src.Len(), out)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("fmt -w left temporary files behind: %v", ents)
	}
	// Without the limit it succeeds, keeps the permissions, and writes
	// through a symbolic link to its target.
	link := filepath.Join(dir, "link.hcl")
	if err := os.Symlink(f, link); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI(t, "fmt", "-w", link); code != 0 {
		t.Fatalf("fmt -w = %d: %s", code, errs)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("fmt -w replaced the symbolic link %s with a file", link)
	}
	st, _ := os.Stat(f)
	b, _ := os.ReadFile(f)
	if st.Mode().Perm() != 0o640 || !strings.Contains(string(b), `instruction = "step 59 of the long task"`) {
		t.Errorf("after fmt -w: mode %v (want 0640), content:\n%s", st.Mode().Perm(), b)
	}
}
