package workflows_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agents"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/internal/control"
	"github.com/pcflow/pcflow/internal/enginetest"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/workflows"
)

// Judges and the simulated user (issue 24) on the real engine with fake
// devices and the scripted model playing both from what they are sent.

// judgeTask has a judge check over both devices' screens and a file, with
// a score, beside a plain file check.
const judgeTask = `
task "list" {
  max_steps = 3
  timeout   = "2m"
  device "left" {}
  device "right" {}
  subtask "s" {
    device      = device.left
    instruction = "write the shopping list"
  }
  check "judged" {
    device = device.left
    weight = 2
    judge {
      rubric    = "The file lists milk, eggs and bread, one per line."
      devices   = [device.left, device.right]
      files     = ["%s"]
      score     = true
      threshold = 0.9
    }
  }
  check "saved" {
    device = device.left
    file {
      path = "%s"
    }
  }
}`

// listJudge is how the scripted judge decides "judged": each item on a
// line of its own, wherever the judge was shown it.
var listJudge = map[string]scripted.JudgeScript{"judged": {Expect: []string{`(?m)^milk$`, `(?m)^eggs$`, `(?m)^bread$`}}}

// judgeRun runs judgeTask with the list file holding content.
func judgeRun(t *testing.T, id, content string, faults []scripted.Fault) (*enginetest.Env, *workflows.InstructionResult) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "list.txt")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{"s": {Steps: []scripted.Step{done(nil)}}},
		Judges: listJudge, Faults: faults})
	env.Serve("left", env.Activities(fakedevice.New("OK"), "left", env.ModelConfig()), true)
	env.Serve("right", env.Activities(fakedevice.New("Cancel"), "right", env.ModelConfig()), false)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := env.Run(ctx, id, mustPlan(t, fmt.Sprintf(judgeTask, path, path)), workflows.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return env, res
}

func checkNamed(t *testing.T, rs []activities.CheckResult, name string) activities.CheckResult {
	t.Helper()
	for _, r := range rs {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no check %s in %+v", name, rs)
	return activities.CheckResult{}
}

// TestJudgePassesRightEndState: the judge sees both devices' screens and
// the file's text, says pass with a full score and its reasons, all in the
// check's result with the judge prompt's version.
func TestJudgePassesRightEndState(t *testing.T) {
	env, res := judgeRun(t, "judge-right", "milk\neggs\nbread\n", nil)
	if res.Reason != workflows.ReasonSuccess {
		t.Fatalf("run = %s (%s), checks %+v", res.Reason, res.Error, res.Checks)
	}
	r := checkNamed(t, res.Checks, "judged")
	if !r.Passed || r.Score == nil || *r.Score != 1 || !strings.Contains(r.Detail, "the judge says pass with score 1") ||
		!strings.Contains(r.Detail, `seen: "milk", "eggs", "bread"`) || r.Prompt != agents.JudgePromptVersion || r.Usage == nil || r.Usage.Calls != 1 {
		t.Errorf("judged = %+v, want a pass with score 1, the reasons, the prompt version and one call", r)
	}
	if res.Metrics.PC != 1 {
		t.Errorf("PC = %v, want 1", res.Metrics.PC)
	}
	var judged []scripted.Request
	for _, q := range env.Model.Requests() {
		if q.Role == "judge" {
			judged = append(judged, q)
		}
	}
	if len(judged) != 1 || judged[0].Images != 2 || judged[0].Turn.Judge == nil || len(judged[0].Turn.Judge.Files) != 1 ||
		judged[0].Turn.Judge.Files[0].Text != "milk\neggs\nbread\n" || fmt.Sprint(judged[0].Turn.Judge.Devices) != "[left right]" {
		t.Errorf("judge requests = %+v, want one with both screens and the file's text", judged)
	}
}

// TestJudgeFailsWrongEndState: a list missing two items fails the judge,
// whose score (one of three) is the check's partial credit.
func TestJudgeFailsWrongEndState(t *testing.T) {
	_, res := judgeRun(t, "judge-wrong", "milk\nbutter\n", nil)
	if res.Reason == workflows.ReasonSuccess {
		t.Fatalf("run succeeded on a wrong list: %+v", res.Checks)
	}
	r := checkNamed(t, res.Checks, "judged")
	if r.Passed || r.Score == nil || *r.Score != 0.3333 || !strings.Contains(r.Detail, "the judge says fail") || !strings.Contains(r.Detail, "not seen: /(?m)^eggs$/, /(?m)^bread$/") {
		t.Errorf("judged = %+v, want a fail with score 1/3 naming what is missing", r)
	}
	// The file check passes (weight 1), the judge earns 2 × 1/3.
	if want := (2*0.3333 + 1) / 3; res.Metrics.PC < want-0.001 || res.Metrics.PC > want+0.001 {
		t.Errorf("PC = %v, want %v", res.Metrics.PC, want)
	}
}

// TestJudgeErrorsFail: a judge whose answers do not parse, or whose
// endpoint refuses the key, fails the check saying why; it never passes.
func TestJudgeErrorsFail(t *testing.T) {
	for _, tc := range []struct {
		kind, want string
	}{
		{"malformed", "the judge gave no verdict, so the check fails: model gave 3 invalid answer(s)"},
		{"401", "the judge gave no verdict, so the check fails: API key rejected"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			_, res := judgeRun(t, "judge-"+tc.kind, "milk\neggs\nbread\n", []scripted.Fault{{Role: "judge", Kind: tc.kind}})
			r := checkNamed(t, res.Checks, "judged")
			if r.Passed || !strings.Contains(r.Detail, tc.want) {
				t.Errorf("judged = %+v, want a failure saying %q", r, tc.want)
			}
			if res.Reason == workflows.ReasonSuccess {
				t.Errorf("run succeeded with a judge that gave no verdict")
			}
		})
	}
}

