package agents_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/agents"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
)

var update = flag.Bool("update", false, "rewrite golden files")

func serve(t testing.TB, s scripted.Script) (*scripted.Server, agents.Config) {
	t.Helper()
	srv := scripted.New(s)
	if err := srv.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, agents.Config{BaseURL: srv.URL, APIKey: "k", DecisionModel: "m-decision", ReflectionModel: "m-reflect",
		ProgressModel: "m-progress", ManagerModel: "m-manager", MaxTokens: 256, Timeout: 10 * time.Second,
		ImageMaxSide: 400, ImageFormat: "png", MaxReasks: 2, Scripted: true}
}

var els = []screen.Element{
	{ID: 1, Role: "push button", Name: "Save", Box: screen.Rect{X: 100, Y: 50, W: 60, H: 20}},
	{ID: 2, Role: "text", Name: "", Value: "hello", Box: screen.Rect{X: 10, Y: 100, W: 400, H: 300}},
}

func input() agent.DecisionInput {
	return agent.DecisionInput{
		Turn: agent.Turn{
			Goal:  agent.Goal{Subtask: "save", Instruction: "save the file", MaxSteps: 5, Outputs: []plan.Output{{Key: "path"}}},
			Step:  1,
			State: agent.State{Memory: "the file is memo.txt", Progress: "typed the text"},
		},
		ActiveWindow: "memo.txt - Mousepad", Windows: []string{"memo.txt - Mousepad"}, Elements: els,
		Image: image.NewRGBA(image.Rect(0, 0, 800, 600)),
	}
}

func script(steps ...scripted.Step) scripted.Script {
	return scripted.Script{Subtasks: map[string]scripted.SubtaskScript{"save": {Steps: steps}}}
}

func TestDecisionRequestCarriesWhatTheAgentNeeds(t *testing.T) {
	srv, cfg := serve(t, script(scripted.Step{Action: "click", Target: "Save", Thought: "Save it."}))
	var u screen.Usage
	d, err := agents.New(cfg).Decide(context.Background(), input(), &u)
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Images != 1 || r.Model != "m-decision" {
		t.Errorf("request images=%d model=%q, want 1 screenshot to m-decision", r.Images, r.Model)
	}
	for _, want := range []string{`[1] push button "Save"`, "Memory: the file is memo.txt", "Progress so far: typed the text", "Screen: 400x300 image", "- path"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("prompt lacks %q:\n%s", want, r.Text)
		}
	}
	if len(r.Tools) != 16 || r.Tools[0] != "open_app" || r.Tools[14] != "fail" || r.Tools[15] != "ask_human" {
		t.Errorf("tools = %v, want the 16-action space", r.Tools)
	}
	want := screen.Action{Kind: "click", Element: 1, Target: "Save", X: 130, Y: 60}
	if diff := cmp.Diff(want, d.Action); diff != "" || d.Thought != "[script step 1] Save it." {
		t.Errorf("Decide action mismatch (-want +got):\n%s thought=%q", diff, d.Thought)
	}
	p, c := srv.Usage()
	if u.PromptTokens != p || u.CompletionTokens != c || u.Calls != 1 {
		t.Errorf("usage = %+v, server reported %d+%d", u, p, c)
	}
}

func TestCoordinatesMapBackToScreen(t *testing.T) {
	_, cfg := serve(t, script(scripted.Step{Action: "double_click", Args: map[string]any{"x": 200, "y": 150}}))
	d, err := agents.New(cfg).Decide(context.Background(), input(), &screen.Usage{})
	if err != nil {
		t.Fatal(err)
	}
	// The 800x600 screen was sent as 400x300: image (200,150) is screen (400,300).
	if d.Action.X != 400 || d.Action.Y != 300 {
		t.Errorf("double_click at (%d,%d), want screen (400,300)", d.Action.X, d.Action.Y)
	}
}

