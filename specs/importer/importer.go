package importer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Benchmarks are the formats Import reads.
var Benchmarks = []string{"osworld", "waa", "macosworld"}

// The statuses of an imported task.
const (
	Fully       = "fully"
	Partly      = "partly"
	NotImported = "not_imported"
)

// Options say what to import and where.
type Options struct {
	// Benchmark is one of Benchmarks.
	Benchmark string
	// Src is the benchmark's folder: <domain>/<id>.json files, or a
	// folder holding them under examples/ (OSWorld, Windows Agent Arena)
	// or tasks/ (macOSWorld), with index files (test_all.json) beside.
	Src string
	// Out is the folder the task files, suite.hcl, coverage.json,
	// coverage.md and files.json are written to.
	Out string
	// Files is the local cache of the files the tasks download, as an
	// absolute path on the device (the default of the task files'
	// variable files).
	Files string
	// Sums are the cached files' SHA-256 digests by name, as the cache's
	// SHA256SUMS lists them (ReadSums); nil when unknown.
	Sums map[string]string
	// Progress, when set, is called after each task.
	Progress func(done, total int, t TaskCoverage)
}

// Coverage is what coverage.json holds.
type Coverage struct {
	Benchmark string         `json:"benchmark"`
	Source    string         `json:"source"`
	Files     string         `json:"files"`
	Tasks     []TaskCoverage `json:"tasks"`
	Totals    Totals         `json:"totals"`
}

// Totals count the tasks by status.
type Totals struct {
	Tasks       int `json:"tasks"`
	Fully       int `json:"fully"`
	Partly      int `json:"partly"`
	NotImported int `json:"not_imported"`
}

// TaskCoverage is one benchmark task: what it was and how it was carried.
type TaskCoverage struct {
	ID       string `json:"id"`
	Domain   string `json:"domain"`
	Name     string `json:"name,omitempty"`
	File     string `json:"file,omitempty"`
	Status   string `json:"status"`
	Platform string `json:"platform"`
	// Runnable is false for a platform pcflow has no device for.
	Runnable bool `json:"runnable"`
	// Applications are the applications the benchmark says the task uses
	// (related_apps): a device without one fails the task with
	// missing_requirement when it launches it.
	Applications []string `json:"applications,omitempty"`
	Splits       []string `json:"splits,omitempty"`
	Reasons      []string `json:"reasons,omitempty"`
	// Setup and PostConfig are the types of the task's setup steps.
	Setup      []string `json:"setup,omitempty"`
	PostConfig []string `json:"postconfig,omitempty"`
	// Evaluators are the evaluator's functions, Conj how they combine.
	Evaluators []string `json:"evaluators,omitempty"`
	Conj       string   `json:"conj,omitempty"`
	Getters    []string `json:"getters,omitempty"`
	// Metrics say which checks carry each evaluator function, for the
	// benchmark's own score.
	Metrics []Metric `json:"metrics,omitempty"`
	// Downloads are the cached files the task needs.
	Downloads []Download `json:"downloads,omitempty"`
}

// Metric is one evaluator function and the checks that carry it: the
// function scores 1 when all of them pass (or, with Score, a similarity
// check's score).
type Metric struct {
	Func    string   `json:"func"`
	Carried string   `json:"carried"`
	Checks  []string `json:"checks,omitempty"`
	Score   bool     `json:"score,omitempty"`
	// Infeasible is the infeasible function: 1 when the agent said so.
	Infeasible bool `json:"infeasible,omitempty"`
}

// Download is a file of the local cache: the URL it comes from and its
// name in the cache.
type Download struct {
	URL  string `json:"url"`
	Name string `json:"name"`
	// SHA256 is the file's digest when the cache's SHA256SUMS knows it
	// (pcflow import --fetch writes it): the task's first setup step then
	// checks the cached file is that one.
	SHA256 string `json:"sha256,omitempty"`
}

// A task is one benchmark task as read, before conversion.
type task struct {
	id, domain, path string
	raw              []byte
	splits           []string
	// name is the pcflow task's name, files the cache's path, sums its
	// files' digests (Options.Sums).
	name, files string
	sums        map[string]string
}

// converted is what a benchmark's converter makes of a task.
type converted struct {
	cov TaskCoverage
	hcl string // empty when not imported
}

