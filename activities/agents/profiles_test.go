package agents_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"net/http"
	"net/http/httptest"
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

// chatProfiles are the built-in profiles (chat completions and the
// computer-use protocols alike).
func chatProfiles(t *testing.T) []profile.Profile {
	ps := profile.Builtins()
	if len(ps) != 10 {
		t.Fatalf("%d built-in profiles, want 10", len(ps))
	}
	return ps
}

// TestEveryProfileOverHTTP: the scripted model answers in each profile's
// wire format and coordinate space; the client parses it, maps it to the
// screen and gets the same actions back.
func TestEveryProfileOverHTTP(t *testing.T) {
	steps := []scripted.Step{
		{Action: "click", Target: "Save", Thought: "Save it."},
		{Action: "double_click", Target: "Save"},
		{Action: "type", Args: map[string]any{"text": "it's 84", "enter": true}},
		{Action: "hotkey", Args: map[string]any{"keys": []any{"ctrl", "s"}}},
		{Action: "done", Args: map[string]any{"outputs": map[string]any{"path": "/tmp/memo.txt"}}},
	}
	for _, p := range chatProfiles(t) {
		t.Run(p.Name, func(t *testing.T) {
			srv, cfg := serve(t, script(steps...))
			srv.SetProfile(p)
			cfg.Profile = p
			c := agents.New(cfg)
			var got []screen.Action
			for i := range steps {
				in := input()
				in.Step = i + 1
				d, err := c.Decide(context.Background(), in, &screen.Usage{})
				if err != nil {
					t.Fatalf("step %d: %v", i+1, err)
				}
				if d.Invalid != 0 {
					t.Errorf("step %d: %d invalid answers: %v", i+1, d.Invalid, d.Errors)
				}
				got = append(got, d.Action)
			}
			// The Save button is at (100,50 60x20): the clicks must land in it.
			for _, a := range got[:2] {
				if a.X < 100 || a.X >= 160 || a.Y < 50 || a.Y >= 70 {
					t.Errorf("%s at (%d,%d), outside the Save button (100,50 60x20)", a.Kind, a.X, a.Y)
				}
			}
			kinds := []string{got[0].Kind, got[1].Kind}
			if diff := cmp.Diff([]string{"click", "double_click"}, kinds); diff != "" {
				t.Errorf("kinds (-want +got):\n%s", diff)
			}
			if a := got[2]; a.Kind != "type" || a.Text != "it's 84" || !a.Enter {
				t.Errorf("type = %+v, want it's 84 with Enter", a)
			}
			if a := got[3]; a.Kind != "hotkey" || strings.Join(a.Keys, "+") != "ctrl+s" {
				t.Errorf("hotkey = %+v, want ctrl+s", a)
			}
			if a := got[4]; a.Kind != "done" || a.Outputs["path"] != "/tmp/memo.txt" {
				t.Errorf("done = %+v, want path /tmp/memo.txt", a)
			}
			reqs := srv.Requests()
			if p.Protocol == profile.ProtoText && len(reqs[0].Tools) != 0 {
				t.Errorf("text profile sent tools %v", reqs[0].Tools)
			}
			iw, ih, _ := p.Sizing.Size(800, 600)
			if want := fmt.Sprintf("Screen: %dx%d image", iw, ih); !strings.Contains(reqs[0].Text, want) {
				t.Errorf("prompt lacks %q", want)
			}
		})
	}
}

