package specs

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDeepNestingIsADiagnostic feeds expressions nested far deeper than any
// task needs: each must give a located diagnostic, not a stack overflow
// (which kills the process and cannot be recovered).
func TestDeepNestingIsADiagnostic(t *testing.T) {
	const n = 100_000
	tests := []struct {
		name, attr string
	}{
		{"parentheses", strings.Repeat("(", n) + `"x"` + strings.Repeat(")", n)},
		{"lists", strings.Repeat("[", n) + strings.Repeat("]", n)},
		{"negations", strings.Repeat("!", 4*n) + "true"},
		{"sums", strings.Repeat("1+", 4*n) + "1"},
		{"conditionals", strings.Repeat("true ? 1 : ", n) + "2"},
		{"interpolations", strings.Repeat(`"${`, n) + "1" + strings.Repeat(`}"`, n)},
		{"if directives", `"` + strings.Repeat("%{if true}", n) + "x" + strings.Repeat("%{endif}", n) + `"`},
		{"for directives", `"` + strings.Repeat("%{~ for x in [1] ~}", n) + "x" + strings.Repeat("%{~ endfor ~}", n) + `"`},
		{"directives and interpolations", `"` + strings.Repeat(`%{if true}${"`, n) + "x" + strings.Repeat(`"}%{endif}`, n) + `"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte("task \"t\" {\n  instruction = " + tt.attr + "\n}\n")
			res, diags := Parse("deep.hcl", src, Options{})
			if !diags.HasErrors() || diags[0].Summary != "Expression nested too deeply" {
				t.Fatalf("Parse(%s) = %v, want \"Expression nested too deeply\"", tt.name, diags)
			}
			if s := diags[0].Subject; s == nil || s.Start.Line != 2 {
				t.Errorf("diagnostic at %v, want line 2", s)
			}
			var buf bytes.Buffer
			if err := WriteDiagnostics(&buf, res.Files, diags, false); err != nil {
				t.Fatal(err)
			}
			if buf.Len() > 2000 {
				t.Errorf("the diagnostic is %d bytes long: the snippet should show the line around the spot only", buf.Len())
			}
			if _, d := Format("deep.hcl", src); !d.HasErrors() {
				t.Errorf("Format(%s) accepted it", tt.name)
			}
		})
	}
	// In a heredoc too, and in the Manager's instruction templates.
	src := []byte("task \"t\" {\n  instruction = <<EOT\n" + strings.Repeat("%{if true}", n) + "x" + strings.Repeat("%{endif}", n) + "\nEOT\n}\n")
	if _, diags := Parse("deep.hcl", src, Options{}); !diags.HasErrors() || diags[0].Summary != "Expression nested too deeply" ||
		diags[0].Subject == nil || diags[0].Subject.Start.Line != 3 || !strings.Contains(diags[0].Detail, "more than 200 levels") {
		t.Errorf("Parse(a heredoc of nested %%{if}) = %v, want \"Expression nested too deeply\" on line 3 naming the limit", diags)
	}
	if _, err := ParseTemplate(strings.Repeat("%{if true}", n)+"x"+strings.Repeat("%{endif}", n), nil); err == nil || !strings.Contains(err.Error(), "nested too deeply") {
		t.Errorf("ParseTemplate(nested %%{if}) = %v, want nested too deeply", err)
	}
	// Nesting a real task uses stays valid, and directives that follow one
	// another do not add up.
	ok := "task \"t\" {\n  instruction = \"${upper(((\"a\" == \"b\" || !(1 + 2 * 3 > 4)) ? \"x\" : \"y\"))}\"\n}\n"
	if _, diags := Parse("ok.hcl", []byte(ok), Options{}); diags.HasErrors() {
		t.Errorf("Parse(ordinary nesting) = %v", diags)
	}
	seq := "task \"t\" {\n  instruction = \"" + strings.Repeat("%{if true}a%{else}b%{endif}${upper(\"c\")}", 1000) +
		strings.Repeat("%{if true}", 150) + "x" + strings.Repeat("%{endif}", 150) + "\"\n}\n"
	if _, diags := Parse("seq.hcl", []byte(seq), Options{}); diags.HasErrors() {
		t.Errorf("Parse(1000 directives in a row, 150 nested) = %v", diags)
	}
}

// TestLongStringsAreADiagnostic: a string or heredoc of more lines or bytes
// than a task needs, which HCL's parser would join in time that grows with
// lines × bytes, is refused where it crosses the limit.
func TestLongStringsAreADiagnostic(t *testing.T) {
	tests := []struct {
		name, attr, want string
	}{
		{"heredoc lines", "<<EOT\n" + strings.Repeat("a,b,c\n", MaxStringLines+1) + "EOT", "more than 2000 lines"},
		{"heredoc bytes", "<<EOT\n" + strings.Repeat(strings.Repeat("x", 1000)+"\n", 300) + "EOT", "more than 256.0 KiB"},
		{"quoted bytes", `"` + strings.Repeat("x", MaxStringBytes+1) + `"`, "more than 256.0 KiB"},
		{"quoted escapes", `"` + strings.Repeat("$${x}", MaxStringLines+1) + `"`, "more than 2000 lines"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte("task \"t\" {\n  instruction = " + tt.attr + "\n}\n")
			_, diags := Parse("long.hcl", src, Options{})
			if !diags.HasErrors() || diags[0].Summary != "String too long" || !strings.Contains(diags[0].Detail, tt.want) || diags[0].Subject == nil {
				t.Errorf("Parse(%s) = %v, want \"String too long\" with %q and a place", tt.name, diags, tt.want)
			}
		})
	}
	// Just under the limits is valid.
	src := []byte("task \"t\" {\n  instruction = <<EOT\n" + strings.Repeat("line of text\n", MaxStringLines-1) + "EOT\n}\n")
	if _, diags := Parse("ok.hcl", src, Options{}); diags.HasErrors() {
		t.Errorf("Parse(a heredoc of %d lines) = %v", MaxStringLines-1, diags)
	}
}

// largeLegalTask is a valid task file of about 4 MB that uses each part of
// the language a validation might be slow on: a chain of n subtasks, each
// reading its predecessor's output in its instruction and its check, a
// heredoc of 1,500 lines, directives nested 50 deep and comments.
func largeLegalTask(n int) []byte {
	var b strings.Builder
	b.WriteString("task \"t\" {\n  instruction = <<EOT\n")
	for i := 0; i < 1500; i++ {
		b.WriteString("line " + strconv.Itoa(i) + " of the task's long description\n")
	}
	b.WriteString(strings.Repeat("%{if true}", 50) + "deep" + strings.Repeat("%{endif}", 50) + "\nEOT\n")
	for i := 0; i < n; i++ {
		name := "s" + strconv.Itoa(i)
		b.WriteString("  subtask \"" + name + "\" {\n")
		if i == 0 {
			b.WriteString("    instruction = \"Start.\"\n")
		} else {
			prev := "subtask.s" + strconv.Itoa(i-1) + ".output.v"
			b.WriteString("    instruction = \"Go on from ${" + prev + "}%{if " + prev + " != \"\"} now%{endif}.\"\n")
			b.WriteString("    check \"read\" {\n      expect = " + prev + " != \"\"\n    }\n")
		}
		b.WriteString("    output \"v\" {}\n  }\n")
	}
	b.WriteString("}\n")
	pad := strings.Repeat("# a comment line that pads the file to its size limit\n", (MaxSourceBytes-b.Len()-4096)/55)
	return []byte(pad + b.String())
}

// TestLargeLegalTaskValidates: a generated task of nearly 4 MB, a long
// chain of subtasks among it, is valid. (Validating it was quadratic in
// the number of subtasks; BenchmarkParseLargeLegal measures it.)
func TestLargeLegalTaskValidates(t *testing.T) {
	src := largeLegalTask(1500)
	if len(src) < 3<<20 || len(src) > MaxSourceBytes {
		t.Fatalf("the generated task is %d bytes, want nearly %d", len(src), MaxSourceBytes)
	}
	res, diags := Parse("large.hcl", src, Options{})
	if diags.HasErrors() {
		t.Fatalf("Parse(a large valid task) = %v", diags)
	}
	if got := len(res.Plan.Subtasks); got != 1500 {
		t.Errorf("the plan has %d subtasks, want 1500", got)
	}
	if got := res.Plan.Subtasks[1499].DependsOn; len(got) != 1 || got[0] != "s1498" {
		t.Errorf("s1499 depends on %v, want [s1498]", got)
	}
}

// BenchmarkParseLargeLegal measures Parse on the nearly 4 MB valid task
// (go test -bench LargeLegal ./specs/).
func BenchmarkParseLargeLegal(b *testing.B) {
	src := largeLegalTask(1500)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, diags := Parse("large.hcl", src, Options{}); diags.HasErrors() {
			b.Fatal(diags)
		}
	}
}

// TestDiagnosticsEscapeControlBytes: a task file's bytes reach the
// terminal only as visible text, never as escape sequences.
func TestDiagnosticsEscapeControlBytes(t *testing.T) {
	src := []byte("task \"t\" {\n  subtask \"a\" {\n    instruction = \"\x1b[2J\x1b]0;owned\x07\u202e\" + var.n\n  }\n}\n")
	res, diags := Parse("esc\x1b[1m.hcl", src, Options{})
	if len(diags) != 1 || diags[0].Summary != "Reference to undeclared variable" {
		t.Fatalf("Parse = %v, want one diagnostic for the undeclared variable", diags)
	}
	var buf bytes.Buffer
	if err := WriteDiagnostics(&buf, res.Files, diags, false); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, bad := range []string{"\x1b", "\x07", "\u202e"} {
		if strings.Contains(out, bad) {
			t.Errorf("rendered diagnostics hold the raw byte %q:\n%s", bad, out)
		}
	}
	if !strings.Contains(out, `\x1b[2J`) || !strings.Contains(out, `\u202e`) {
		t.Errorf("rendered diagnostics do not show the escaped bytes:\n%s", out)
	}
	// The carets still sit under the reference, after the escaped text.
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.Contains(l, "instruction =") && i+1 < len(lines) {
			col := strings.Index(l, "var.n") + len("var.")
			if caret := strings.Index(lines[i+1], "^"); caret != col {
				t.Errorf("caret at column %d, reference at %d:\n%s\n%s", caret, col, l, lines[i+1])
			}
		}
	}
}

// TestLargeTaskRefusedAtValidate: a valid task whose plan would not fit in
// a workflow's input is refused by Parse with the size and the limit, not
// by the server at start.
func TestLargeTaskRefusedAtValidate(t *testing.T) {
	var b strings.Builder
	b.WriteString("task \"t\" {\n")
	for i := 0; i < 400; i++ {
		b.WriteString("  subtask \"s" + strconv.Itoa(i) + "\" {\n    instruction = \"" + strings.Repeat("long text ", 300) + "\"\n  }\n")
	}
	b.WriteString("}\n")
	_, diags := Parse("big.hcl", []byte(b.String()), Options{})
	if !diags.HasErrors() || diags[0].Summary != "Task too large" || !strings.Contains(diags[0].Detail, "at most 1.0 MiB") {
		t.Fatalf("Parse(a 1.2 MB task) = %v, want \"Task too large\" naming the 1.0 MiB limit", diags)
	}
	huge := bytes.Repeat([]byte("# comment\n"), MaxSourceBytes/10+1)
	if _, diags := Parse("huge.hcl", huge, Options{}); !diags.HasErrors() || !strings.Contains(diags[0].Detail, "more than 4.0 MiB") {
		t.Errorf("Parse(a 4 MB file) = %v, want the 4.0 MiB limit", diags)
	}
	// A policy file without end (/dev/zero) is read only up to the limit
	// and refused as a policy file, not called a task file.
	if _, _, diags := ParsePolicyFile("/dev/zero", "--policy /dev/zero"); !diags.HasErrors() ||
		!strings.Contains(diags[0].Detail, "/dev/zero holds more than 4.0 MiB") || !strings.Contains(diags[0].Detail, "policy file") {
		t.Errorf("ParsePolicyFile(/dev/zero) = %v, want it refused as larger than 4.0 MiB", diags)
	}
}

// largeTask is a valid task of about 0.9 MB: 400 subtasks with long
// instructions, just under MaxPlanBytes once parsed.
func largeTask() []byte {
	var b strings.Builder
	b.WriteString("task \"t\" {\n")
	for i := 0; i < 400; i++ {
		b.WriteString("  subtask \"s" + strconv.Itoa(i) + "\" {\n    instruction = \"" + strings.Repeat("text ", 400) + "${upper(\"x\")}\"\n  }\n")
	}
	b.WriteString("}\n")
	return []byte(b.String())
}

// BenchmarkParseLarge measures Parse on a task near the plan size limit
// (go test -bench Parse ./specs/).
func BenchmarkParseLarge(b *testing.B) {
	src := largeTask()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, diags := Parse("large.hcl", src, Options{}); diags.HasErrors() {
			b.Fatal(diags)
		}
	}
}

// BenchmarkCheckNesting measures the token scan that runs before parsing,
// on the same file: its share of BenchmarkParseLarge is its overhead.
func BenchmarkCheckNesting(b *testing.B) {
	src := largeTask()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if diags := checkNesting(src, "large.hcl"); diags.HasErrors() {
			b.Fatal(diags)
		}
	}
}

// BenchmarkParseExamples parses every example task.
func BenchmarkParseExamples(b *testing.B) {
	files, _ := filepath.Glob("examples/*.hcl")
	srcs := map[string][]byte{}
	for _, f := range files {
		srcs[f], _ = os.ReadFile(f)
	}
	for b.Loop() {
		for f, src := range srcs {
			Parse(f, src, Options{})
		}
	}
}

// TestRenderLayersEscapesInstruction: pcflow plan prints a free-text
// instruction; its control bytes must not reach the terminal raw.
func TestRenderLayersEscapesInstruction(t *testing.T) {
	res, diags := Parse("t.hcl", []byte("task \"t\" {\n  instruction = \"open \\u001b]0;owned\\u0007 the app\"\n}\n"), Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var buf bytes.Buffer
	if err := RenderLayers(&buf, res.Plan); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(buf.String(), "\x1b\x07") || !strings.Contains(buf.String(), `open \x1b]0;owned\x07 the app`) {
		t.Errorf("RenderLayers = %q, want the control bytes escaped", buf.String())
	}
}

// TestGoldMadeBySetupIsNotWarned: a reference file that a setup step
// makes (OSWorld's tasks download or build their gold files first) draws
// no "not found here" warning; one no setup step names still does.
func TestGoldMadeBySetupIsNotWarned(t *testing.T) {
	src := []byte(`task "t" {
  setup "gold" {
    commands = [["mkdir", "-p", "/tmp/pcflow-gold-test"], ["sh", "-c", "echo 42 > /tmp/pcflow-gold-test/made.txt"]]
  }
  instruction = "Write 42."
  check "made" {
    file {
      path    = "/tmp/out.txt"
      same_as = "/tmp/pcflow-gold-test/made.txt"
    }
  }
  check "missing" {
    file {
      path    = "/tmp/out.txt"
      same_as = "/tmp/pcflow-gold-test/nobody-makes.txt"
    }
  }
}
`)
	_, diags := Parse("gold.hcl", src, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var warned []string
	for _, d := range diags {
		if d.Summary == "Reference file not found here" {
			warned = append(warned, d.Detail)
		}
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "nobody-makes.txt") {
		t.Errorf("reference warnings = %q, want one, for nobody-makes.txt", warned)
	}
}
