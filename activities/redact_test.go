package activities_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.temporal.io/sdk/temporal"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/agents"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/artifacts"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
)

const (
	dashed   = "dash-Secret-9f3"
	cyrillic = "пароль-Значение-7"
)

var secrets = map[string]string{"api-key": dashed, "пароль": cyrillic}

func newActs(t *testing.T, dev activities.Device) *activities.Activities {
	t.Helper()
	dir := t.TempDir()
	log, err := activities.OpenActionLog(filepath.Join(dir, "actions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return &activities.Activities{Device: dev, Artifacts: artifacts.Dir{Root: filepath.Join(dir, "artifacts")}, Log: log, Secrets: secrets}
}

func TestRedactorString(t *testing.T) {
	r := activities.NewRedactor(secrets)
	for _, tc := range []struct{ in, want string }{
		{"key " + dashed + " end", "key {{secret.api-key}} end"},
		{"pw=" + cyrillic, "pw={{secret.пароль}}"},
		{"b64 " + base64.StdEncoding.EncodeToString([]byte(dashed)), "b64 {{secret.api-key}}"},
		{"url " + base64.RawURLEncoding.EncodeToString([]byte(cyrillic)), "url {{secret.пароль}}"},
		{"nothing here", "nothing here"},
		// The probe's forms: another letter case, hex, a value wrapped
		// over lines or spaced out.
		{"upper " + strings.ToUpper(dashed), "upper {{secret.api-key}}"},
		{"lower " + strings.ToLower(cyrillic), "lower {{secret.пароль}}"},
		{"hex " + hex.EncodeToString([]byte(dashed)) + " HEX " + strings.ToUpper(hex.EncodeToString([]byte(dashed))), "hex {{secret.api-key}} HEX {{secret.api-key}}"},
		{"wrapped " + dashed[:5] + "\n" + dashed[5:], "wrapped {{secret.api-key}}"},
		{"spaced " + strings.Join(strings.Split(dashed, ""), " "), "spaced {{secret.api-key}}"},
	} {
		if got := r.String(tc.in); got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestResolveEveryName substitutes sensitive variables whose names hold
// '-' and non-ASCII letters (the placeholder was typed as it was before),
// and refuses a placeholder it has no value for.
func TestResolveEveryName(t *testing.T) {
	r := activities.NewRedactor(secrets)
	got, err := r.Resolve("{{secret.api-key}}/{{secret.пароль}}", secrets)
	if want := dashed + "/" + cyrillic; err != nil || got != want {
		t.Errorf("Resolve = %q, %v; want %q", got, err, want)
	}
	for _, in := range []string{"{{secret.nope}}", "x {{secret.}} y", "{{secret.api key}}"} {
		_, err := r.Resolve(in, secrets)
		var app *temporal.ApplicationError
		if !errors.As(err, &app) || app.Type() != activities.ErrTypeSecret || !app.NonRetryable() {
			t.Errorf("Resolve(%q) = %v, want a non-retryable %s error", in, err, activities.ErrTypeSecret)
		}
	}
}

// TestActTypesOnlyResolvedSecrets: the device gets the value of a secret
// named with '-' or Cyrillic letters, and never a placeholder.
func TestActTypesOnlyResolvedSecrets(t *testing.T) {
	dev := fakedevice.New("OK")
	a := newActs(t, dev)
	ctx := context.Background()
	res, err := a.Act(ctx, activities.ActInput{ID: "1", Action: screen.Action{Kind: screen.ActType, Text: "{{secret.api-key}} {{secret.пароль}}"}})
	if err != nil || res.Outcome != activities.OutcomeDone {
		t.Fatalf("Act = %+v, %v", res, err)
	}
	if strings.Contains(res.Note, dashed) || strings.Contains(res.Note, cyrillic) {
		t.Errorf("Act note %q holds a secret", res.Note)
	}
	_, err = a.Act(ctx, activities.ActInput{ID: "2", Action: screen.Action{Kind: screen.ActType, Text: "{{secret.unknown-name}}"}})
	if err == nil || !strings.Contains(err.Error(), "{{secret.unknown-name}} has no value") {
		t.Errorf("Act with an unknown placeholder = %v, want an error naming it", err)
	}
	got := dev.Actions()
	if len(got) != 1 || got[0].Text != dashed+" "+cyrillic {
		t.Errorf("device typed %+v, want only the resolved secrets", got)
	}
}

// TestFailingCommandCheckIsRedacted: a command check that fails shows its
// output, never the secret in it (even where the output is cut short).
func TestFailingCommandCheckIsRedacted(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "creds")
	os.WriteFile(f, []byte(strings.Repeat("x", 190)+dashed+"\n"), 0o600)
	a := newActs(t, fakedevice.New("OK"))
	zero := 0
	for _, in := range []activities.CheckInput{
		{Name: "exit", Kind: plan.CheckCommand, Argv: []string{"sh", "-c", "cat " + f + "; echo " + dashed + "; exit 3"}, ExitCode: &zero},
		{Name: "cut", Kind: plan.CheckCommand, Argv: []string{"cat", f}, Contains: ptr("nope")},
		{Name: "file", Kind: plan.CheckFile, Path: f, Equals: ptr("other")},
	} {
		r, err := a.Check(context.Background(), in)
		if err != nil {
			t.Fatalf("Check(%s) = %v", in.Name, err)
		}
		if r.Passed {
			t.Errorf("Check(%s) passed", in.Name)
		}
		if strings.Contains(r.Detail, dashed) || strings.Contains(r.Detail, dashed[:8]) {
			t.Errorf("Check(%s) detail shows the secret or part of it: %q", in.Name, r.Detail)
		}
	}
}

// TestCommandsGetSecretsFromTheEnvironment: a setup command reads a secret
// from PCFLOW_SECRET_NAME; one with the secret in its command line (visible
// in ps) is refused.
func TestCommandsGetSecretsFromTheEnvironment(t *testing.T) {
	a := newActs(t, fakedevice.New("OK"))
	out := filepath.Join(t.TempDir(), "got")
	_, err := a.Setup(context.Background(), activities.SetupInput{Name: "env",
		Command: []string{"sh", "-c", `printf %s "$PCFLOW_SECRET_api_key" > ` + out}})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != dashed {
		t.Errorf("command read %q from the environment, want the secret", b)
	}
	_, err = a.Setup(context.Background(), activities.SetupInput{Name: "argv", Command: []string{"echo", "{{secret.api-key}}"}})
	if err == nil || !strings.Contains(err.Error(), "PCFLOW_SECRET_api_key") {
		t.Errorf("Setup with a secret in argv = %v, want a refusal naming the environment variable", err)
	}
	file := filepath.Join(t.TempDir(), "cfg")
	if _, err := a.Setup(context.Background(), activities.SetupInput{Name: "file", WriteFiles: []activities.FileWrite{{Path: file, Content: "k={{secret.пароль}}"}}}); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("file with a secret: %v, mode %v; want 0600", err, st.Mode().Perm())
	}
}

// TestRedactorScreen: a secret typed into a field is masked in the
// element list, the OCR words (also when OCR split it) and the pixels,
// and a window title that holds one has its title bar painted over.
func TestRedactorScreen(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 200, 100))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	s := &screen.Screen{
		Image:    img,
		Elements: []screen.Element{{ID: 1, Role: "text", Name: "Token", Value: "t=" + dashed, Box: screen.Rect{X: 10, Y: 10, W: 50, H: 20}}},
		Words: []screen.Word{{Text: "пароль-Значение", Box: screen.Rect{X: 100, Y: 60, W: 40, H: 10}},
			{Text: "-7", Box: screen.Rect{X: 141, Y: 60, W: 10, H: 10}}, {Text: "fine", Box: screen.Rect{X: 160, Y: 60, W: 20, H: 10}}},
		ActiveWindow: "login " + dashed, Clipboard: cyrillic,
		TitleBars: []screen.TitleBar{{Title: "login " + dashed, Box: screen.Rect{X: 0, Y: 82, W: 200, H: 15}},
			{Title: "Calculator", Box: screen.Rect{X: 100, Y: 38, W: 100, H: 12}}},
	}
	activities.NewRedactor(secrets).Screen(s)
	got := []string{s.Elements[0].Value, s.Words[0].Text + s.Words[1].Text, s.Words[2].Text, s.ActiveWindow, s.Clipboard}
	want := []string{"t={{secret.api-key}}", "{{secret.пароль}}", "fine", "login {{secret.api-key}}", "{{secret.пароль}}"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("redacted screen (-want +got):\n%s", d)
	}
	white := color.RGBAModel.Convert(color.White)
	if s.TitleBars[0].Title != "login {{secret.api-key}}" {
		t.Errorf("title bar's title = %q", s.TitleBars[0].Title)
	}
	for _, p := range []image.Point{{30, 20}, {120, 65}, {145, 65}, {5, 90}, {190, 90}} {
		if c := color.RGBAModel.Convert(s.Image.At(p.X, p.Y)); c == white {
			t.Errorf("pixel %v where a secret was shown is not masked", p)
		}
	}
	if c := color.RGBAModel.Convert(s.Image.At(170, 65)); c != white {
		t.Errorf("pixel of an unrelated word was masked")
	}
	if c := color.RGBAModel.Convert(s.Image.At(150, 44)); c != white {
		t.Errorf("pixel of a title bar without a secret was masked")
	}
}

