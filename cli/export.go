package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.temporal.io/sdk/client"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/artifacts"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/atif"
	"github.com/pcflow/pcflow/internal/runhistory"
	"github.com/pcflow/pcflow/workflows"
)

func cmdExport(ctx context.Context, e *env, args []string) int {
	var ef engineFlags
	fs := newFlags(e, "export", "RUN --format atif [--out FILE]", "Write a run's trajectory in an interchange format, read from Temporal's history as\n`pcflow history` reads it. atif: Harbor's Agent Trajectory Interchange Format v1.7 —\nthe run as the root trajectory, each subtask an embedded sub-agent trajectory whose\nsteps hold the Decision agent's thought and action, what the device did, the\nReflection verdict, the screenshots (paths in the state folder's artifact store) and\nthe tokens. Secrets appear as their {{secret.NAME}} placeholders.")
	ef.register(fs, e, false)
	format := fs.String("format", "atif", "`FORMAT` of the trajectory: atif")
	out := fs.String("out", "", "write to `FILE` instead of standard output")
	prices := fs.String("usd-per-mtok", "", "`PROMPT,COMPLETION` prices in US dollars per million tokens, to give each step's cost (default: no cost)")
	ids, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(ids) != 1 {
		fmt.Fprintln(e.stderr, "pcflow export: name one run id")
		return 2
	}
	if *format != "atif" {
		fmt.Fprintf(e.stderr, "pcflow export: --format %q is not a format pcflow writes; the one it writes is atif\n", *format)
		return 2
	}
	o := atif.Options{Agent: "pcflow", Version: version}
	if *prices != "" {
		p, err := parsePrices(*prices)
		if err != nil {
			fmt.Fprintln(e.stderr, "pcflow export: --usd-per-mtok:", err)
			return 2
		}
		o.Prices = p
	}
	g, t, err := ef.openRun(ctx, e, ids[0])
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow export:", err)
		return 1
	}
	defer g.close()
	b, err := exportATIF(t, artifacts.Dir{Root: filepath.Join(ef.state, "artifacts")}, o, secretRedactor(e.environ))
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow export:", err)
		return 1
	}
	if *out == "" {
		fmt.Fprintln(e.stdout, string(b))
		return 0
	}
	if err := os.WriteFile(*out, append(b, '\n'), 0o600); err != nil {
		fmt.Fprintf(e.stderr, "pcflow export: write the trajectory: %v (pick another --out)\n", err)
		return 1
	}
	return 0
}

// parsePrices reads "PROMPT,COMPLETION".
func parsePrices(s string) (*atif.Prices, error) {
	in, out, ok := strings.Cut(s, ",")
	p, err1 := strconv.ParseFloat(strings.TrimSpace(in), 64)
	c, err2 := strconv.ParseFloat(strings.TrimSpace(out), 64)
	if !ok || err1 != nil || err2 != nil || p < 0 || c < 0 {
		return nil, fmt.Errorf("%q is not two prices: give PROMPT,COMPLETION in US dollars per million tokens, say 3,15", s)
	}
	return &atif.Prices{Prompt: p, Completion: c}, nil
}

// secretRedactor masks the values of the PCFLOW_SECRET_* variables this
// process has: the history is redacted already, and this keeps a value
// out of the export even if something unredacted reached it.
func secretRedactor(environ []string) func(string) string {
	secrets := map[string]string{}
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		if name, ok := strings.CutPrefix(k, "PCFLOW_SECRET_"); ok && v != "" {
			secrets[name] = v
		}
	}
	if len(secrets) == 0 {
		return nil
	}
	return activities.NewRedactor(secrets).String
}

// exportATIF is a run's ATIF trajectory: its steps as `pcflow history`
// assembles them, with each step's tokens and actions from the same calls.
func exportATIF(t *runTrace, store artifacts.Dir, o atif.Options, redact func(string) string) ([]byte, error) {
	h := t.steps(store)
	r := atif.Run{ID: t.ID, Ended: t.Ended}
	if t.Input != nil {
		r.Task, r.Instruction = t.Input.Plan.Task, t.Input.Plan.Instruction
	}
	if res := t.Result; res != nil {
		r.Task, r.Status, r.Reason, r.Error = res.Task, res.Status, res.Reason, res.Error
		r.Checks = checkResults(res.Checks)
	}
	models := map[string]bool{}
	for _, ch := range t.Children {
		s := exportSubtask(t, ch, h)
		for _, ls := range s.Steps {
			for m := range ls.Usage.Models {
				models[m] = true
			}
		}
		r.Subtasks = append(r.Subtasks, s)
	}
	if len(models) == 1 {
		for m := range models {
			o.Model = m
		}
	}
	tr := atif.Build(r, o)
	if err := atif.Check(tr); err != nil {
		return nil, fmt.Errorf("run %s: the trajectory breaks ATIF's rules (a bug in pcflow's exporter): %w", t.ID, err)
	}
	return atif.Marshal(tr, redact)
}

