package workflows_test

import (
	"context"
	"strings"
	"testing"
	"time"

	sdkpb "go.temporal.io/api/sdk/v1"
	"go.temporal.io/sdk/client"

	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/control"
	"github.com/pcflow/pcflow/internal/enginetest"
	"github.com/pcflow/pcflow/internal/signing"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/workflows"
)

// A person in the loop (issue 13), on the real engine with the fake device
// and the scripted model: pause and resume, takeover and release, the
// approval gate (approve, reject, timeout, deny), ask_human and answer.

const personTask = `
task "person" {
  max_steps = 8
  timeout   = "5m"
  subtask "s" {
    instruction = "tidy the files"
  }
}`

// personRun starts the task with policy p on a fake device with the
// given buttons; it returns the engine, the device and the run.
func personRun(t testing.TB, id string, steps []scripted.Step, p *plan.Policy, buttons ...string) (*enginetest.Env, *fakedevice.Device, client.WorkflowRun) {
	t.Helper()
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{"s": {Steps: steps}}})
	dev := fakedevice.New(buttons...)
	env.Serve("desktop", env.Activities(dev, "desktop", env.ModelConfig()), true)
	pl := mustPlan(t, personTask)
	pl.Policy = p
	pl.MaxSteps = max(pl.MaxSteps, len(steps)+2)
	for i := range pl.Subtasks {
		pl.Subtasks[i].MaxSteps = pl.MaxSteps
	}
	run, err := env.Client.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: id, TaskQueue: workflows.TaskQueue},
		workflows.InstructionWorkflowName, workflows.InstructionInput{Plan: pl})
	if err != nil {
		t.Fatal(err)
	}
	return env, dev, run
}

