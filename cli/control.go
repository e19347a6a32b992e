package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/pcflow/pcflow/internal/control"
	"github.com/pcflow/pcflow/internal/signing"
	"github.com/pcflow/pcflow/internal/text"
	"github.com/pcflow/pcflow/workflows"
)

// A person in the loop from the command line: pause, takeover, release
// (resume is cmdResume's, which also continues a paused run), approve,
// reject and answer. The work is internal/control's, shared with the live
// view page.

func cmdPause(ctx context.Context, e *env, args []string) int {
	return controlCmd(ctx, e, args, workflows.ControlPause, "RUN [--subtask S]",
		"Pause a run: each running subtask (or --subtask S) stops before its next action and\nwaits, durably, until `pcflow resume RUN`. Its time limit does not run meanwhile.")
}

func cmdTakeover(ctx context.Context, e *env, args []string) int {
	return controlCmd(ctx, e, args, workflows.ControlTakeover, "RUN [--subtask S]",
		"Take a subtask's device over: the agent stops before its next action and the device\nis yours until `pcflow release RUN --note TEXT` hands it back; the agent then looks\nafresh and is told what you wrote in the note.")
}

func cmdRelease(ctx context.Context, e *env, args []string) int {
	return controlCmd(ctx, e, args, workflows.ControlRelease, "RUN [--subtask S] [--note TEXT]",
		"Hand a taken-over device back to the agent: it observes the screen afresh, and its\nProgress agent is told that a person had control and what --note says.")
}

// controlCmd sends one control operation and, for pause and takeover,
// waits until the agent has stopped.
func controlCmd(ctx context.Context, e *env, args []string, op, usage, summary string) int {
	var note *string
	pc, code := startPersonCmd(ctx, e, args, op, usage, summary,
		"the subtask `NAME` (default: every running one for pause, the only one otherwise)",
		func(fs *flag.FlagSet) {
			if op == workflows.ControlRelease {
				note = fs.String("note", "", "what you did with the device, `TEXT` told to the agent")
			}
		}, oneRun)
	if code >= 0 {
		return code
	}
	defer pc.g.close()
	ctl := workflows.Control{Op: op, By: control.By()}
	if note != nil {
		ctl.Note = *note
	}
	return sendControl(ctx, e, pc.g.client, pc.args[0], pc.subtask, ctl)
}

// oneRun is the check of a command that takes one run id.
func oneRun(pos []string) string {
	if len(pos) != 1 {
		return "name one run id (see pcflow status)"
	}
	return ""
}

// personCmd is what a person-in-the-loop command has once started: a
// connection, its positional arguments and --subtask.
type personCmd struct {
	g       *engine
	args    []string
	subtask string
	// sign proves who decides (the user of this process's uid).
	sign signing.Signer
}

// startPersonCmd parses a person-in-the-loop command's flags (the
// engine's, --subtask described by subtaskHelp, and what extra adds),
// checks its positional arguments (check says what is wrong with them, or
// "") and connects. A code ≥ 0 means the command is over with that exit
// code.
func startPersonCmd(ctx context.Context, e *env, args []string, name, usage, summary, subtaskHelp string,
	extra func(*flag.FlagSet), check func([]string) string) (personCmd, int) {
	var ef engineFlags
	fs := newFlags(e, name, usage, summary)
	ef.register(fs, e, false)
	subtask := fs.String("subtask", "", subtaskHelp)
	if extra != nil {
		extra(fs)
	}
	pos, code := parseFlags(fs, args)
	if code >= 0 {
		return personCmd{}, code
	}
	if msg := check(pos); msg != "" {
		fmt.Fprintf(e.stderr, "pcflow %s: %s\n", name, msg)
		return personCmd{}, 2
	}
	g, err := ef.connect(ctx, e, false)
	if err != nil {
		fmt.Fprintf(e.stderr, "pcflow %s: %v\n", name, err)
		return personCmd{}, 1
	}
	return personCmd{g: g, args: pos, subtask: *subtask, sign: signing.Signer{State: ef.state}}, -1
}

// sendControl sends ctl and reports; pause and takeover wait (up to a
// minute) until each subtask has stopped.
func sendControl(ctx context.Context, e *env, c client.Client, run, subtask string, ctl workflows.Control) int {
	op := ctl.Op
	subs, err := control.Send(ctx, c, run, subtask, ctl)
	if err != nil {
		fmt.Fprintf(e.stderr, "pcflow %s: %v\n", op, err)
		return 1
	}
	for _, s := range subs {
		switch op {
		case workflows.ControlPause, workflows.ControlTakeover:
			want := workflows.WaitPaused
			if op == workflows.ControlTakeover {
				want = workflows.WaitTakeover
			}
			if w := s.Live.Waiting; w != nil && (w.Kind == workflows.WaitApproval || w.Kind == workflows.WaitAnswer) {
				fmt.Fprintf(e.stdout, "subtask %s of run %s waits for %s; it stops once that is decided (pcflow status %s)\n", s.Name, run, text.Printable(control.Describe(w)), run)
				continue
			}
			stopped := awaitKind(ctx, c, run, s.Name, want, time.Minute)
			if !stopped {
				fmt.Fprintf(e.stdout, "subtask %s of run %s stops before its next action (%s); see pcflow status %s\n", s.Name, run, s.Where(), run)
				continue
			}
			if op == workflows.ControlPause {
				fmt.Fprintf(e.stdout, "paused subtask %s of run %s; continue it with: pcflow resume %s\n", s.Name, run, run)
			} else {
				fmt.Fprintf(e.stdout, "the agent of subtask %s has stopped: device %s is yours.\nhand it back with: pcflow release %s --note \"what you did\"\n", s.Name, s.Live.Device, run)
			}
		case workflows.ControlRelease:
			fmt.Fprintf(e.stdout, "handed device %s back to subtask %s of run %s: the agent looks at the screen afresh\n", s.Live.Device, s.Name, run)
		case workflows.ControlResume:
			fmt.Fprintf(e.stdout, "resumed subtask %s of run %s\n", s.Name, run)
		}
	}
	return 0
}

