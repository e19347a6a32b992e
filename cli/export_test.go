package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/internal/atif"
	"github.com/pcflow/pcflow/internal/enginetest"
	"github.com/pcflow/pcflow/specs"
	"github.com/pcflow/pcflow/workflows"
)

// atifSchema is the ATIF v1.7 schema vendored with the exporter.
const atifSchema = "../internal/atif/testdata/atif-v1.7.schema.json"

// TestExportATIF runs a two-subtask task that types a secret through the
// engine, exports it with `pcflow export --format atif`, validates the
// file against the ATIF v1.7 schema and ATIF's other rules, and reads
// back the steps, the subtasks as sub-agent trajectories, a screenshot as
// an image, the tokens and their cost — and no secret. It also writes the
// run as `pcflow eval --atif` does for a suite's task runs.
func TestExportATIF(t *testing.T) {
	const secret = "hunter2-s3cr3t"
	res, diags := specs.Parse("t.hcl", []byte(`variable "pw" {
  sensitive = true
}
task "login" {
  subtask "type_it" {
    instruction = "Type the password ${var.pw} and press Enter."
  }
  subtask "wait_it" {
    instruction = "Wait for the form."
    depends_on  = [subtask.type_it]
  }
}`), specs.Options{Vars: map[string]string{"pw": secret}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	done := scripted.Step{Action: "done", Args: map[string]any{"outputs": map[string]any{}}}
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{
		// A model that repeats the secret in its thought: the worker
		// redacts it before the history holds it.
		"type_it": {Steps: []scripted.Step{{Thought: "The field will show " + secret + ".", Action: "type", Args: map[string]any{"text": "{{secret.pw}}", "enter": true}}, done}},
		"wait_it": {Steps: []scripted.Step{{Thought: "Let the form settle.", Action: "wait", Args: map[string]any{"seconds": 0.1}}, done}},
	}})
	dev := fakedevice.New("Password")
	acts := env.Activities(dev, "desktop", env.ModelConfig())
	acts.Secrets = res.Secrets
	env.Serve("desktop", acts, true)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r, err := env.Run(ctx, "export-run", *res.Plan, workflows.Options{})
	if err != nil || r.Reason != workflows.ReasonSuccess {
		t.Fatalf("run = %+v, %v", r, err)
	}
	if got := dev.Actions(); len(got) < 1 || got[0].Text != secret {
		t.Fatalf("device typed %+v, want the secret value first", got)
	}

	out := filepath.Join(t.TempDir(), "run.atif.json")
	var stdout, stderr bytes.Buffer
	args := []string{"export", "export-run", "--format", "atif", "--out", out, "--usd-per-mtok", "3,15",
		"--temporal", env.Server.HostPort, "--state", env.Dir}
	if code := run(ctx, args, &stdout, &stderr); code != 0 {
		t.Fatalf("pcflow %s = %d, stderr:\n%s", strings.Join(args, " "), code, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	sch, err := jsonschema.NewCompiler().Compile(atifSchema)
	if err != nil {
		t.Fatalf("compile %s: %v", atifSchema, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the export is not JSON: %v", err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Fatalf("the export does not validate against %s: %v\n%s", atifSchema, err, b)
	}
	exportSuiteATIF(t, ctx, env, sch)
	var tr atif.Trajectory
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatal(err)
	}
	if err := atif.Check(tr); err != nil {
		t.Fatalf("the export breaks ATIF's rules: %v", err)
	}

	if bytes.Contains(b, []byte(secret)) {
		t.Errorf("the export holds the secret:\n%s", b)
	}
	if !bytes.Contains(b, []byte("{{secret.pw}}")) {
		t.Errorf("the export does not show the placeholder where the secret was:\n%s", b)
	}
	// The root: the task, one step per subtask, the result.
	if tr.SchemaVersion != "ATIF-v1.7" || tr.SessionID != "export-run" || len(tr.Steps) != 4 {
		t.Fatalf("root: version %q, session %q, %d steps; want ATIF-v1.7, export-run, 4 (task, two subtasks, result)", tr.SchemaVersion, tr.SessionID, len(tr.Steps))
	}
	if len(tr.SubagentTrajectories) != 2 {
		t.Fatalf("%d sub-agent trajectories, want one per subtask", len(tr.SubagentTrajectories))
	}
	for i, name := range []string{"type_it", "wait_it"} {
		sub := tr.SubagentTrajectories[i]
		if sub.TrajectoryID != workflows.ChildID("export-run", name) {
			t.Errorf("sub-agent %d is %q, want subtask %s's workflow", i, sub.TrajectoryID, name)
		}
		refs := tr.Steps[i+1].Observation.Results[0].SubagentRefs
		if len(refs) != 1 || refs[0].TrajectoryID != sub.TrajectoryID {
			t.Errorf("root step %d refers to %+v, want %s", i+2, refs, sub.TrajectoryID)
		}
		// The instruction, a step per step of the loop, the end.
		if want := r.Subtasks[i].Steps + 2; len(sub.Steps) != want {
			t.Errorf("subtask %s: %d steps, want %d (the run took %d)", name, len(sub.Steps), want, r.Subtasks[i].Steps)
		}
	}
	typed := tr.SubagentTrajectories[0].Steps[1]
	if len(typed.ToolCalls) != 1 || typed.ToolCalls[0].FunctionName != "type" || typed.ToolCalls[0].Arguments["text"] != "{{secret.pw}}" {
		t.Errorf("the typing step's tool calls = %+v, want type with the placeholder", typed.ToolCalls)
	}
	if !strings.Contains(typed.ReasoningContent, "{{secret.pw}}") {
		t.Errorf("the typing step's thought = %q, want the placeholder in it", typed.ReasoningContent)
	}
	var image string
	for _, res := range typed.Observation.Results {
		if res.Content != nil && len(res.Content.Images) > 0 {
			image = res.Content.Images[0].Path
		}
	}
	if st, err := os.Stat(image); image == "" || err != nil || !strings.HasPrefix(image, env.Artifacts.Root) || st.Size() == 0 {
		t.Errorf("the typing step's screenshot is %q (%v), want a file in the artifact store %s", image, err, env.Artifacts.Root)
	}
	m := typed.Metrics
	if m == nil || m.PromptTokens == 0 || m.CompletionTokens == 0 || m.CostUSD == nil {
		t.Fatalf("the typing step's metrics = %+v, want tokens and a cost", m)
	}
	if want := (float64(m.PromptTokens)*3 + float64(m.CompletionTokens)*15) / 1e6; *m.CostUSD != want {
		t.Errorf("cost = %v, want %v at $3/$15 per million", *m.CostUSD, want)
	}
	total := tr.FinalMetrics.TotalPromptTokens + tr.FinalMetrics.TotalCompletionTokens
	if total != r.Usage.PromptTokens+r.Usage.CompletionTokens {
		t.Errorf("final metrics count %d tokens, the run's result %d", total, r.Usage.PromptTokens+r.Usage.CompletionTokens)
	}
}

// exportSuiteATIF writes the run as `pcflow eval --atif` writes a suite's
// task runs: a file per run that started, named by its key, valid ATIF.
func exportSuiteATIF(t *testing.T, ctx context.Context, env *enginetest.Env, sch *jsonschema.Schema) {
	t.Helper()
	dir := t.TempDir()
	suite := &workflows.SuiteResult{Runs: []workflows.SuiteRun{{Key: "login/2", Workflow: "export-run"}, {Key: "never_started"}}}
	if err := writeSuiteATIF(ctx, env.Client, suite, dir, env.Dir, nil); err != nil {
		t.Fatalf("eval --atif: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "atif", "*"))
	if len(files) != 1 || filepath.Base(files[0]) != "login_2.json" {
		t.Fatalf("eval --atif wrote %v, want atif/login_2.json alone", files)
	}
	b, _ := os.ReadFile(files[0])
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s is not JSON: %v", files[0], err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Errorf("%s does not validate: %v", files[0], err)
	}
	var tr atif.Trajectory
	if json.Unmarshal(b, &tr); tr.SessionID != "export-run" || len(tr.SubagentTrajectories) != 2 {
		t.Errorf("%s: session %q with %d sub-agents, want export-run with 2", files[0], tr.SessionID, len(tr.SubagentTrajectories))
	}
}