// userTask asks Dana for the code; the simulated user may decide the
// approvals of confirm_delete but not those of confirm_send.
const userTask = `
task "person" {
  max_steps = 8
  timeout   = "5m"
  user {
    persona  = "Dana, who ordered the work."
    knows    = "%s"
    wants    = "The old files deleted."
    approves = ["confirm_delete"]
  }
  policy {
    rule "confirm_delete" {
      target   = "^Delete$"
      decision = "confirm"
    }
    rule "confirm_send" {
      target   = "^Send$"
      decision = "confirm"
      timeout  = "1s"
    }
  }
  subtask "s" {
    instruction = "tidy the files"
  }
}`

// userRules answer a question about the code from what the persona knows,
// and approve a deletion when the persona wants one.
var userRules = []scripted.UserRule{
	{Question: `(?i)\bcode\b`, FromPersona: `code is (\S+?)\.`},
	{Action: `"Delete"`, FromPersona: `(?i)deleted`},
	{Action: `"Send"`, FromPersona: `(?i)sent`},
}

func userRun(t *testing.T, id, knows string, steps []scripted.Step, faults []scripted.Fault, buttons ...string) (*enginetest.Env, *fakedevice.Device, func() *workflows.InstructionResult) {
	t.Helper()
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{"s": {Steps: steps}}, User: userRules, Faults: faults})
	dev := fakedevice.New(buttons...)
	env.Serve("desktop", env.Activities(dev, "desktop", env.ModelConfig()), true)
	run, err := env.Client.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: id, TaskQueue: workflows.TaskQueue}, workflows.InstructionWorkflowName,
		workflows.InstructionInput{Plan: mustPlan(t, fmt.Sprintf(userTask, knows))})
	if err != nil {
		t.Fatal(err)
	}
	return env, dev, func() *workflows.InstructionResult { r := result(t, run); return &r }
}

var askCode = []scripted.Step{
	{Action: "ask_human", Args: map[string]any{"text": "Which code should I type?"}},
	{Action: "type", Args: map[string]any{"text": scripted.AnswerArg}},
	done(nil),
}

// TestSimulatedUserAnswers: with nobody at the keyboard, the simulated
// user answers the agent's question from what the persona knows; the
// answer reaches the device and is recorded as the simulated user's.
func TestSimulatedUserAnswers(t *testing.T) {
	for _, tc := range []struct{ knows, want string }{
		{"The code is K-4711.", "K-4711"},
		{"Nothing about codes.", "I don't know."},
	} {
		t.Run(tc.want, func(t *testing.T) {
			env, dev, wait := userRun(t, "sim-"+strings.Fields(tc.want)[0], tc.knows, askCode, nil, "Code")
			res := wait()
			if res.Reason != workflows.ReasonSuccess {
				t.Fatalf("run = %s (%s)", res.Reason, res.Error)
			}
			if got := dev.Actions(); len(got) != 1 || got[0].Text != tc.want {
				t.Errorf("device ran %+v, want %q typed", got, tc.want)
			}
			if len(told(env, "progress", "A person: the simulated user answered: "+tc.want)) == 0 {
				t.Error("the step is not recorded as answered by the simulated user")
			}
			var asked int
			for _, q := range env.Model.Requests() {
				if q.Role == "user" && q.Turn.User != nil && q.Turn.User.Question == "Which code should I type?" && strings.Contains(q.Turn.User.Persona.Knows, tc.knows) {
					asked++
				}
			}
			if asked != 1 {
				t.Errorf("the simulated user was asked %d times with the persona and the question, want once", asked)
			}
		})
	}
}

