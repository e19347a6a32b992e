package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/internal/testdisplay"
)

// A person in the loop end to end (issue 13): galculator on a real
// desktop, the scripted model, the policy in the task file, and the
// commands a person types.

// startBG starts pcflow in the background with its output in out.
func (w *world) startBG(out *syncBuffer, args ...string) *exec.Cmd {
	w.t.Helper()
	c := w.cmd(args...)
	c.Stdout, c.Stderr = out, out
	if err := c.Start(); err != nil {
		w.t.Fatal(err)
	}
	w.t.Cleanup(func() {
		if c.ProcessState == nil {
			c.Process.Kill()
			c.Wait()
		}
	})
	return c
}

// waitStatus polls `pcflow status RUN` until it shows want.
func (w *world) waitStatus(id, want string) string {
	w.t.Helper()
	var st string
	// A status command run before the server is up would start one.
	waitPort(w.t, w.port)
	waitFor(w.t, "status of "+id+" to show "+want, func() bool {
		_, st = w.pcflow(w.iflags("status", id)...)
		return strings.Contains(st, want)
	})
	return st
}

// actionsLike counts the actions the device started whose summary has s.
func actionsLike(t *testing.T, state, s string) int {
	t.Helper()
	entries, err := activities.ReadActionLog(filepath.Join(state, "actions", "desktop.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if e.Phase == activities.PhaseStarted && strings.Contains(e.Summary, s) {
			n++
		}
	}
	return n
}

// TestPolicyApproveSurvivesKill: the script tries a button the policy
// denies, is told and goes on; "=" waits for a person. The run process is
// killed (SIGKILL) while it waits, brought back with `pcflow resume`, and
// `pcflow approve` runs "=" exactly once: the run succeeds with 84.
func TestPolicyApproveSurvivesKill(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	w := newWorldOn(t, testdisplay.Reserve(t))
	id := "person-approve"
	var out syncBuffer
	run := w.startBG(&out, w.flags("run", "cli/testdata/person.hcl", "--script", "cli/testdata/person.script.json",
		"--display", w.display, "--id", id)...)
	st := w.waitStatus(id, "waiting: approval of click")
	for _, want := range []string{`"="`, "rule confirm_equals (cli/testdata/person.hcl): a person checks the input", "rejected at", "pcflow approve " + id, "target:  ", "screen:  " + w.state} {
		if !strings.Contains(st, want) {
			t.Errorf("status lacks %q:\n%s", want, st)
		}
	}
	if n := actionsLike(t, w.state, `"="`); n != 0 {
		t.Fatalf("= ran %d times before anyone approved it", n)
	}
	if n := actionsLike(t, w.state, `"9"`); n != 0 {
		t.Errorf("the denied 9 ran %d times", n)
	}
	// pcflow run says what it waits for and how to decide it.
	waitFor(t, "pcflow run to show the approval", func() bool {
		return strings.Contains(out.String(), "⏸ multiply waiting: approval of click") && strings.Contains(out.String(), "do:      pcflow approve "+id)
	})
	// Kill everything: the run process hosts the server and the worker.
	run.Process.Kill()
	run.Wait()
	var rout syncBuffer
	resume := w.startBG(&rout, w.flags("resume", id, "--display", w.display)...)
	var code int
	var ap string
	waitPort(t, w.port)
	waitFor(t, "pcflow approve to find the approval after the restart", func() bool {
		code, ap = w.pcflow(w.iflags("approve", id)...)
		return code == 0
	})
	if !strings.Contains(ap, `approved click`) || !strings.Contains(ap, `"="`) {
		t.Errorf("approve said %q", ap)
	}
	if err := resume.Wait(); err != nil {
		t.Fatalf("resumed run: %v\n%s", err, rout.String())
	}
	if !strings.Contains(rout.String(), `product="84"`) {
		t.Errorf("resumed run:\n%s", rout.String())
	}
	if n := actionsLike(t, w.state, `"="`); n != 1 {
		t.Errorf("= started %d times, want exactly once", n)
	}
	if n := actionsLike(t, w.state, `"9"`); n != 0 {
		t.Errorf("the denied 9 ran %d times", n)
	}
	w.historyHas(id, `verdict:  denied — the policy's rule "no_nine" (cli/testdata/person.hcl) denies it: the number nine is not wanted here`, "approved click", "(confirm_equals")
	if code, msg := w.pcflow(w.iflags("approve", id)...); code != 1 || !strings.Contains(msg, "has finished") {
		t.Errorf("approve of a finished run = %d %q", code, msg)
	}
	if code, msg := w.pcflow(w.iflags("approve", "no-such-run")...); code != 1 || !strings.Contains(msg, `no run "no-such-run"`) {
		t.Errorf("approve of an unknown run = %d %q", code, msg)
	}
}