func TestTextFallback(t *testing.T) {
	srv, cfg := serve(t, script(scripted.Step{Action: "type", Args: map[string]any{"text": "hi", "element": 2}, Thought: "Type."}))
	cfg.TextActions = true
	d, err := agents.New(cfg).Decide(context.Background(), input(), &screen.Usage{})
	if err != nil {
		t.Fatal(err)
	}
	if len(srv.Requests()[0].Tools) != 0 {
		t.Error("text mode still sent tools")
	}
	if d.Action.Kind != "type" || d.Action.Text != "hi" || d.Action.Element != 2 || d.Thought != "[script step 1] Type." {
		t.Errorf("parsed %+v thought %q", d.Action, d.Thought)
	}
}

func TestInvalidAnswersAreReasked(t *testing.T) {
	tests := []struct {
		fault   string
		times   int
		wantErr string
	}{
		{"malformed", 2, ""},
		{"unknown_element", 1, ""},
		{"no_tool", 1, ""},
		{"malformed", 3, "not valid JSON"},
		{"unknown_element", 5, "element 99999 is not in the element list"},
	}
	for _, tt := range tests {
		t.Run(tt.fault, func(t *testing.T) {
			s := script(scripted.Step{Action: "click", Target: "Save"})
			s.Faults = []scripted.Fault{{Role: "decision", Kind: tt.fault, Times: tt.times}}
			srv, cfg := serve(t, s)
			d, err := agents.New(cfg).Decide(context.Background(), input(), &screen.Usage{})
			reqs := srv.Requests()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Decide = %v after %d bad answers, want recovery", err, tt.times)
				}
				if d.Invalid != tt.times || len(reqs) != tt.times+1 {
					t.Errorf("invalid=%d requests=%d, want %d and %d", d.Invalid, len(reqs), tt.times, tt.times+1)
				}
				if !strings.Contains(reqs[len(reqs)-1].Text, "Your previous answer was invalid") {
					t.Error("the re-ask does not tell the model what was wrong")
				}
				return
			}
			var inv *agent.InvalidOutputError
			if !errors.As(err, &inv) || !strings.Contains(err.Error(), tt.wantErr) || len(reqs) != 3 {
				t.Errorf("Decide = %v after %d requests, want ErrInvalidOutput mentioning %q after 3", err, len(reqs), tt.wantErr)
			}
		})
	}
}

func TestDoneNeedsDeclaredOutputs(t *testing.T) {
	s := script(scripted.Step{Action: "done", Args: map[string]any{"outputs": map[string]any{"other": "x"}}})
	_, cfg := serve(t, s)
	_, err := agents.New(cfg).Decide(context.Background(), input(), &screen.Usage{})
	if err == nil || !strings.Contains(err.Error(), "missing path") {
		t.Errorf("done without declared output: err = %v", err)
	}
}

func TestErrorClasses(t *testing.T) {
	tests := []struct {
		kind      string
		retryable bool
		typ       string
		msg       string
	}{
		{"429", true, agent.ErrTypeModelUnavailable, "busy or failing (HTTP 429)"},
		{"500", true, agent.ErrTypeModelUnavailable, "HTTP 500"},
		{"401", false, agent.ErrTypeModelAuth, "API key rejected by http://127.0.0.1"},
		{"404", false, agent.ErrTypeModelNotFound, "model m-decision not found at"},
		{"400", false, agent.ErrTypeModelRequest, "request rejected by"},
	}
	for _, tt := range tests {
		t.Run(tt.kind, func(t *testing.T) {
			s := script(scripted.Step{Action: "click", Target: "Save"})
			s.Faults = []scripted.Fault{{Role: "decision", Kind: tt.kind}}
			srv, cfg := serve(t, s)
			_, err := agents.New(cfg).Decide(context.Background(), input(), &screen.Usage{})
			var api *agent.APIError
			if !errors.As(err, &api) {
				t.Fatalf("err = %v, want an APIError", err)
			}
			if api.Retryable != tt.retryable || api.Type != tt.typ || !strings.Contains(api.Msg, tt.msg) {
				t.Errorf("APIError = %+v, want retryable=%v type=%q msg ⊇ %q", api, tt.retryable, tt.typ, tt.msg)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("client sent %d requests; it must not retry on its own (Temporal does)", n)
			}
		})
	}
	t.Run("unreachable", func(t *testing.T) {
		l, _ := net.Listen("tcp", "127.0.0.1:0")
		addr := l.Addr().String()
		l.Close()
		cfg := agents.Config{BaseURL: "http://" + addr + "/v1", APIKey: "k", DecisionModel: "m", Timeout: 2 * time.Second, MaxReasks: 1}
		_, err := agents.New(cfg).Decide(context.Background(), input(), &screen.Usage{})
		var api *agent.APIError
		if !errors.As(err, &api) || !api.Retryable || !strings.Contains(api.Msg, "unreachable") {
			t.Errorf("err = %v, want a retryable 'unreachable' error", err)
		}
	})
}

