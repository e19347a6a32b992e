package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite docs/cli.md from the commands' --help")

// cliDocPath is the generated CLI reference, relative to this package.
const cliDocPath = "../docs/cli.md"

// subcommands are the commands whose subcommands have a --help of their own.
var subcommands = map[string][]string{
	"desktop": {"up", "down"},
	"eval":    {"status", "resume"},
	"model":   {"serve"},
}

// TestCLIDoc: docs/cli.md is the --help of pcflow and of every command and
// subcommand, so a flag added or reworded without regenerating it fails
// here. go test ./cli -run TestCLIDoc -update rewrites it.
func TestCLIDoc(t *testing.T) {
	got := cliDoc(t)
	if *update {
		if err := os.WriteFile(cliDocPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(cliDocPath)
	if err != nil {
		t.Fatalf("%v: generate it with go test ./cli -run TestCLIDoc -update", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("docs/cli.md differs from the commands' --help (-file +help); regenerate it with go test ./cli -run TestCLIDoc -update:\n%s", diff)
	}
}

// cliDoc renders the reference: a heading per command, its help in a code
// block. The environment is fixed first, so defaults read from it (the
// state folder under $HOME, $PCFLOW_STATE, $PCFLOW_TEMPORAL, $DISPLAY) read
// the same on every machine.
func cliDoc(t *testing.T) []byte {
	t.Helper()
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		for _, p := range []string{"PCFLOW_", "OPENAI_", "ANTHROPIC_"} {
			if strings.HasPrefix(k, p) {
				t.Setenv(k, "")
			}
		}
	}
	t.Setenv("DISPLAY", "")
	t.Setenv("HOME", "~") // the state folder's default shows as ~/.pcflow

	cmds := [][]string{nil}
	for _, c := range commands() {
		cmds = append(cmds, []string{c.name})
		for _, sub := range subcommands[c.name] {
			cmds = append(cmds, []string{c.name, sub})
		}
	}
	var b bytes.Buffer
	b.WriteString("# Command line reference\n\n")
	b.WriteString("<!-- Generated from each command's --help by `go test ./cli -run TestCLIDoc -update`; do not edit. -->\n\n")
	b.WriteString("Every command of `pcflow`, as its `--help` prints it. Guides: [running tasks](running.md),\n")
	b.WriteString("[a person in the loop](person.md), [eval](eval.md), [deployment](deployment.md).\n\n")
	for _, c := range cmds {
		name := strings.Join(append([]string{"pcflow"}, c...), " ")
		fmt.Fprintf(&b, "- [%s](#%s)\n", name, strings.ReplaceAll(name, " ", "-"))
	}
	for _, c := range cmds {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), append(append([]string{}, c...), "--help"), &out, &errOut); code != 0 {
			t.Fatalf("pcflow %s --help = %d: %s", strings.Join(c, " "), code, errOut.String())
		}
		help := strings.TrimRight(out.String(), "\n")
		if strings.Contains(help, "```") {
			t.Fatalf("pcflow %s --help holds a code fence, which would end its block in docs/cli.md", strings.Join(c, " "))
		}
		fmt.Fprintf(&b, "\n## %s\n\n```text\n%s\n```\n", strings.Join(append([]string{"pcflow"}, c...), " "), help)
	}
	return b.Bytes()
}
