package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
)

// The MCP server's workflows (pcflow mcp, internal/mcpserver): an MCP
// client's act is a workflow of its own whose id is the device and the
// client's request id (MCPActWorkflowID), so the action runs once however
// often the client asks; its Act activity runs on the device's queue, as
// a run's do, journaled in the device's action log with secrets redacted.
// An observation is a workflow too (an activity runs only inside one).
const (
	// MCPActWorkflowName is the act workflow's registered name.
	MCPActWorkflowName = "pcflow.MCPAct"
	// MCPObserveWorkflowName is the observe workflow's registered name.
	MCPObserveWorkflowName = "pcflow.MCPObserve"
	// MCPQueue is the task queue of both; the pcflow mcp process polls it.
	MCPQueue = "pcflow.mcp"
)

// MCPActWorkflowID is the id of the act workflow of request on device:
// the same request id names the same action, run once.
func MCPActWorkflowID(device, request string) string {
	return "pcflow.mcp.act." + device + "." + request
}

// MCPLeaseDevice is the name under which an MCP session leases device
// (worker.HoldDevice): apart from the device worker's own lease, and
// never a device's name (a device name holds no dot).
func MCPLeaseDevice(device string) string { return "mcp." + device }

// MCPActInput is one action an MCP client asks for.
type MCPActInput struct {
	Device    string        `json:"device"`
	RequestID string        `json:"request_id"`
	Action    screen.Action `json:"action"`
	// Policy is the operator's policy (pcflow mcp --policy, $PCFLOW_POLICY);
	// nil allows every action.
	Policy *plan.Policy `json:"policy,omitempty"`
	// Facts are what the policy sees of the action on the session's last
	// observation (activities.ActionFacts: the window and application in
	// front, the element); nil: the action's own facts only.
	Facts *plan.ActionFacts `json:"facts,omitempty"`
	// Session names the MCP session that asked (for history and the
	// action's summary).
	Session string `json:"session,omitempty"`
	// Approvers are who may approve an act a confirm rule holds
	// (Options.Approvers; empty: anyone who reaches the server, with a
	// signature of the state folder's key).
	Approvers []string `json:"approvers,omitempty"`
	// Asked is the client's arguments as it gave them (without the
	// request id): a later call with the same request id and other
	// arguments is refused, not answered with this one's result.
	Asked string `json:"asked,omitempty"`
	// DeviceTimeout is how long the act waits for the device's worker
	// (0: a minute).
	DeviceTimeout time.Duration `json:"device_timeout,omitempty"`
}

// MCPActResult is what became of it: the device's outcome, or the
// policy's refusal (Outcome "denied", nothing run).
type MCPActResult struct {
	Outcome string `json:"outcome"`
	Note    string `json:"note,omitempty"`
	Error   string `json:"error,omitempty"`
	// ActionID is the action's id in the device's action log.
	ActionID string `json:"action_id"`
	Summary  string `json:"summary"`
	// Person says who approved or rejected it, when a confirm rule asked.
	Person string `json:"person,omitempty"`
}

// MCPOutcomeDenied is the outcome of an action the policy refused, or a
// person rejected (or nobody approved in time).
const MCPOutcomeDenied = "denied"

// MCPActionID is the action log's id of an MCP request.
func MCPActionID(request string) string { return "mcp." + request }

// MCPApprovalTimeout is how long an act a policy's confirm rule holds
// waits for a person when the rule gives no timeout.
const MCPApprovalTimeout = 10 * time.Minute

// MCPActSubtask is the name an act's approval is found under
// (pcflow approve WORKFLOW_ID): the act answers the progress query both as
// a run (its one subtask, itself) and as that subtask.
const MCPActSubtask = "act"

// MCPActLive is an act's answer to ProgressQuery: a Live whose one child is
// the act itself, and the SubtaskLive fields of that child, so that
// internal/control finds what the act waits for as a run's subtask's.
type MCPActLive struct {
	Live
	Subtask  string   `json:"subtask"`
	Device   string   `json:"device"`
	Step     int      `json:"step"`
	MaxSteps int      `json:"max_steps"`
	Waiting  *Waiting `json:"waiting,omitempty"`
}

