package workflows_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/internal/enginetest"
	"github.com/pcflow/pcflow/specs"
	"github.com/pcflow/pcflow/workflows"
)

// TestVideoRefusedOrMissingIsNoted: a run that asks for video gets, per
// device, either its recording or a note saying why there is none — a
// task with sensitive variables is never recorded (no Record activity
// reaches the device), and a device that cannot record says so — while
// the task itself runs to its end either way.
func TestVideoRefusedOrMissingIsNoted(t *testing.T) {
	t.Parallel() // its own server (enginetest.Start)
	secret, diags := specs.Parse("t.hcl", []byte(`variable "pw" {
  sensitive = true
}
task "login" {
  subtask "s" {
    instruction = "Type the password ${var.pw}."
  }
}`), specs.Options{Vars: map[string]string{"pw": "hunter2-s3cr3t"}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	plain := mustPlan(t, `task "plain" {
  subtask "s" {
    instruction = "click A"
  }
}`)
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{"s": {Steps: []scripted.Step{click("A"), done(nil)}}}})
	acts := env.Activities(fakedevice.New("A", "B"), "desktop", env.ModelConfig())
	acts.Secrets = secret.Secrets
	env.Serve("desktop", acts, true)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, tc := range []struct {
		id, note string
		run      func() (*workflows.InstructionResult, error)
	}{
		{"video-secret", "not recorded: the task has sensitive variables (pw)", func() (*workflows.InstructionResult, error) {
			return env.Run(ctx, "video-secret", *secret.Plan, workflows.Options{Video: true})
		}},
		{"video-fake", "not recorded: device desktop (*fakedevice.Device) cannot record video", func() (*workflows.InstructionResult, error) {
			return env.Run(ctx, "video-fake", plain, workflows.Options{Video: true})
		}},
	} {
		res, err := tc.run()
		if err != nil || res.Reason != workflows.ReasonSuccess {
			t.Fatalf("%s: run = %+v, %v; want success without video", tc.id, res, err)
		}
		if len(res.Videos) != 1 || res.Videos[0].Device != "desktop" || len(res.Videos[0].Segments) != 0 || !strings.HasPrefix(res.Videos[0].Note, tc.note) {
			t.Errorf("%s: videos = %+v, want one for desktop noting %q", tc.id, res.Videos, tc.note)
		}
	}
	if got := scheduled(t, env, "video-secret"); strings.Contains(got, "video") {
		t.Errorf("the task with a sensitive variable scheduled:\n%s\nwant no recording", got)
	}
	if got := scheduled(t, env, "video-fake"); !strings.Contains(got, "record video of desktop") {
		t.Errorf("the plain task scheduled:\n%s\nwant a recording of desktop", got)
	}
}