// Import reads the benchmark's task files and writes their conversions.
func Import(ctx context.Context, o Options) (*Coverage, error) {
	if !contains(Benchmarks, o.Benchmark) {
		return nil, fmt.Errorf("unknown benchmark %q: import reads %s", o.Benchmark, strings.Join(Benchmarks, ", "))
	}
	if !filepath.IsAbs(o.Files) {
		return nil, fmt.Errorf("the files cache %q is not an absolute path: the task files name it on the device", o.Files)
	}
	tasks, err := readTasks(o.Benchmark, o.Src)
	if err != nil {
		return nil, err
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("%s holds no task files (<domain>/<id>.json, or examples/<domain>/<id>.json): name the benchmark's task folder", o.Src)
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, fmt.Errorf("create the output folder: %w", err)
	}
	cov := &Coverage{Benchmark: o.Benchmark, Source: o.Src, Files: o.Files}
	names := map[string]bool{}
	var entries []suiteEntry
	for i, t := range tasks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		base := ident("t_", t.domain+"_"+t.id)
		t.name = base
		for n := 2; names[t.name]; n++ {
			t.name = fmt.Sprintf("%s_%d", base, n)
		}
		names[t.name] = true
		t.files, t.sums = o.Files, o.Sums
		var c converted
		switch o.Benchmark {
		case "macosworld":
			c, err = convertMacOSWorld(t)
		default:
			c, err = convertOSWorld(o.Benchmark, t)
		}
		if err != nil {
			return nil, err
		}
		c.cov.Splits = t.splits
		if c.hcl != "" {
			name := t.name
			c.cov.Name = name
			c.cov.File = filepath.ToSlash(filepath.Join(ident("d_", t.domain), ident("t_", t.id)+".hcl"))
			dst := filepath.Join(o.Out, filepath.FromSlash(c.cov.File))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				return nil, fmt.Errorf("create %s: %w", filepath.Dir(dst), err)
			}
			if err := os.WriteFile(dst, []byte(c.hcl), 0o644); err != nil {
				return nil, fmt.Errorf("write %s: %w", dst, err)
			}
			entries = append(entries, suiteEntry{name: name, cov: c.cov})
		}
		cov.Tasks = append(cov.Tasks, c.cov)
		if o.Progress != nil {
			o.Progress(i+1, len(tasks), c.cov)
		}
	}
	for _, t := range cov.Tasks {
		cov.Totals.Tasks++
		switch t.Status {
		case Fully:
			cov.Totals.Fully++
		case Partly:
			cov.Totals.Partly++
		default:
			cov.Totals.NotImported++
		}
	}
	if len(entries) > 0 {
		if err := os.WriteFile(filepath.Join(o.Out, "suite.hcl"), []byte(suiteFile(o.Benchmark, entries)), 0o644); err != nil {
			return nil, fmt.Errorf("write the suite: %w", err)
		}
	}
	js, err := json.MarshalIndent(cov, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(o.Out, "coverage.json"), append(js, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("write coverage.json: %w", err)
	}
	if err := os.WriteFile(filepath.Join(o.Out, "coverage.md"), []byte(coverageMarkdown(cov)), 0o644); err != nil {
		return nil, fmt.Errorf("write coverage.md: %w", err)
	}
	if err := writeFilesList(o.Out, cov); err != nil {
		return nil, err
	}
	return cov, nil
}

// writeFilesList writes files.json: every file the suite's cache must
// hold, by name, with the URL it comes from and the tasks that need it.
func writeFilesList(out string, cov *Coverage) error {
	type entry struct {
		Name   string   `json:"name"`
		URL    string   `json:"url"`
		SHA256 string   `json:"sha256,omitempty"`
		Tasks  []string `json:"tasks"`
	}
	byName := map[string]*entry{}
	for _, t := range cov.Tasks {
		if t.Status == NotImported {
			continue
		}
		for _, d := range t.Downloads {
			e := byName[d.Name]
			if e == nil {
				e = &entry{Name: d.Name, URL: d.URL, SHA256: d.SHA256}
				byName[d.Name] = e
			}
			if !contains(e.Tasks, t.ID) {
				e.Tasks = append(e.Tasks, t.ID)
			}
		}
	}
	list := make([]*entry, 0, len(byName))
	for _, e := range byName {
		list = append(list, e)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	js, err := json.MarshalIndent(struct {
		Cache string   `json:"cache"`
		Files []*entry `json:"files"`
	}{cov.Files, list}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "files.json"), append(js, '\n'), 0o644); err != nil {
		return fmt.Errorf("write files.json: %w", err)
	}
	return nil
}

type suiteEntry struct {
	name string
	cov  TaskCoverage
}

