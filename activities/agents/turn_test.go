package agents_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/agents"
	"github.com/pcflow/pcflow/activities/agents/profile"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/calibrate"
)

// garble forwards requests to the scripted model with every prompt text
// replaced by the same nonsense — system prompts, user prompts, re-ask
// feedback, in all three protocols — and the headers and images as sent.
func garble(t *testing.T, to string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		b, _ := json.Marshal(garbleText(body, ""))
		req, _ := http.NewRequestWithContext(r.Context(), r.Method, strings.TrimSuffix(to, "/v1")+r.URL.Path, bytes.NewReader(b))
		req.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), 502)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// garbleText replaces the strings of prompt text in a request body.
func garbleText(v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		if key == "tools" {
			return x // the protocol: tool names and schemas
		}
		for k, e := range x {
			x[k] = garbleText(e, k)
		}
	case []any:
		if key == "tools" {
			return x
		}
		for i, e := range x {
			x[i] = garbleText(e, key)
		}
	case string:
		switch key {
		case "content", "text", "system", "instructions":
			return "Lorem ipsum: the wording of this prompt is not the scripted model's business."
		}
	}
	return v
}

// TestScriptedModelIgnoresTheWording: with every prompt's text replaced by
// nonsense on the way, the scripted model plays the same script to the same
// answers, in every profile — targets found, outputs read, the step without
// its effect judged no_effect and done again, the person's answer typed —
// because it reads the turn from X-Pcflow-Turn. Changing a prompt cannot
// break a script.
func TestScriptedModelIgnoresTheWording(t *testing.T) {
	typed := screen.Element{ID: 2, Role: "text", Value: "hello world", Box: screen.Rect{X: 10, Y: 100, W: 400, H: 300}}
	steps := []scripted.Step{
		{Action: "type", Args: map[string]any{"text": " world"}, Expect: &scripted.Probe{Role: "text", Pattern: "hello world"}},
		{Action: "click", Target: "Save", Memory: "saved"},
		{Action: "type", Args: map[string]any{"text": scripted.AnswerArg}},
		{Action: "type", FromInstruction: map[string]string{"text": `^save the (\w+)`}},
		{Action: "done", Read: map[string]scripted.Probe{"path": {Role: "text", Pattern: `^(hello \w+)$`}}},
	}
	// The screen after each step: the first try of the first step has no
	// effect.
	afters := [][]screen.Element{els, {els[0], typed}, {els[0], typed}, {els[0], typed}, {els[0], typed}, {els[0], typed}}
	play := func(t *testing.T, p profile.Profile, garbled bool) []string {
		srv, cfg := serve(t, script(steps...))
		srv.SetProfile(p)
		cfg.Profile = p
		if garbled {
			cfg.BaseURL = garble(t, srv.URL)
		}
		c := agents.New(cfg)
		ctx := context.Background()
		turn := input().Turn
		turn.Answers = []string{agent.AnswerLine(`Which "name"; the person answered: x?`, "memo; the person answered: final")}
		var got []string
		before := els
		for _, after := range afters {
			in := input()
			in.Turn, in.Elements = turn, before
			d, err := c.Decide(ctx, in, &screen.Usage{})
			if err != nil {
				t.Fatalf("step %d: %v", turn.Step, err)
			}
			r, err := c.Reflect(ctx, agent.ReflectionInput{Subtask: "save", Instruction: turn.Instruction, Step: turn.Step, Action: d.Action.Summary(), Thought: d.Thought,
				Before: in.Elements, After: after}, &screen.Usage{})
			if err != nil {
				t.Fatal(err)
			}
			pr, err := c.UpdateProgress(ctx, agent.ProgressInput{Turn: turn, Outcome: agent.Outcome{Action: d.Action.Summary(), Thought: d.Thought, Verdict: r.Verdict}}, &screen.Usage{})
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprintf("%s %v → %s; memory %q", d.Action.Summary(), d.Action.Outputs, r.Verdict, pr.Memory))
			turn.Step++
			turn.Progress, turn.Memory, turn.LastAction, turn.LastVerdict = pr.Summary, pr.Memory, d.Action.Summary(), r.Verdict
			before = after
		}
		if garbled {
			for _, r := range srv.Requests() {
				if !strings.Contains(r.Text, "Lorem ipsum") || strings.Contains(r.Text, "Instruction:") {
					t.Fatalf("%s request was not garbled: %q", r.Role, r.Text)
				}
			}
		}
		return got
	}
	want := []string{
		`type " world" map[] → no_effect; memory "the file is memo.txt"`,
		`type " world" map[] → correct; memory "the file is memo.txt"`,
		`click (130,60) map[] → correct; memory "saved"`, // a profile's model answers points
		`type "memo; the person answered: final" map[] → correct; memory "saved"`,
		`type "file" map[] → correct; memory "saved"`,
		`done path map[path:hello world] → correct; memory "saved"`,
	}
	for _, p := range chatProfiles(t) {
		t.Run(p.Name, func(t *testing.T) {
			plain := play(t, p, false)
			if p.Name == profile.Default {
				if diff := cmp.Diff(want, plain); diff != "" {
					t.Errorf("the script as played (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(plain, play(t, p, true)); diff != "" {
				t.Errorf("with the prompts garbled the script played otherwise (-plain +garbled):\n%s", diff)
			}
		})
	}
	t.Run("calibration", func(t *testing.T) {
		set, _ := profile.NewSet()
		p, _ := set.Get("qwen2.5-vl")
		srv, cfg := serve(t, scripted.Script{})
		srv.SetProfile(p)
		cfg.Profile, cfg.BaseURL = p, garble(t, srv.URL)
		shot := calibrate.Draw(1440, 900)
		tg := calibrate.Layout(1440, 900)[3]
		x, y, _, err := agents.New(cfg).Point(context.Background(), shot, tg.N, &screen.Usage{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if s := calibrate.Tally([]calibrate.Shot{{Target: tg, X: x, Y: y}}); s.Hits != 1 {
			t.Errorf("target %d with the prompt garbled: clicked (%d,%d), %s", tg.N, x, y, s)
		}
	})
}

// TestTurnHeaderOnlyForTheScriptedModel: X-Pcflow-Turn goes to an endpoint
// the configuration names as the scripted model, in every protocol, and to
// no other; the scripted model refuses a request without it, saying what
// to set.
func TestTurnHeaderOnlyForTheScriptedModel(t *testing.T) {
	set, _ := profile.NewSet()
	for _, name := range []string{profile.Default, "anthropic-computer", "openai-computer"} {
		p, _ := set.Get(name)
		for _, isScripted := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/scripted=%v", name, isScripted), func(t *testing.T) {
				var hdr http.Header
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					hdr = r.Header.Clone()
					http.Error(w, `{"error":{"message":"seen"}}`, 400)
				}))
				defer srv.Close()
				c := agents.New(agents.Config{BaseURL: srv.URL, APIKey: "k", DecisionModel: "m", Timeout: 5 * time.Second,
					ImageFormat: "png", Profile: p, Scripted: isScripted})
				c.Decide(context.Background(), input(), &screen.Usage{})
				if hdr == nil {
					t.Fatal("no request reached the endpoint")
				}
				v := hdr.Get(agents.HeaderTurn)
				if !isScripted {
					if v != "" || hdr.Get(agents.HeaderRole) != agent.RoleDecision {
						t.Errorf("a real endpoint got %s = %q (role %q); want none, and the role", agents.HeaderTurn, v, hdr.Get(agents.HeaderRole))
					}
					return
				}
				b, err := base64.RawURLEncoding.DecodeString(v)
				var f agent.TurnFacts
				if err == nil {
					err = json.Unmarshal(b, &f)
				}
				if err != nil || f.Instruction != "save the file" || f.Progress != "typed the text" || f.Screen == nil ||
					len(f.Screen.Elements) != 2 || f.Screen.Elements[0].Name != "Save" || f.Screen.Elements[1].Value != "hello" || f.Screen.ActiveWindow != "memo.txt - Mousepad" {
					t.Errorf("%s = %s (%v), want the Decision prompt's facts", agents.HeaderTurn, b, err)
				}
			})
		}
	}
	t.Run("refused without", func(t *testing.T) {
		_, cfg := serve(t, script(scripted.Step{Action: "click", Target: "Save"}))
		cfg.Scripted = false
		_, err := agents.New(cfg).Decide(context.Background(), input(), &screen.Usage{})
		var api *agent.APIError
		if !errors.As(err, &api) || api.Status != 400 || !strings.Contains(api.Msg, "needs the X-Pcflow-Turn header: set Scripted in the agents config") {
			t.Errorf("Decide against the scripted model without Scripted = %v, want HTTP 400 saying what to set", err)
		}
	})
}