func TestScriptedServerRefusesDecisionWithoutImage(t *testing.T) {
	srv, _ := serve(t, script(scripted.Step{Action: "click", Target: "Save"}))
	cfg := openai.DefaultConfig("k")
	cfg.BaseURL = srv.URL
	_, err := openai.NewClientWithConfig(cfg).CreateChatCompletion(context.Background(), openai.ChatCompletionRequest{
		Model: "m", Messages: []openai.ChatCompletionMessage{
			{Role: "system", Content: "You are the Decision agent"}, {Role: "user", Content: "Subtask: save\nStep: 1"}},
		Tools: []openai.Tool{{Type: "function", Function: &openai.FunctionDefinition{Name: "click"}}},
	})
	var api *openai.APIError
	if !errors.As(err, &api) || api.HTTPStatusCode != 400 || !strings.Contains(api.Message, "no screenshot") {
		t.Errorf("err = %v, want HTTP 400 about the missing screenshot", err)
	}
}

func TestReflectionAndProgress(t *testing.T) {
	s := script(scripted.Step{Action: "click", Target: "Save", Memory: "saved as memo.txt"})
	s.Subtasks["save"] = scripted.SubtaskScript{Steps: s.Subtasks["save"].Steps, Reflections: []string{"no_effect"}}
	srv, cfg := serve(t, s)
	c := agents.New(cfg)
	var u screen.Usage
	img := image.NewRGBA(image.Rect(0, 0, 100, 100))
	r, err := c.Reflect(context.Background(), agent.ReflectionInput{Subtask: "save", Step: 1, Action: `click #1 "Save"`,
		Before: els, After: els, BeforeImage: img, AfterImage: img}, &u)
	if err != nil || r.Verdict != "no_effect" {
		t.Fatalf("Reflect = %+v, %v; want no_effect", r, err)
	}
	p, err := c.UpdateProgress(context.Background(), agent.ProgressInput{Turn: agent.Turn{Goal: agent.Goal{Subtask: "save"}, Step: 1},
		Outcome: agent.Outcome{Action: `click #1 "Save"`, Verdict: "no_effect"}}, &u)
	if err != nil || p.Memory != "saved as memo.txt" || !strings.Contains(p.Summary, "no_effect") {
		t.Fatalf("UpdateProgress = %+v, %v", p, err)
	}
	reqs := srv.Requests()
	if reqs[0].Images != 2 || reqs[1].Images != 0 {
		t.Errorf("reflection sent %d images (want before+after = 2), progress %d (want text only)", reqs[0].Images, reqs[1].Images)
	}
	pt, ct := srv.Usage()
	if u.Total() != pt+ct || u.Calls != 2 {
		t.Errorf("usage %+v, server %d", u, pt+ct)
	}
}

// TestProgressPromptStaysFlat: with the Progress agent's summary and memory,
// the prompt at step 30 is no larger than 1.2× the prompt at step 1.
func TestProgressPromptStaysFlat(t *testing.T) {
	first, last, full := promptSizes(30)
	if ratio := float64(last) / float64(first); ratio > 1.2 {
		t.Errorf("prompt at step 30 = %d bytes, step 1 = %d: ratio %.2f > 1.2", last, first, ratio)
	}
	if full < 2*last {
		t.Errorf("the full-history prompt (%d bytes) should dwarf the summarised one (%d)", full, last)
	}
}