// TestPersonAnswersBeforeSimulatedUser: a person who answers while the
// simulated user's model is still thinking wins; the answer is theirs, and
// nobody may answer under the simulated user's name.
func TestPersonAnswersBeforeSimulatedUser(t *testing.T) {
	env, dev, wait := userRun(t, "sim-person", "The code is K-4711.", askCode, []scripted.Fault{{Role: "user", Kind: "slow", DelayMS: 20000}}, "Code")
	awaitWaiting(t, env.Client, "sim-person", workflows.WaitAnswer)
	if _, _, err := control.Answer(context.Background(), env.Client, env.Signer(), "sim-person", "", workflows.Answer{Text: "X-1", By: "the simulated user"}); err == nil ||
		!strings.Contains(err.Error(), "simulated user's name") {
		t.Errorf("an answer under the simulated user's name = %v, want a refusal", err)
	}
	if _, _, err := control.Answer(context.Background(), env.Client, env.Signer(), "sim-person", "", workflows.Answer{Text: "P-0001", By: "carol@desk"}); err != nil {
		t.Fatal(err)
	}
	res := wait()
	if res.Reason != workflows.ReasonSuccess {
		t.Fatalf("run = %s (%s)", res.Reason, res.Error)
	}
	if got := dev.Actions(); len(got) != 1 || got[0].Text != "P-0001" {
		t.Errorf("device ran %+v, want the person's answer typed", got)
	}
	if len(told(env, "progress", "A person: carol@desk answered: P-0001")) == 0 || len(told(env, "progress", "simulated user answered")) != 0 {
		t.Error("the person's answer is not recorded as theirs alone")
	}
}

// TestSimulatedUserApprovals: the simulated user approves the deletion the
// persona wants (a rule it may decide), and the send, whose rule it may
// not decide, waits for a person and times out.
func TestSimulatedUserApprovals(t *testing.T) {
	env, dev, wait := userRun(t, "sim-approve", "The code is K-4711.", []scripted.Step{click("Delete"), click("Send"), done(nil)}, nil, "Delete", "Send")
	res := wait()
	if res.Reason != workflows.ReasonSuccess {
		t.Fatalf("run = %s (%s)", res.Reason, res.Error)
	}
	if got := kinds(dev.Actions()); got["Delete"] != 1 || got["Send"] != 0 {
		t.Errorf("device ran %v, want Delete once and no Send", got)
	}
	if len(told(env, "progress", `A person: the simulated user approved click #1 "Delete" (confirm_delete`)) == 0 {
		t.Error("the approval is not recorded as the simulated user's")
	}
	if len(told(env, "decision", "nobody did within 1s")) == 0 {
		t.Error("the send was not left to a person")
	}
	for _, q := range env.Model.Requests() {
		if q.Role == "user" && q.Turn.User != nil && strings.Contains(q.Turn.User.Action, "Send") {
			t.Errorf("the simulated user was asked about a rule it may not decide: %+v", q.Turn.User)
		}
	}
}

// TestSimulatedUserNeverDecidesOperatorRules: an operator's confirm rule
// named as one the task lets its simulated user decide is still a
// person's: the task file cannot hand the operator's approvals to a
// model. Nobody approves within the rule's second: the deletion is
// rejected, and the simulated user was never asked.
func TestSimulatedUserNeverDecidesOperatorRules(t *testing.T) {
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{"s": {Steps: []scripted.Step{click("Delete"), done(nil)}}}, User: userRules})
	dev := fakedevice.New("Delete")
	env.Serve("desktop", env.Activities(dev, "desktop", env.ModelConfig()), true)
	pl := mustPlan(t, fmt.Sprintf(userTask, "The code is K-4711."))
	pl.Policy.Operator = &plan.Policy{Source: "/etc/pcflow/policy.hcl", Rules: []plan.PolicyRule{
		{Name: "confirm_delete", Target: "^Delete$", Decision: plan.PolicyConfirm, Timeout: plan.Duration(time.Second)}}}
	run, err := env.Client.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: "sim-operator", TaskQueue: workflows.TaskQueue},
		workflows.InstructionWorkflowName, workflows.InstructionInput{Plan: pl})
	if err != nil {
		t.Fatal(err)
	}
	if res := result(t, run); res.Reason != workflows.ReasonSuccess {
		t.Fatalf("run = %s (%s)", res.Reason, res.Error)
	}
	if n := kinds(dev.Actions())["Delete"]; n != 0 {
		t.Errorf("Delete ran %d times: the simulated user decided an operator's rule", n)
	}
	for _, q := range env.Model.Requests() {
		if q.Role == "user" {
			t.Errorf("the simulated user was asked: %+v", q.Turn.User)
		}
	}
}