// TestAskHumanAndReject: the agent asks which number to enter and types
// the answer given with `pcflow answer`; "=" is rejected with
// `pcflow reject`, never runs, and the agent reports what it has.
func TestAskHumanAndReject(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	w := newWorldOn(t, testdisplay.Reserve(t))
	id := "person-ask"
	var out syncBuffer
	run := w.startBG(&out, w.flags("run", "cli/testdata/person.hcl", "--script", "cli/testdata/person_ask.script.json",
		"--display", w.display, "--id", id)...)
	st := w.waitStatus(id, "waiting: an answer to")
	if !strings.Contains(st, `"Which number should I enter?"`) || !strings.Contains(st, `pcflow answer `+id) {
		t.Errorf("status:\n%s", st)
	}
	// A second worker for a run its process still serves would act on the
	// same desktop beside the first: resume refuses, naming that process.
	if code, msg := w.pcflow(w.flags("resume", id, "--display", w.display)...); code != 1 || !strings.Contains(msg, "run "+id+" is served by process") {
		t.Errorf("resume of a live run = %d %q, want it refused naming the process that serves it", code, msg)
	}
	if code, msg := w.pcflow(w.iflags("approve", id)...); code != 1 || !strings.Contains(msg, "run "+id+" has no pending approval; subtask multiply is at step 2, waiting for an answer") {
		t.Errorf("approve while a question waits = %d %q", code, msg)
	}
	if code, msg := w.pcflow(w.iflags("answer", id, "42")...); code != 0 {
		t.Fatalf("answer = %d %q", code, msg)
	}
	w.waitStatus(id, "waiting: approval of click")
	if code, msg := w.pcflow(w.iflags("reject", id, "--reason", "keep the input as it is")...); code != 0 || !strings.Contains(msg, "rejected click") {
		t.Fatalf("reject = %d %q", code, msg)
	}
	if err := run.Wait(); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), `product="42"`) {
		t.Errorf("run did not report the answered number:\n%s", out.String())
	}
	// The step that typed the answer ended before the approval was asked:
	// the run's progress, which polls, says so in that order when it
	// caught both (a quick reject can end the wait between two polls).
	typed := regexp.MustCompile(`(?m)^  multiply +step 3/\d+ +type`).FindStringIndex(out.String())
	waits := strings.Index(out.String(), "⏸ multiply waiting: approval of click")
	if typed != nil && waits >= 0 && typed[0] > waits {
		t.Errorf("run's progress should show step 3 (type) before the wait for approval:\n%s", out.String())
	}
	if n := actionsLike(t, w.state, `"="`); n != 0 {
		t.Errorf("the rejected = ran %d times", n)
	}
	w.historyHas(id, "verdict:  answered —", "answered: 42", "verdict:  rejected —", "rejected it: keep the input as it is; it was not run")
}

// historyHas fails the test unless `pcflow history id` says each of wants.
func (w *world) historyHas(id string, wants ...string) {
	w.t.Helper()
	_, hist := w.pcflow(w.iflags("history", id)...)
	for _, want := range wants {
		if !strings.Contains(hist, want) {
			w.t.Errorf("history of %s lacks %q:\n%s", id, want, hist)
		}
	}
}
