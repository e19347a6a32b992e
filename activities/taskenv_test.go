package activities_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.temporal.io/sdk/temporal"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/fakedevice"
)

const (
	hostKey = "sk-unit-9F3kQz77Wd"
	hostPW  = "pw-Osprey-5521"
)

// hostActivities is Activities in a worker whose environment holds the
// operator's credentials, a variable of its own and a display.
func hostActivities(t *testing.T) *activities.Activities {
	t.Helper()
	t.Setenv("OPENAI_API_KEY", hostKey)
	t.Setenv("PCFLOW_DB_PASSWORD", hostPW)
	t.Setenv("GITHUB_TOKEN", "ghp_unit0000Tok")
	t.Setenv("WORKER_ONLY", "kept-here")
	t.Setenv("DISPLAY", ":97")
	t.Setenv("LC_TIME", "C")
	return &activities.Activities{Device: fakedevice.New(), Secrets: map[string]string{"token": "tv-Larch-31"}, HostSecrets: activities.HostSecrets(os.Environ())}
}

// TestCommandsGetTaskEnv: a command check sees the desktop's variables
// and the task's own secret, never the worker's credentials or its other
// variables.
func TestCommandsGetTaskEnv(t *testing.T) {
	a := hostActivities(t)
	in := activities.CheckInput{Name: "env", Kind: "command", Capture: true,
		Argv: []string{"sh", "-c", "for v in OPENAI_API_KEY PCFLOW_DB_PASSWORD GITHUB_TOKEN WORKER_ONLY DISPLAY LC_TIME PCFLOW_SECRET_token; do printf '%s=%s\\n' $v \"$(printenv $v)\"; done"}}
	r, err := a.Check(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	want := "OPENAI_API_KEY=\nPCFLOW_DB_PASSWORD=\nGITHUB_TOKEN=\nWORKER_ONLY=\nDISPLAY=:97\nLC_TIME=C\nPCFLOW_SECRET_token={{secret.token}}"
	if d := cmp.Diff(want, r.Value); d != "" {
		t.Errorf("the command's environment (-want +got):\n%s", d)
	}
}

// TestCommandOutputHidesHostSecrets: an operator's key a command prints
// anyway (here written into its command line, as a task could copy it
// from a readable file) is masked in a check's detail and value and in a
// failed setup's error.
func TestCommandOutputHidesHostSecrets(t *testing.T) {
	a := hostActivities(t)
	zero := 0
	print := []string{"sh", "-c", "echo key=$0 pw=$1; exit $2", hostKey, hostPW}
	failed, err := a.Check(context.Background(), activities.CheckInput{Name: "p", Kind: "command", Argv: append(print, "2"), ExitCode: &zero})
	if err != nil {
		t.Fatal(err)
	}
	captured, err := a.Check(context.Background(), activities.CheckInput{Name: "p", Kind: "command", Argv: append(print, "0"), ExitCode: &zero, Capture: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{failed.Detail, captured.Value} {
		if strings.Contains(s, hostKey) || strings.Contains(s, hostPW) || !strings.Contains(s, "key={{secret.OPENAI_API_KEY}} pw={{secret.PCFLOW_DB_PASSWORD}}") {
			t.Errorf("check shows %q, want the operator's key and password as their placeholders", s)
		}
	}
	_, err = a.Setup(context.Background(), activities.SetupInput{Name: "s", Command: append(print, "2")})
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || strings.Contains(err.Error(), hostKey) || strings.Contains(err.Error(), hostPW) || !strings.Contains(err.Error(), "{{secret.OPENAI_API_KEY}}") {
		t.Errorf("Setup = %v, want a setup failure with the key as its placeholder", err)
	}
	if got := a.OutputRedactor().String("x " + hostKey); got != "x {{secret.OPENAI_API_KEY}}" {
		t.Errorf("OutputRedactor().String = %q", got)
	}
	if a.Redactor().Holds(hostKey) {
		t.Error("the task's Redactor masks the operator's key: every observation would be read by OCR for it")
	}
}

func TestIsSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"OPENAI_API_KEY": true, "ANTHROPIC_API_KEY": true, "PCFLOW_DB_PASSWORD": true, "GITHUB_TOKEN": true,
		"AWS_SECRET": true, "gemini_api_key": true, "DISPLAY": false, "XDG_RUNTIME_DIR": false, "PATH": false, "TOKENIZER": false,
	} {
		if got := activities.IsSecretName(name); got != want {
			t.Errorf("IsSecretName(%q) = %v, want %v", name, got, want)
		}
	}
}
