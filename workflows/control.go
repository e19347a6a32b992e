package workflows

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// A person in the loop (issue 13): the names and shapes through which the
// CLI, the live-view page and the subtask workflow talk. A subtask's agent
// loop reads them at step boundaries; everything it waits for is waited for
// durably inside the workflow.
const (
	// ControlSignal carries a Control to a running subtask workflow.
	ControlSignal = "pcflow.control"
	// ApproveUpdate decides a pending approval (a policy `confirm` rule or
	// a provider's safety check); its argument is an Approval.
	ApproveUpdate = "pcflow.approve"
	// AnswerUpdate answers the agent's ask_human question; its argument is
	// an Answer.
	AnswerUpdate = "pcflow.answer"
)

// Control operations.
const (
	ControlPause    = "pause"    // stop at the next step boundary
	ControlResume   = "resume"   // continue after pause
	ControlTakeover = "takeover" // pause and give the person the device
	ControlRelease  = "release"  // hand the device back to the agent
)

// Control is a ControlSignal's payload.
type Control struct {
	Op   string `json:"op"`
	By   string `json:"by,omitempty"`   // who: user@host, or "view page"
	Note string `json:"note,omitempty"` // release: what the person did
}

// Approval is an ApproveUpdate's argument.
type Approval struct {
	// Request is the id of the pending request being decided (Waiting.ID);
	// empty decides whatever is pending.
	Request string `json:"request,omitempty"`
	Approve bool   `json:"approve"`
	Reason  string `json:"reason,omitempty"`
	By      string `json:"by,omitempty"`
	// UID is the user id of the process that sent it (By names its user).
	UID string `json:"uid,omitempty"`
	// At and Sig prove By and UID: a signature, by a key only the
	// operator's pcflow processes read, over the decision's Claim (see
	// internal/signing). A worker refuses the update without them.
	At  int64  `json:"at,omitempty"`
	Sig string `json:"sig,omitempty"`
}

// Claim is what ap's signature covers, sent to the workflow workflowID.
func (ap Approval) Claim(workflowID string) Claim {
	verdict := "reject"
	if ap.Approve {
		verdict = "approve"
	}
	return Claim{Update: ApproveUpdate, Workflow: workflowID, Request: ap.Request, Verdict: verdict, Text: ap.Reason, By: ap.By, UID: ap.UID, At: ap.At}
}

// Answer is an AnswerUpdate's argument.
type Answer struct {
	Request string `json:"request,omitempty"`
	Text    string `json:"text"`
	By      string `json:"by,omitempty"`
	UID     string `json:"uid,omitempty"`
	At      int64  `json:"at,omitempty"`  // as Approval.At
	Sig     string `json:"sig,omitempty"` // as Approval.Sig
}

// Claim is what an's signature covers, sent to the workflow workflowID.
func (an Answer) Claim(workflowID string) Claim {
	return Claim{Update: AnswerUpdate, Workflow: workflowID, Request: an.Request, Verdict: "answer", Text: an.Text, By: an.By, UID: an.UID, At: an.At}
}

// Claim is a person's decision as it is signed: which update, to which
// subtask workflow, deciding which request how, with what text (a
// rejection's reason, an answer), by whom (USER@HOST and uid, as the
// signer knows the sender) and when (Unix seconds).
type Claim struct {
	Update   string `json:"update"`
	Workflow string `json:"workflow"`
	Request  string `json:"request"`
	Verdict  string `json:"verdict"`
	Text     string `json:"text"`
	By       string `json:"by"`
	UID      string `json:"uid"`
	At       int64  `json:"at"`
}

// Bytes is the claim's canonical form, the bytes a signature covers.
func (c Claim) Bytes() []byte {
	b, _ := json.Marshal(c) // a struct of strings and a number: never fails
	return append([]byte("pcflow decision v1\n"), b...)
}

// CheckApprover refuses the person by (USER@HOST) with uid unless the run's
// approvers list them (by name, or by name and uid); with no approvers,
// anyone may decide.
func CheckApprover(approvers []string, by, uid string) error {
	if len(approvers) == 0 {
		return nil
	}
	name := by
	if i := strings.LastIndex(by, "@"); i >= 0 {
		name = by[:i]
	}
	for _, a := range approvers {
		n, u, withUID := strings.Cut(a, "=")
		if n == name && (!withUID || u == uid) {
			return nil
		}
	}
	who := by
	if who == "" {
		who = "an unnamed person"
	}
	if uid != "" {
		who += " (uid " + uid + ")"
	}
	return fmt.Errorf("%s is not an approver of this run: its operator lets only %s approve, reject and answer (--approvers, $PCFLOW_APPROVERS or the state folder's approvers file when it started)",
		who, strings.Join(approvers, ", "))
}

// Waiting kinds: why a subtask's loop is not running.
const (
	WaitPaused   = "paused"
	WaitTakeover = "taken_over"
	WaitApproval = "approval"
	WaitAnswer   = "answer"
)

// Waiting is what a subtask waits for, in its progress query answer
// (SubtaskLive.Waiting) and in pcflow status.
type Waiting struct {
	ID    string    `json:"id"`
	Kind  string    `json:"kind"`
	Since time.Time `json:"since"`
	// Approval: the pending action, the rule that asked for confirmation
	// (or the provider's safety check), the element it targets and the
	// annotated screenshot (artifact ref) the agent decided on.
	Action     string `json:"action,omitempty"`
	Rule       string `json:"rule,omitempty"`
	Element    string `json:"element,omitempty"`
	Screenshot string `json:"screenshot,omitempty"`
	// Answer: the agent's question.
	Question string `json:"question,omitempty"`
	// Deadline: when an unanswered approval is rejected (zero: never).
	Deadline time.Time `json:"deadline,omitzero"`
	By       string    `json:"by,omitempty"`
}