// TestRedactorSplitAcrossBoxes: a secret that OCR split into boxes side by
// side on one row is redacted in every box that holds part of it, whether
// the boxes are OCR words listed apart (sparse OCR lists them by block, not
// by row) or text elements made of OCR lines; the row's other boxes and a
// row below are kept.
func TestRedactorSplitAcrossBoxes(t *testing.T) {
	r := activities.NewRedactor(map[string]string{"pw": "hunter2pass"})
	img := image.NewRGBA(image.Rect(0, 0, 300, 100))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	s := &screen.Screen{
		Image: img,
		Words: []screen.Word{
			{Text: "hunter", Box: screen.Rect{X: 40, Y: 10, W: 40, H: 12}},
			{Text: "below", Box: screen.Rect{X: 10, Y: 60, W: 30, H: 12}},
			{Text: "2pass", Box: screen.Rect{X: 120, Y: 11, W: 30, H: 12}},
			{Text: "Password:", Box: screen.Rect{X: 0, Y: 9, W: 35, H: 12}},
		},
		Elements: []screen.Element{
			{ID: 1, Role: "text", Name: "2pass", Box: screen.Rect{X: 200, Y: 40, W: 30, H: 12}, Source: "ocr"},
			{ID: 2, Role: "text", Name: "key: hunter", Box: screen.Rect{X: 120, Y: 41, W: 60, H: 12}, Source: "ocr"},
			{ID: 3, Role: "text", Name: "2pass", Box: screen.Rect{X: 120, Y: 80, W: 30, H: 12}, Source: "ocr"},
		},
	}
	r.Screen(s)
	var words, names []string
	for _, w := range s.Words {
		words = append(words, w.Text)
	}
	for _, e := range s.Elements {
		names = append(names, e.Name)
	}
	if d := cmp.Diff([]string{"{{secret.pw}}", "below", "", "Password:"}, words); d != "" {
		t.Errorf("OCR words (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"", "key: {{secret.pw}}", "2pass"}, names); d != "" {
		t.Errorf("element names (-want +got):\n%s", d)
	}
	white := color.RGBAModel.Convert(color.White)
	for _, p := range []image.Point{{60, 15}, {135, 16}, {215, 45}, {150, 46}} {
		if c := color.RGBAModel.Convert(s.Image.At(p.X, p.Y)); c == white {
			t.Errorf("pixel %v of a box that held part of the secret is not masked", p)
		}
	}
	for _, p := range []image.Point{{20, 65}, {135, 85}} {
		if c := color.RGBAModel.Convert(s.Image.At(p.X, p.Y)); c != white {
			t.Errorf("pixel %v of a box on another row was masked", p)
		}
	}
}

func TestRedactorValueAndError(t *testing.T) {
	r := activities.NewRedactor(secrets)
	type inner struct{ S []string }
	v := &struct {
		A string
		M map[string]any
		I any
		P *inner
	}{A: dashed, M: map[string]any{"k": cyrillic, dashed: "v"}, I: inner{S: []string{"x" + dashed}}, P: &inner{S: []string{cyrillic}}}
	r.Value(v)
	b, _ := jsonString(v)
	if strings.Contains(b, dashed) || strings.Contains(b, cyrillic) {
		t.Errorf("Value left a secret: %s", b)
	}
	err := r.Error(temporal.NewNonRetryableApplicationError("failed: "+dashed, "SetupFailed", errors.New(dashed)))
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || app.Type() != "SetupFailed" || !app.NonRetryable() || strings.Contains(err.Error(), dashed) {
		t.Errorf("Error = %v, want the same type, non-retryable, redacted", err)
	}
	if err := r.Error(errors.Join(context.Canceled, errors.New(dashed))); !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), dashed) {
		t.Errorf("Error of a cancellation = %v, want still a cancellation, redacted", err)
	}
}

