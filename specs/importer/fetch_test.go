package importer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestFetchFillsAndChecksTheCache imports two tasks that download files
// from a real HTTP server, fetches them into an empty cache, and checks
// what the cache and the tasks do after: the files and their SHA-256 in
// SHA256SUMS; a second fetch asks the server nothing; a file changed in
// the cache is fetched again; a file the server no longer has is a
// failure naming its URL and the server's answer. The tasks imported with
// the digests known check at their start, with the real sh and sha256sum,
// that each cached file is the one they were imported with.
func TestFetchFillsAndChecksTheCache(t *testing.T) {
	files := map[string]string{"/pcf/ledger.csv": "month,total\njan,12\n", "/pcf/logo.txt": "a logo, in words\n"}
	var mu sync.Mutex
	asked := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked[r.URL.Path]++
		mu.Unlock()
		body, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(body))
	}))
	defer srv.Close()
	requests := func() int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, c := range asked {
			n += c
		}
		return n
	}

	src := filepath.Join(t.TempDir(), "bench")
	os.MkdirAll(filepath.Join(src, "os"), 0o755)
	task := func(id string, urls ...string) {
		var fs []map[string]string
		for _, u := range urls {
			fs = append(fs, map[string]string{"url": srv.URL + u, "path": "/tmp/pcflow-task/" + filepath.Base(u)})
		}
		b, _ := json.Marshal(map[string]any{"id": id, "instruction": "Look at the files.",
			"config": []any{map[string]any{"type": "download", "parameters": map[string]any{"files": fs}}},
			"evaluator": map[string]any{"func": "exact_match", "result": map[string]any{"type": "vm_command_line", "command": []string{"echo", "ok"}},
				"expected": map[string]any{"type": "rule", "rules": map[string]any{"expected": "ok\n"}}}})
		os.WriteFile(filepath.Join(src, "os", id+".json"), b, 0o644)
	}
	task("ledger", "/pcf/ledger.csv", "/pcf/logo.txt")
	task("gone", "/pcf/gone.png")
	cache, out := t.TempDir(), t.TempDir()
	ctx := context.Background()
	cov, err := Import(ctx, Options{Benchmark: "osworld", Src: src, Out: out, Files: cache})
	if err != nil {
		t.Fatal(err)
	}
	ds := cov.DistinctDownloads()
	if len(ds) != 3 {
		t.Fatalf("downloads = %+v, want 3 files", ds)
	}
	name := func(u string) string { return cacheName(srv.URL+u, filepath.Base(u)) }
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }

	got, err := Fetch(ctx, cache, ds, srv.Client(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range got {
		switch f.Name {
		case name("/pcf/gone.png"):
			if f.Err == nil || !strings.Contains(f.Err.Error(), srv.URL+"/pcf/gone.png") || !strings.Contains(f.Err.Error(), "404") {
				t.Errorf("the missing file: %v, want a failure naming its URL and the 404", f.Err)
			}
			if _, err := os.Stat(filepath.Join(cache, f.Name)); err == nil {
				t.Errorf("the missing file left %s in the cache", f.Name)
			}
		default:
			if f.Err != nil || f.Got != "downloaded" {
				t.Errorf("%s: %s %v, want downloaded", f.Name, f.Got, f.Err)
			}
		}
	}
	for u, body := range files {
		b, err := os.ReadFile(filepath.Join(cache, name(u)))
		if err != nil || string(b) != body {
			t.Errorf("the cache's %s = %q (%v), want %q", name(u), b, err, body)
		}
	}
	sums, err := ReadSums(cache)
	if err != nil || len(sums) != 2 || sums[name("/pcf/ledger.csv")] != sum(files["/pcf/ledger.csv"]) {
		t.Fatalf("SHA256SUMS = %v (%v), want the two files' digests", sums, err)
	}

	before := requests()
	if got, _ := Fetch(ctx, cache, ds[:0:0], srv.Client(), nil); len(got) != 0 {
		t.Fatal("a fetch of nothing fetched something")
	}
	var present []Download
	for _, d := range ds {
		if d.Name != name("/pcf/gone.png") {
			present = append(present, d)
		}
	}
	got, _ = Fetch(ctx, cache, present, srv.Client(), nil)
	for _, f := range got {
		if f.Got != "cached" {
			t.Errorf("second fetch: %s %s %v, want cached", f.Name, f.Got, f.Err)
		}
	}
	if n := requests() - before; n != 0 {
		t.Errorf("a second fetch of files in the cache asked the server %d times, want 0", n)
	}

	// The tasks, imported again with the digests known.
	if cov, err = Import(ctx, Options{Benchmark: "osworld", Src: src, Out: out, Files: cache, Sums: sums}); err != nil {
		t.Fatal(err)
	}
	var file string
	for _, tc := range cov.Tasks {
		if tc.ID == "ledger" {
			file = filepath.Join(out, tc.File)
		}
	}
	p := parseClean(t, file)
	var argv []string
	for _, su := range p.Setup {
		if su.Name == "c00_cached_files" {
			for _, x := range su.Command {
				v, err := x.EvalString(nil)
				if err != nil {
					t.Fatal(err)
				}
				argv = append(argv, v)
			}
		}
	}
	if !strings.Contains(strings.Join(argv, " "), sum(files["/pcf/ledger.csv"])) {
		t.Fatalf("the task's cache check %q lacks the file's SHA-256", argv)
	}
	start := func() (bool, string) {
		out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
		return err == nil, string(out)
	}
	if ok, msg := start(); !ok {
		t.Errorf("the task's start with its files cached failed: %s", msg)
	}
	ledger := filepath.Join(cache, name("/pcf/ledger.csv"))
	os.WriteFile(ledger, []byte("month,total\njan,13\n"), 0o644)
	if ok, msg := start(); ok || !strings.Contains(msg, "is not the one the task was imported with") || !strings.Contains(msg, srv.URL+"/pcf/ledger.csv") {
		t.Errorf("the task's start with a changed cached file: ok %v, %q; want a failure naming the file's URL", ok, msg)
	}
	got, _ = Fetch(ctx, cache, present, srv.Client(), nil)
	for _, f := range got {
		if f.Name == name("/pcf/ledger.csv") && f.Got != "downloaded" {
			t.Errorf("a changed cached file: %s %v, want downloaded again", f.Got, f.Err)
		}
	}
	if b, _ := os.ReadFile(ledger); string(b) != files["/pcf/ledger.csv"] {
		t.Errorf("the changed file after a fetch = %q, want the server's", b)
	}
	os.Remove(ledger)
	if ok, msg := start(); ok || !strings.Contains(msg, "is missing") || !strings.Contains(msg, "pcflow import --fetch") {
		t.Errorf("the task's start with a cached file missing: ok %v, %q; want a failure saying how to get it", ok, msg)
	}
}

// TestReadSumsRefusesBadLines: a SHA256SUMS written by hand with a
// mistake is refused with its line.
func TestReadSumsRefusesBadLines(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, SumsFile), []byte(strings.Repeat("a", 64)+"  one.txt\nnot a sum\n"), 0o644)
	if _, err := ReadSums(dir); err == nil || !strings.Contains(err.Error(), SumsFile+":2:") {
		t.Errorf("ReadSums = %v, want an error naming line 2", err)
	}
	if sums, err := ReadSums(t.TempDir()); err != nil || sums != nil {
		t.Errorf("ReadSums of a cache without the file = %v, %v; want none", sums, err)
	}
}
