package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/pcflow/pcflow/specs"
	"github.com/pcflow/pcflow/specs/importer"
)

const importHelp = `Read a benchmark's task files as their authors published them and write pcflow
task files: one per task the checks can carry, a suite.hcl tagging each by
benchmark, domain, split (split:test_all) and imported_fully/imported_partly,
coverage.json and coverage.md (every task: fully, partly or not imported, and
why), and files.json (every file the tasks download: its URL and its name in
the --files cache). Each file written is validated; any problem fails the
command. See docs/import.md for what is carried how.

--fetch downloads every file files.json lists into the --files cache (on
this host: the devices must see the same folder), keeping the files already
there, and records each file's SHA-256 in the cache's SHA256SUMS; the task
files then check at their start that each cached file is that one. A cache
filled by hand gets its SHA256SUMS from ` + "`sha256sum * > SHA256SUMS`" + `.

  osworld     SRC holds <domain>/<id>.json (or examples/<domain>/<id>.json)
              and test_*.json index files
  waa         Windows Agent Arena's evaluation_examples_windows, the same format;
              the tasks name a windows device: they validate, they do not run
  macosworld  SRC holds <domain>/<id>.json (or tasks/<domain>/<id>.json); the
              tasks name a macos device: they validate, they do not run

Example: pcflow import osworld OSWorld/evaluation_examples --out tasks/osworld --files /srv/osworld-files`

func cmdImport(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "import", "osworld|waa|macosworld SRC --out DIR [--files DIR]", importHelp)
	out := fs.String("out", "", "`DIR` to write the task files, suite.hcl and the coverage into (required)")
	files := fs.String("files", "", "`DIR`, the local cache of the tasks' downloads, as a path on the devices (default /srv/pcflow-files/BENCHMARK; the overlay sandbox shows /srv)")
	quiet := fs.Bool("quiet", false, "print the summary only, not a line per task")
	fetch := fs.Bool("fetch", false, "download the files the tasks need into the --files cache (where the network allows), recording their SHA-256")
	fetchTimeout := fs.Duration("fetch-timeout", 10*time.Minute, "with --fetch: the longest `DURATION` one file's download may take")
	pos, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(pos) != 2 || *out == "" {
		fmt.Fprintf(e.stderr, "pcflow import: name the benchmark (%s), its task folder and --out DIR, e.g. pcflow import osworld OSWorld/evaluation_examples --out tasks/osworld\n", strings.Join(importer.Benchmarks, ", "))
		return 2
	}
	bench, src := pos[0], pos[1]
	cache := *files
	if cache == "" {
		cache = "/srv/pcflow-files/" + bench
	}
	if abs, err := filepath.Abs(cache); err == nil {
		cache = abs
	}
	sums, err := importer.ReadSums(cache)
	if err != nil {
		fmt.Fprintf(e.stderr, "pcflow import: %v\n", err)
		return 1
	}
	start := time.Now()
	opts := importer.Options{
		Benchmark: bench, Src: src, Out: *out, Files: cache, Sums: sums,
		Progress: func(done, total int, t importer.TaskCoverage) {
			if *quiet {
				return
			}
			line := fmt.Sprintf("[%d/%d] %-12s %s/%s", done, total, t.Status, t.Domain, t.ID)
			if t.Status == importer.NotImported && len(t.Reasons) > 0 {
				line += ": " + t.Reasons[0]
			}
			fmt.Fprintln(e.stdout, line)
		},
	}
	cov, err := importer.Import(ctx, opts)
	if err != nil {
		fmt.Fprintf(e.stderr, "pcflow import: %v\n", err)
		return 1
	}
	took := time.Since(start)
	failed := 0
	if *fetch {
		if failed, err = fetchFiles(ctx, e, cache, cov, *fetchTimeout); err != nil {
			fmt.Fprintf(e.stderr, "pcflow import: %v\n", err)
			return 1
		}
		// Again, with the digests now known: each task checks its files.
		if opts.Sums, err = importer.ReadSums(cache); err == nil {
			opts.Progress = nil
			cov, err = importer.Import(ctx, opts)
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "pcflow import: %v\n", err)
			return 1
		}
	}
	bad := 0
	for _, t := range cov.Tasks {
		if t.File == "" {
			continue
		}
		res, diags := specs.ParseFile(filepath.Join(*out, t.File), specs.Options{})
		if len(diags) > 0 {
			bad++
			_ = specs.WriteDiagnostics(e.stderr, res.Files, diags, false)
		}
	}
	tot := cov.Totals
	fmt.Fprintf(e.stdout, "imported %d %s tasks in %s: %d fully, %d partly, %d not imported (coverage.md says why)\n",
		tot.Tasks, bench, took.Round(time.Millisecond), tot.Fully, tot.Partly, tot.NotImported)
	fmt.Fprintf(e.stdout, "wrote %s: suite.hcl, coverage.json, coverage.md, files.json (the files to put in %s)\n", *out, cache)
	if bad > 0 {
		fmt.Fprintf(e.stderr, "pcflow import: %d written task file(s) have problems (above); this is a defect of the importer, please report it with the task's JSON\n", bad)
		return 1
	}
	if failed > 0 {
		fmt.Fprintf(e.stderr, "pcflow import: %d file(s) could not be fetched (above): put each into %s by hand (files.json names them), then run `pcflow import ... --fetch` again to record their SHA-256\n", failed, cache)
		return 1
	}
	return 0
}

// fetchFiles fills the cache with the files cov's tasks need, printing a
// line per file; it returns how many failed.
func fetchFiles(ctx context.Context, e *env, cache string, cov *importer.Coverage, timeout time.Duration) (int, error) {
	ds := cov.DistinctDownloads()
	if len(ds) == 0 {
		fmt.Fprintln(e.stdout, "fetch: the tasks download no file")
		return 0, nil
	}
	fmt.Fprintf(e.stdout, "fetch: %d files into %s\n", len(ds), cache)
	failed := 0
	client := &http.Client{Timeout: timeout}
	_, err := importer.Fetch(ctx, cache, ds, client, func(i, n int, f importer.Fetched) {
		if f.Err != nil {
			failed++
			fmt.Fprintf(e.stderr, "fetch [%d/%d] %s: %v\n", i, n, f.Name, f.Err)
			return
		}
		fmt.Fprintf(e.stdout, "fetch [%d/%d] %s: %s, %s, sha256 %s\n", i, n, f.Name, f.Got, fmt.Sprintf("%d bytes", f.Bytes), f.SHA256[:16])
	})
	return failed, err
}
