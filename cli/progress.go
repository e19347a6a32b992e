package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/text"
	"github.com/pcflow/pcflow/workflows"
)

func (s *session) announce(e *env, id string) {
	fmt.Fprintf(e.stdout, "run %s started\n", id)
	if s.eng.uiURL != "" {
		fmt.Fprintf(e.stdout, "Temporal UI: %s/namespaces/default/workflows/%s\n", s.eng.uiURL, id)
	}
	if s.viewURL != "" {
		fmt.Fprintf(e.stdout, "live view: %s\n", printableURL(e, s.viewURL, s.viewDevice))
	}
}

// follow shows live progress until the run ends, then the result.
// w, when set, reports queues no worker serves.
func (s *session) follow(ctx context.Context, e *env, id, runID string, quiet bool, w *workerWatch) int {
	c := s.eng.client
	done := make(chan error, 1)
	var res workflows.InstructionResult
	go func() { done <- c.GetWorkflow(ctx, id, runID).Get(ctx, &res) }()
	seen := map[string]string{}
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if !quiet {
				s.progress(ctx, e, id, seen)
			}
			if err != nil {
				if ctx.Err() != nil {
					return interrupted(e, id)
				}
				fmt.Fprintf(e.stderr, "run %s: %s\n", id, text.Printable(err.Error()))
				return 1
			}
			return printResult(e.stdout, id, &res, s.eng.uiURL)
		case <-ctx.Done():
			return interrupted(e, id)
		case <-tick.C:
			if !quiet {
				s.progress(ctx, e, id, seen)
			}
			w.check(ctx)
		}
	}
}

func interrupted(e *env, id string) int {
	fmt.Fprintf(e.stderr, "\ninterrupted: run %s is saved and continues with `pcflow resume %s`\n", id, id)
	return 130
}

// progress prints what changed since the last call.
func (s *session) progress(ctx context.Context, e *env, id string, seen map[string]string) {
	qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	v, err := s.eng.client.QueryWorkflow(qctx, id, "", workflows.ProgressQuery)
	if err != nil {
		return
	}
	var live workflows.Live
	if v.Get(&live) != nil {
		return
	}
	if live.Phase != seen["#phase"] {
		seen["#phase"] = live.Phase
		switch live.Phase {
		case "running":
			var ls []string
			for i, l := range live.Layers {
				ls = append(ls, fmt.Sprintf("%d: %s", i+1, strings.Join(l, ", ")))
			}
			fmt.Fprintf(e.stdout, "plan: %s\n", strings.Join(ls, " │ "))
		case "setup", "planning", "checking":
			fmt.Fprintf(e.stdout, "… %s\n", live.Phase)
		}
	}
	s.retries(qctx, e, id, "task", seen)
	names := make([]string, 0, len(live.Subtasks))
	for n := range live.Subtasks {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		st := live.Subtasks[n]
		// A running subtask's steps; a subtask that just ended, its last
		// steps once more (they may have ended since the last look).
		// (An ended subtask's workflow is no longer among the running
		// children, but it answers the query by its id.)
		ended := (st == workflows.StatusSucceeded || st == workflows.StatusFailed) && seen[n] != st
		// The subtask's status line: "started" before its steps (a
		// resumed run's first look finds some ended), the end after them.
		status := func() {
			if seen[n] != st {
				seen[n] = st
				if l := subtaskLine(n, st, live.Reasons[n]); l != "" {
					fmt.Fprintln(e.stdout, l)
				}
			}
		}
		running := st == workflows.StatusRunning
		if running {
			status()
		}
		child, ok := live.Children[n]
		if !ok && ended {
			child, ok = workflows.ChildID(id, n), true
		}
		if ok && (running || ended) {
			if !ended {
				s.retries(qctx, e, child, n, seen)
			}
			cctx, ccancel := qctx, context.CancelFunc(func() {})
			if ended {
				// A closed workflow answers by replaying its history on a
				// worker: slower than a running one's cached state, and
				// asked once.
				cctx, ccancel = context.WithTimeout(ctx, 15*time.Second)
			}
			cv, err := s.eng.client.QueryWorkflow(cctx, child, "", workflows.ProgressQuery)
			ccancel()
			if err == nil {
				var sl workflows.SubtaskLive
				if cv.Get(&sl) == nil {
					// The steps that ended first: a wait comes after them.
					last, _ := strconv.Atoi(seen[n+"#step"])
					lines, upTo := stepLines(n, sl, last, ended)
					for _, l := range lines {
						fmt.Fprintln(e.stdout, l)
					}
					seen[n+"#step"] = strconv.Itoa(upTo)
					wkey := ""
					if sl.Waiting != nil {
						wkey = sl.Waiting.Kind + "/" + sl.Waiting.ID
					}
					if seen[n+"#waiting"] != wkey {
						seen[n+"#waiting"] = wkey
						for i, l := range waitingLines(id, sl.Waiting, nil) {
							if i == 0 {
								fmt.Fprintf(e.stdout, "⏸ %s %s\n", n, l)
							} else {
								fmt.Fprintf(e.stdout, "    %s\n", l)
							}
						}
					}
				}
			}
		}
		if !running {
			status()
		}
	}
}