// awaitKind polls until the subtask waits for kind, at most d.
func awaitKind(ctx context.Context, c client.Client, run, subtask, kind string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		subs, err := control.Running(ctx, c, run)
		if err != nil {
			return false
		}
		for _, s := range subs {
			if s.Name == subtask && s.Live.Waiting != nil && s.Live.Waiting.Kind == kind {
				return true
			}
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(200 * time.Millisecond):
		}
	}
	return false
}

func cmdApprove(ctx context.Context, e *env, args []string) int {
	return decideCmd(ctx, e, args, true)
}

func cmdReject(ctx context.Context, e *env, args []string) int {
	return decideCmd(ctx, e, args, false)
}

func decideCmd(ctx context.Context, e *env, args []string, approve bool) int {
	name, usage, summary := "approve", "RUN [--subtask S]",
		"Approve the action a run waits to run (a policy `confirm` rule or a provider's safety\ncheck): it runs once. See what waits with pcflow status RUN."
	if !approve {
		name, usage, summary = "reject", "RUN [--subtask S] [--reason TEXT]",
			"Reject the action a run waits to run: it is not run, and the agent is told (with\n--reason) so that it chooses another."
	}
	var reason *string
	pc, code := startPersonCmd(ctx, e, args, name, usage, summary, "the subtask `NAME`, when several wait",
		func(fs *flag.FlagSet) {
			if !approve {
				reason = fs.String("reason", "", "why, `TEXT` told to the agent")
			}
		}, oneRun)
	if code >= 0 {
		return code
	}
	defer pc.g.close()
	ap := workflows.Approval{Approve: approve} // pc.sign names who approves
	if reason != nil {
		ap.Reason = *reason
	}
	s, out, err := control.Approve(ctx, pc.g.client, pc.sign, pc.args[0], pc.subtask, ap)
	if err != nil {
		fmt.Fprintf(e.stderr, "pcflow %s: %v\n", name, err)
		return 1
	}
	fmt.Fprintf(e.stdout, "subtask %s of run %s: %s\n", s.Name, pc.args[0], text.Printable(out))
	return 0
}

func cmdAnswer(ctx context.Context, e *env, args []string) int {
	pc, code := startPersonCmd(ctx, e, args, "answer", "RUN TEXT [--subtask S]",
		"Answer the question a run's agent asked (ask_human); it goes on with the answer in\nits context. See the question with pcflow status RUN.",
		"the subtask `NAME`, when several ask", nil, func(pos []string) string {
			if len(pos) < 2 {
				return "give the run id and the answer: pcflow answer RUN \"TEXT\""
			}
			return ""
		})
	if code >= 0 {
		return code
	}
	defer pc.g.close()
	pos := pc.args
	answer := strings.Join(pos[1:], " ")
	s, out, err := control.Answer(ctx, pc.g.client, pc.sign, pos[0], pc.subtask, workflows.Answer{Text: answer})
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow answer:", err)
		return 1
	}
	fmt.Fprintf(e.stdout, "subtask %s of run %s: %s\n", s.Name, pos[0], text.Printable(out))
	return 0
}

// waitingLines says what a subtask waits for and which command decides it.
// shot, when set, turns the screenshot's artifact reference into a path.
func waitingLines(run string, w *workflows.Waiting, shot func(string) string) []string {
	if w == nil {
		return nil
	}
	when := fmt.Sprintf("since %s", w.Since.Local().Format("15:04:05"))
	var do string
	switch w.Kind {
	case workflows.WaitApproval:
		if !w.Deadline.IsZero() {
			when += fmt.Sprintf(", rejected at %s unless approved", w.Deadline.Local().Format("15:04:05"))
		}
		do = fmt.Sprintf("pcflow approve %s   or   pcflow reject %s --reason TEXT", run, run)
	case workflows.WaitAnswer:
		if !w.Deadline.IsZero() {
			when += fmt.Sprintf(", until %s", w.Deadline.Local().Format("15:04:05"))
		}
		do = fmt.Sprintf("pcflow answer %s \"TEXT\"", run)
	case workflows.WaitPaused:
		do = "pcflow resume " + run
	case workflows.WaitTakeover:
		do = fmt.Sprintf("pcflow release %s --note \"what you did\"", run)
	}
	lines := []string{fmt.Sprintf("waiting: %s (%s)", control.Describe(w), when)}
	if w.Element != "" {
		lines = append(lines, "target:  "+w.Element)
	}
	if w.Screenshot != "" && shot != nil {
		lines = append(lines, "screen:  "+shot(w.Screenshot))
	}
	lines = append(lines, "do:      "+do)
	for i, l := range lines {
		lines[i] = text.Printable(l) // the action, question, element: a model's words
	}
	return lines
}
