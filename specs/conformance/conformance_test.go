// Package conformance holds task files modelled on public benchmarks'
// evaluators (OSWorld, Windows Agent Arena). The test validates every file
// and runs its checks, as the device worker would, against a correct and an
// incorrect end state made by the real LibreOffice.
package conformance_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/activities/office"
	"github.com/pcflow/pcflow/activities/office/officetest"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs"
	"github.com/pcflow/pcflow/specs/plan"
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
	// The screen the element checks read: the dialog as the agent should
	// leave it, or with the option off and OK greyed out.
	screens := map[string][]screen.Element{
		"right": {
			{ID: 1, Role: "check box", Name: "Wrap text automatically", States: []string{"checked"}, Source: "a11y"},
			{ID: 2, Role: "push button", Name: "OK", Source: "a11y"},
		},
		"wrong": {
			{ID: 1, Role: "check box", Name: "Wrap text automatically", Source: "a11y"},
			{ID: 2, Role: "push button", Name: "OK", States: []string{"disabled"}, Source: "a11y"},
		},
	}
	// The end states are read by many tasks: each file is converted to
	// each format once.
	conv := &office.Cache{Conv: office.Soffice{}}
	t.Cleanup(func() { conv.Close() })
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			src, _ := os.ReadFile(f)
			if out, _ := specs.Format(f, src); !bytes.Equal(src, out) {
				t.Errorf("%s is not formatted: run pcflow fmt -w %s", f, f)
			}
			for _, state := range []string{"right", "wrong"} {
				vars := map[string]string{}
				if bytes.Contains(src, []byte(`variable "dir"`)) {
					vars["dir"] = states[state]
				}
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
				dev := fakedevice.New()
				dev.Elements = screens[state]
				a := &activities.Activities{Device: dev, Office: conv}
				order, err := plan.CheckGraph(res.Plan.Checks).Order()
				if err != nil {
					t.Fatal(err)
				}
				outs := plan.Outputs{}
				for _, name := range order {
					ck := checkNamed(res.Plan.Checks, name)
					var r *activities.CheckResult
					if ck.Kind == plan.CheckExpect {
						// As the workflow does, over the captured values.
						v, err := ck.Expect.Eval(outs)
						b, _ := v.(bool)
						r = &activities.CheckResult{Name: ck.Name, Passed: err == nil && b, Detail: fmt.Sprintf("expect is %v %v", v, err)}
					} else {
						in, err := activities.NewCheckInput(ck, outs)
						if err != nil {
							t.Fatal(err)
						}
						if r, err = a.Check(context.Background(), in); err != nil {
							t.Fatalf("check %s: %v", ck.Name, err)
						}
						if ck.Capture {
							outs[plan.CheckValueKey(ck.Name)] = map[string]string{"value": r.Value}
						}
					}
					captured := ck.Capture && state == "wrong" // a value read for another check may well be the same
					switch {
					case captured:
						t.Logf("%s %s: captured %q", state, ck.Name, r.Value)
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

func checkNamed(cks []plan.Check, name string) plan.Check {
	for _, c := range cks {
		if c.Name == name {
			return c
		}
	}
	return plan.Check{}
}
