package atif

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

const schemaPath = "testdata/atif-v1.7.schema.json"

// validate checks b against the ATIF v1.7 schema.
func validate(t *testing.T, b []byte) error {
	t.Helper()
	c := jsonschema.NewCompiler()
	sch, err := c.Compile(schemaPath)
	if err != nil {
		t.Fatalf("compile %s: %v", schemaPath, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("read the export: %v", err)
	}
	return sch.Validate(doc)
}

func sampleRun() Run {
	return Run{ID: "r1", Task: "notes", Status: "succeeded", Reason: "success",
		Checks: []CheckResult{{Name: "file", Passed: true}},
		Subtasks: []Subtask{
			{Name: "write", WorkflowID: "r1/write", Device: "desktop", Instruction: "Type {{secret.pw}}", Status: "succeeded", Reason: "success",
				Steps: []LoopStep{
					{N: 1, Thought: "type it", Summary: "type \"{{secret.pw}}\"", Actions: []Action{{Kind: "type", Args: map[string]any{"text": "{{secret.pw}}"}, Outcome: "done"}},
						Verdict: "success", Reason: "typed", Usage: Usage{Calls: 3, PromptTokens: 1000, CompletionTokens: 50, Models: map[string]int{"m": 3}},
						Before: "/s/a/1.png", After: "/s/a/2.png"},
					{N: 2, Thought: "done", Summary: "done", Actions: []Action{{Kind: "done"}}, Usage: Usage{Calls: 1, PromptTokens: 500, CompletionTokens: 10}, Before: "/s/a/2.png"},
				}},
			{Name: "save", WorkflowID: "r1/save", Device: "desktop", Instruction: "Save", Status: "succeeded",
				Steps: []LoopStep{{N: 1, Summary: "key ctrl+s", Actions: []Action{{Kind: "key", Args: map[string]any{"keys": []string{"ctrl", "s"}}}, {Kind: "wait"}},
					Usage: Usage{Calls: 1, PromptTokens: 100, CompletionTokens: 5}, Before: "/s/a/3.jpg"}},
				Checks: []CheckResult{{Name: "saved", Passed: false, Detail: "no file"}}},
		}}
}

// TestBuildValidates builds a two-subtask run and validates it against
// the schema and Check, then reads back what a consumer needs.
func TestBuildValidates(t *testing.T) {
	tr := Build(sampleRun(), Options{Agent: "pcflow", Version: "0.1.0", Model: "m", Prices: &Prices{Prompt: 2, Completion: 10}})
	b, err := Marshal(tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := validate(t, b); err != nil {
		t.Fatalf("the export does not validate against %s: %v\n%s", schemaPath, err, b)
	}
	if err := Check(tr); err != nil {
		t.Fatal(err)
	}
	var back Trajectory
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.SubagentTrajectories) != 2 {
		t.Fatalf("%d sub-agent trajectories, want 2", len(back.SubagentTrajectories))
	}
	w := back.SubagentTrajectories[0]
	if got := len(w.Steps); got != 4 { // instruction, two loop steps, the end
		t.Errorf("subtask write has %d steps, want 4", got)
	}
	if img := w.Steps[0].Message.Images; len(img) != 1 || img[0].Path != "/s/a/1.png" || img[0].MediaType != "image/png" {
		t.Errorf("the instruction's step shows %+v, want the first screenshot", img)
	}
	obs := w.Steps[1].Observation.Results
	if last := obs[len(obs)-1].Content; len(last.Images) != 1 || last.Images[0].Path != "/s/a/2.png" || !strings.Contains(last.Text, "verdict: success — typed") {
		t.Errorf("step 1's observation = %+v, want the verdict and the screenshot after", last)
	}
	if m := w.Steps[1].Metrics; m == nil || m.PromptTokens != 1000 || m.CompletionTokens != 50 || m.CostUSD == nil || *m.CostUSD != 0.0025 {
		t.Errorf("step 1's metrics = %+v, want 1000/50 tokens costing $0.0025", m)
	}
	if fm := back.FinalMetrics; fm.TotalPromptTokens != 1600 || fm.TotalCompletionTokens != 65 || fm.TotalSteps != len(back.Steps) {
		t.Errorf("final metrics = %+v, want 1600/65 tokens over %d steps", fm, len(back.Steps))
	}
	if img := back.SubagentTrajectories[1].Steps[0].Message.Images; len(img) != 1 || img[0].MediaType != "image/jpeg" {
		t.Errorf("a .jpg screenshot is %+v, want image/jpeg", img)
	}
}

// TestSchemaRefusesWhatATIFForbids: the vendored schema is not a rubber
// stamp — the faults Harbor's models refuse fail it, and Check finds the
// rest.
func TestSchemaRefusesWhatATIFForbids(t *testing.T) {
	good, _ := Marshal(Build(sampleRun(), Options{Agent: "pcflow", Version: "0"}), nil)
	for _, c := range []struct {
		name string
		edit func(doc map[string]any)
	}{
		{"unknown field", func(d map[string]any) { d["agent"].(map[string]any)["colour"] = "red" }},
		{"metrics on a user step", func(d map[string]any) {
			d["steps"].([]any)[0].(map[string]any)["metrics"] = map[string]any{"prompt_tokens": 1}
		}},
		{"image part without source", func(d map[string]any) {
			sub := d["subagent_trajectories"].([]any)[0].(map[string]any)
			sub["steps"].([]any)[0].(map[string]any)["message"] = []any{map[string]any{"type": "image"}}
		}},
		{"embedded trajectory without id", func(d map[string]any) {
			delete(d["subagent_trajectories"].([]any)[0].(map[string]any), "trajectory_id")
		}},
		{"unresolvable reference", func(d map[string]any) {
			res := d["steps"].([]any)[1].(map[string]any)["observation"].(map[string]any)["results"].([]any)[0].(map[string]any)
			res["subagent_trajectory_ref"] = []any{map[string]any{"session_id": "r1"}}
		}},
		{"bad media type", func(d map[string]any) {
			sub := d["subagent_trajectories"].([]any)[0].(map[string]any)
			sub["steps"].([]any)[0].(map[string]any)["message"] = []any{map[string]any{"type": "image", "source": map[string]any{"media_type": "image/bmp", "path": "x.bmp"}}}
		}},
	} {
		var doc map[string]any
		json.Unmarshal(good, &doc)
		c.edit(doc)
		b, _ := json.Marshal(doc)
		if validate(t, b) == nil {
			t.Errorf("%s: the schema accepts it", c.name)
		}
	}
	tr := Build(sampleRun(), Options{Agent: "pcflow", Version: "0"})
	tr.Steps[1].StepID = 7
	tr.SubagentTrajectories[1].TrajectoryID = tr.SubagentTrajectories[0].TrajectoryID
	tr.SubagentTrajectories[0].Steps[1].Observation.Results[0].SourceCallID = "nope"
	err := Check(tr)
	for _, want := range []string{"step_id is 7", "not unique", `"nope" names no tool call`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check = %v, want it to say %q", err, want)
		}
	}
}

// TestMarshalRedacts: every string of the document passes the redactor.
func TestMarshalRedacts(t *testing.T) {
	r := sampleRun()
	r.Subtasks[0].Steps[0].Thought = "the password is hunter2"
	r.Subtasks[0].Outputs = map[string]string{"pw": "hunter2"}
	b, err := Marshal(Build(r, Options{Agent: "pcflow", Version: "0"}), func(s string) string { return strings.ReplaceAll(s, "hunter2", "{{secret.pw}}") })
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("hunter2")) || !bytes.Contains(b, []byte("the password is {{secret.pw}}")) {
		t.Errorf("the export holds the value or lost the placeholder:\n%s", b)
	}
}
