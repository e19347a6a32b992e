package activities_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agents"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/artifacts"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/specs/plan"
)

// TestJudgeNeverSeesSecrets: a file the judge reads holds a sensitive
// variable's value; what reaches the judge's model (the prompt's files, as
// the scripted model records them) and the check's detail hold its
// placeholder, never the value, and the judge still sees the rest.
func TestJudgeNeverSeesSecrets(t *testing.T) {
	srv := scripted.New(scripted.Script{Judges: map[string]scripted.JudgeScript{"note": {Expect: []string{`password is \S+`, `hunter2-xyz`}}}})
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	path := filepath.Join(t.TempDir(), "note.txt")
	if err := os.WriteFile(path, []byte("The password is hunter2-xyz, keep it.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := &activities.Activities{Device: fakedevice.New("OK"), Artifacts: artifacts.Dir{Root: t.TempDir()}, Secrets: map[string]string{"pw": "hunter2-xyz"},
		Model: agents.New(agents.Config{BaseURL: srv.URL, APIKey: "k", DecisionModel: "scripted", MaxTokens: 256, Timeout: 10 * time.Second,
			ImageMaxSide: 400, ImageFormat: "png", MaxReasks: 2, Scripted: true})}
	r, err := a.Check(context.Background(), activities.CheckInput{Name: "note", Kind: plan.CheckJudge,
		Judge: &activities.JudgeCheck{Rubric: "The note names the password.", Files: []string{path}}})
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Turn == nil || reqs[0].Turn.Judge == nil || len(reqs[0].Turn.Judge.Files) != 1 {
		t.Fatalf("judge requests = %+v", reqs)
	}
	if got := reqs[0].Turn.Judge.Files[0].Text; strings.Contains(got, "hunter2") || !strings.Contains(got, "The password is") {
		t.Errorf("the judge was shown %q: want the note with the secret hidden", got)
	}
	if r.Passed || strings.Contains(r.Detail, "hunter2") || !strings.Contains(r.Detail, "not seen:") {
		t.Errorf("check = %+v: want a fail that never shows the secret", r)
	}
}
