package atif

import (
	"errors"
	"fmt"
)

// Check checks the rules of ATIF v1.7 that its JSON Schema cannot state
// (Harbor's model validators): step ids sequential from 1, every
// source_call_id naming a tool call of its own step, every
// embedded sub-agent trajectory with a trajectory id unique among its
// siblings, and every reference to one resolving. It checks the
// sub-agent trajectories too.
func Check(t Trajectory) error {
	var errs []error
	check(t, "trajectory", &errs)
	return errors.Join(errs...)
}

func check(t Trajectory, where string, errs *[]error) {
	fail := func(f string, a ...any) { *errs = append(*errs, fmt.Errorf(where+": "+f, a...)) }
	if t.SchemaVersion != SchemaVersion {
		fail("schema_version %q, want %q", t.SchemaVersion, SchemaVersion)
	}
	if len(t.Steps) == 0 {
		fail("no steps")
	}
	ids := map[string]bool{}
	for i, s := range t.SubagentTrajectories {
		switch {
		case s.TrajectoryID == "":
			fail("subagent_trajectories[%d] has no trajectory_id", i)
		case ids[s.TrajectoryID]:
			fail("subagent_trajectories[%d].trajectory_id %q is not unique", i, s.TrajectoryID)
		}
		ids[s.TrajectoryID] = true
	}
	for i, s := range t.Steps {
		if s.StepID != i+1 {
			fail("steps[%d].step_id is %d, want %d (sequential from 1)", i, s.StepID, i+1)
		}
		calls := map[string]bool{}
		for _, c := range s.ToolCalls {
			calls[c.ToolCallID] = true
		}
		if s.Observation == nil {
			continue
		}
		for _, r := range s.Observation.Results {
			if r.SourceCallID != "" && !calls[r.SourceCallID] {
				fail("step %d: source_call_id %q names no tool call of the step", s.StepID, r.SourceCallID)
			}
			for _, ref := range r.SubagentRefs {
				if !ids[ref.TrajectoryID] {
					fail("step %d: subagent_trajectory_ref %q names no embedded trajectory", s.StepID, ref.TrajectoryID)
				}
			}
		}
	}
	for i, s := range t.SubagentTrajectories {
		check(s, fmt.Sprintf("%s.subagent_trajectories[%d]", where, i), errs)
	}
}
