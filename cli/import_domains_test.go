package main

import (
	"archive/zip"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcflow/pcflow/specs/importer"
)

// importDomains are the OSWorld domains of cli/testdata/import_domains,
// one task each, in the test's own task files (OSWorld's format, the
// test's own words and files). The short run takes the quick ones; the
// LibreOffice tasks (a first start of its profile takes a minute on a
// loaded machine) run without -short.
var importDomains = map[string]bool{"os": true, "multi_apps": true, "chrome": true, "libreoffice_calc": false, "libreoffice_writer": false}

// TestImportedDomainsEndToEnd imports OSWorld tasks, one per domain this
// machine runs (a terminal, an editor and a terminal together, Chromium
// with its remote debugging port, LibreOffice Calc and Writer), and runs
// them through `pcflow eval` under the default sandbox with the scripted
// model doing each task on the screen: every setup step the import wrote
// (files copied from the local cache, applications launched, the window
// brought forward) and every check (a command's output, files compared
// with reference files, Chromium's active tab read through its debugging
// port, cells of an xlsx, a docx compared with its reference) must work
// on the task's machine, and OSWorld's score must be 1 in results.json.
// A second pass, where the agent declares each task done at once, must
// score 0 everywhere: the checks see the end state, not the agent's word.
func TestImportedDomainsEndToEnd(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the tasks' files come through the overlay sandbox's --scratch-base, which needs root")
	}
	t.Parallel()
	src := filepath.Join("testdata", "import_domains")
	tasks, out, base := t.TempDir(), t.TempDir(), t.TempDir()
	for domain, quick := range importDomains {
		if testing.Short() && !quick {
			continue
		}
		copyTree(t, filepath.Join(src, "tasks", domain), filepath.Join(tasks, domain))
	}
	const cache = "/tmp/pcflow-task/osworld-files"
	w := newEvalWorld(t)
	if code, log := w.pcflow("import", "osworld", tasks, "--out", out, "--files", cache, "--quiet"); code != 0 {
		t.Fatalf("pcflow import = %d:\n%s", code, log)
	}
	var cov importer.Coverage
	b, _ := os.ReadFile(filepath.Join(out, "coverage.json"))
	if err := json.Unmarshal(b, &cov); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cov.Tasks {
		if tc.Status != "fully" {
			t.Fatalf("%s imported %s, want fully: %v", tc.ID, tc.Status, tc.Reasons)
		}
	}
	// The local cache, as files.json lists it: seen by every device in
	// the scratch folder at the start of each task.
	var files struct {
		Files []struct{ Name, URL string }
	}
	b, _ = os.ReadFile(filepath.Join(out, "files.json"))
	if err := json.Unmarshal(b, &files); err != nil || len(files.Files) == 0 {
		t.Fatalf("files.json: %v, %s", err, b)
	}
	dir := filepath.Join(base, "osworld-files")
	os.MkdirAll(dir, 0o755)
	for _, f := range files.Files {
		dst := filepath.Join(dir, f.Name)
		if path.Base(f.URL) == "memo-gold.docx" {
			writeDocx(t, dst, "Quarterly memo: budget approved")
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, "files", path.Base(f.URL)))
		if err != nil {
			t.Fatalf("the cache file of %s: %v", f.URL, err)
		}
		os.WriteFile(dst, b, 0o644)
	}
	run := func(name string, script func(id string) string) map[string]string {
		t.Helper()
		for _, tc := range cov.Tasks {
			os.WriteFile(strings.TrimSuffix(filepath.Join(out, tc.File), ".hcl")+".script.json", []byte(script(tc.ID)), 0o644)
		}
		res := filepath.Join(w.out, name)
		code, log := w.pcflow(w.flags("eval", out, "--devices", "2", "--out", res, "--scratch-base", base, "--id", "domains-"+name)...)
		if _, err := os.Stat(filepath.Join(res, "results.json")); err != nil {
			t.Fatalf("eval exited %d with no results:\n%s", code, log)
		}
		r := readResults(t, res)
		got := scoresByTask(r, cov, out)
		for _, row := range r.Runs {
			if row.Status != "succeeded" && name == "solved" {
				t.Logf("%s: %s %s: %s", row.Key, row.Status, row.Reason, row.Error)
			}
		}
		if len(got) != len(cov.Tasks) {
			t.Fatalf("%s: %d of %d tasks in results.json:\n%s", name, len(got), len(cov.Tasks), log)
		}
		if t.Failed() {
			t.Logf("%s:\n%s", name, log)
		}
		return got
	}
	solved := run("solved", func(id string) string {
		b, err := os.ReadFile(filepath.Join(src, "scripts", id+".script.json"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	})
	for id, got := range solved {
		if got != "succeeded 1" {
			t.Errorf("%s solved on the screen: %q, want succeeded with OSWorld's score 1", id, got)
		}
	}
	if t.Failed() {
		return
	}
	undone := run("undone", func(id string) string {
		return `{"manager": {"subtasks": [{"name": "claim", "instruction": "Say it is done."}]},
 "subtasks": {"claim": {"steps": [{"thought": "Claim it is done.", "action": "done"}]}}}`
	})
	for id, got := range undone {
		if got != "failed 0" {
			t.Errorf("%s claimed done with nothing done: %q, want failed with OSWorld's score 0", id, got)
		}
	}
}

// copyTree copies the regular files under src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// writeDocx writes a Word document of one paragraph.
func writeDocx(t *testing.T, dst, text string) {
	t.Helper()
	f, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z := zip.NewWriter(f)
	parts := []struct{ name, body string }{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
			`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>` +
			`<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`},
		{"_rels/.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`},
		{"word/document.xml", `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` +
			`<w:p><w:r><w:t>` + text + `</w:t></w:r></w:p></w:body></w:document>`},
	}
	for _, p := range parts {
		pw, err := z.Create(p.name)
		if err != nil {
			t.Fatal(err)
		}
		pw.Write([]byte(p.body))
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
}