func TestLogsAreRedacted(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(activities.NewRedactor(secrets).Handler(slog.NewTextHandler(&buf, nil)))
	l.With("k", dashed).Info("saw "+cyrillic, "err", errors.New(dashed), slog.Group("g", "x", cyrillic))
	if strings.Contains(buf.String(), dashed) || strings.Contains(buf.String(), cyrillic) {
		t.Errorf("log holds a secret: %s", buf.String())
	}
}

func ptr(s string) *string { return &s }

func jsonString(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

// BenchmarkRedactScreen: redacting one observation of a busy screen (120
// elements, 400 OCR words, a 1440×900 screenshot) where a secret shows in
// one field, so the pixels are masked too.
func BenchmarkRedactScreen(b *testing.B) {
	r := activities.NewRedactor(secrets)
	img := image.NewRGBA(image.Rect(0, 0, 1440, 900))
	var els []screen.Element
	for i := 0; i < 120; i++ {
		els = append(els, screen.Element{ID: i + 1, Role: "push button", Name: fmt.Sprintf("Button number %d", i), Box: screen.Rect{X: i * 10 % 1400, Y: i * 7 % 880, W: 40, H: 20}})
	}
	els[5].Value = "token " + dashed
	var words []screen.Word
	for i := 0; i < 400; i++ {
		words = append(words, screen.Word{Text: fmt.Sprintf("word%d", i), Box: screen.Rect{X: i * 3 % 1400, Y: i % 880, W: 30, H: 12}})
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := &screen.Screen{Image: img, Elements: append([]screen.Element(nil), els...), Words: append([]screen.Word(nil), words...), ActiveWindow: "Editor"}
		r.Screen(s)
	}
}

// BenchmarkRedactValue: redacting an activity result in place, as the
// worker does for every activity.
func BenchmarkRedactValue(b *testing.B) {
	r := activities.NewRedactor(secrets)
	for i := 0; i < b.N; i++ {
		res := &activities.DecideResult{Thought: strings.Repeat("thinking about the screen ", 20), Action: screen.Action{Kind: "type", Text: "hello " + dashed},
			Errors: []string{"a", "b"}, Exchanges: []string{"sha256-x.json"}}
		r.Value(res)
	}
}

// TestRedactedErrorKeepsDetails: a model error whose text holds a secret is
// redacted without losing the usage it carries (a failed subtask reports
// the calls it paid for).
func TestRedactedErrorKeepsDetails(t *testing.T) {
	r := activities.NewRedactor(map[string]string{"token": "hunter2-XYZ"})
	in := temporal.NewApplicationErrorWithOptions("endpoint said: bad key hunter2-XYZ", "ModelAuth",
		temporal.ApplicationErrorOptions{NonRetryable: true, Details: []any{screen.Usage{Calls: 3, PromptTokens: 1200}}})
	out := r.Error(in)
	if strings.Contains(out.Error(), "hunter2-XYZ") {
		t.Fatalf("Error(%v) = %v, still holds the secret", in, out)
	}
	var app *temporal.ApplicationError
	if !errors.As(out, &app) || !app.NonRetryable() || app.Type() != "ModelAuth" {
		t.Fatalf("Error(%v) = %#v, want a non-retryable ModelAuth application error", in, out)
	}
	// In process the detail is the JSON Temporal will carry; the workflow
	// decodes it as screen.Usage.
	var raw any
	if !app.HasDetails() || app.Details(&raw) != nil {
		t.Fatalf("Error(%v) lost its details", in)
	}
	b, _ := json.Marshal(raw)
	var u screen.Usage
	if err := json.Unmarshal(b, &u); err != nil {
		t.Fatalf("details %s: %v", b, err)
	}
	if diff := cmp.Diff(screen.Usage{Calls: 3, PromptTokens: 1200}, u); diff != "" {
		t.Errorf("usage after redaction (-want +got):\n%s", diff)
	}
}

// TestPersonTextIsRedactedInPrompts: what a person typed (an answer to
// ask_human, a release note, a reject reason) reaches the workflow in clear
// text; a secret's value in it never reaches the model.
func TestPersonTextIsRedactedInPrompts(t *testing.T) {
	srv := scripted.New(scripted.Script{Subtasks: map[string]scripted.SubtaskScript{"login": {Steps: []scripted.Step{{Action: "click", Target: "OK"}}}}})
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	a := newActs(t, fakedevice.New("OK"))
	a.Model = agents.New(agents.Config{BaseURL: srv.URL, APIKey: "k", DecisionModel: "m", ReflectionModel: "m", ProgressModel: "m",
		ManagerModel: "m", MaxTokens: 256, Timeout: 10 * time.Second, ImageMaxSide: 400, ImageFormat: "png", MaxReasks: 2, Scripted: true})
	said := "the password is " + dashed
	turn := agent.Turn{Goal: agent.Goal{Subtask: "login", Instruction: "log in", MaxSteps: 5}, Step: 1,
		State: agent.State{Answers: []string{said}, LastAction: "a person had control: " + said}}
	if _, err := a.Decide(context.Background(), activities.DecideInput{Turn: turn}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Progress(context.Background(), activities.ProgressInput{Turn: turn,
		Outcome: agent.Outcome{Action: "click OK", Verdict: "correct", Person: "rejected by x: " + said}}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) < 2 {
		t.Fatalf("%d model requests, want a Decision and a Progress", len(reqs))
	}
	for _, r := range reqs {
		if strings.Contains(r.Text, dashed) {
			t.Errorf("%s prompt holds the secret's value: %q", r.Role, r.Text)
		}
		if turn, _ := json.Marshal(r.Turn); r.Turn == nil || strings.Contains(string(turn), dashed) || !strings.Contains(string(turn), "the password is") {
			t.Errorf("%s request's turn = %s, want what the person said with the secret's value redacted", r.Role, turn)
		}
		if !strings.Contains(r.Text, "the password is") {
			t.Errorf("%s prompt lost what the person said: %q", r.Role, r.Text)
		}
	}
}
