// Package control is a person's side of the loop (issue 13), for every
// client that has one: the CLI (pcflow pause, resume, takeover, release,
// approve, reject, answer, status) and the live-view page. It finds a
// run's running subtasks through the run's progress query and sends them
// the control signal and the approve and answer updates of
// workflows/control.go, refusing with a message a person can act on when
// the run is unknown, finished, not served, or not waiting for what is
// sent.
package control

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"sort"
	"strconv"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/pcflow/pcflow/workflows"
)

// Subtask is one running subtask of a run.
type Subtask struct {
	Name     string                `json:"name"`
	Workflow string                `json:"workflow"` // its child workflow id
	Live     workflows.SubtaskLive `json:"live"`
}

// Where says where the subtask's loop is: `subtask S is at step N, deciding`.
func (s Subtask) Where() string {
	return fmt.Sprintf("subtask %s is at step %d, %s", s.Name, s.Live.Step, s.Live.Phase)
}

// QueryTimeout bounds each progress query; a run no worker serves does
// not answer.
const QueryTimeout = 5 * time.Second

// UpdateTimeout bounds an approve or answer update.
const UpdateTimeout = 30 * time.Second

// Person is the person at this terminal, as the operating system knows
// the process: its user (looked up from its uid, never from $USER, which
// anyone can set: `env USER=someone pcflow approve` is still its caller)
// and its machine.
type Person struct {
	Name string // user name; "uid N" when the uid has no name
	UID  string
	Host string
}

// Me is the person running this process.
func Me() Person { return personOf(os.Getuid()) }

func personOf(uid int) Person {
	p := Person{UID: strconv.Itoa(uid), Name: "uid " + strconv.Itoa(uid)}
	if u, err := user.LookupId(p.UID); err == nil && u.Username != "" {
		p.Name = u.Username
	}
	p.Host, _ = os.Hostname()
	return p
}

// By names the person for a run's history: USER@HOST.
func (p Person) By() string { return p.Name + "@" + p.Host }

// By names the person at this terminal: USER@HOST, the user of the
// process's uid.
func By() string { return Me().By() }