// TestOutOfRangeIsReasked: a point outside the profile's space is refused
// and asked again with the reason, never clamped onto the screen.
func TestOutOfRangeIsReasked(t *testing.T) {
	for _, p := range chatProfiles(t) {
		t.Run(p.Name, func(t *testing.T) {
			s := script(scripted.Step{Action: "click", Target: "Save"})
			s.Faults = []scripted.Fault{{Role: agent.RoleDecision, Kind: "out_of_range", Times: 1}}
			srv, cfg := serve(t, s)
			srv.SetProfile(p)
			cfg.Profile = p
			d, err := agents.New(cfg).Decide(context.Background(), input(), &screen.Usage{})
			if err != nil {
				t.Fatal(err)
			}
			if d.Invalid != 1 || len(d.Errors) != 1 || !strings.Contains(d.Errors[0], "x=5000 is outside the "+string(p.Space)) {
				t.Errorf("invalid=%d errors=%v, want one out-of-range re-ask", d.Invalid, d.Errors)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 || !strings.Contains(reqs[1].Text, "x=5000 is outside") {
				t.Errorf("the re-ask did not tell the model: %d requests", len(reqs))
			}
			if a := d.Action; a.X < 100 || a.X >= 160 || a.Y < 50 || a.Y >= 70 {
				t.Errorf("after the re-ask: click at (%d,%d), want inside Save", a.X, a.Y)
			}
		})
	}
}

// TestSafetyChecksNeedAcknowledgement: an action OpenAI's computer tool
// flags comes back with its checks and the call they are on (the workflow
// waits for a person's approval). After an approval the next request
// acknowledges exactly those checks on that call, which the scripted
// server verifies as the real API does; after a rejection nothing is
// acknowledged; a tampered acknowledgement is refused with HTTP 400.
func TestSafetyChecksNeedAcknowledgement(t *testing.T) {
	s, _ := profile.NewSet()
	p, _ := s.Get("openai-computer")
	for _, next := range []string{"approved", "rejected", "tampered"} {
		t.Run(next, func(t *testing.T) {
			sc := script(scripted.Step{Action: "click", Target: "Save"}, scripted.Step{Action: "click", Target: "Save", Thought: "Saved once; check the dialog."})
			sc.Faults = []scripted.Fault{{Role: agent.RoleDecision, Step: 1, Kind: "safety_check"}}
			srv, cfg := serve(t, sc)
			srv.SetProfile(p)
			cfg.Profile = p
			c := agents.New(cfg)
			d, err := c.Decide(context.Background(), input(), &screen.Usage{})
			if err != nil {
				t.Fatal(err)
			}
			if d.Action.Kind != screen.ActClick {
				t.Errorf("action %+v, want the proposed click", d.Action)
			}
			if len(d.SafetyChecks) != 1 || d.SafetyChecks[0].Code != "malicious_instructions" || d.SafetyChecks[0].ID == "" || len(d.SafetyChecks[0].Call) == 0 {
				t.Fatalf("checks %+v, want the provider's malicious_instructions check with its id and call, for a person to approve", d.SafetyChecks)
			}
			in := input()
			in.Step = 2
			switch next {
			case "approved":
				in.Acknowledged = d.SafetyChecks
			case "tampered":
				ch := d.SafetyChecks[0]
				ch.ID = "cu_sc_forged"
				in.Acknowledged = []agent.SafetyCheck{ch}
			}
			d2, err := c.Decide(context.Background(), in, &screen.Usage{})
			reqs := srv.Requests()
			last := reqs[len(reqs)-1]
			switch next {
			case "approved":
				if err != nil {
					t.Fatalf("after approval: %v", err)
				}
				if len(last.Acknowledged) != 1 || last.Acknowledged[0] != d.SafetyChecks[0].ID || d2.Action.Kind != screen.ActClick {
					t.Errorf("after approval the request acknowledged %v (action %+v), want exactly %s", last.Acknowledged, d2.Action, d.SafetyChecks[0].ID)
				}
			case "rejected":
				if err != nil || len(last.Acknowledged) != 0 {
					t.Errorf("after rejection: err %v, acknowledged %v; want no acknowledgement", err, last.Acknowledged)
				}
			case "tampered":
				var ae *agent.APIError
				if !errors.As(err, &ae) || ae.Status != 400 || !strings.Contains(ae.Msg, "must be acknowledged exactly") {
					t.Errorf("forged acknowledgement: err %v, want the API's HTTP 400", err)
				}
			}
		})
	}
}

// TestPointInEveryProfile: the scripted model finds each calibration
// target by looking at the screenshot it was sent and answers in each
// profile's space and format; the client maps the answer into the target.
func TestPointInEveryProfile(t *testing.T) {
	w, h := 1440, 900
	for _, p := range chatProfiles(t) {
		t.Run(p.Name, func(t *testing.T) {
			srv, cfg := serve(t, scripted.Script{})
			srv.SetProfile(p)
			cfg.Profile = p
			shots := pointAtTargets(t, agents.New(cfg), w, h, true)
			if s := calibrate.Tally(shots); s.Hits != len(shots) || s.MeanErr > 3 {
				t.Errorf("%s: %s, want every target hit within 3 px on average", p.Name, s)
			}
		})
	}
}

// TestPointWrongProfileMisses is what calibration is for: a model that
// answers in smart-resize pixels (Qwen2.5-VL) read as thousandths
// (Qwen3-VL's space) misses.
func TestPointWrongProfileMisses(t *testing.T) {
	w, h := 1440, 900
	s, _ := profile.NewSet()
	served, _ := s.Get("qwen2.5-vl")
	assumed, _ := s.Get("qwen3-vl")
	srv, cfg := serve(t, scripted.Script{})
	srv.SetProfile(served)
	cfg.Profile = assumed
	if sc := calibrate.Tally(pointAtTargets(t, agents.New(cfg), w, h, false)); sc.Hits > 3 {
		t.Errorf("a wrong profile scored %s; calibration would not catch it", sc)
	}
}

// pointAtTargets asks c where each calibration target of a w×h pattern
// is; an error fails the test where every answer must come, and is the
// shot's Err otherwise.
func pointAtTargets(t *testing.T, c *agents.Client, w, h int, mustAnswer bool) []calibrate.Shot {
	t.Helper()
	shot := calibrate.Draw(w, h)
	var shots []calibrate.Shot
	for _, tg := range calibrate.Layout(w, h) {
		x, y, _, err := c.Point(context.Background(), shot, tg.N, &screen.Usage{}, nil)
		sh := calibrate.Shot{Target: tg, X: x, Y: y}
		if err != nil {
			if mustAnswer {
				t.Fatalf("target %d: %v", tg.N, err)
			}
			sh.Err = err.Error()
		}
		shots = append(shots, sh)
	}
	return shots
}

// TestBatchAnswer: several tool calls in one answer are one step's batch,
// in order; done inside a batch is refused with the reason.
func TestBatchAnswer(t *testing.T) {
	_, cfg := serve(t, script(
		scripted.Step{Thought: "All at once.", Batch: []scripted.Step{
			{Action: "click", Target: "Save"},
			{Action: "type", Args: map[string]any{"text": "hi"}},
			{Action: "hotkey", Args: map[string]any{"keys": []any{"ctrl", "s"}}},
		}},
		scripted.Step{Batch: []scripted.Step{
			{Action: "click", Target: "Save"},
			{Action: "done", Args: map[string]any{"outputs": map[string]any{"path": "x"}}},
		}},
	))
	c := agents.New(cfg)
	d, err := c.Decide(context.Background(), input(), &screen.Usage{})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, a := range append([]screen.Action{d.Action}, d.Batch...) {
		kinds = append(kinds, a.Summary())
	}
	if diff := cmp.Diff([]string{`click #1 "Save"`, `type "hi"`, "hotkey ctrl+s"}, kinds); diff != "" || d.Thought != "[script step 1] All at once." {
		t.Errorf("batch (-want +got):\n%s thought %q", diff, d.Thought)
	}
	in := input()
	in.Step = 2
	d, err = c.Decide(context.Background(), in, &screen.Usage{})
	if err == nil || d == nil || len(d.Errors) == 0 || !strings.Contains(d.Errors[0], "done must be the only action of an answer; it was action 2 of 2") {
		t.Errorf("done in a batch: err=%v decision=%+v, want it refused", err, d)
	}
}

// TestRolesInATextProfile: Reflection, Progress and Manager with a text
// profile (qwen2.5-vl, as served without a tool parser) send no tools,
// describe their one tool in the system prompt, and read the <tool_call>
// of the answer, its <think> left out. Over HTTP, with the scripted server
// answering in text.
func TestRolesInATextProfile(t *testing.T) {
	s := script(scripted.Step{Action: "click", Target: "Save", Memory: "saved as memo.txt"})
	s.Manager = json.RawMessage(`{"subtasks": [{"name": "save", "instruction": "save the file", "device": "desktop"}]}`)
	srv, cfg := serve(t, s)
	set, err := profile.NewSet()
	if err != nil {
		t.Fatal(err)
	}
	qwen, err := set.Get("qwen2.5-vl")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Roles = map[string]profile.Profile{agent.RoleReflection: qwen, agent.RoleProgress: qwen, agent.RoleManager: qwen}
	c := agents.New(cfg)
	var u screen.Usage
	img := image.NewRGBA(image.Rect(0, 0, 1440, 900))
	r, err := c.Reflect(context.Background(), agent.ReflectionInput{Subtask: "save", Step: 1, Action: `click #1 "Save"`,
		Before: els, After: els, BeforeImage: img, AfterImage: img}, &u)
	if err != nil || r.Verdict != "correct" || r.Invalid != 0 {
		t.Fatalf("Reflect = %+v, %v; want correct at the first answer", r, err)
	}
	p, err := c.UpdateProgress(context.Background(), agent.ProgressInput{Turn: agent.Turn{Goal: agent.Goal{Subtask: "save"}, Step: 1},
		Outcome: agent.Outcome{Action: `click #1 "Save"`, Verdict: "correct"}}, &u)
	if err != nil || p.Memory != "saved as memo.txt" || p.Invalid != 0 || strings.Contains(p.Summary, "think") || strings.Contains(p.Summary, "tool_call") {
		t.Fatalf("UpdateProgress = %+v, %v; want the memory from the <tool_call>, the summary without <think> or the call", p, err)
	}
	plan, err := c.Manage(context.Background(), agent.ManagerInput{Instruction: "save the file", Devices: []string{"desktop"}}, &u)
	if err != nil || len(plan.Subtasks) != 1 || plan.Subtasks[0].Name != "save" {
		t.Fatalf("Manage = %+v, %v", plan, err)
	}
	for _, req := range srv.Requests() {
		if len(req.Tools) != 0 || !strings.Contains(req.System, "<tool_call>") {
			t.Errorf("%s request: tools %v, system prompt %q; want no tools and the <tool_call> format asked for", req.Role, req.Tools, req.System)
		}
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d requests, want 3 (no re-asks)", n)
	}
}

// TestComputerProfilesAreTheDecisionAgentsOnly: a computer-use profile
// given to another agent is refused, naming what to use instead.
func TestComputerProfilesAreTheDecisionAgentsOnly(t *testing.T) {
	set, _ := profile.NewSet()
	for _, name := range []string{"anthropic-computer", "openai-computer"} {
		p, _ := set.Get(name)
		if err := agents.CheckRoleProfile(agent.RoleDecision, p); err != nil {
			t.Errorf("CheckRoleProfile(decision, %s) = %v, want nil", name, err)
		}
		if err := agents.CheckRoleProfile(agent.RoleProgress, p); err == nil || !strings.Contains(err.Error(), "only the Decision agent") {
			t.Errorf("CheckRoleProfile(progress, %s) = %v, want a refusal", name, err)
		}
	}
	if err := agents.CheckRoleProfile("planner", profile.Profile{}); err == nil || !strings.Contains(err.Error(), "decision, reflection, progress, manager") {
		t.Errorf("CheckRoleProfile(planner) = %v, want the roles listed", err)
	}
}

// TestForTaskKeepsTheWorkersOwn: a task's profiles apply to the agents the
// worker was given none for; an unknown or unusable name is an error that
// names the task's profiles block.
func TestForTaskKeepsTheWorkersOwn(t *testing.T) {
	set, _ := profile.NewSet()
	gemini, _ := set.Get("gemini")
	c := agents.New(agents.Config{Profile: gemini})
	m, err := c.ForTask(map[string]string{"decision": "uitars-1.5", "progress": "qwen2.5-vl"})
	if err != nil {
		t.Fatal(err)
	}
	got := m.(*agents.Client).Config()
	if got.Profile.Name != "gemini" || got.RoleProfile(agent.RoleProgress).Name != "qwen2.5-vl" {
		t.Errorf("ForTask: decision %q, progress %q; want the worker's gemini and the task's qwen2.5-vl", got.Profile.Name, got.RoleProfile(agent.RoleProgress).Name)
	}
	if c.Config().RoleProfile(agent.RoleProgress).Name != "" {
		t.Errorf("ForTask changed the worker's own client")
	}
	for _, bad := range []map[string]string{{"decision": "uitars-9"}, {"reflection": "openai-computer"}} {
		if _, err := agents.New(agents.Config{}).ForTask(bad); err == nil || !strings.Contains(err.Error(), "profiles block") {
			t.Errorf("ForTask(%v) = %v, want an error naming the profiles block", bad, err)
		}
	}
}

// TestZoomOnTheWire: a profile with zoom declares Anthropic's
// computer_20251124 tool with enable_zoom under its beta header; a
// decision after a zoom sends the enlarged region, labelled in the
// model's coordinates, after the screenshot.
func TestZoomOnTheWire(t *testing.T) {
	var body map[string]any
	var beta string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		beta = r.Header.Get("anthropic-beta")
		_ = json.NewDecoder(r.Body).Decode(&body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"m","type":"message","role":"assistant","stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":5},
"content":[{"type":"tool_use","id":"t1","name":"computer","input":{"action":"left_click","coordinate":[100,100]}}]}`)
	}))
	defer srv.Close()
	set, _ := profile.NewSet()
	claude, _ := set.Get("anthropic-computer")
	claude.Zoom = true
	c := agents.New(agents.Config{BaseURL: srv.URL, APIKey: "k", DecisionModel: "claude", MaxTokens: 100, Timeout: 5 * time.Second,
		ImageFormat: "png", Profile: claude})
	in := input()
	in.Image = image.NewRGBA(image.Rect(0, 0, 1440, 900))
	in.Zoom = &agent.ZoomView{Image: image.NewRGBA(image.Rect(0, 0, 144, 90)), Region: screen.Rect{X: 720, Y: 450, W: 144, H: 90}}
	var u screen.Usage
	if _, err := c.Decide(context.Background(), in, &u); err != nil {
		t.Fatal(err)
	}
	if beta != "computer-use-2025-11-24" {
		t.Errorf("anthropic-beta = %q, want computer-use-2025-11-24", beta)
	}
	tools, _ := body["tools"].([]any)
	tool, _ := tools[0].(map[string]any)
	if tool["type"] != "computer_20251124" || tool["enable_zoom"] != true {
		t.Errorf("computer tool = %v, want computer_20251124 with enable_zoom", tool)
	}
	msgs, _ := body["messages"].([]any)
	content, _ := msgs[0].(map[string]any)["content"].([]any)
	if len(content) != 4 {
		t.Fatalf("content has %d blocks, want the prompt, the screenshot, the zoom's label and its image", len(content))
	}
	// 1440x900 fits 1024x768 at 1024x640: the region (720,450) 144x90 is (512,320)-(615,384) there (far edges rounded up).
	if label, _ := content[2].(map[string]any)["text"].(string); !strings.Contains(label, "(512,320)–(615,384)") {
		t.Errorf("zoom label = %q, want the region in the model's coordinates", label)
	}
}