// promptSizes drives the real Decision and Progress prompts through n steps
// of the scripted Progress agent, and compares with a prompt carrying the
// full history.
func promptSizes(n int) (first, last, fullHistory int) {
	srv := scripted.New(scripted.Script{})
	srv.Start("127.0.0.1:0")
	defer srv.Close()
	c := agents.New(agents.Config{BaseURL: srv.URL, APIKey: "k", ProgressModel: "m", Timeout: 5 * time.Second, Scripted: true})
	// A calculator's screen: 33 elements, as galculator shows them.
	in := input()
	in.Progress, in.Memory, in.Elements = "", "", nil
	for i, name := range strings.Fields("File Edit View Calculator Help C AC <- ( ) MS MR M+ 7 8 9 / sqrt 4 5 6 * % 1 2 3 - = 0 . +/- + display") {
		in.Elements = append(in.Elements, screen.Element{ID: i + 1, Role: "toggle button", Name: name, Box: screen.Rect{X: 560 + i%5*65, Y: 300 + i/5*40, W: 59, H: 34}})
	}
	var history []string
	for step := 1; step <= n; step++ {
		in.Step = step
		if step > 1 {
			in.LastAction, in.LastVerdict, in.LastReason = `click #1 "Save"`, "correct", "the dialog opened"
		}
		size := len(agents.DecisionPrompt(in, 400, 300, ""))
		if step == 1 {
			first = size
		}
		last = size
		action := `click #1 "Save"`
		history = append(history, "step "+action+" → correct: the dialog opened as expected and the name field has focus")
		p, err := c.UpdateProgress(context.Background(), agent.ProgressInput{Turn: agent.Turn{Goal: agent.Goal{Subtask: "save"}, Step: step, State: in.State},
			Outcome: agent.Outcome{Action: action, Thought: "Click Save to open the dialog.", Verdict: "correct"}}, &screen.Usage{})
		if err == nil {
			in.Progress, in.Memory = p.Summary, p.Memory
		}
	}
	full := in
	full.Progress = strings.Join(history, "\n")
	return first, last, len(agents.DecisionPrompt(full, 400, 300, ""))
}

func BenchmarkProgressPromptSize(b *testing.B) {
	for i := 0; i < b.N; i++ {
		first, last, full := promptSizes(30)
		b.ReportMetric(float64(first), "bytes@step1")
		b.ReportMetric(float64(last), "bytes@step30")
		b.ReportMetric(float64(last)/float64(first), "ratio")
		b.ReportMetric(float64(full)/float64(first), "full-history-ratio")
	}
}

