package workflows_test

import (
	"archive/zip"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/internal/enginetest"
	"github.com/pcflow/pcflow/workflows"
)

// A task whose setup writes files and runs commands, and whose checks
// read a file, a directory, a command's output, a spreadsheet's cell and
// a document, all on one device.
const machineTask = `
task "ledger" {
  device "pad" {}
  setup "files" {
    device = device.pad
    write_file {
      path    = "%[1]s/notes/a.txt"
      content = "total 84\n"
    }
    command  = ["mkdir", "-p", "%[1]s/out/sub", "%[2]s"]
    commands = [
      ["cp", "%[1]s/notes/a.txt", "%[1]s/out/a.txt"],
      ["cp", "/srv/gold/sales.xlsx", "%[1]s/sales.xlsx"],
      ["cp", "/srv/gold/report.docx", "%[1]s/report.docx"],
    ]
  }
  subtask "s" {
    device      = device.pad
    instruction = "press OK"
  }
  check "file" {
    file {
      path     = "%[1]s/notes/a.txt"
      contains = "84"
    }
  }
  check "gone" {
    file {
      path   = "%[1]s/notes/b.txt"
      exists = false
    }
  }
  check "dir" {
    directory {
      path    = "%[1]s/out"
      entries = ["a.txt", "sub/"]
    }
  }
  check "same_dir" {
    directory {
      path    = "%[1]s/out"
      same_as = "/srv/gold/out"
    }
  }
  check "cmd" {
    command {
      argv            = ["cat", "%[1]s/out/a.txt"]
      stdout_contains = "total 84"
    }
  }
  check "home" {
    command {
      argv          = ["printenv", "HOME"]
      stdout_equals = "/home/user"
    }
  }
  check "cell" {
    cell {
      path   = "%[1]s/sales.xlsx"
      cell   = "B2"
      equals = "1250"
    }
  }
  check "doc" {
    document {
      path     = "%[1]s/report.docx"
      contains = "Quarterly report"
    }
  }
}`

// TestAFakePlatformKeepsTheTaskOffTheHost: a device that is not the
// worker's host (fakedevice.Rooted: its files under a folder of its own,
// its own small set of programs) runs a task through the real engine
// whose setup writes a file and runs commands, and whose file, directory,
// command, cell and document checks all pass — every one of them went
// through the device (its counters), and none of the task's paths, nor
// the folder a setup command makes, exists on the worker's host.
func TestAFakePlatformKeepsTheTaskOffTheHost(t *testing.T) {
	nonce := fmt.Sprintf("%08x", rand.Uint32())
	home := "/home/user/ledger-" + nonce
	sentinel := "/tmp/pcflow-rooted-sentinel-" + nonce
	for _, p := range []string{home, sentinel} {
		if _, err := os.Stat(p); err == nil {
			t.Fatalf("%s exists on this machine before the run", p)
		}
	}
	root := t.TempDir()
	dev := fakedevice.NewRooted(root, "OK")
	if _, ok := any(dev).(activities.LocalFiles); ok {
		t.Fatal("fakedevice.Rooted's files are the worker's own (LocalFiles): office checks would not go through it")
	}
	// The device holds its reference files before the task starts.
	writeXLSX(t, filepath.Join(root, "srv/gold/sales.xlsx"))
	writeDOCX(t, filepath.Join(root, "srv/gold/report.docx"), "Quarterly report", "Sales rose.")
	if err := os.MkdirAll(filepath.Join(root, "srv/gold/out/sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "srv/gold/out/a.txt"), []byte("total 84\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{
		"s": {Steps: []scripted.Step{click("OK"), done(nil)}},
	}})
	env.Serve("pad", env.Activities(dev, "pad", env.ModelConfig()), true)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := env.Run(ctx, "ledger-1", mustPlan(t, fmt.Sprintf(machineTask, home, sentinel)), workflows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != workflows.StatusSucceeded {
		t.Errorf("run = %s/%s (%s), want succeeded", res.Status, res.Reason, res.Error)
	}
	passed := map[string]bool{}
	for _, c := range res.Checks {
		passed[c.Name] = c.Passed
		if !c.Passed {
			t.Errorf("check %s failed: %s", c.Name, c.Detail)
		}
	}
	for _, name := range []string{"file", "gone", "dir", "same_dir", "cmd", "home", "cell", "doc"} {
		if _, ok := passed[name]; !ok {
			t.Errorf("check %s has no result (results: %v)", name, passed)
		}
	}

	// Nothing of the task is on the worker's host; all of it is on the device.
	for _, p := range []string{home, sentinel} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s exists on the worker's host: the task reached past its device", p)
		}
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Errorf("%s is not on the device: %v", p, err)
		}
	}
	// Every check and setup step went through the device.
	calls := dev.Calls()
	t.Logf("device calls: %v; ran: %v", calls, dev.Ran())
	for kind, least := range map[string]int{
		"write": 1, // the setup's write_file
		"run":   6, // the setup's four commands, the two command checks
		"stat":  4, // file, gone, dir and its two entries
		"walk":  2, // the directory and its reference
		"open":  3, // file, and the copies of the workbook and the document
	} {
		if calls[kind] < least {
			t.Errorf("device calls %s = %d, want at least %d (all: %v)", kind, calls[kind], least, calls)
		}
	}
	var ran []string
	for _, argv := range dev.Ran() {
		ran = append(ran, argv[0])
	}
	if got, want := strings.Join(ran, " "), "mkdir cp cp cp"; !strings.HasPrefix(got, want) {
		t.Errorf("the device ran %q, want the setup's %q first", got, want)
	}
}