// suiteFile renders the suite: one entry per imported task, tagged with
// the benchmark, domain, splits and how it was imported.
func suiteFile(benchmark string, entries []suiteEntry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Imported by pcflow import %s: one entry per imported task.\n", benchmark)
	b.WriteString("# Tags: the benchmark, the domain, split:NAME for each index that lists the\n")
	b.WriteString("# task, imported_fully or imported_partly, and platform:NAME off linux.\n")
	fmt.Fprintf(&b, "suite %s {\n", quote(benchmark))
	for _, e := range entries {
		tags := []string{benchmark, e.cov.Domain}
		for _, s := range e.cov.Splits {
			tags = append(tags, "split:"+s)
		}
		tags = append(tags, "imported_"+e.cov.Status)
		if e.cov.Platform != "linux" {
			tags = append(tags, "platform:"+e.cov.Platform)
		}
		fmt.Fprintf(&b, "  task %s {\n    file = %s\n    tags = %s\n  }\n", quote(e.name), quote(e.cov.File), list(quoteAll(tags)))
	}
	b.WriteString("}\n")
	return b.String()
}

// readTasks finds the task files under src: <domain>/<id>.json, in
// src/examples (OSWorld, Windows Agent Arena), src/tasks (macOSWorld) or
// src itself, sorted by domain and id; index files (test_*.json) in src
// or beside the examples give each task its splits.
func readTasks(benchmark, src string) ([]task, error) {
	st, err := os.Stat(src)
	if err != nil {
		return nil, fmt.Errorf("read the benchmark folder: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a folder: name the folder that holds the <domain>/<id>.json task files", src)
	}
	root := src
	for _, sub := range []string{"examples", "tasks"} {
		if st, err := os.Stat(filepath.Join(src, sub)); err == nil && st.IsDir() {
			root = filepath.Join(src, sub)
			break
		}
	}
	splits, err := readIndexes(src, root)
	if err != nil {
		return nil, err
	}
	domains, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("read the benchmark folder: %w", err)
	}
	var tasks []task
	for _, d := range domains {
		if !d.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(root, d.Name()))
		if err != nil {
			return nil, fmt.Errorf("read domain %s: %w", d.Name(), err)
		}
		for _, f := range files {
			if f.IsDir() || !strings.HasSuffix(f.Name(), ".json") {
				continue
			}
			p := filepath.Join(root, d.Name(), f.Name())
			raw, err := os.ReadFile(p)
			if err != nil {
				return nil, fmt.Errorf("read task file: %w", err)
			}
			id := strings.TrimSuffix(f.Name(), ".json")
			tasks = append(tasks, task{id: id, domain: d.Name(), path: p, raw: raw, splits: splits[d.Name()+"/"+id]})
		}
	}
	return tasks, nil
}

// readIndexes reads the index files (test_*.json: {"domain": ["id", …]})
// in src and root: the splits of each domain/id.
func readIndexes(dirs ...string) (map[string][]string, error) {
	splits := map[string][]string{}
	seen := map[string]bool{}
	for _, dir := range dirs {
		matches, _ := filepath.Glob(filepath.Join(dir, "test_*.json"))
		for _, m := range matches {
			if seen[m] {
				continue
			}
			seen[m] = true
			raw, err := os.ReadFile(m)
			if err != nil {
				return nil, fmt.Errorf("read index: %w", err)
			}
			var idx map[string][]string
			if err := decodeJSON(m, raw, &idx); err != nil {
				return nil, err
			}
			split := strings.TrimSuffix(filepath.Base(m), ".json")
			for domain, ids := range idx {
				for _, id := range ids {
					key := domain + "/" + id
					if !contains(splits[key], split) {
						splits[key] = append(splits[key], split)
					}
				}
			}
		}
	}
	for _, s := range splits {
		sort.Strings(s)
	}
	return splits, nil
}

// decodeJSON decodes raw into v; a syntax or type error names the file,
// line and column.
func decodeJSON(path string, raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	err := dec.Decode(v)
	if err == nil {
		return nil
	}
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset - 1 // the offending byte is the last one read
	case errors.As(err, &te):
		off = te.Offset
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		off = int64(len(raw))
	}
	if off < 0 {
		return fmt.Errorf("%s: %w", path, err)
	}
	line, col := position(raw, off)
	return fmt.Errorf("%s:%d:%d: %w (fix the JSON there, or move the file out of the folder)", path, line, col, err)
}

// position is the 1-based line and column of byte offset off.
func position(raw []byte, off int64) (int, int) {
	if off > int64(len(raw)) {
		off = int64(len(raw))
	}
	line, col := 1, 1
	for _, c := range raw[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
