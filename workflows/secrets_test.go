package workflows_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	historypb "go.temporal.io/api/history/v1"
	"google.golang.org/protobuf/proto"

	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/enginetest"
	"github.com/pcflow/pcflow/specs"
	"github.com/pcflow/pcflow/workflows"
)

// TestSecretsStayOnTheDevice types a sensitive variable: the device gets
// the value, while the model, the workflow history and the action log see
// only the placeholder.
func TestSecretsStayOnTheDevice(t *testing.T) {
	const secret = "hunter2-s3cr3t"
	res, diags := specs.Parse("t.hcl", []byte(`variable "pw" {
  sensitive = true
}
task "login" {
  subtask "type_it" {
    instruction = "Type the password ${var.pw} and press Enter."
  }
}`), specs.Options{Vars: map[string]string{"pw": secret}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{
		"type_it": {Steps: []scripted.Step{{Action: "type", Args: map[string]any{"text": "{{secret.pw}}", "enter": true}}, done(nil)}},
	}})
	dev := fakedevice.New("Password")
	acts := env.Activities(dev, "desktop", env.ModelConfig())
	acts.Secrets = res.Secrets
	env.Serve("desktop", acts, true)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := env.Run(ctx, "secret-run", *res.Plan, workflows.Options{})
	if err != nil || r.Reason != workflows.ReasonSuccess {
		t.Fatalf("run = %+v, %v", r, err)
	}
	if got := dev.Actions(); len(got) != 1 || got[0].Text != secret {
		t.Fatalf("device typed %+v, want the secret value", got)
	}
	for _, req := range env.Model.Requests() {
		if strings.Contains(req.Text, secret) {
			t.Errorf("the model saw the secret in a %s request", req.Role)
		}
	}
	for _, id := range []string{"secret-run", workflows.ChildID("secret-run", "type_it")} {
		for _, e := range history(t, env.Client, id) {
			// Binary encoding: payload bytes appear as they are (JSON
			// would hide them in base64).
			b, _ := proto.Marshal(e.(*historypb.HistoryEvent))
			if strings.Contains(string(b), secret) {
				t.Errorf("history of %s holds the secret in clear text", id)
			}
		}
	}
	logs, _ := filepath.Glob(filepath.Join(env.Dir, "actions-*.jsonl"))
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		if strings.Contains(string(b), secret) {
			t.Errorf("action log %s holds the secret", l)
		}
		if !strings.Contains(string(b), "{{secret.pw}}") {
			t.Errorf("action log %s does not show the placeholder", l)
		}
	}
}

// TestSecretsRedactedEverywhere plants a secret, named with '-', in every
// path a value can leave the worker by: typed into a visible field (so
// later observations and prompts show it), repeated by the model in its
// thought, memory and outputs, printed by a failing command check, and
// read by a setup command from the environment. Neither the history, the
// artifacts, the action log nor the prompts hold it afterwards.
func TestSecretsRedactedEverywhere(t *testing.T) {
	const secret = "tok-Zq81-xV"
	got := filepath.Join(t.TempDir(), "got")
	res, diags := specs.Parse("t.hcl", []byte(`variable "api-key" {
  sensitive = true
}
task "login" {
  setup "env" {
    command = ["sh", "-c", "printf %s \"$PCFLOW_SECRET_api_key\" > `+got+`"]
  }
  subtask "type_it" {
    instruction = "Type the token ${var.api-key} into the Token field."
    output "echo" {}
    check "printed" {
      command {
        argv      = ["sh", "-c", "echo the token is $PCFLOW_SECRET_api_key; exit 1"]
        exit_code = 0
      }
    }
  }
}`), specs.Options{Vars: map[string]string{"api-key": secret}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{
		"type_it": {Steps: []scripted.Step{
			{Action: "type", Target: "Token", Args: map[string]any{"text": "{{secret.api-key}}"}},
			// A model that repeats the secret everywhere it can.
			{Thought: "The field shows " + secret + ".", Memory: "token " + secret, Action: "wait", Args: map[string]any{"seconds": 0.1}},
			done(map[string]any{"echo": secret}),
		}},
	}})
	dev := fakedevice.New("Login")
	dev.Elements = append(dev.Elements, screen.Element{ID: 2, Role: "text", Name: "Token", Box: screen.Rect{X: 20, Y: 100, W: 200, H: 30}, Source: "a11y"})
	acts := env.Activities(dev, "desktop", env.ModelConfig())
	acts.Secrets = res.Secrets
	acts.RecordExchanges = true
	env.Serve("desktop", acts, true)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := env.Run(ctx, "leak-run", *res.Plan, workflows.Options{})
	if err != nil || r.Reason != workflows.ReasonCheckFailed {
		t.Fatalf("run = %+v, %v; want check_failed (the command check fails)", r, err)
	}
	if acts := dev.Actions(); len(acts) < 1 || acts[0].Text != secret {
		t.Fatalf("device typed %+v, want the secret value", acts)
	}
	if b, _ := os.ReadFile(got); string(b) != secret {
		t.Errorf("the setup command read %q from $PCFLOW_SECRET_api_key, want the secret", b)
	}
	forms := []string{secret, base64.StdEncoding.EncodeToString([]byte(secret))}
	leaks := func(where string, b []byte) {
		t.Helper()
		for _, f := range forms {
			if bytes.Contains(b, []byte(f)) {
				t.Errorf("%s holds %q", where, f)
			}
		}
	}
	rb, _ := json.Marshal(r)
	leaks("the run's result", rb)
	if !bytes.Contains(rb, []byte("{{secret.api-key}}")) {
		t.Errorf("the run's result does not show the placeholder where the secret was: %s", rb)
	}
	prompts := 0
	for _, req := range env.Model.Requests() {
		leaks("a "+req.Role+" prompt", []byte(req.Text))
		if strings.Contains(req.Text, "{{secret.api-key}}") {
			prompts++
		}
	}
	if prompts == 0 {
		t.Error("no prompt shows the placeholder: the typed field was not observed")
	}
	for _, id := range []string{"leak-run", workflows.ChildID("leak-run", "type_it")} {
		for _, e := range history(t, env.Client, id) {
			b, _ := proto.Marshal(e.(*historypb.HistoryEvent))
			leaks("history of "+id, b)
		}
	}
	filepath.WalkDir(env.Dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			leaks(p, b)
		}
		return nil
	})
}
