package specs

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcflow/pcflow/specs/plan"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./specs -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// TestValidGolden parses every valid fixture and compares the plan JSON.
func TestValidGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/valid/*.hcl")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			res, diags := ParseFile(f, Options{})
			var buf bytes.Buffer
			WriteDiagnostics(&buf, res.Files, diags, false)
			if diags.HasErrors() {
				t.Fatalf("ParseFile(%q) errors:\n%s", f, buf.String())
			}
			b, err := json.MarshalIndent(res.Plan, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, strings.TrimSuffix(f, ".hcl")+".json", append(b, '\n'))
		})
	}
}

// TestInvalidGolden renders the diagnostics of every invalid fixture.
func TestInvalidGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/invalid/*.hcl")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			res, diags := ParseFile(f, Options{})
			if !diags.HasErrors() {
				t.Fatalf("ParseFile(%q) = no errors, want errors", f)
			}
			if res.Plan != nil {
				t.Errorf("ParseFile(%q) returned a plan despite errors", f)
			}
			var buf bytes.Buffer
			if err := WriteDiagnostics(&buf, res.Files, diags, false); err != nil {
				t.Fatal(err)
			}
			golden(t, strings.TrimSuffix(f, ".hcl")+".txt", buf.Bytes())
		})
	}
}

func TestExamplesValidate(t *testing.T) {
	files, _ := filepath.Glob("examples/*.hcl")
	if len(files) < 4 {
		t.Fatalf("want at least 4 examples, found %d", len(files))
	}
	for _, f := range files {
		res, diags := ParseFile(f, Options{})
		if diags.HasErrors() {
			var buf bytes.Buffer
			WriteDiagnostics(&buf, res.Files, diags, false)
			t.Errorf("example %s is invalid:\n%s", f, buf.String())
		}
		src, _ := os.ReadFile(f)
		out, _ := Format(f, src)
		if !bytes.Equal(src, out) {
			t.Errorf("example %s is not formatted: run pcflow fmt -w %s", f, f)
		}
	}
}

func TestSecretsStayOutOfPlan(t *testing.T) {
	res, diags := ParseFile("testdata/valid/parallel.hcl", Options{Vars: map[string]string{"password": "s3cr3t-value"}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	b, _ := json.Marshal(res.Plan)
	if bytes.Contains(b, []byte("s3cr3t-value")) || bytes.Contains(b, []byte("hunter2")) {
		t.Errorf("plan JSON contains the secret: %s", b)
	}
	if got := res.Secrets["password"]; got != "s3cr3t-value" {
		t.Errorf("Secrets[password] = %q, want the --var value", got)
	}
	instr, err := res.Plan.Subtask("b").Instruction.EvalString(nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Log in with password {{secret.password}}."; instr != want {
		t.Errorf("instruction = %q, want %q", instr, want)
	}
}

func TestVariablePrecedence(t *testing.T) {
	src := []byte(`variable "n" { default = 1 }
task "t" {
  max_steps = var.n
  subtask "a" { instruction = "n=${var.n}" }
}`)
	dir := t.TempDir()
	vf := filepath.Join(dir, "v.hcl")
	os.WriteFile(vf, []byte("n = 2\n"), 0o644)
	tests := []struct {
		name string
		opts Options
		want int
	}{
		{"default", Options{}, 1},
		{"var file", Options{VarFiles: []string{vf}}, 2},
		{"env over file", Options{VarFiles: []string{vf}, Environ: []string{"PCFLOW_VAR_n=3"}}, 3},
		{"flag over env", Options{Environ: []string{"PCFLOW_VAR_n=3"}, Vars: map[string]string{"n": "4"}}, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, diags := Parse("t.hcl", src, tt.opts)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if res.Plan.MaxSteps != tt.want {
				t.Errorf("MaxSteps = %d, want %d", res.Plan.MaxSteps, tt.want)
			}
		})
	}
}

func TestFormatIdempotentKeepsComments(t *testing.T) {
	src := []byte("# lead comment\ntask \"t\" {\nmax_steps=3 # trailing\n  subtask \"a\" {\n        instruction=\"x\"\n  }\n}\n")
	once, diags := Format("t.hcl", src)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	twice, _ := Format("t.hcl", once)
	if !bytes.Equal(once, twice) {
		t.Errorf("Format is not idempotent:\n%s\nvs\n%s", once, twice)
	}
	for _, c := range []string{"# lead comment", "# trailing"} {
		if !bytes.Contains(once, []byte(c)) {
			t.Errorf("Format dropped comment %q:\n%s", c, once)
		}
	}
	if !bytes.Contains(once, []byte("max_steps = 3")) {
		t.Errorf("Format did not align attributes:\n%s", once)
	}
}

func TestLayers(t *testing.T) {
	res, diags := ParseFile("testdata/valid/parallel.hcl", Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	got, err := plan.Layers(res.Plan.Subtasks)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"a", "b"}, {"c"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Layers mismatch (-want +got):\n%s", diff)
	}
	var buf bytes.Buffer
	RenderLayers(&buf, res.Plan)
	if !strings.Contains(buf.String(), "layer 1  (2 in parallel)") {
		t.Errorf("RenderLayers does not show the parallel layer:\n%s", buf.String())
	}
}

func TestParseTemplate(t *testing.T) {
	x, err := ParseTemplate("Type ${subtask.read.output.code} now", map[string][]string{"read": {"code"}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := x.EvalString(plan.Outputs{"read": {"code": "4711"}})
	if err != nil || got != "Type 4711 now" {
		t.Errorf("EvalString = %q, %v; want %q", got, err, "Type 4711 now")
	}
	if _, err := ParseTemplate("Type ${subtask.read.output.nope}", map[string][]string{"read": {"code"}}); err == nil || !strings.Contains(err.Error(), "declares no output") {
		t.Errorf("ParseTemplate with undeclared output: err = %v, want 'declares no output'", err)
	}
}

func FuzzParse(f *testing.F) {
	for _, dir := range []string{"testdata/valid", "testdata/invalid", "examples"} {
		files, _ := filepath.Glob(dir + "/*.hcl")
		for _, p := range files {
			b, _ := os.ReadFile(p)
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		res, diags := Parse("fuzz.hcl", src, Options{})
		var buf bytes.Buffer
		WriteDiagnostics(&buf, res.Files, diags, false)
		if !diags.HasErrors() {
			if res.Plan == nil {
				t.Fatal("no errors and no plan")
			}
			if _, err := json.Marshal(res.Plan); err != nil {
				t.Fatalf("plan does not marshal: %v", err)
			}
			if _, err := plan.Layers(res.Plan.Subtasks); err != nil {
				t.Fatalf("valid plan has no layers: %v", err)
			}
		}
		Format("fuzz.hcl", src)
	})
}

// TestDiagnosticContext checks that every diagnostic about a spot inside a
// block carries that block's range as Context, and that the Context
// encloses the Subject.
func TestDiagnosticContext(t *testing.T) {
	files, _ := filepath.Glob("testdata/invalid/*.hcl")
	for _, f := range files {
		if filepath.Base(f) == "syntax.hcl" {
			continue // syntax errors come from the HCL parser, before any block is decoded
		}
		res, diags := ParseFile(f, Options{})
		for _, d := range diags {
			if d.Subject == nil {
				continue
			}
			if blockPath(res.Files[d.Subject.Filename], *d.Subject) == "" {
				continue // not inside a block: the file as a whole, a top-level attribute
			}
			if d.Context == nil {
				t.Errorf("%s: %q at %s has no Context", f, d.Summary, d.Subject)
				continue
			}
			c, s := *d.Context, *d.Subject
			if c.Start.Byte > s.Start.Byte || s.End.Byte > c.End.Byte {
				t.Errorf("%s: %q: Context %s does not enclose Subject %s", f, d.Summary, c, s)
			}
			if c.Filename != s.Filename {
				t.Errorf("%s: %q: Context %s is in another file than Subject %s", f, d.Summary, c, s)
				continue
			}
			if b := res.Files[c.Filename].Bytes[c.End.Byte-1]; b != '}' {
				t.Errorf("%s: %q: Context %s is not a whole block (ends in %q)", f, d.Summary, c, b)
			}
		}
	}
}

// TestIncludeRefusesNonTaskFiles: include reads task-language files only,
// so a task file cannot pull another file's text into its diagnostics.
func TestIncludeRefusesNonTaskFiles(t *testing.T) {
	src := []byte("include = [\"/etc/passwd\"]\ntask \"t\" {\n  instruction = \"x\"\n}\n")
	_, diags := Parse("t.hcl", src, Options{})
	if !diags.HasErrors() || diags[0].Summary != "Invalid include" || !strings.Contains(diags[0].Detail, "end in .hcl") {
		t.Errorf("Parse(include /etc/passwd) = %v, want an invalid include", diags)
	}
}