func TestPromptGoldens(t *testing.T) {
	in := input()
	in.Knowledge = []string{"Ctrl+S saves."}
	in.LastAction, in.LastVerdict, in.LastReason = `type "hello"`, "correct", "the text appeared"
	got := map[string]string{
		"decision.txt": agents.DecisionPrompt(in, 400, 300, ""),
		"progress.txt": agents.ProgressPrompt(agent.ProgressInput{
			Turn: agent.Turn{Goal: agent.Goal{Subtask: "save", Instruction: "save the file", Outputs: []plan.Output{{Key: "path"}}},
				Step: 3, State: agent.State{Progress: "typed the text", Memory: "file is memo.txt"}},
			Outcome: agent.Outcome{Action: `hotkey ctrl+s`, Thought: "Save.", Verdict: "correct", Reason: "dialog opened"}}, ""),
		"reflection.txt": agents.ReflectionPrompt(agent.ReflectionInput{Subtask: "save", Instruction: "save the file", Action: `click #1 "Save"`,
			Thought: "Save it.", Note: "click at (130,60)", Step: 4, BeforeWindow: "memo.txt - Mousepad", AfterWindow: "Save As", Before: els, After: els[:1]}),
		"manager.txt": agents.ManagerPrompt(agent.ManagerInput{Instruction: "Note the product of 6 and 7 in a file.",
			Devices: []string{"desktop: the local display"}, Knowledge: []string{"galculator is the calculator."}}, "subtask \"b\": unknown device"),
		"judge.txt": agents.JudgePrompt(agent.JudgeInput{Check: "letter", Rubric: "The letter tells Ann the meeting moves to Friday.", Score: true,
			Screens: []agent.JudgeScreen{{Device: "office", ActiveWindow: "letter.odt - LibreOffice Writer"}, {Device: "laptop"}},
			Files:   []agent.JudgeFile{{Path: "/tmp/letter.txt", Text: "Dear Ann,\nthe meeting moves to Friday."}, {Path: "/tmp/gone.txt", Note: "cannot be read: no such file"}}}, ""),
		"user.txt": agents.UserPrompt(agent.UserInput{Persona: agent.UserPersona{Persona: "Dana, who asked for the list.", Knows: "The list is milk, eggs and bread.",
			Wants: "The list saved.", Style: "Short answers."}, Question: "What goes on the list?", Answers: []string{agent.AnswerLine("Which file?", "/tmp/list.txt")}}, ""),
		"user_approval.txt": agents.UserPrompt(agent.UserInput{Persona: agent.UserPersona{Persona: "Dana", Wants: "The list mailed."},
			Action: `click #4 "Send"`, Rule: "send_mail (test.hcl)", Message: "mail leaves the machine"}, "decision must be approve or reject"),
	}
	for name, text := range got {
		path := "testdata/" + name
		if *update {
			os.WriteFile(path, []byte(text), 0o644)
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./activities/agents -update)", err)
		}
		if diff := cmp.Diff(string(want), text); diff != "" {
			t.Errorf("%s changed (-want +got); if intended, run -update (PromptVersion, now %s, follows the templates):\n%s", name, agents.PromptVersion, diff)
		}
	}
}