// MCPActWorkflow runs one action of an MCP client: the operator's policy
// decides first — deny refuses it, confirm waits for a person's pcflow
// approve (or reject) of this workflow, at most the rule's timeout
// (MCPApprovalTimeout), as a run's subtask waits — then the Act activity
// runs it on the device's queue.
func MCPActWorkflow(ctx workflow.Context, in MCPActInput) (MCPActResult, error) {
	res := MCPActResult{ActionID: MCPActionID(in.RequestID), Summary: in.Action.Summary()}
	pol, err := in.Policy.Compile()
	if err != nil {
		return res, temporal.NewNonRetryableApplicationError("the policy: "+err.Error(), "PolicyInvalid", nil)
	}
	live := &SubtaskLive{Subtask: MCPActSubtask, Device: in.Device, Step: 1, MaxSteps: 1, Phase: "acting"}
	id := workflow.GetInfo(ctx).WorkflowExecution.ID
	p := &person{hold: &Hold{}, approvers: in.Approvers, where: func() string { return "the act " + res.Summary + " is " + live.Phase }}
	if _, err := p.register(ctx); err != nil {
		return res, err
	}
	err = workflow.SetQueryHandler(ctx, ProgressQuery, func() (MCPActLive, error) {
		return MCPActLive{Live: Live{Task: "mcp act", Phase: live.Phase, Subtasks: map[string]string{MCPActSubtask: StatusRunning},
			Children: map[string]string{MCPActSubtask: id}}, Subtask: live.Subtask, Device: live.Device, Step: live.Step,
			MaxSteps: live.MaxSteps, Waiting: live.Waiting}, nil
	})
	if err != nil {
		return res, err
	}
	facts := factsOf(in.Action, in.Device)
	if in.Facts != nil {
		facts = *in.Facts
		facts.Device = in.Device
	}
	now := workflow.Now(ctx)
	r, err := p.gate(ctx, live, pol, in.Action, facts, nil,
		approvalRequest{id: "approval-" + in.RequestID, action: res.Summary, step: 1}, now.Add(MCPApprovalTimeout))
	if err != nil {
		return res, err
	}
	res.Person = r.person
	if !r.run {
		res.Outcome, res.Error = MCPOutcomeDenied, r.reason
		return res, nil
	}
	live.Phase = "acting"
	ctx = workflow.WithActivityOptions(ctx, mcpDeviceOptions(in.Device, in.DeviceTimeout, "mcp "+in.Session+": "+in.Action.Summary()))
	var out activities.ActResult
	if err := workflow.ExecuteActivity(ctx, a.Act, activities.ActInput{ID: res.ActionID, Action: in.Action}).Get(ctx, &out); err != nil {
		return res, err
	}
	res.Outcome, res.Note, res.Error = out.Outcome, out.Note, out.Error
	return res, nil
}

// MCPObserveInput asks for an observation of device.
type MCPObserveInput struct {
	Device        string        `json:"device"`
	Session       string        `json:"session,omitempty"`
	DeviceTimeout time.Duration `json:"device_timeout,omitempty"`
}

// MCPObserveWorkflow observes device once, as a step's Observe does: the
// screenshot, its Set-of-Marks and the element list go to the artifact
// store, their references come back.
func MCPObserveWorkflow(ctx workflow.Context, in MCPObserveInput) (screen.Observation, error) {
	ctx = workflow.WithActivityOptions(ctx, mcpDeviceOptions(in.Device, in.DeviceTimeout, "mcp "+in.Session+": observe"))
	var out activities.ObserveResult
	if err := workflow.ExecuteActivity(ctx, a.Observe, activities.ObserveInput{}).Get(ctx, &out); err != nil {
		return screen.Observation{}, err
	}
	return out.After, nil
}

// mcpDeviceOptions are the activity options of an MCP workflow's device
// activity: an offline device fails after timeout (ScheduleToStart), a
// dead worker's attempt is retried (Act does not repeat what it began).
func mcpDeviceOptions(device string, timeout time.Duration, summary string) workflow.ActivityOptions {
	if timeout <= 0 {
		timeout = time.Minute
	}
	return workflow.ActivityOptions{
		TaskQueue:              plan.DeviceQueue(device),
		ScheduleToStartTimeout: timeout,
		StartToCloseTimeout:    2 * time.Minute,
		ScheduleToCloseTimeout: 10 * time.Minute,
		HeartbeatTimeout:       15 * time.Second,
		Summary:                summary,
		RetryPolicy:            &temporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 10 * time.Second},
	}
}
