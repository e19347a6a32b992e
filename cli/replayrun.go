package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"go.temporal.io/sdk/client"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/artifacts"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/replayrun"
	"github.com/pcflow/pcflow/internal/text"
	"github.com/pcflow/pcflow/workflows"
)

// replayScript builds the checked replay of run from (--replay-run) for a
// run of task: its recorded actions, read from the history and the
// observations in the state folder's artifact store. The code is ≥ 0 when
// the command must end with it.
func replayScript(ctx context.Context, e *env, c client.Client, state, from, task string, secrets map[string]string, quiet bool) (*workflows.Replay, int) {
	rp, err := replayrun.Build(ctx, c, artifacts.Dir{Root: filepath.Join(state, "artifacts")}, from, secrets)
	if err != nil {
		fmt.Fprintf(e.stderr, "pcflow: --replay-run %s: %v\n", from, err)
		return nil, 1
	}
	if rp.Task != task {
		fmt.Fprintf(e.stderr, "pcflow: --replay-run %s: that run ran task %q, not %q: replay a run of the same task\n", from, text.Printable(rp.Task), task)
		return nil, 2
	}
	if !quiet {
		fmt.Fprintf(e.stdout, "replaying run %s: %d recorded steps, each checked on the screen before and after it; the agent takes over where the screen differs\n", from, replayrun.Count(rp))
	}
	return rp, -1
}

// replayedStep puts what a ReplayStep activity found into the history's
// steps: the step it confirmed the effect of, and the step it replayed or
// handed over at.
func replayedStep(st func(int) *Step, store artifacts.Dir, in activities.ReplayStepInput, out activities.ReplayStepResult) {
	if in.Confirms > 0 && (out.Drift == "" || out.Effect) {
		s := st(in.Confirms)
		s.Verdict, s.Reason = screen.VerdictCorrect, "the screen shows what the recording showed after this step (checked by the replay)"
		if out.Drift != "" {
			s.Verdict, s.Reason = screen.VerdictWrong, out.Drift
		}
	}
	s := st(in.Step)
	switch {
	case out.Drift != "":
		s.Replay = "the screen drifted from the recording: " + out.Drift + "; handed over to the agent"
	case len(in.Actions) == 0:
		s.Replay = "every recorded step is replayed"
	default:
		acts := make([]string, len(out.Actions))
		for i, a := range out.Actions {
			acts[i] = a.Summary()
		}
		s.Action = strings.Join(acts, "; ")
		s.Thought = "(replayed: no model call)"
		s.Replay = "replayed the recorded step: target checked in place"
		if out.Observation.Annotated != "" {
			s.Artifacts["before"] = store.Path(out.Observation.Annotated)
		}
	}
}

// suiteReplays builds the replay of each task run of suite run from
// whose run succeeded (its workflow id is FROM/KEY), says which tasks
// are not replayed and why, and packs them for the suite's input.
func suiteReplays(ctx context.Context, e *env, c client.Client, state, from string, st *compiledSuite) ([]byte, error) {
	replays := map[string]*workflows.Replay{}
	steps := 0
	for _, t := range st.tasks {
		id := from + "/" + t.Key
		rp, err := replayrun.Build(ctx, c, artifacts.Dir{Root: filepath.Join(state, "artifacts")}, id, st.secrets)
		if err == nil && rp.Task != st.plans[t.PlanHash].Task {
			err = fmt.Errorf("that run ran task %q, not %q", rp.Task, st.plans[t.PlanHash].Task)
		}
		if err != nil {
			fmt.Fprintf(e.stdout, "replay %s: not replayed, the agent runs it: %v\n", t.Key, err)
			continue
		}
		replays[t.Key] = rp
		steps += replayrun.Count(rp)
	}
	fmt.Fprintf(e.stdout, "replaying suite run %s: %d of %d task runs, %d recorded steps\n", from, len(replays), len(st.tasks), steps)
	return workflows.PackReplays(replays)
}

// printReplayed says how much of a finished task run a replay ran and
// where it handed over to the agent (pcflow eval --replay-run).
func printReplayed(w io.Writer, r workflows.SuiteRun) {
	res := r.Result
	if res == nil || res.Replayed == 0 && len(res.HandedOver) == 0 {
		return
	}
	fmt.Fprintf(w, "  replay %s: %d steps replayed without the model", r.Key, res.Replayed)
	for _, h := range res.HandedOver {
		fmt.Fprintf(w, "; handed over to the agent at %s", oneLine(h, 200))
	}
	fmt.Fprintln(w)
}