// TestEveryRoleReasksTheSameWay drives each role through the one re-ask
// loop: a malformed answer is asked again with the problem fed back, and an
// answer with another tool never counts as a success.
func TestEveryRoleReasksTheSameWay(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 100, 100))
	roles := map[string]func(c *agents.Client, u *screen.Usage) error{
		agent.RoleDecision: func(c *agents.Client, u *screen.Usage) error {
			_, err := c.Decide(context.Background(), input(), u)
			return err
		},
		agent.RoleReflection: func(c *agents.Client, u *screen.Usage) error {
			_, err := c.Reflect(context.Background(), agent.ReflectionInput{Subtask: "save", Step: 1, Before: els, After: els, BeforeImage: img, AfterImage: img}, u)
			return err
		},
		agent.RoleProgress: func(c *agents.Client, u *screen.Usage) error {
			p, err := c.UpdateProgress(context.Background(), agent.ProgressInput{Turn: agent.Turn{Goal: agent.Goal{Subtask: "save"}, Step: 1},
				Outcome: agent.Outcome{Action: `click #1 "Save"`, Verdict: "correct"}}, u)
			if err == nil && (p.Memory != "saved as memo.txt" || p.Summary == "") {
				return fmt.Errorf("progress = %+v, want the scripted summary and memory", p)
			}
			return err
		},
		agent.RoleManager: func(c *agents.Client, u *screen.Usage) error {
			_, err := c.Manage(context.Background(), agent.ManagerInput{Instruction: "save"}, u)
			return err
		},
		agent.RoleJudge: func(c *agents.Client, u *screen.Usage) error {
			j, err := c.Judge(context.Background(), agent.JudgeInput{Check: "saved", Rubric: "memo.txt holds the memo.",
				Files: []agent.JudgeFile{{Path: "/tmp/memo.txt", Text: "the memo"}}}, u)
			if err == nil && (!j.Pass || j.PromptVersion != agents.JudgePromptVersion) {
				return fmt.Errorf("judgement = %+v, want a pass from the file's text", j)
			}
			return err
		},
		agent.RoleUser: func(c *agents.Client, u *screen.Usage) error {
			r, err := c.AnswerAsUser(context.Background(), agent.UserInput{Subtask: "save", Step: 1,
				Persona: agent.UserPersona{Persona: "Dana", Knows: "The file name is memo.txt."}, Question: "Which file name?"}, u)
			if err == nil && r.Text != "memo.txt" {
				return fmt.Errorf("reply = %+v, want memo.txt from the persona", r)
			}
			return err
		},
	}
	scriptJudgeAndUser := func(s *scripted.Script) {
		s.Judges = map[string]scripted.JudgeScript{"saved": {Expect: []string{"memo"}}}
		s.User = []scripted.UserRule{{Question: "file name", FromPersona: `name is (\S+\.txt)`}}
	}
	for role, call := range roles {
		for _, fault := range []string{"malformed", "wrong_tool", "no_tool"} {
			t.Run(role+"/"+fault, func(t *testing.T) {
				s := script(scripted.Step{Action: "click", Target: "Save", Memory: "saved as memo.txt"})
				s.Manager = json.RawMessage(`{"subtasks": [{"name": "save", "instruction": "save it"}]}`)
				s.Faults = []scripted.Fault{{Role: role, Kind: fault, Times: 1}}
				scriptJudgeAndUser(&s)
				srv, cfg := serve(t, s)
				var u screen.Usage
				if err := call(agents.New(cfg), &u); err != nil {
					t.Fatalf("%s after one %s answer = %v, want recovery on the re-ask", role, fault, err)
				}
				reqs := srv.Requests()
				if len(reqs) != 2 || u.Calls != 2 {
					t.Fatalf("%d requests, %d calls counted; want 2 (one re-ask)", len(reqs), u.Calls)
				}
				if !strings.Contains(reqs[1].Text, "previous answer was invalid") && !strings.Contains(reqs[1].Text, "previous plan was invalid") {
					t.Errorf("the re-ask does not tell the model what was wrong:\n%s", reqs[1].Text)
				}
			})
		}
		t.Run(role+"/always_wrong_tool", func(t *testing.T) {
			s := script(scripted.Step{Action: "click", Target: "Save"})
			s.Manager = json.RawMessage(`{"subtasks": [{"name": "save", "instruction": "save it"}]}`)
			s.Faults = []scripted.Fault{{Role: role, Kind: "wrong_tool"}}
			scriptJudgeAndUser(&s)
			srv, cfg := serve(t, s)
			err := call(agents.New(cfg), &screen.Usage{})
			var inv *agent.InvalidOutputError
			if !errors.As(err, &inv) || inv.Attempts != 3 || len(srv.Requests()) != 3 {
				t.Errorf("%s with a wrong tool every time = %v after %d requests, want an InvalidOutputError after 3", role, err, len(srv.Requests()))
			}
		})
	}
}

// TestRequestsNameRoleSubtaskAndStep: the endpoint learns what it is asked
// from headers, whatever the prompt says.
func TestRequestsNameRoleSubtaskAndStep(t *testing.T) {
	srv, cfg := serve(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{"zählen/α b": {Steps: []scripted.Step{{Action: "wait"}, {Action: "click", Target: "Save"}}}}})
	in := input()
	in.Subtask, in.Step, in.Instruction = "zählen/α b", 2, "Subtask: other\nStep: 9"
	d, err := agents.New(cfg).Decide(context.Background(), in, &screen.Usage{})
	if err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[0]
	if r.Role != agent.RoleDecision || r.Subtask != "zählen/α b" || r.Step != 2 || d.Action.Kind != "click" {
		t.Errorf("server saw role=%q subtask=%q step=%d and played %q; want decision, %q, 2, click", r.Role, r.Subtask, r.Step, d.Action.Kind, in.Subtask)
	}
}