// Running returns the run's running subtasks with their live state, in
// name order. The run is a pcflow run id (a suite's task run id works too).
func Running(ctx context.Context, c client.Client, run string) ([]Subtask, error) {
	desc, err := c.DescribeWorkflowExecution(ctx, run, "")
	if err != nil {
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return nil, fmt.Errorf("no run %q on this server: list the runs with `pcflow status`", run)
		}
		return nil, fmt.Errorf("run %s: %w", run, err)
	}
	if st := desc.GetWorkflowExecutionInfo().GetStatus(); st != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return nil, fmt.Errorf("run %s has finished (%s): there is nothing to control; see `pcflow status %s`", run,
			strings.ToLower(strings.TrimPrefix(st.String(), "WORKFLOW_EXECUTION_STATUS_")), run)
	}
	qctx, cancel := context.WithTimeout(ctx, QueryTimeout)
	defer cancel()
	v, err := c.QueryWorkflow(qctx, run, "", workflows.ProgressQuery)
	if err != nil {
		return nil, notServed(qctx, run, err)
	}
	var live workflows.Live
	if err := v.Get(&live); err != nil {
		return nil, fmt.Errorf("run %s: progress: %w", run, err)
	}
	names := make([]string, 0, len(live.Children))
	for n := range live.Children {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Subtask
	for _, n := range names {
		id := live.Children[n]
		cv, err := c.QueryWorkflow(qctx, id, "", workflows.ProgressQuery)
		if err != nil {
			return nil, notServed(qctx, run, err)
		}
		s := Subtask{Name: n, Workflow: id}
		if err := cv.Get(&s.Live); err != nil {
			return nil, fmt.Errorf("subtask %s: progress: %w", n, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// notServed says a query that got no answer means no worker serves the
// run: it timed out, or it was cancelled by something other than the
// caller (a worker stopping while the query was in its hands answers
// "context canceled").
func notServed(qctx context.Context, run string, err error) error {
	var de *serviceerror.DeadlineExceeded
	var ce *serviceerror.Canceled
	canceled := errors.Is(err, context.Canceled) || errors.As(err, &ce) || strings.HasSuffix(err.Error(), context.Canceled.Error())
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &de) || canceled || qctx.Err() != nil {
		return fmt.Errorf("no worker is serving run %s right now: bring it back with `pcflow resume %s`, then try again", run, run)
	}
	return fmt.Errorf("run %s: %w", run, err)
}

// Send sends a control operation (pause, resume, takeover, release) to the
// run's subtask named subtask, or, when subtask is empty, to every running
// subtask it applies to (pause, resume) or the only one (takeover,
// release). It returns the subtasks it was sent to. Each takes effect at
// its next step boundary.
func Send(ctx context.Context, c client.Client, run, subtask string, ctl workflows.Control) ([]Subtask, error) {
	subs, err := Running(ctx, c, run)
	if err != nil {
		return nil, err
	}
	if len(subs) == 0 {
		return nil, fmt.Errorf("run %s has no running subtask right now (it is setting up, planning or checking): try again in a moment", run)
	}
	if subtask != "" {
		s, err := named(run, subs, subtask)
		if err != nil {
			return nil, err
		}
		subs = []Subtask{s}
	}
	kind := func(s Subtask) string {
		if s.Live.Waiting == nil {
			return ""
		}
		return s.Live.Waiting.Kind
	}
	var targets []Subtask
	switch ctl.Op {
	case workflows.ControlPause:
		for _, s := range subs {
			if k := kind(s); k != workflows.WaitPaused && k != workflows.WaitTakeover {
				targets = append(targets, s)
			}
		}
		if len(targets) == 0 {
			return nil, fmt.Errorf("run %s is already paused (%s): continue it with `pcflow resume %s`", run, wheres(subs), run)
		}
	case workflows.ControlTakeover:
		if len(subs) > 1 {
			return nil, fmt.Errorf("run %s has %d running subtasks (%s): name the one whose device you take with --subtask", run, len(subs), names(subs))
		}
		if kind(subs[0]) == workflows.WaitTakeover {
			return nil, fmt.Errorf("subtask %s of run %s is already taken over (by %s): hand it back with `pcflow release %s`", subs[0].Name, run, subs[0].Live.Waiting.By, run)
		}
		targets = subs
	case workflows.ControlResume:
		for _, s := range subs {
			if k := kind(s); k == workflows.WaitPaused || k == workflows.WaitTakeover {
				targets = append(targets, s)
			}
		}
		if len(targets) == 0 {
			return nil, fmt.Errorf("run %s is not paused: %s", run, wheres(subs))
		}
	case workflows.ControlRelease:
		for _, s := range subs {
			if kind(s) == workflows.WaitTakeover {
				targets = append(targets, s)
			}
		}
		if len(targets) == 0 {
			for _, s := range subs {
				if kind(s) == workflows.WaitPaused {
					return nil, fmt.Errorf("subtask %s of run %s is paused, not taken over: continue it with `pcflow resume %s`", s.Name, run, run)
				}
			}
			return nil, fmt.Errorf("run %s is not taken over: %s", run, wheres(subs))
		}
		if len(targets) > 1 {
			return nil, fmt.Errorf("run %s has %d subtasks taken over (%s): name the one you hand back with --subtask", run, len(targets), names(targets))
		}
	default:
		return nil, fmt.Errorf("unknown control operation %q: use pause, resume, takeover or release", ctl.Op)
	}
	for _, s := range targets {
		if err := c.SignalWorkflow(ctx, s.Workflow, "", workflows.ControlSignal, ctl); err != nil {
			return nil, fmt.Errorf("subtask %s: %w", s.Name, err)
		}
	}
	return targets, nil
}

// Signer proves who makes a decision: it sets the claim's sender (By,
// UID) and time as it knows them and returns the claim's signature, which
// the run's worker checks (internal/signing).
type Signer interface {
	Sign(c *workflows.Claim) (string, error)
}

// Approve decides the run's pending approval (ap.Approve: run the action,
// else reject it with ap.Reason). With subtask empty, the one subtask that
// waits for an approval is decided, signed by sign as the person sign
// knows (whatever ap names). It returns the subtask and what the
// workflow answered ("approved click #5 \"Delete\" (step-3)").
func Approve(ctx context.Context, c client.Client, sign Signer, run, subtask string, ap workflows.Approval) (Subtask, string, error) {
	s, err := waiting(ctx, c, run, subtask, workflows.WaitApproval, "pending approval")
	if err != nil {
		return s, "", err
	}
	if ap.Request == "" {
		ap.Request = s.Live.Waiting.ID // decide what the person saw, nothing newer
	}
	cl := ap.Claim(s.Workflow)
	if ap.Sig, err = sign.Sign(&cl); err != nil {
		return s, "", err
	}
	ap.By, ap.UID, ap.At = cl.By, cl.UID, cl.At
	out, err := update(ctx, c, run, s, workflows.ApproveUpdate, ap)
	return s, out, err
}

// Answer answers the question the agent of the run's subtask asked,
// signed by sign as Approve's decision is.
func Answer(ctx context.Context, c client.Client, sign Signer, run, subtask string, an workflows.Answer) (Subtask, string, error) {
	if strings.TrimSpace(an.Text) == "" {
		return Subtask{}, "", fmt.Errorf("the answer is empty: give the text the agent asked for")
	}
	s, err := waiting(ctx, c, run, subtask, workflows.WaitAnswer, "pending question")
	if err != nil {
		return s, "", err
	}
	if an.Request == "" {
		an.Request = s.Live.Waiting.ID
	}
	cl := an.Claim(s.Workflow)
	if an.Sig, err = sign.Sign(&cl); err != nil {
		return s, "", err
	}
	an.By, an.UID, an.At = cl.By, cl.UID, cl.At
	out, err := update(ctx, c, run, s, workflows.AnswerUpdate, an)
	return s, out, err
}

// Pending returns the run's subtasks that wait for a person (paused, taken
// over, an approval, an answer).
func Pending(ctx context.Context, c client.Client, run string) ([]Subtask, error) {
	subs, err := Running(ctx, c, run)
	if err != nil {
		return nil, err
	}
	var out []Subtask
	for _, s := range subs {
		if s.Live.Waiting != nil {
			out = append(out, s)
		}
	}
	return out, nil
}

// waiting finds the subtask that waits for kind.
func waiting(ctx context.Context, c client.Client, run, subtask, kind, what string) (Subtask, error) {
	subs, err := Running(ctx, c, run)
	if err != nil {
		return Subtask{}, err
	}
	if subtask != "" {
		s, err := named(run, subs, subtask)
		if err != nil {
			return Subtask{}, err
		}
		if s.Live.Waiting == nil || s.Live.Waiting.Kind != kind {
			return Subtask{}, fmt.Errorf("run %s has no %s in subtask %s; %s", run, what, s.Name, s.Where())
		}
		return s, nil
	}
	var ws []Subtask
	for _, s := range subs {
		if s.Live.Waiting != nil && s.Live.Waiting.Kind == kind {
			ws = append(ws, s)
		}
	}
	switch len(ws) {
	case 0:
		if len(subs) == 0 {
			return Subtask{}, fmt.Errorf("run %s has no %s; no subtask is running right now", run, what)
		}
		return Subtask{}, fmt.Errorf("run %s has no %s; %s", run, what, wheres(subs))
	case 1:
		return ws[0], nil
	}
	var list []string
	for _, s := range ws {
		list = append(list, fmt.Sprintf("%s: %s", s.Name, describe(s.Live.Waiting)))
	}
	return Subtask{}, fmt.Errorf("run %s has %d subtasks with a %s (%s): name one with --subtask", run, len(ws), what, strings.Join(list, "; "))
}

func update(ctx context.Context, c client.Client, run string, s Subtask, name string, arg any) (string, error) {
	uctx, cancel := context.WithTimeout(ctx, UpdateTimeout)
	defer cancel()
	h, err := c.UpdateWorkflow(uctx, client.UpdateWorkflowOptions{WorkflowID: s.Workflow, UpdateName: name,
		Args: []any{arg}, WaitForStage: client.WorkflowUpdateStageCompleted})
	if err == nil {
		var out string
		if err = h.Get(uctx, &out); err == nil {
			return out, nil
		}
	}
	var de *serviceerror.DeadlineExceeded
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &de) || uctx.Err() != nil {
		return "", fmt.Errorf("subtask %s of run %s did not answer within %s: is a worker serving it? bring it back with `pcflow resume %s`, then try again", s.Name, run, UpdateTimeout, run)
	}
	return "", fmt.Errorf("subtask %s of run %s refused: %w", s.Name, run, err)
}

// Describe is a waiting state in one line: `approval of click #5 "Delete"
// (rule confirm_delete)`, `question "Which file?"`, `taken over by …`.
func Describe(w *workflows.Waiting) string { return describe(w) }

func describe(w *workflows.Waiting) string {
	if w == nil {
		return "running"
	}
	switch w.Kind {
	case workflows.WaitApproval:
		s := "approval of " + w.Action
		if w.Rule != "" {
			s += " (rule " + w.Rule + ")"
		}
		return s
	case workflows.WaitAnswer:
		return fmt.Sprintf("an answer to %q", w.Question)
	case workflows.WaitTakeover:
		return "taken over by " + orSomeone(w.By)
	case workflows.WaitPaused:
		return "paused by " + orSomeone(w.By)
	}
	return w.Kind
}

func orSomeone(by string) string {
	if by == "" {
		return "someone"
	}
	return by
}

func named(run string, subs []Subtask, name string) (Subtask, error) {
	for _, s := range subs {
		if s.Name == name {
			return s, nil
		}
	}
	if len(subs) == 0 {
		return Subtask{}, fmt.Errorf("subtask %s of run %s is not running: no subtask is running right now", name, run)
	}
	return Subtask{}, fmt.Errorf("subtask %s of run %s is not running; running: %s", name, run, names(subs))
}

func names(subs []Subtask) string {
	var n []string
	for _, s := range subs {
		n = append(n, s.Name)
	}
	return strings.Join(n, ", ")
}

func wheres(subs []Subtask) string {
	var w []string
	for _, s := range subs {
		x := s.Where()
		if s.Live.Waiting != nil {
			x += " (" + describe(s.Live.Waiting) + ")"
		}
		w = append(w, x)
	}
	return strings.Join(w, "; ")
}