// awaitWaiting polls the run until its subtask waits for kind.
func awaitWaiting(t *testing.T, c client.Client, run, kind string) control.Subtask {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		subs, err := control.Running(context.Background(), c, run)
		for _, s := range subs {
			if s.Live.Waiting != nil && s.Live.Waiting.Kind == kind {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("run %s never waited for %s: %+v, %v", run, kind, subs, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func result(t *testing.T, run client.WorkflowRun) workflows.InstructionResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var res workflows.InstructionResult
	if err := run.Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	return res
}

// told returns the text of the model requests of role whose text has needle.
func told(env *enginetest.Env, role, needle string) []string {
	var out []string
	for _, r := range env.Model.Requests() {
		if r.Role == role && strings.Contains(r.Text, needle) {
			out = append(out, r.Text)
		}
	}
	return out
}

func kinds(as []screen.Action) map[string]int {
	n := map[string]int{}
	for _, a := range as {
		n[a.Target]++
	}
	return n
}

var confirmDelete = &plan.Policy{Rules: []plan.PolicyRule{{Name: "confirm_delete", Target: "^Delete$", Decision: plan.PolicyConfirm,
	Message: "deleting needs a person's approval"}}}

// TestApprovalWaitsAndRunsOnce: a confirm rule holds the action until a
// person approves it; the approval runs it exactly once and is recorded.
func TestApprovalWaitsAndRunsOnce(t *testing.T) {
	env, dev, run := personRun(t, "approve-1", []scripted.Step{click("Delete"), click("Archive"), done(nil)}, confirmDelete, "Delete", "Archive")
	s := awaitWaiting(t, env.Client, "approve-1", workflows.WaitApproval)
	w := s.Live.Waiting
	if !strings.Contains(w.Action, `"Delete"`) || !strings.Contains(w.Rule, "confirm_delete") || w.Screenshot == "" || w.Element == "" ||
		w.Deadline.IsZero() || w.ID != "step-1" {
		t.Errorf("waiting = %+v, want the Delete click, its rule, element, screenshot and deadline", w)
	}
	if n := kinds(dev.Actions())["Delete"]; n != 0 {
		t.Fatalf("Delete ran %d times before anyone approved it", n)
	}
	// The Temporal UI shows it as the subtask's current details.
	if v, err := env.Client.QueryWorkflow(context.Background(), s.Workflow, "", "__temporal_workflow_metadata"); err != nil {
		t.Error(err)
	} else {
		var md sdkpb.WorkflowMetadata
		if err := v.Get(&md); err != nil {
			t.Error(err)
		}
		if d := md.GetCurrentDetails(); !strings.Contains(d, "Waiting for approval") || !strings.Contains(d, "pcflow approve approve-1") {
			t.Errorf("current details = %q", d)
		}
	}
	// A wrong request id is refused; the pending one stays.
	if _, _, err := control.Approve(context.Background(), env.Client, env.Signer(), "approve-1", "", workflows.Approval{Request: "step-9", Approve: true}); err == nil || !strings.Contains(err.Error(), `"step-9" is not pending`) {
		t.Errorf("approve of a wrong request = %v, want a refusal naming it", err)
	}
	_, out, err := control.Approve(context.Background(), env.Client, env.Signer(), "approve-1", "", workflows.Approval{Approve: true, By: "alice@desk"})
	if err != nil || !strings.Contains(out, "approved") {
		t.Fatalf("approve = %q, %v", out, err)
	}
	res := result(t, run)
	if res.Reason != workflows.ReasonSuccess {
		t.Fatalf("run = %s (%s)", res.Reason, res.Error)
	}
	if got := kinds(dev.Actions()); got["Delete"] != 1 || got["Archive"] != 1 {
		t.Errorf("device ran %v, want Delete and Archive once each", got)
	}
	if len(told(env, "progress", "A person: alice@desk approved click #1 \"Delete\"")) != 1 {
		t.Error("the Progress agent was not told who approved the action")
	}
	// Nothing is pending any more: a second approval is refused.
	if _, _, err := control.Approve(context.Background(), env.Client, env.Signer(), "approve-1", "", workflows.Approval{Approve: true}); err == nil || !strings.Contains(err.Error(), "has finished") {
		t.Errorf("approve after the end = %v", err)
	}
}

// TestApprovalRejected: a rejected action never runs, and the agent is
// told who rejected it and why, so it chooses another.
func TestApprovalRejected(t *testing.T) {
	env, dev, run := personRun(t, "reject-1", []scripted.Step{click("Delete"), click("Archive"), done(nil)}, confirmDelete, "Delete", "Archive")
	awaitWaiting(t, env.Client, "reject-1", workflows.WaitApproval)
	if _, _, err := control.Approve(context.Background(), env.Client, env.Signer(), "reject-1", "s", workflows.Approval{Reason: "keep the files", By: "bob@desk"}); err != nil {
		t.Fatal(err)
	}
	res := result(t, run)
	if res.Reason != workflows.ReasonSuccess {
		t.Fatalf("run = %s (%s)", res.Reason, res.Error)
	}
	if got := kinds(dev.Actions()); got["Delete"] != 0 || got["Archive"] != 1 {
		t.Errorf("device ran %v, want Archive only", got)
	}
	if len(told(env, "decision", `→ rejected (bob@desk rejected it: keep the files; it was not run: choose another action)`)) == 0 {
		t.Error("the next decision was not told of the rejection and its reason")
	}
}

// TestSignedApprovalNamesItsSigner (issue 37): the name a decision is
// recorded under is the one its signer sets, whatever the sender wrote:
// the live view's signer names "view page"; a decision signed with
// another key is refused and the action waits on.
func TestSignedApprovalNamesItsSigner(t *testing.T) {
	env, dev, run := personRun(t, "signed-1", []scripted.Step{click("Delete"), done(nil)}, confirmDelete, "Delete")
	awaitWaiting(t, env.Client, "signed-1", workflows.WaitApproval)
	otherKey, err := signing.LoadOrCreate(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := control.Approve(context.Background(), env.Client, signing.As{Key: otherKey, By: "view page"}, "signed-1", "", workflows.Approval{Approve: true}); err == nil ||
		!strings.Contains(err.Error(), "signature does not match") {
		t.Errorf("an approval signed with another key = %v, want it refused", err)
	}
	if n := kinds(dev.Actions())["Delete"]; n != 0 {
		t.Fatalf("Delete ran %d times after a refused approval", n)
	}
	if _, _, err := control.Approve(context.Background(), env.Client, signing.As{Key: env.DecisionKey, By: "view page"}, "signed-1", "", workflows.Approval{Approve: true, By: "root@elsewhere"}); err != nil {
		t.Fatal(err)
	}
	if res := result(t, run); res.Reason != workflows.ReasonSuccess || kinds(dev.Actions())["Delete"] != 1 {
		t.Fatalf("run = %s (%s), device ran %v; want Delete once", res.Reason, res.Error, dev.Actions())
	}
	if len(told(env, "progress", "view page approved")) == 0 || len(told(env, "progress", "root@elsewhere")) != 0 {
		t.Error("the approval is not recorded as the view page's (or names what the sender wrote)")
	}
}

// TestApprovalTimeoutRejects: nobody approves within the rule's timeout,
// which counts as a rejection.
func TestApprovalTimeoutRejects(t *testing.T) {
	t.Parallel() // its own server (enginetest.Start); much of it waits
	p := &plan.Policy{Rules: []plan.PolicyRule{{Name: "confirm_delete", Target: "Delete", Decision: plan.PolicyConfirm, Timeout: plan.Duration(time.Second)}}}
	env, dev, run := personRun(t, "timeout-1", []scripted.Step{click("Delete"), click("Archive"), done(nil)}, p, "Delete", "Archive")
	res := result(t, run)
	if res.Reason != workflows.ReasonSuccess {
		t.Fatalf("run = %s (%s)", res.Reason, res.Error)
	}
	if got := kinds(dev.Actions()); got["Delete"] != 0 || got["Archive"] != 1 {
		t.Errorf("device ran %v, want Archive only", got)
	}
	if len(told(env, "decision", "nobody did within 1s, which counts as a rejection")) == 0 {
		t.Error("the next decision was not told that the approval timed out")
	}
}

// TestPolicyDenyThenAllow: a denied action is not run, the agent is told
// the rule and its message, and its next choice runs.
func TestPolicyDenyThenAllow(t *testing.T) {
	p := &plan.Policy{Rules: []plan.PolicyRule{{Name: "no_delete", Target: "Delete", Decision: plan.PolicyDeny, Message: "never delete files"}}}
	env, dev, run := personRun(t, "deny-1", []scripted.Step{click("Delete"), click("Archive"), done(nil)}, p, "Delete", "Archive")
	res := result(t, run)
	if res.Reason != workflows.ReasonSuccess {
		t.Fatalf("run = %s (%s)", res.Reason, res.Error)
	}
	if got := kinds(dev.Actions()); got["Delete"] != 0 || got["Archive"] != 1 {
		t.Errorf("device ran %v, want Archive only", got)
	}
	if len(told(env, "decision", `→ denied (the policy's rule "no_delete" denies it: never delete files`)) == 0 {
		t.Error("the next decision was not told the rule and its message")
	}
	if res.Subtasks[0].Verdicts[screen.VerdictDenied] != 1 {
		t.Errorf("verdicts = %v, want one denied step", res.Subtasks[0].Verdicts)
	}
}

// TestAskHumanAnswer: the agent's question waits for a person's answer,
// which reaches the agent and, through it, the device.
func TestAskHumanAnswer(t *testing.T) {
	steps := []scripted.Step{
		{Action: "ask_human", Args: map[string]any{"text": "Which code should I type?"}},
		{Action: "type", Args: map[string]any{"text": scripted.AnswerArg}},
		done(nil),
	}
	env, dev, run := personRun(t, "ask-1", steps, nil, "Code")
	s := awaitWaiting(t, env.Client, "ask-1", workflows.WaitAnswer)
	if s.Live.Waiting.Question != "Which code should I type?" {
		t.Errorf("question = %q", s.Live.Waiting.Question)
	}
	if _, _, err := control.Approve(context.Background(), env.Client, env.Signer(), "ask-1", "", workflows.Approval{Approve: true}); err == nil ||
		!strings.Contains(err.Error(), "run ask-1 has no pending approval; subtask s is at step 1, waiting for an answer") {
		t.Errorf("approve while a question waits = %v", err)
	}
	if _, _, err := control.Answer(context.Background(), env.Client, env.Signer(), "ask-1", "", workflows.Answer{Text: "K-4711", By: "carol@desk"}); err != nil {
		t.Fatal(err)
	}
	res := result(t, run)
	if res.Reason != workflows.ReasonSuccess {
		t.Fatalf("run = %s (%s)", res.Reason, res.Error)
	}
	if got := dev.Actions(); len(got) != 1 || got[0].Text != "K-4711" {
		t.Errorf("device ran %+v, want the answer typed", got)
	}
	if len(told(env, "decision", `- You asked "Which code should I type?"; the person answered: K-4711`)) == 0 {
		t.Error("the answer is not in the next decision's prompt")
	}
}

// TestPauseResume: a paused subtask acts no more until resumed, and its
// time limit does not run meanwhile.
func TestPauseResume(t *testing.T) {
	t.Parallel() // its own server (enginetest.Start); much of it waits
	steps := []scripted.Step{click("A"), click("B"), click("A"), click("B"), done(nil)}
	env, dev, run := personRun(t, "pause-1", steps, nil, "A", "B")
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := control.Send(context.Background(), env.Client, "pause-1", "", workflows.Control{Op: workflows.ControlPause, By: "dan@desk"}); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	s := awaitWaiting(t, env.Client, "pause-1", workflows.WaitPaused)
	if s.Live.Phase != "paused" || s.Live.Waiting.By != "dan@desk" {
		t.Errorf("live = %+v", s.Live)
	}
	n := len(dev.Actions())
	time.Sleep(1500 * time.Millisecond)
	if got := len(dev.Actions()); got != n {
		t.Fatalf("the device ran %d actions while paused", got-n)
	}
	if _, err := control.Send(context.Background(), env.Client, "pause-1", "", workflows.Control{Op: workflows.ControlRelease}); err == nil ||
		!strings.Contains(err.Error(), "paused, not taken over") {
		t.Errorf("release of a paused run = %v", err)
	}
	if _, err := control.Send(context.Background(), env.Client, "pause-1", "", workflows.Control{Op: workflows.ControlResume}); err != nil {
		t.Fatal(err)
	}
	res := result(t, run)
	if res.Reason != workflows.ReasonSuccess || len(dev.Actions()) != 4 {
		t.Fatalf("run = %s (%s), %d actions", res.Reason, res.Error, len(dev.Actions()))
	}
	if res.Subtasks[0].Held < time.Second {
		t.Errorf("held = %s, want the pause counted as a person's time", res.Subtasks[0].Held)
	}
}

// TestTakeoverRelease: while a person has the device the agent does
// nothing; after release it looks afresh and its Progress agent is told
// what the person did.
func TestTakeoverRelease(t *testing.T) {
	steps := []scripted.Step{click("A"), click("B"), click("A"), done(nil)}
	env, dev, run := personRun(t, "takeover-1", steps, nil, "A", "B")
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := control.Send(context.Background(), env.Client, "takeover-1", "", workflows.Control{Op: workflows.ControlTakeover, By: "erin@desk"}); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	awaitWaiting(t, env.Client, "takeover-1", workflows.WaitTakeover)
	n := len(dev.Actions())
	if _, err := control.Send(context.Background(), env.Client, "takeover-1", "", workflows.Control{Op: workflows.ControlTakeover}); err == nil {
		t.Error("a second takeover was not refused")
	}
	if _, err := control.Send(context.Background(), env.Client, "takeover-1", "", workflows.Control{Op: workflows.ControlRelease, By: "erin@desk",
		Note: "I closed the pop-up"}); err != nil {
		t.Fatal(err)
	}
	res := result(t, run)
	if res.Reason != workflows.ReasonSuccess {
		t.Fatalf("run = %s (%s)", res.Reason, res.Error)
	}
	if got := len(dev.Actions()); got != 3 || n > 3 {
		t.Errorf("device ran %d actions (%d before the takeover), want the script's 3", got, n)
	}
	if len(told(env, "progress", "A person: erin@desk had control of the device for")) != 1 || len(told(env, "progress", "their note: I closed the pop-up")) != 1 {
		t.Error("the Progress agent was not told of the takeover and its note")
	}
	if len(told(env, "decision", "Last action: a person had control of the device → handed_back (their note: I closed the pop-up)")) != 1 {
		t.Error("the next decision was not told that a person had the device")
	}
}

// TestTwoApprovalsNeedASubtask: with two subtasks waiting, a decision
// without --subtask is refused, naming both; each is then decided on its
// own.
func TestTwoApprovalsNeedASubtask(t *testing.T) {
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{
		"a": {Steps: []scripted.Step{click("Delete"), done(nil)}},
		"b": {Steps: []scripted.Step{click("Delete"), done(nil)}},
	}})
	left, right := fakedevice.New("Delete"), fakedevice.New("Delete")
	env.Serve("left", env.Activities(left, "left", env.ModelConfig()), true)
	env.Serve("right", env.Activities(right, "right", env.ModelConfig()), false)
	pl := mustPlan(t, `task "two" {
  device "left" {}
  device "right" {}
  subtask "a" {
    device      = device.left
    instruction = "delete it"
  }
  subtask "b" {
    device      = device.right
    instruction = "delete it too"
  }
}`)
	pl.Policy = confirmDelete
	run, err := env.Client.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: "two-1", TaskQueue: workflows.TaskQueue},
		workflows.InstructionWorkflowName, workflows.InstructionInput{Plan: pl})
	if err != nil {
		t.Fatal(err)
	}
	waitFor := func(what string, cond func([]control.Subtask) bool) {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for {
			subs, _ := control.Pending(context.Background(), env.Client, "two-1")
			if cond(subs) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("never saw %s: %+v", what, subs)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitFor("both waiting", func(s []control.Subtask) bool { return len(s) == 2 })
	_, _, err = control.Approve(context.Background(), env.Client, env.Signer(), "two-1", "", workflows.Approval{Approve: true})
	if err == nil || !strings.Contains(err.Error(), "run two-1 has 2 subtasks with a pending approval (a: approval of click #1") ||
		!strings.Contains(err.Error(), "b: approval of") || !strings.Contains(err.Error(), "name one with --subtask") {
		t.Fatalf("approve without a subtask = %v", err)
	}
	if _, _, err := control.Approve(context.Background(), env.Client, env.Signer(), "two-1", "c", workflows.Approval{Approve: true}); err == nil ||
		!strings.Contains(err.Error(), "subtask c of run two-1 is not running; running: a, b") {
		t.Errorf("approve of an unknown subtask = %v", err)
	}
	if _, _, err := control.Approve(context.Background(), env.Client, env.Signer(), "two-1", "a", workflows.Approval{Approve: true}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := control.Approve(context.Background(), env.Client, env.Signer(), "two-1", "b", workflows.Approval{Reason: "not this one"}); err != nil {
		t.Fatal(err)
	}
	res := result(t, run)
	if res.Reason != workflows.ReasonSuccess {
		t.Fatalf("run = %s (%s)", res.Reason, res.Error)
	}
	if len(left.Actions()) != 1 || len(right.Actions()) != 0 {
		t.Errorf("left ran %d, right %d actions; want the approved one only", len(left.Actions()), len(right.Actions()))
	}
}

// TestRecordPersonHistories records a run in which a person takes the
// device over and hands it back, answers a question and approves an
// action, while the policy denies another: replay fixtures for the loop's
// waits (TestReplay).
func TestRecordPersonHistories(t *testing.T) {
	if !*record {
		t.Skip("pass -record to record histories")
	}
	p := &plan.Policy{Rules: []plan.PolicyRule{
		{Name: "confirm_delete", Target: "^Delete$", Decision: plan.PolicyConfirm},
		{Name: "no_nine", Target: "^9$", Decision: plan.PolicyDeny, Message: "no nines"},
	}}
	steps := []scripted.Step{
		{Action: "ask_human", Args: map[string]any{"text": "Which code?"}},
		{Action: "type", Args: map[string]any{"text": scripted.AnswerArg}},
		click("9"), click("Delete"), done(nil),
	}
	env, _, run := personRun(t, "person", steps, p, "Delete", "9")
	ctx := context.Background()
	awaitWaiting(t, env.Client, "person", workflows.WaitAnswer)
	// A takeover asked for while the question waits holds the loop once
	// the question is answered.
	if _, err := control.Send(ctx, env.Client, "person", "", workflows.Control{Op: workflows.ControlTakeover, By: "rec@desk"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := control.Answer(ctx, env.Client, env.Signer(), "person", "", workflows.Answer{Text: "4711", By: "rec@desk"}); err != nil {
		t.Fatal(err)
	}
	awaitWaiting(t, env.Client, "person", workflows.WaitTakeover)
	if _, err := control.Send(ctx, env.Client, "person", "", workflows.Control{Op: workflows.ControlRelease, By: "rec@desk", Note: "looked around"}); err != nil {
		t.Fatal(err)
	}
	awaitWaiting(t, env.Client, "person", workflows.WaitApproval)
	if _, _, err := control.Approve(ctx, env.Client, env.Signer(), "person", "", workflows.Approval{Approve: true, By: "rec@desk"}); err != nil {
		t.Fatal(err)
	}
	if res := result(t, run); res.Reason != workflows.ReasonSuccess {
		t.Fatalf("run = %s (%s)", res.Reason, res.Error)
	}
	saveHistories(t, env, "person", workflows.ChildID("person", "s"))
}

// TestPolicyOnDone: a rule may name done, which touches nothing: a person
// checks the outputs before the subtask ends, and a rejected done makes
// the agent go on.
func TestPolicyOnDone(t *testing.T) {
	p := &plan.Policy{Default: plan.PolicyDeny, Rules: []plan.PolicyRule{
		{Name: "check outputs", Kinds: []string{screen.ActDone}, Decision: plan.PolicyConfirm},
		{Name: "buttons", Kinds: []string{screen.ActClick}, Decision: plan.PolicyAllow},
	}}
	steps := []scripted.Step{click("A"), done(map[string]any{"v": "1"}), done(map[string]any{"v": "2"})}
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{"s": {Steps: steps}}})
	dev := fakedevice.New("A")
	env.Serve("desktop", env.Activities(dev, "desktop", env.ModelConfig()), true)
	pl := mustPlan(t, oneSubtask)
	pl.Policy = p
	run, err := env.Client.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: "done-1", TaskQueue: workflows.TaskQueue},
		workflows.InstructionWorkflowName, workflows.InstructionInput{Plan: pl})
	if err != nil {
		t.Fatal(err)
	}
	s := awaitWaiting(t, env.Client, "done-1", workflows.WaitApproval)
	if s.Live.Waiting.Action != "done v" || !strings.Contains(s.Live.Waiting.Rule, "check outputs") {
		t.Errorf("waiting = %+v", s.Live.Waiting)
	}
	if _, _, err := control.Approve(context.Background(), env.Client, env.Signer(), "done-1", "", workflows.Approval{Reason: "v is wrong"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		subs, _ := control.Pending(context.Background(), env.Client, "done-1")
		if len(subs) == 1 && subs[0].Live.Waiting.ID == "step-3" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the second done never waited: %+v", subs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, _, err := control.Approve(context.Background(), env.Client, env.Signer(), "done-1", "", workflows.Approval{Approve: true}); err != nil {
		t.Fatal(err)
	}
	res := result(t, run)
	if res.Reason != workflows.ReasonSuccess || res.Subtasks[0].Outputs["v"] != "2" {
		t.Fatalf("run = %s (%s), outputs %v; want the approved done's", res.Reason, res.Error, res.Subtasks[0].Outputs)
	}
	if len(told(env, "decision", "v is wrong")) == 0 {
		t.Error("the agent was not told why its done was rejected")
	}
}

// TestApprovalSurvivesWorkerRestart: the worker stops while an approval
// waits; a new worker takes the run over, the approval decides the
// waiting step and the action runs once.
func TestApprovalSurvivesWorkerRestart(t *testing.T) {
	t.Parallel() // its own server (enginetest.Start); much of it waits
	env := enginetest.Start(t, scripted.Script{Subtasks: map[string]scripted.SubtaskScript{
		"s": {Steps: []scripted.Step{click("Delete"), done(nil)}}}})
	dev := fakedevice.New("Delete")
	acts := env.Activities(dev, "desktop", env.ModelConfig())
	w := env.Serve("desktop", acts, true)
	pl := mustPlan(t, personTask)
	pl.Policy = confirmDelete
	run, err := env.Client.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: "restart-1", TaskQueue: workflows.TaskQueue},
		workflows.InstructionWorkflowName, workflows.InstructionInput{Plan: pl})
	if err != nil {
		t.Fatal(err)
	}
	awaitWaiting(t, env.Client, "restart-1", workflows.WaitApproval)
	w.Stop()
	// Nothing serves the run: the approval cannot be decided, and says why.
	if _, _, err := control.Approve(context.Background(), env.Client, env.Signer(), "restart-1", "", workflows.Approval{Approve: true}); err == nil ||
		!strings.Contains(err.Error(), "no worker is serving run restart-1 right now") {
		t.Errorf("approve without a worker = %v", err)
	}
	env.Serve("desktop", acts, true)
	awaitWaiting(t, env.Client, "restart-1", workflows.WaitApproval)
	if _, _, err := control.Approve(context.Background(), env.Client, env.Signer(), "restart-1", "", workflows.Approval{Approve: true}); err != nil {
		t.Fatal(err)
	}
	if res := result(t, run); res.Reason != workflows.ReasonSuccess {
		t.Fatalf("run = %s (%s)", res.Reason, res.Error)
	}
	if n := kinds(dev.Actions())["Delete"]; n != 1 {
		t.Errorf("Delete ran %d times, want once", n)
	}
}

// TestCancelWhileWaiting: a run cancelled while its subtask waits for a
// person ends at once, cancelled.
func TestCancelWhileWaiting(t *testing.T) {
	env, dev, run := personRun(t, "cancel-1", []scripted.Step{click("Delete"), done(nil)}, confirmDelete, "Delete")
	awaitWaiting(t, env.Client, "cancel-1", workflows.WaitApproval)
	if err := env.Client.CancelWorkflow(context.Background(), "cancel-1", ""); err != nil {
		t.Fatal(err)
	}
	res := result(t, run)
	if res.Reason != workflows.ReasonCancelled || res.Subtasks[0].Reason != workflows.ReasonCancelled {
		t.Errorf("run = %s, subtask %s (%s); want both cancelled", res.Reason, res.Subtasks[0].Reason, res.Subtasks[0].Error)
	}
	if n := len(dev.Actions()); n != 0 {
		t.Errorf("the device ran %d actions", n)
	}
}