// TestCheckEndpoint: before the first step, an unreachable, silent or
// key-rejecting endpoint is reported with its URL and what to do.
func TestCheckEndpoint(t *testing.T) {
	_, cfg := serve(t, script())
	if err := agents.New(cfg).Check(context.Background(), 2*time.Second); err != nil {
		t.Errorf("Check on a live endpoint = %v", err)
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := "http://" + l.Addr().String() + "/v1"
	l.Close()
	silent, _ := net.Listen("tcp", "127.0.0.1:0") // accepts, never answers
	t.Cleanup(func() { silent.Close() })
	s := script()
	s.Faults = []scripted.Fault{{Role: "models", Kind: "401"}}
	_, rejecting := serve(t, s)
	for _, tt := range []struct {
		name, url, want string
	}{
		{"unreachable", closed, "model endpoint " + closed + " is unreachable"},
		{"silent", "http://" + silent.Addr().String() + "/v1", "did not answer within 300ms"},
		{"key rejected", rejecting.BaseURL, "API key rejected by " + rejecting.BaseURL},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := cfg
			c.BaseURL = tt.url
			err := agents.New(c).Check(context.Background(), 300*time.Millisecond)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check(%s) = %v, want it to say %q", tt.url, err, tt.want)
			}
		})
	}
}

// TestScriptedModelReadsTheScreen: a scripted output comes from the screen
// the step was decided on, and a value the screen does not show fails the
// step loudly.
func TestScriptedModelReadsTheScreen(t *testing.T) {
	read := scripted.Step{Action: "done", Read: map[string]scripted.Probe{"path": {Role: "text", Pattern: `^(h\w+)$`}}}
	_, cfg := serve(t, script(read))
	d, err := agents.New(cfg).Decide(context.Background(), input(), &screen.Usage{})
	if err != nil || d.Action.Kind != "done" || d.Action.Outputs["path"] != "hello" {
		t.Fatalf("Decide = %+v, %v; want done with path=hello read from the text element", d, err)
	}
	in := input()
	in.Elements = in.Elements[:1] // the text element is gone
	d, err = agents.New(cfg).Decide(context.Background(), in, &screen.Usage{})
	if err != nil || d.Action.Kind != "fail" || !strings.Contains(d.Action.Reason, `reads output "path"`) || !strings.Contains(d.Action.Reason, "does not show it") {
		t.Errorf("Decide without the value = %+v, %v; want a fail that says what it looked for", d, err)
	}
}

// TestScriptedModelRedoesMissingEffects drives the scripted agents through
// the real prompts: the Reflection's verdict comes from the screen after
// the step (the step's Expect), and a step without its effect is decided
// again, as a model does after no_effect.
func TestScriptedModelRedoesMissingEffects(t *testing.T) {
	typed := screen.Element{ID: 2, Role: "text", Value: "hello world", Box: screen.Rect{X: 10, Y: 100, W: 400, H: 300}}
	_, cfg := serve(t, script(
		scripted.Step{Action: "type", Args: map[string]any{"text": " world"}, Expect: &scripted.Probe{Role: "text", Pattern: "hello world"}},
		scripted.Step{Action: "click", Target: "Save"},
	))
	c := agents.New(cfg)
	ctx := context.Background()
	turn := input().Turn
	step := func(after []screen.Element) (screen.Action, string) {
		t.Helper()
		in := input()
		in.Turn = turn
		d, err := c.Decide(ctx, in, &screen.Usage{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := c.Reflect(ctx, agent.ReflectionInput{Subtask: "save", Step: turn.Step, Action: d.Action.Summary(), Thought: d.Thought,
			Before: els, After: after}, &screen.Usage{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := c.UpdateProgress(ctx, agent.ProgressInput{Turn: turn, Outcome: agent.Outcome{Action: d.Action.Summary(), Thought: d.Thought, Verdict: r.Verdict, Reason: r.Reason}}, &screen.Usage{})
		if err != nil {
			t.Fatal(err)
		}
		turn.Step++
		turn.Progress, turn.Memory, turn.LastAction, turn.LastVerdict, turn.LastReason = p.Summary, p.Memory, d.Action.Summary(), r.Verdict, r.Reason
		return d.Action, r.Verdict
	}
	var got []string
	for _, after := range [][]screen.Element{els, {els[0], typed}, {els[0], typed}} {
		a, v := step(after)
		got = append(got, a.Kind+" → "+v)
	}
	want := []string{"type → no_effect", "type → correct", "click → correct"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
}
