package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	"go.temporal.io/sdk/client"

	"github.com/pcflow/pcflow/internal/report"
	"github.com/pcflow/pcflow/specs/importer"
	"github.com/pcflow/pcflow/workflows"
)

// scoreBenchmarks gives each run of a task pcflow import wrote its
// benchmark's own score (report.ScoreBenchmarks): the task's scoring comes
// from the coverage.json import wrote beside it (in the task file's folder
// or one or two above), the run's checks and the agent's fail from its
// workflow's result. Suites of hand-written tasks are left as they are.
func scoreBenchmarks(ctx context.Context, c client.Client, r *report.Results) {
	idx := coverageIndex{}
	r.ScoreBenchmarks(func(row report.Row) (report.Benchmark, workflows.BenchmarkScoring, *workflows.InstructionResult, bool) {
		cov, t, ok := idx.find(row.File)
		if !ok {
			return report.Benchmark{}, workflows.BenchmarkScoring{}, nil, false
		}
		var res *workflows.InstructionResult
		if row.Workflow != "" {
			if tr, err := readRun(ctx, c, row.Workflow, false); err == nil {
				res = tr.Result
			}
		}
		return report.Benchmark{Name: cov.Benchmark, Title: importer.Title(cov.Benchmark)}, benchmarkScoring(t), res, true
	})
}

// coverageIndex maps folders to the imported tasks their coverage.json
// lists, by task file; a folder without one maps to nil.
type coverageIndex map[string]*importedTasks

type importedTasks struct {
	cov    importer.Coverage
	byFile map[string]importer.TaskCoverage
}

// find is the coverage of the imported task in file.
func (idx coverageIndex) find(file string) (*importer.Coverage, importer.TaskCoverage, bool) {
	if file == "" {
		return nil, importer.TaskCoverage{}, false
	}
	file = filepath.Clean(file)
	dir := filepath.Dir(file)
	for i := 0; i < 3; i, dir = i+1, filepath.Dir(dir) {
		it, seen := idx[dir]
		if !seen {
			it = readCoverage(dir)
			idx[dir] = it
		}
		if it == nil {
			continue
		}
		if t, ok := it.byFile[file]; ok {
			return &it.cov, t, true
		}
	}
	return nil, importer.TaskCoverage{}, false
}

// readCoverage reads dir/coverage.json as pcflow import writes it; nil
// when there is none or it is not one.
func readCoverage(dir string) *importedTasks {
	b, err := os.ReadFile(filepath.Join(dir, "coverage.json"))
	if err != nil {
		return nil
	}
	it := &importedTasks{byFile: map[string]importer.TaskCoverage{}}
	if json.Unmarshal(b, &it.cov) != nil || it.cov.Benchmark == "" {
		return nil
	}
	for _, t := range it.cov.Tasks {
		if t.File != "" {
			it.byFile[filepath.Join(dir, filepath.FromSlash(t.File))] = t
		}
	}
	return it
}

// benchmarkScoring is how the benchmark scores an imported task: its
// functions that the import carried, with their checks (one it did not
// carry, in a partly imported task, is left out).
func benchmarkScoring(t importer.TaskCoverage) workflows.BenchmarkScoring {
	s := workflows.BenchmarkScoring{Conj: t.Conj}
	for _, m := range t.Metrics {
		switch {
		case m.Infeasible:
			s.Infeasible = true
		case m.Carried != "no":
			s.Metrics = append(s.Metrics, workflows.BenchmarkMetric{Checks: m.Checks, Score: m.Score})
		}
	}
	return s
}