// writeXLSX writes a workbook whose first sheet's B2 holds 1250.
func writeXLSX(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f := excelize.NewFile()
	defer f.Close()
	for cell, v := range map[string]any{"A1": "Region", "B1": "Q1", "A2": "North", "B2": 1250} {
		if err := f.SetCellValue("Sheet1", cell, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.SaveAs(path); err != nil {
		t.Fatal(err)
	}
}

// writeDOCX writes a Word document of the given paragraphs.
func writeDOCX(t *testing.T, path string, paragraphs ...string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var body strings.Builder
	for _, p := range paragraphs {
		fmt.Fprintf(&body, "<w:p><w:r><w:t>%s</w:t></w:r></w:p>", p)
	}
	parts := map[string]string{
		"[Content_Types].xml": `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
			`<Default Extension="xml" ContentType="application/xml"/>` +
			`<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
		"word/document.xml": `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` +
			body.String() + `</w:body></w:document>`,
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, content := range parts {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestASetupCommandThatFailsIsTheTasks: a setup command of the task's own
// that runs and exits with a failure (here, a file its cache lacks) ends
// the run as harness_error with the command's output, before any agent
// step — not device_error, which would take a working device out of a
// suite's pool and run the task again elsewhere, nor the agent's failure.
func TestASetupCommandThatFailsIsTheTasks(t *testing.T) {
	root := t.TempDir()
	dev := fakedevice.NewRooted(root, "OK")
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{
		"s": {Steps: []scripted.Step{click("OK"), done(nil)}},
	}})
	env.Serve("pad", env.Activities(dev, "pad", env.ModelConfig()), true)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := env.Run(ctx, "setup-fails-1", mustPlan(t, `
task "cached" {
  device "pad" {}
  setup "files" {
    device  = device.pad
    command = ["cat", "/srv/cache/ledger-gold.xlsx"]
  }
  subtask "s" {
    device      = device.pad
    instruction = "press OK"
  }
}`), workflows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != workflows.StatusFailed || res.Reason != workflows.ReasonHarnessError || !strings.Contains(res.Error, "ledger-gold.xlsx") {
		t.Errorf("run = %s/%s (%s), want failed/harness_error naming the missing file", res.Status, res.Reason, res.Error)
	}
	if acts := dev.Actions(); len(acts) > 0 {
		t.Errorf("the agent acted after the setup failed: %v", acts)
	}
}
