package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportCommand imports the importer's OSWorld fixtures through the
// command line, then a folder with a broken task file.
func TestImportCommand(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"import", "osworld", "../specs/importer/testdata/osworld", "--out", out, "--files", "/srv/pcflow-files/test"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("pcflow import = %d, stderr:\n%s", code, stderr.String())
	}
	for _, w := range []string{"[1/21] partly       calc/pcf-calc-cells", "not_imported calc/pcf-calc-pivot: compare_table: none of its rules is carried", "imported 21 osworld tasks in ", ": 13 fully, 5 partly, 3 not imported"} {
		if !strings.Contains(stdout.String(), w) {
			t.Errorf("stdout lacks %q:\n%s", w, stdout.String())
		}
	}
	stdout.Reset()
	if code := run(context.Background(), []string{"validate", filepath.Join(out, "suite.hcl")}, &stdout, &stderr); code != 0 {
		t.Fatalf("pcflow validate of the imported suite = %d:\n%s", code, stderr.String())
	}

	src := t.TempDir()
	os.MkdirAll(filepath.Join(src, "os"), 0o755)
	os.WriteFile(filepath.Join(src, "os", "bad.json"), []byte("{\n  \"id\": \"bad\",\n  \"instruction\": \"x\" \"y\"\n}\n"), 0o644)
	stderr.Reset()
	if code := run(context.Background(), []string{"import", "osworld", src, "--out", t.TempDir()}, &stdout, &stderr); code != 1 {
		t.Fatalf("pcflow import of a broken file = %d, want 1", code)
	}
	if want := filepath.Join(src, "os", "bad.json") + ":3:22: invalid character"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr = %q, want it to name %s", stderr.String(), want)
	}
}

// TestImportedOtherPlatformRefused: a Windows Agent Arena task imports and
// validates, and run and eval say why they do not run it.
func TestImportedOtherPlatformRefused(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"import", "waa", "../specs/importer/testdata/waa", "--out", out, "--quiet"}, &stdout, &stderr); code != 0 {
		t.Fatalf("pcflow import waa = %d:\n%s", code, stderr.String())
	}
	file := filepath.Join(out, "notepad", "pcf-waa-note-WOS.hcl")
	if code := run(context.Background(), []string{"validate", file}, &stdout, &stderr); code != 0 {
		t.Fatalf("pcflow validate = %d:\n%s", code, stderr.String())
	}
	stderr.Reset()
	if code := run(context.Background(), []string{"run", file, "--state", t.TempDir()}, &stdout, &stderr); code != 1 {
		t.Fatalf("pcflow run of a windows task = %d, want 1; stderr:\n%s", code, stderr.String())
	}
	if want := `device desktop is windows (platform = "windows"), but this process serves it with a linux device`; !strings.Contains(stderr.String(), want) {
		t.Errorf("pcflow run said %q, want %q", stderr.String(), want)
	}
}