// stepLines are the progress lines of subtask n's steps that ended after
// step last, and the last step they show. The last step, while its
// verdict is still to come (the pipelined loop's, a replayed step's),
// waits for it, unless the subtask has ended. The action and verdict, a
// model's words, are shown through text.Printable.
func stepLines(n string, sl workflows.SubtaskLive, last int, ended bool) ([]string, int) {
	recent := sl.Recent
	// A subtask resumed after a crash starts its live state from the
	// stored one, with only its last step (as does a worker from before
	// Recent).
	if len(recent) == 0 && sl.Done > 0 {
		recent = []workflows.StepSeen{{Step: sl.Done, Action: sl.LastAction, Verdict: sl.Verdict}}
	}
	var lines []string
	for i, r := range recent {
		if r.Step <= last {
			continue
		}
		if !ended && i == len(recent)-1 && (r.Verdict == "" || r.Verdict == screen.VerdictPending) {
			break // (a later step's start says no verdict is coming: a replay handed over)
		}
		lines = append(lines, fmt.Sprintf("  %-14s step %d/%d  %-28s → %s", n, r.Step, sl.MaxSteps, text.Printable(r.Action), text.Printable(r.Verdict)))
		last = r.Step
	}
	return lines, last
}

// subtaskLine is the progress line of subtask n entering status st (""
// for a status with no line); a failure's reason is shown printable.
func subtaskLine(n, st, reason string) string {
	switch st {
	case workflows.StatusRunning:
		return fmt.Sprintf("▶ %s started", n)
	case workflows.StatusSucceeded:
		return fmt.Sprintf("✓ %s succeeded", n)
	case workflows.StatusFailed:
		return fmt.Sprintf("✗ %s failed: %s", n, text.Printable(reason))
	case workflows.StatusSkipped:
		return fmt.Sprintf("- %s skipped", n)
	}
	return ""
}

// printResult prints a run's result; reasons, errors and check details
// are shown through text.Printable.
func printResult(w io.Writer, id string, r *workflows.InstructionResult, ui string) int {
	p := text.Printable
	fmt.Fprintf(w, "\nrun %s: %s (%s)\n", id, strings.ToUpper(p(r.Status)), p(r.Reason))
	if r.Error != "" {
		fmt.Fprintf(w, "  %s\n", p(r.Error))
	}
	fmt.Fprintf(w, "%-16s %-10s %-10s %-16s %5s %7s  %s\n", "SUBTASK", "DEVICE", "STATUS", "REASON", "STEPS", "TOKENS", "OUTPUTS")
	for _, s := range r.Subtasks {
		fmt.Fprintf(w, "%-16s %-10s %-10s %-16s %5d %7d  %s\n", p(s.Name), p(s.Device), p(s.Status), p(s.Reason), s.Steps, s.Usage.Total(), formatOutputs(s.Outputs))
		for _, c := range s.Checks {
			fmt.Fprintf(w, "    check %-12s %s  %s\n", p(c.Name), passMark(c.Passed, c.Skipped), p(c.Detail))
		}
	}
	for _, c := range r.Checks {
		fmt.Fprintf(w, "task check %-12s %s  %s\n", p(c.Name), passMark(c.Passed, c.Skipped), p(c.Detail))
	}
	m := r.Metrics
	fmt.Fprintf(w, "metrics: SR=%.0f SSR=%.2f CR=%.2f EE=%.3f CE=%.3f PC=%.2f  steps=%d tokens=%d model calls=%d\n",
		m.SR, m.SSR, m.CR, m.EE, m.CE, m.PC, r.Steps, r.Usage.Total(), r.Usage.Calls)
	for _, v := range r.Videos {
		for _, sg := range v.Segments {
			fmt.Fprintf(w, "video of %s: %s (%d KiB; play it on the page of: pcflow report %s)\n", p(v.Device), sg.Ref, sg.Bytes>>10, id)
		}
		if v.Note != "" {
			fmt.Fprintf(w, "video of %s: %s\n", p(v.Device), p(v.Note))
		}
	}
	if r.Replayed > 0 || len(r.HandedOver) > 0 {
		fmt.Fprintf(w, "replay: %d steps replayed without the model\n", r.Replayed)
		for _, h := range r.HandedOver {
			fmt.Fprintf(w, "replay: handed over to the agent at %s\n", p(h))
		}
	}
	fmt.Fprintf(w, "every step: pcflow history %s\n", id)
	if ui != "" {
		fmt.Fprintf(w, "in the UI:  %s/namespaces/default/workflows/%s\n", ui, id)
	}
	if r.Status == workflows.StatusSucceeded {
		return 0
	}
	return 1
}

func passMark(ok, skipped bool) string {
	switch {
	case skipped:
		return "skipped"
	case ok:
		return "pass"
	}
	return "FAIL"
}

func formatOutputs(o map[string]string) string {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%q", k, o[k]))
	}
	return strings.Join(parts, " ")
}