// exportSubtask is one subtask's loop: the steps of h, with the tokens and
// actions of the subtask's calls.
func exportSubtask(t *runTrace, ch childTrace, h *History) atif.Subtask {
	s := atif.Subtask{Name: ch.Subtask, WorkflowID: ch.ID}
	if t.Result != nil {
		for _, sr := range t.Result.Subtasks {
			if sr.Name == ch.Subtask {
				s.Device, s.Status, s.Reason, s.Summary, s.Outputs = sr.Device, sr.Status, sr.Reason, sr.Summary, sr.Outputs
				s.Checks = checkResults(sr.Checks)
			}
		}
	}
	usage := map[int]*atif.Usage{}
	acts := map[int][]atif.Action{}
	outcomes := map[int][]string{}
	use := func(n int, u screen.Usage) {
		su := usage[n]
		if su == nil {
			su = &atif.Usage{}
			usage[n] = su
		}
		su.Calls += u.Calls
		su.PromptTokens += u.PromptTokens
		su.CompletionTokens += u.CompletionTokens
		for m, mu := range u.ByModel {
			if su.Models == nil {
				su.Models = map[string]int{}
			}
			su.Models[m] += mu.Calls
		}
	}
	for _, a := range ch.Calls {
		switch a.Type {
		case activities.DecideName:
			var in activities.DecideInput
			var out activities.DecideResult
			if a.Decode(true, &in) && a.Decode(false, &out) {
				if s.Instruction == "" {
					s.Instruction = in.Instruction
				}
				use(in.Step, out.Usage)
				acts[in.Step] = nil // a retried decision replaces the last
				for _, x := range append([]screen.Action{out.Action}, out.Batch...) {
					acts[in.Step] = append(acts[in.Step], atif.Action{Kind: x.Kind, Args: actionArgs(x)})
				}
			}
		case activities.ActName:
			var in activities.ActInput
			var out activities.ActResult
			if a.Decode(true, &in) && a.Decode(false, &out) {
				n := runhistory.StepOf(in.ID)
				o := out.Outcome
				if out.Note != "" {
					o += ": " + out.Note
				}
				if out.Error != "" {
					o += ": " + out.Error
				}
				outcomes[n] = append(outcomes[n], o)
			}
		case activities.ReflectName:
			var in activities.ReflectInput
			var out activities.ReflectResult
			if a.Decode(true, &in) && a.Decode(false, &out) {
				use(in.Step, out.Usage)
			}
		case activities.ProgressName:
			var in activities.ProgressInput
			var out activities.ProgressResult
			if a.Decode(true, &in) && a.Decode(false, &out) {
				use(in.Step, out.Usage)
			}
		}
	}
	for _, st := range h.Steps {
		if st.Subtask != ch.Subtask {
			continue
		}
		if s.Device == "" {
			s.Device = st.Device
		}
		ls := atif.LoopStep{N: st.Step, Thought: st.Thought, Summary: st.Action, Outcome: st.Outcome, Verdict: st.Verdict, Reason: st.Reason,
			Progress: st.Progress, Memory: st.Memory, Replay: st.Replay, Person: st.Person,
			Before: st.Artifacts["before"], After: st.Artifacts["after"], Zoom: st.Artifacts["zoom"]}
		if u := usage[st.Step]; u != nil {
			ls.Usage = *u
		}
		ls.Actions = acts[st.Step]
		for i, o := range outcomes[st.Step] {
			if i < len(ls.Actions) {
				ls.Actions[i].Outcome = o
			}
		}
		s.Steps = append(s.Steps, ls)
	}
	return s
}

// actionArgs are an action's fields but its kind, as the action log and
// the history write them.
func actionArgs(a screen.Action) map[string]any {
	b, _ := json.Marshal(a)
	var m map[string]any
	json.Unmarshal(b, &m)
	delete(m, "kind")
	return m
}

func checkResults(cs []activities.CheckResult) []atif.CheckResult {
	var out []atif.CheckResult
	for _, c := range cs {
		if c.Skipped {
			continue
		}
		out = append(out, atif.CheckResult{Name: c.Name, Passed: c.Passed, Detail: c.Detail})
	}
	return out
}

// writeSuiteATIF writes the ATIF trajectory of each task run of a suite
// run to DIR/atif/KEY.json (`pcflow eval --atif`).
func writeSuiteATIF(ctx context.Context, c client.Client, res *workflows.SuiteResult, dir, state string, redact func(string) string) error {
	out := filepath.Join(dir, "atif")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("atif trajectories: %w", err)
	}
	store := artifacts.Dir{Root: filepath.Join(state, "artifacts")}
	for _, run := range res.Runs {
		if run.Workflow == "" {
			continue // never started
		}
		t, err := readRun(ctx, c, run.Workflow, true)
		if err != nil {
			return fmt.Errorf("atif trajectory of %s: %w", run.Key, err)
		}
		b, err := exportATIF(t, store, atif.Options{Agent: "pcflow", Version: version}, redact)
		if err != nil {
			return fmt.Errorf("atif trajectory of %s: %w", run.Key, err)
		}
		name := strings.NewReplacer("/", "_", " ", "_").Replace(run.Key) + ".json"
		if err := os.WriteFile(filepath.Join(out, name), append(b, '\n'), 0o644); err != nil {
			return fmt.Errorf("atif trajectory of %s: %w", run.Key, err)
		}
	}
	return nil
}
