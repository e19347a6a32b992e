package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/workflows"
)

func run(key string, repeat int, ok bool, tags ...string) workflows.SuiteRun {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := workflows.SuiteRun{Key: key, Repeat: repeat, Tags: tags, Queued: t0, Started: t0.Add(time.Second), Ended: t0.Add(11 * time.Second),
		Status: workflows.StatusFailed, Reason: workflows.ReasonStepLimit,
		Result: &workflows.InstructionResult{Steps: 4, Metrics: workflows.Metrics{CR: 0.5}}}
	if ok {
		r.Status, r.Reason = workflows.StatusSucceeded, workflows.ReasonSuccess
		r.Result.Metrics = workflows.Metrics{SR: 1, SSR: 1, CR: 1}
	}
	return r
}

// TestBuildAggregatesAndPassK: pass@k counts tasks that passed at least
// once in k repeats, pass^k those that passed every time; tags and reasons
// aggregate the finished runs.
func TestBuildAggregatesAndPassK(t *testing.T) {
	sr := &workflows.SuiteResult{Suite: "s", Runs: []workflows.SuiteRun{
		run("a.r1", 1, true, "calc"), run("a.r2", 2, true, "calc"), // always
		run("b.r1", 1, false, "web"), run("b.r2", 2, true, "web"), // sometimes
		run("c.r1", 1, false, "web"), run("c.r2", 2, false, "web"), // never
	}}
	r := Build("id", sr, []string{"d1"}, Repro{})
	if d := cmp.Diff(&PassK{K: 2, PassAt: 0.6667, PassAll: 0.3333, Tasks: 3}, r.PassK); d != "" {
		t.Errorf("pass@k (-want +got):\n%s", d)
	}
	if r.Overall.Passed != 3 || r.Overall.Runs != 6 || r.Overall.SuccessRate != 0.5 || r.Overall.MeanCR != 0.75 {
		t.Errorf("overall = %+v, want 3/6 passed, mean CR 0.75", r.Overall)
	}
	if d := cmp.Diff(map[string]int{"success": 3, "step_limit": 3}, r.Overall.Reasons); d != "" {
		t.Errorf("reasons (-want +got):\n%s", d)
	}
	if w := r.ByTag["web"]; w.Runs != 4 || w.Passed != 1 {
		t.Errorf("web = %+v, want 4 runs, 1 passed", w)
	}
	if r.Runs[0].WallSeconds != 10 || r.Runs[0].QueueSeconds != 1 {
		t.Errorf("row 0 wall %v queue %v, want 10 and 1", r.Runs[0].WallSeconds, r.Runs[0].QueueSeconds)
	}
	if one := Build("id", &workflows.SuiteResult{Runs: sr.Runs[:1]}, nil, Repro{}); one.PassK != nil {
		t.Errorf("pass@k without repeats = %+v, want none", one.PassK)
	}
	dir := t.TempDir()
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "results.csv"))
	if lines := strings.Count(string(csv), "\n"); lines != 7 {
		t.Errorf("results.csv has %d lines, want a header and 6 rows", lines)
	}
}

func TestBaseKey(t *testing.T) {
	for in, want := range map[string]string{"calc.r2": "calc", "calc": "calc", "my.rule": "my.rule", "x.r10": "x"} {
		if got := BaseKey(in); got != want {
			t.Errorf("BaseKey(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestScoreBenchmarks: each imported task's run scores as the benchmark
// does (and: 0 at a failed function; or: the best; infeasible: 1 exactly
// when the agent gave up; a similarity function its score), beside SR;
// a harness error and a task not imported get no score; results.json,
// results.csv and the report carry the scores under the benchmark's name.
func TestScoreBenchmarks(t *testing.T) {
	passed := func(name string, ok bool) activities.CheckResult {
		return activities.CheckResult{Name: name, Passed: ok}
	}
	half := 0.5
	type task struct {
		scoring workflows.BenchmarkScoring
		result  *workflows.InstructionResult
	}
	two := []workflows.BenchmarkMetric{{Checks: []string{"m1"}}, {Checks: []string{"m2"}}}
	tasks := map[string]task{
		"and": {workflows.BenchmarkScoring{Conj: "and", Metrics: two}, &workflows.InstructionResult{Checks: []activities.CheckResult{passed("m1", true), passed("m2", false)}}},
		"or":  {workflows.BenchmarkScoring{Conj: "or", Metrics: two}, &workflows.InstructionResult{Checks: []activities.CheckResult{passed("m1", true), passed("m2", false)}}},
		"sim": {workflows.BenchmarkScoring{Metrics: []workflows.BenchmarkMetric{{Checks: []string{"m1"}, Score: true}}},
			&workflows.InstructionResult{Checks: []activities.CheckResult{{Name: "m1", Score: &half}}}},
		"infeasible": {workflows.BenchmarkScoring{Infeasible: true}, &workflows.InstructionResult{Subtasks: []workflows.SubtaskResult{{GaveUp: true}}}},
		"gave_up":    {workflows.BenchmarkScoring{Metrics: two[:1]}, &workflows.InstructionResult{Subtasks: []workflows.SubtaskResult{{GaveUp: true, Checks: []activities.CheckResult{passed("m1", true)}}}}},
		"harness":    {workflows.BenchmarkScoring{Metrics: two[:1]}, nil},
	}
	var runs []workflows.SuiteRun
	for _, k := range []string{"and", "or", "sim", "infeasible", "gave_up", "harness", "hand_written"} {
		r := run(k, 1, k == "infeasible")
		if k == "harness" {
			r.Reason = workflows.ReasonHarnessError
		}
		runs = append(runs, r)
	}
	r := Build("id", &workflows.SuiteResult{Suite: "s", Runs: runs}, nil, Repro{})
	r.ScoreBenchmarks(func(row Row) (Benchmark, workflows.BenchmarkScoring, *workflows.InstructionResult, bool) {
		tk, ok := tasks[row.Key]
		return Benchmark{Name: "osworld", Title: "OSWorld"}, tk.scoring, tk.result, ok
	})
	got := map[string]any{}
	for _, row := range r.Runs {
		if row.BenchmarkScore == nil {
			got[row.Key] = nil
		} else {
			got[row.Key] = *row.BenchmarkScore
		}
	}
	want := map[string]any{"and": 0.0, "or": 1.0, "sim": 0.5, "infeasible": 1.0, "gave_up": 0.0, "harness": nil, "hand_written": nil}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("scores (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]Benchmark{{Name: "osworld", Title: "OSWorld", Runs: 5, Score: 0.5}}, r.Benchmarks); d != "" {
		t.Errorf("benchmarks (-want +got):\n%s", d)
	}
	dir := t.TempDir()
	if err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(dir, r, nil); err != nil {
		t.Fatal(err)
	}
	js, _ := os.ReadFile(filepath.Join(dir, "results.json"))
	csv, _ := os.ReadFile(filepath.Join(dir, "results.csv"))
	html, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	for _, c := range []struct{ file, text, want string }{
		{"results.json", string(js), `"benchmark_score": 0.5`},
		{"results.json", string(js), `"title": "OSWorld"`},
		{"results.csv", string(csv), ",benchmark_score\n"},
		{"index.html", string(html), `OSWorld score (the benchmark's own scoring, 5 runs)</th><td class="benchmark-score" data-benchmark="osworld">0.50</td>`},
	} {
		if !strings.Contains(c.text, c.want) {
			t.Errorf("%s lacks %q:\n%s", c.file, c.want, c.text)
		}
	}
}
