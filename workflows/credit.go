package workflows

import (
	"encoding/json"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/specs/plan"
)

// partialCredit is the weighted share of the task's checks passed: each
// check node of the plan (subtask checks, those of subtasks that never ran
// included, and task checks) counts for its weight; a check earns weight ×
// its score when it has one (a similarity check, unless its credit is
// pass_fail), its whole weight when it passed, nothing when it failed or was skipped because an `after`
// predecessor did not pass (CRAB's graph rule, as CR). ok is false when
// the plan has no checks.
func partialCredit(res *InstructionResult, p plan.Plan) (pc float64, ok bool) {
	var total, earned float64
	credit := func(checks []plan.Check, results []activities.CheckResult) {
		byName := make(map[string]activities.CheckResult, len(results))
		for _, r := range results {
			byName[r.Name] = r
		}
		for _, ck := range checks {
			w := ck.Credit()
			total += w
			r, ran := byName[ck.Name]
			switch {
			case !ran || r.Skipped:
			case r.Score != nil && !ck.PassFail():
				earned += w * min(max(*r.Score, 0), 1)
			case r.Passed:
				earned += w
			}
		}
	}
	ran := make(map[string][]activities.CheckResult, len(res.Subtasks))
	for _, s := range res.Subtasks {
		ran[s.Name] = s.Checks
	}
	for _, s := range p.Subtasks {
		credit(s.Checks, ran[s.Name])
	}
	credit(p.Checks, res.Checks)
	if total == 0 {
		return 0, false
	}
	return earned / total, true
}

// infeasibleCredit sets an infeasible task's SSR, CR and PC to its SR:
// its one right answer is the agent's fail, which leaves its subtasks
// failed and its checks unrun, so counting them would give the right
// answer 0 and a false "done" 1.
func infeasibleCredit(res *InstructionResult, p plan.Plan) {
	if !p.Infeasible {
		return
	}
	res.Metrics.SSR, res.Metrics.CR, res.Metrics.PC = res.Metrics.SR, res.Metrics.SR, res.Metrics.SR
}

// UnmarshalJSON reads metrics, those of runs from before partial credit
// too: without weights or scores, their PC is their CR.
func (m *Metrics) UnmarshalJSON(b []byte) error {
	type plain Metrics
	var v struct {
		plain
		PC *float64 `json:"pc"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*m = Metrics(v.plain)
	m.PC = m.CR
	if v.PC != nil {
		m.PC = *v.PC
	}
	return nil
}
