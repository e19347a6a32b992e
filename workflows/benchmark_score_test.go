package workflows

import (
	"testing"

	"github.com/pcflow/pcflow/activities"
)

func TestBenchmarkScore(t *testing.T) {
	score := func(v float64) *float64 { return &v }
	checks := []activities.CheckResult{
		{Name: "a", Passed: true},
		{Name: "b", Passed: false},
		{Name: "sim", Passed: false, Score: score(0.5)},
		{Name: "sim_full", Passed: true, Score: score(1)},
		{Name: "skipped", Passed: true, Skipped: true},
	}
	one := func(names ...string) BenchmarkMetric { return BenchmarkMetric{Checks: names} }
	sim := func(name string) BenchmarkMetric { return BenchmarkMetric{Checks: []string{name}, Score: true} }
	for _, tc := range []struct {
		name   string
		s      BenchmarkScoring
		failed bool
		want   float64
	}{
		{"one function passed", BenchmarkScoring{Metrics: []BenchmarkMetric{one("a")}}, false, 1},
		{"all its checks must pass", BenchmarkScoring{Metrics: []BenchmarkMetric{one("a", "b")}}, false, 0},
		{"a similarity's score", BenchmarkScoring{Metrics: []BenchmarkMetric{sim("sim")}}, false, 0.5},
		{"and: the mean", BenchmarkScoring{Metrics: []BenchmarkMetric{one("a"), sim("sim")}}, false, 0.75},
		{"and: 0 at the first 0", BenchmarkScoring{Metrics: []BenchmarkMetric{sim("sim"), one("b"), one("a")}}, false, 0},
		{"or: the largest", BenchmarkScoring{Conj: "or", Metrics: []BenchmarkMetric{one("b"), sim("sim")}}, false, 0.5},
		{"or: 1 at the first 1", BenchmarkScoring{Conj: "or", Metrics: []BenchmarkMetric{sim("sim"), sim("sim_full"), one("b")}}, false, 1},
		{"a check that did not run", BenchmarkScoring{Metrics: []BenchmarkMetric{one("missing")}}, false, 0},
		{"a skipped check", BenchmarkScoring{Metrics: []BenchmarkMetric{one("skipped")}}, false, 0},
		{"infeasible, the agent said so", BenchmarkScoring{Infeasible: true}, true, 1},
		{"infeasible, claimed done", BenchmarkScoring{Infeasible: true}, false, 0},
		{"feasible, the agent gave up", BenchmarkScoring{Metrics: []BenchmarkMetric{one("a")}}, true, 0},
		{"no function carried", BenchmarkScoring{}, false, 0},
	} {
		if got := BenchmarkScore(tc.s, checks, tc.failed); got != tc.want {
			t.Errorf("%s: BenchmarkScore = %v, want %v", tc.name, got, tc.want)
		}
	}
}
