package workflows

import "github.com/pcflow/pcflow/activities"

// BenchmarkMetric is one evaluator function of an imported benchmark task
// (coverage.json's metrics): the checks that carry it. It scores 1 when
// all of them passed, 0 otherwise; with Score, the score of its check (a
// similarity check's, OSWorld's compare_images or fuzzy text ratios).
type BenchmarkMetric struct {
	Checks []string `json:"checks"`
	Score  bool     `json:"score,omitempty"`
}

// BenchmarkScoring is how the benchmark scores a task: its functions
// and how they combine (Conj "and", the default, or "or"); Infeasible for
// a task whose evaluator is OSWorld's infeasible.
type BenchmarkScoring struct {
	Conj       string            `json:"conj,omitempty"`
	Infeasible bool              `json:"infeasible,omitempty"`
	Metrics    []BenchmarkMetric `json:"metrics,omitempty"`
}

// BenchmarkScore is the task run's score as OSWorld's harness computes it
// (desktop_env's evaluate): an infeasible task scores 1 exactly when the
// agent's last action declared it infeasible (pcflow's fail), and any other
// task 0 when it did; otherwise each function's score, combined by "and"
// (0 at the first 0, else the mean) or "or" (1 at the first 1, else the
// largest). checks are the run's check results (task and subtask checks);
// a check that did not run or was skipped counts as failed, with score 0,
// and so does a function with no checks (one the import did not carry:
// leave those out to approximate a partly imported task). It is pure: the same results give the same score.
func BenchmarkScore(s BenchmarkScoring, checks []activities.CheckResult, agentFailed bool) float64 {
	if s.Infeasible {
		if agentFailed {
			return 1
		}
		return 0
	}
	if agentFailed || len(s.Metrics) == 0 {
		return 0
	}
	byName := make(map[string]activities.CheckResult, len(checks))
	for _, c := range checks {
		byName[c.Name] = c
	}
	metric := func(m BenchmarkMetric) float64 {
		if len(m.Checks) == 0 {
			return 0
		}
		score := 1.0
		for _, name := range m.Checks {
			r, ran := byName[name]
			switch {
			case !ran || r.Skipped:
				return 0
			case m.Score && r.Score != nil:
				score = min(score, min(max(*r.Score, 0), 1))
			case !r.Passed:
				return 0
			}
		}
		return score
	}
	var scores []float64
	for _, m := range s.Metrics {
		v := metric(m)
		switch {
		case s.Conj != "or" && v == 0:
			return 0
		case s.Conj == "or" && v == 1:
			return 1
		}
		scores = append(scores, v)
	}
	if s.Conj == "or" {
		best := scores[0]
		for _, v := range scores[1:] {
			best = max(best, v)
		}
		return best
	}
	var sum float64
	for _, v := range scores {
		sum += v
	}
	return sum / float64(len(scores))
}
