// Package conformance holds task files modelled on public benchmarks'
// evaluators (OSWorld, Windows Agent Arena). The test validates every file
// and runs its checks, as the device worker would, against a correct and an
// incorrect end state made by the real LibreOffice.
package conformance_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/office/officetest"
	"github.com/pcflow/pcflow/specs"
)

// endState writes what the tasks expect (or, wrong, something that differs
// in every property a check reads) into dir.
func endState(t *testing.T, dir string, wrong bool) {
	t.Helper()
	if err := officetest.Make(context.Background(), dir, wrong); err != nil {
		t.Fatal(err)
	}
	log, archive := "started\nserved 12 requests\n", "logs.tar"
	if wrong {
		log, archive = "started\nERROR disk full\n", "app.log"
	}
	if err := os.WriteFile(filepath.Join(dir, "app.log"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "archive"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "archive", archive), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	photos := map[bool]string{false: "2024", true: "unsorted"}[wrong]
	ini := map[bool]string{false: "[app]\r\nport = 8080   \r\n\r\n", true: "[app]\nport = 80\n"}[wrong]
	files := map[string]string{
		"photos/" + photos + "/beach.jpg": "jpg", "photos/" + photos + "/hills.jpg": "jpg",
		"app.ini": ini, "project/src/main.go": "package main\n", "project/README": "skeleton\n",
	}
	if wrong {
		files["project/README"] = "skeleton, edited\n"
		files["project/tmp.txt"] = "x"
	}
	writeTree(t, dir, files)
}

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestConformance(t *testing.T) {
	files, _ := filepath.Glob("*.hcl")
	if len(files) < 15 {
		t.Fatalf("want at least 15 conformance tasks, found %d", len(files))
	}
	base := t.TempDir()
	gold := filepath.Join(base, "gold")
	if err := officetest.Make(context.Background(), gold, false); err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(base, "ref")
	writeTree(t, ref, map[string]string{"app.ini": "[app]\nport = 8080\n", "project/src/main.go": "package main\n", "project/README": "skeleton\n"})
	states := map[string]string{"right": filepath.Join(base, "right"), "wrong": filepath.Join(base, "wrong")}
	endState(t, states["right"], false)
	endState(t, states["wrong"], true)
	a := &activities.Activities{}
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			src, _ := os.ReadFile(f)
			if out, _ := specs.Format(f, src); !bytes.Equal(src, out) {
				t.Errorf("%s is not formatted: run pcflow fmt -w %s", f, f)
			}
			for _, state := range []string{"right", "wrong"} {
				vars := map[string]string{"dir": states[state]}
				if bytes.Contains(src, []byte(`variable "gold"`)) {
					vars["gold"] = filepath.Join(gold, "sales.ods")
				}
				if bytes.Contains(src, []byte(`variable "ref"`)) {
					vars["ref"] = ref
				}
				res, diags := specs.ParseFile(f, specs.Options{Vars: vars})
				if diags.HasErrors() {
					var buf bytes.Buffer
					specs.WriteDiagnostics(&buf, res.Files, diags, false)
					t.Fatalf("%s does not validate:\n%s", f, buf.String())
				}
				if len(res.Plan.Checks) == 0 {
					t.Fatalf("%s has no task checks", f)
				}
				for _, ck := range res.Plan.Checks {
					in, err := activities.NewCheckInput(ck, nil)
					if err != nil {
						t.Fatal(err)
					}
					r, err := a.Check(context.Background(), in)
					if err != nil {
						t.Fatalf("check %s: %v", ck.Name, err)
					}
					switch {
					case state == "right" && !r.Passed:
						t.Errorf("check %s on the correct end state failed: %s", ck.Name, r.Detail)
					case state == "wrong" && r.Passed:
						t.Errorf("check %s on the incorrect end state passed: %s", ck.Name, r.Detail)
					default:
						t.Logf("%s %s: passed=%v %s", state, ck.Name, r.Passed, r.Detail)
					}
				}
			}
		})
	}
}
