package workflows_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	historypb "go.temporal.io/api/history/v1"
	"google.golang.org/protobuf/proto"

	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/fakedevice"
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
