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
	// Nesting a real task uses stays valid.
	ok := "task \"t\" {\n  instruction = \"${upper(((\"a\" == \"b\" || !(1 + 2 * 3 > 4)) ? \"x\" : \"y\"))}\"\n}\n"
	if _, diags := Parse("ok.hcl", []byte(ok), Options{}); diags.HasErrors() {
		t.Errorf("Parse(ordinary nesting) = %v", diags)
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