// TestScriptedModelTakesALongElementList: a screen of 20,000 elements
// makes an X-Pcflow-Turn of more than the 1 MB an HTTP server takes by
// default; the scripted model reads it and finds the last element.
func TestScriptedModelTakesALongElementList(t *testing.T) {
	srv, cfg := serve(t, script(scripted.Step{Action: "click", Target: "cell 20000"}))
	in := input()
	in.Elements = nil
	for i := 1; i <= 20000; i++ {
		in.Elements = append(in.Elements, screen.Element{ID: i, Role: "table cell", Name: fmt.Sprintf("cell %d", i), Box: screen.Rect{X: i % 800, Y: i % 600, W: 10, H: 10}})
	}
	d, err := agents.New(cfg).Decide(context.Background(), in, &screen.Usage{})
	if err != nil || d.Action.Element != 20000 {
		t.Fatalf("Decide = %+v, %v; want a click on element 20000", d, err)
	}
	if b, _ := json.Marshal(srv.Requests()[0].Turn); len(b) < 1<<20 {
		t.Errorf("the turn was %d bytes; the test needs one over 1 MB", len(b))
	}
}

// TestPromptVersionFollowsThePrompts: the version is a digest of the
// prompts and tools, not a number to remember to bump.
func TestPromptVersionFollowsThePrompts(t *testing.T) {
	if !regexp.MustCompile(`^pcflow-prompts/[0-9a-f]{12}$`).MatchString(agents.PromptVersion) {
		t.Errorf("PromptVersion = %q, want pcflow-prompts/ and 12 hex digits", agents.PromptVersion)
	}
}
