package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcflow/pcflow/internal/report"
	"github.com/pcflow/pcflow/specs/importer"
)

// TestEvalImportedSuiteScore imports four OSWorld tasks of the test's own
// (an and, an or the import carries partly, an infeasible one, and one the
// agent leaves undone) and runs them through pcflow eval with the scripted
// model, which reports each done: results.json, the summary and the report
// give each run OSWorld's score beside SR (the or task fails pcflow's
// checks and scores 1 as OSWorld scores it; the infeasible one claimed done
// scores 0), and their mean under the benchmark's name.
func TestEvalImportedSuiteScore(t *testing.T) {
	t.Parallel()
	src, out := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(src, "os"), 0o755)
	file := "/tmp/pcflow-task/greeting.txt"
	cat := map[string]any{"type": "vm_command_line", "command": []string{"cat", file}}
	include := func(s string) map[string]any {
		return map[string]any{"type": "rule", "rules": map[string]any{"include": []string{s}, "exclude": []string{}}}
	}
	exact := func(s string) map[string]any {
		return map[string]any{"type": "rule", "rules": map[string]any{"expected": s}}
	}
	setup := []any{map[string]any{"type": "command", "parameters": map[string]any{"command": []string{"sh", "-c", "echo hello > " + file}}}}
	tasks := map[string]map[string]any{
		"pcf-and": {"func": []string{"check_include_exclude", "exact_match"}, "conj": "and",
			"result": []any{cat, cat}, "expected": []any{include("hello"), exact("hello\n")}},
		"pcf-or": {"func": []string{"exact_match", "check_include_exclude"}, "conj": "or",
			"result": []any{cat, cat}, "expected": []any{exact("goodbye\n"), include("hello")}},
		"pcf-infeasible": {"func": "infeasible"},
		"pcf-undone":     {"func": "check_include_exclude", "result": cat, "expected": include("goodbye")},
	}
	for id, ev := range tasks {
		b, _ := json.Marshal(map[string]any{"id": id, "instruction": "Look at the greeting, then finish.", "config": setup, "evaluator": ev})
		os.WriteFile(filepath.Join(src, "os", id+".json"), b, 0o644)
	}
	w := newEvalWorld(t)
	if code, log := w.pcflow("import", "osworld", src, "--out", out, "--quiet"); code != 0 {
		t.Fatalf("pcflow import = %d:\n%s", code, log)
	}
	var cov importer.Coverage
	b, _ := os.ReadFile(filepath.Join(out, "coverage.json"))
	if err := json.Unmarshal(b, &cov); err != nil || len(cov.Tasks) != 4 {
		t.Fatalf("coverage.json: %v, %+v", err, cov.Tasks)
	}
	// A scripted suite holds one Manager answer, whose subtask every task
	// runs: the agent reports each task done, the infeasible one too.
	script := `{"manager": {"subtasks": [{"name": "look", "instruction": "Look at the greeting, then finish."}]},
 "subtasks": {"look": {"steps": [{"thought": "Nothing to do.", "action": "done"}]}}}`
	os.WriteFile(strings.TrimSuffix(filepath.Join(out, cov.Tasks[0].File), ".hcl")+".script.json", []byte(script), 0o644)
	code, log := w.pcflow(w.flags("eval", out, "--devices", "1", "--out", w.out, "--sandbox", "bind")...)
	if _, err := os.Stat(filepath.Join(w.out, "results.json")); err != nil {
		t.Fatalf("eval exited %d with no results:\n%s", code, log)
	}
	r := readResults(t, w.out)
	want := map[string]string{"pcf-and": "succeeded 1", "pcf-or": "failed 1", "pcf-infeasible": "failed 0", "pcf-undone": "failed 0"}
	got := scoresByTask(r, cov, out)
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: status and OSWorld score %q, want %q (all: %v)\n%s", id, got[id], w, got, log)
		}
	}
	if len(r.Benchmarks) != 1 || r.Benchmarks[0].Title != "OSWorld" || r.Benchmarks[0].Runs != 4 || r.Benchmarks[0].Score != 0.5 {
		t.Errorf("benchmarks = %+v, want OSWorld's 0.5 over 4 runs", r.Benchmarks)
	}
	if !strings.Contains(log, "OSWorld score (the benchmark's own scoring): 0.50 over 4 runs") {
		t.Errorf("eval's summary lacks OSWorld's score:\n%s", log)
	}
	html, _ := os.ReadFile(filepath.Join(w.out, "index.html"))
	if !strings.Contains(string(html), `data-benchmark="osworld">0.50</td>`) {
		t.Errorf("index.html lacks OSWorld's score 0.50")
	}
}

// scoresByTask maps each imported task's id to its run's status and
// OSWorld score ("succeeded 1"; "none" for no score), as results.json
// gives them; out is the folder the import wrote.
func scoresByTask(r *report.Results, cov importer.Coverage, out string) map[string]string {
	got := map[string]string{}
	for _, row := range r.Runs {
		for _, tc := range cov.Tasks {
			if filepath.Join(out, tc.File) == row.File {
				s := "none"
				if row.BenchmarkScore != nil {
					s = fmt.Sprint(*row.BenchmarkScore)
				}
				got[tc.ID] = row.Status + " " + s
			}
		}
	}
	return got
}
