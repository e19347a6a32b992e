package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agents"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/workflows"
)

// addTools adds the session's tools to srv.
func (ss *session) addTools(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{Name: "devices", Title: "List devices",
		Description: "The devices the Temporal server knows (each device worker holds a lease on its device): whether a worker serves it now, who, and which MCP session has leased it.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, ss.devices)
	mcp.AddTool(srv, &mcp.Tool{Name: "observe", Title: "Observe a device",
		Description: "The device's screen as pcflow's Decision agent sees it: the screenshot with numbered Set-of-Marks (an image) and the element list, '[ID] role \"name\" at (x,y wxh)'. Act on an element by its ID. Leases the device to this session.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, ss.observe)
	mcp.AddTool(srv, &mcp.Tool{Name: "act", Title: "Act on a device",
		Description: "Run one action on the device, durably and exactly once per request_id: a retry with the same request_id returns the recorded result instead of acting again. The action is pcflow's closed set (kind), on an element id of this session's last observe of the device or on a point in screen pixels. The operator's policy may deny it. Leases the device to this session.",
		InputSchema: actSchema()}, ss.act)
}

// DevicesArgs are the devices tool's arguments (none).
type DevicesArgs struct{}

// Device is one device the Temporal server knows.
type Device struct {
	Name string `json:"name" jsonschema:"the device's name, as task files and the other tools call it"`
	// Online says a worker polls the device's queue now.
	Online bool `json:"online" jsonschema:"a worker serves the device now"`
	// Worker is who holds the device worker's lease.
	Worker string `json:"worker,omitempty" jsonschema:"the process that serves the device"`
	// Platform is the device's platform, as its worker says.
	Platform string `json:"platform,omitempty" jsonschema:"the device's platform (linux, windows, macos), as its worker says"`
	// LeasedBy is the MCP session that holds the device, if any.
	LeasedBy string `json:"leased_by,omitempty" jsonschema:"the MCP session that has leased the device, if any"`
	// Yours says this session holds it.
	Yours bool `json:"yours,omitempty" jsonschema:"this session has leased the device"`
}

// DevicesResult lists the devices, by name.
type DevicesResult struct {
	Devices []Device `json:"devices"`
}

// leasePrefix is the lease workflows' id before the device name
// (workflows.LeaseWorkflowID).
var leasePrefix = workflows.LeaseWorkflowID("")

func (ss *session) devices(ctx context.Context, req *mcp.CallToolRequest, _ DevicesArgs) (*mcp.CallToolResult, DevicesResult, error) {
	c := ss.s.o.Client
	resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{PageSize: 1000,
		Query: fmt.Sprintf("WorkflowType = '%s' AND ExecutionStatus = 'Running'", workflows.LeaseWorkflowName)})
	if err != nil {
		return nil, DevicesResult{}, fmt.Errorf("list the devices' leases: %w", err)
	}
	byName := map[string]*Device{}
	get := func(name string) *Device {
		if d, ok := byName[name]; ok {
			return d
		}
		d := &Device{Name: name}
		byName[name] = d
		return d
	}
	for _, ex := range resp.Executions {
		name, ok := strings.CutPrefix(ex.GetExecution().GetWorkflowId(), leasePrefix)
		if !ok {
			continue
		}
		// A holder polls its lease's queue while it holds it: a lease
		// nobody polls is free (and a query to it would wait in vain).
		var l workflows.Lease
		if polled(ctx, c, workflows.LeaseQueue(name), enumspb.TASK_QUEUE_TYPE_WORKFLOW) {
			l = currentLease(ctx, c, name)
		}
		if dev, ok := strings.CutPrefix(name, workflows.MCPLeaseDevice("")); ok {
			d := get(dev)
			if l.Token != "" && time.Now().Before(l.Expires) {
				d.LeasedBy = l.Who
			}
			continue
		}
		d := get(name)
		if l.Token != "" && time.Now().Before(l.Expires) {
			d.Worker, d.Platform = l.Who, l.Platform
		}
		d.Online = polled(ctx, c, plan.DeviceQueue(name), enumspb.TASK_QUEUE_TYPE_ACTIVITY)
	}
	ss.mu.Lock()
	for name := range ss.leases {
		get(name).Yours = true
	}
	ss.mu.Unlock()
	out := DevicesResult{Devices: []Device{}}
	for _, d := range byName {
		out.Devices = append(out.Devices, *d)
	}
	sort.Slice(out.Devices, func(i, j int) bool { return out.Devices[i].Name < out.Devices[j].Name })
	return nil, out, nil
}

// currentLease is a lease as its workflow answers (zero when it does not
// answer soon: its holder's process is gone).
func currentLease(ctx context.Context, c client.Client, name string) workflows.Lease {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	var l workflows.Lease
	if v, err := c.QueryWorkflow(ctx, workflows.LeaseWorkflowID(name), "", workflows.LeaseQuery); err == nil {
		_ = v.Get(&l)
	}
	return l
}

// pollerFresh is how recently a worker must have polled to count as live.
const pollerFresh = 70 * time.Second

// polled says whether a live worker polls queue's tasks of kind.
func polled(ctx context.Context, c client.Client, queue string, kind enumspb.TaskQueueType) bool {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	d, err := c.DescribeTaskQueue(ctx, queue, kind)
	if err != nil {
		return false
	}
	for _, p := range d.GetPollers() {
		if time.Since(p.GetLastAccessTime().AsTime()) < pollerFresh {
			return true
		}
	}
	return false
}

// ObserveArgs are the observe tool's arguments.
type ObserveArgs struct {
	Device string `json:"device" jsonschema:"the device's name (see the devices tool)"`
}

// Element is one numbered element of an observation.
type Element struct {
	ID    int    `json:"id"`
	Role  string `json:"role"`
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
	X     int    `json:"x"`
	Y     int    `json:"y"`
	W     int    `json:"w"`
	H     int    `json:"h"`
}

// ObserveResult is the screen, as the Decision agent sees it.
type ObserveResult struct {
	Device       string    `json:"device"`
	Width        int       `json:"width"`
	Height       int       `json:"height"`
	ActiveWindow string    `json:"active_window,omitempty"`
	Windows      []string  `json:"windows,omitempty"`
	Elements     []Element `json:"elements"`
}

// observation is what the session keeps of a device's last observation.
type observation struct {
	// screen is the observation without its pixels, for the policy's
	// facts.
	screen   *screen.Screen
	elements []screen.Element
	w, h     int
}

func (ss *session) observe(ctx context.Context, req *mcp.CallToolRequest, in ObserveArgs) (*mcp.CallToolResult, ObserveResult, error) {
	out := ObserveResult{Device: in.Device, Elements: []Element{}}
	if err := ss.lease(ctx, req, in.Device); err != nil {
		return nil, out, err
	}
	id := make([]byte, 6)
	_, _ = rand.Read(id)
	run, err := ss.s.o.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: "pcflow.mcp.observe." + in.Device + "." + hex.EncodeToString(id), TaskQueue: workflows.MCPQueue,
		StaticSummary: "MCP session " + ss.id + ": observe " + in.Device,
	}, workflows.MCPObserveWorkflowName, workflows.MCPObserveInput{Device: in.Device, Session: ss.id, DeviceTimeout: ss.s.o.DeviceTimeout})
	if err != nil {
		return nil, out, fmt.Errorf("observe %s: %w", in.Device, err)
	}
	var obs screen.Observation
	if err := run.Get(ctx, &obs); err != nil {
		return nil, out, fmt.Errorf("observe %s: %w", in.Device, deviceErr(err, in.Device))
	}
	scr, err := activities.LoadScreen(ss.s.o.Artifacts, obs)
	if err != nil {
		return nil, out, fmt.Errorf("observe %s: its element list: %w (pcflow mcp reads observations from the state folder the device's worker writes: give it the same --state, on the same machine)", in.Device, err)
	}
	ref := obs.Annotated
	if ref == "" {
		ref = obs.Screenshot
	}
	var img []byte
	if ref != "" {
		if img, err = ss.s.o.Artifacts.Get(ref); err != nil {
			return nil, out, fmt.Errorf("observe %s: its screenshot: %w (pcflow mcp reads observations from the state folder the device's worker writes: give it the same --state, on the same machine)", in.Device, err)
		}
	}
	ss.mu.Lock()
	els := scr.Elements
	ss.seen[in.Device] = observation{screen: scr, elements: els, w: obs.Width, h: obs.Height}
	ss.mu.Unlock()
	out.Width, out.Height, out.ActiveWindow, out.Windows = obs.Width, obs.Height, obs.ActiveWindow, obs.Windows
	var list strings.Builder
	fmt.Fprintf(&list, "Device: %s\nActive window: %s\nWindows: %s\nScreen: %dx%d\nElements:", in.Device, obs.ActiveWindow, strings.Join(obs.Windows, " | "), obs.Width, obs.Height)
	for _, e := range els {
		out.Elements = append(out.Elements, Element{ID: e.ID, Role: e.Role, Name: e.Name, Value: e.Value, X: e.Box.X, Y: e.Box.Y, W: e.Box.W, H: e.Box.H})
		list.WriteString("\n" + e.Label())
	}
	if len(els) == 0 {
		list.WriteString("\n(none found)")
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: list.String()}}}
	if img != nil {
		res.Content = append(res.Content, &mcp.ImageContent{Data: img, MIMEType: "image/png"})
	}
	return res, out, nil
}

// ActArgs are the act tool's arguments: pcflow's action fields, in
// screen pixels.
type ActArgs struct {
	Device    string `json:"device" jsonschema:"the device's name"`
	RequestID string `json:"request_id" jsonschema:"an id unique to this action (a UUID; letters, digits, . _ : -, at most 100): the same request_id returns the recorded result and never acts twice"`
	Kind      string `json:"kind" jsonschema:"the action"`
	// Where: an element of the last observation, or a point.
	Element   *int     `json:"element,omitempty" jsonschema:"an element id of this session's last observe of the device (its centre is the point)"`
	X         *int     `json:"x,omitempty" jsonschema:"a point's x in screen pixels (with y), instead of element"`
	Y         *int     `json:"y,omitempty" jsonschema:"a point's y in screen pixels"`
	X2        *int     `json:"x2,omitempty" jsonschema:"drag: the end's x"`
	Y2        *int     `json:"y2,omitempty" jsonschema:"drag: the end's y"`
	Text      *string  `json:"text,omitempty" jsonschema:"type: the text to type"`
	Enter     bool     `json:"enter,omitempty" jsonschema:"type: press Enter after the text"`
	Keys      []string `json:"keys,omitempty" jsonschema:"hotkey: the keys pressed together, e.g. [\"ctrl\", \"s\"]; clicks and scrolls: modifiers held"`
	Direction string   `json:"direction,omitempty" jsonschema:"scroll: up, down, left or right"`
	Amount    int      `json:"amount,omitempty" jsonschema:"scroll: how many notches (default 3)"`
	App       string   `json:"app,omitempty" jsonschema:"open_app: the application"`
	Title     string   `json:"title,omitempty" jsonschema:"switch_window: part of the window's title"`
	Seconds   float64  `json:"seconds,omitempty" jsonschema:"wait, hold_key: seconds"`
}

// ActResult is what became of the action.
type ActResult struct {
	// Outcome is done, error (the device refused), unknown (the worker
	// stopped while it ran: not repeated) or denied (the policy).
	Outcome string `json:"outcome" jsonschema:"done, error (the device refused it), unknown (its worker stopped while it ran; not repeated), denied (the operator's policy or a person; not run) or waiting_approval (a person must approve it first: call act again with the same request_id later)"`
	Note    string `json:"note,omitempty"`
	Error   string `json:"error,omitempty"`
	// Summary is the action in one line.
	Summary string `json:"summary"`
	// ActionID is the action's id in the device's action log.
	ActionID string `json:"action_id"`
	// Workflow is the act's workflow id.
	Workflow string `json:"workflow"`
	// Person says who approved or rejected it (a confirm rule asked).
	Person string `json:"person,omitempty"`
	// Recorded says an earlier call with this request_id ran it: this is
	// its result.
	Recorded bool `json:"recorded" jsonschema:"true: an earlier call with this request_id ran the action; this is its recorded result"`
}

// ActKinds are the action kinds act offers: those that reach a device,
// but select (it needs OCR's words, which an MCP client does not see).
func ActKinds() []string {
	var out []string
	for _, k := range screen.Table() {
		if k.Device && k.Kind != screen.ActSelect {
			out = append(out, k.Kind)
		}
	}
	return out
}

// actSchema is ActArgs's schema with kind's values listed.
func actSchema() *jsonschema.Schema {
	s, err := jsonschema.For[ActArgs](nil)
	if err != nil {
		panic(err)
	}
	var enum []any
	var docs []string
	for _, k := range ActKinds() {
		enum = append(enum, k)
		if info, _ := screen.Lookup(k); info.Doc != "" {
			docs = append(docs, k+": "+info.Doc)
		} else {
			docs = append(docs, k)
		}
	}
	s.Properties["kind"].Enum = enum
	s.Properties["kind"].Description = "the action: " + strings.Join(docs, " ")
	return s
}

// requestIDPattern is what a request id may be: part of a workflow id.
var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,100}$`)

func (ss *session) act(ctx context.Context, req *mcp.CallToolRequest, in ActArgs) (*mcp.CallToolResult, ActResult, error) {
	var out ActResult
	if !requestIDPattern.MatchString(in.RequestID) {
		return nil, out, fmt.Errorf("request_id %q: give 1 to 100 letters, digits, '.', '_', ':' or '-' (a UUID is best), new for each action", in.RequestID)
	}
	if err := ss.lease(ctx, req, in.Device); err != nil {
		return nil, out, err
	}
	asked := in
	asked.RequestID = ""
	b, _ := json.Marshal(asked)
	id := workflows.MCPActWorkflowID(in.Device, in.RequestID)
	out.Workflow, out.ActionID = id, workflows.MCPActionID(in.RequestID)
	c := ss.s.o.Client
	// A request already made is answered from its workflow, before the
	// action is read again: its element ids were those of an observation
	// this session may never have seen (pcflow mcp restarted since).
	if _, err := c.DescribeWorkflowExecution(ctx, id, ""); err == nil {
		return ss.recorded(ctx, id, "", string(b), in, out)
	} else if !isNotFound(err) {
		return nil, out, fmt.Errorf("act %s: look for request %s: %w", in.Device, in.RequestID, err)
	}
	if !slices.Contains(ActKinds(), in.Kind) {
		return nil, out, fmt.Errorf("kind %q is not an action act runs; the kinds are %s", in.Kind, strings.Join(ActKinds(), ", "))
	}
	ss.mu.Lock()
	last, observed := ss.seen[in.Device]
	ss.mu.Unlock()
	if in.Element != nil && !observed {
		return nil, out, fmt.Errorf("element %d: this session has not observed %s yet; call observe first (element ids are those of your last observation)", *in.Element, in.Device)
	}
	action, err := agents.BuildAction(in.Kind, b, last.elements, last.w, last.h)
	if err != nil {
		return nil, out, fmt.Errorf("act %s: %w", in.Device, err)
	}
	// The policy sees the action on the screen it was chosen on, as a
	// run's Decide has it see: the window, the application, the element.
	var facts *plan.ActionFacts
	if observed {
		f := activities.ActionFacts(last.screen, nil, action)[0]
		facts = &f
	}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: id, TaskQueue: workflows.MCPQueue,
		WorkflowIDReusePolicy:                    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		WorkflowIDConflictPolicy:                 enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
		WorkflowExecutionErrorWhenAlreadyStarted: true,
		StaticSummary:                            "MCP session " + ss.id + ": " + action.Summary(),
	}, workflows.MCPActWorkflowName, workflows.MCPActInput{Device: in.Device, RequestID: in.RequestID, Action: action,
		Policy: ss.s.o.Policy, Facts: facts, Session: ss.id, Asked: string(b), DeviceTimeout: ss.s.o.DeviceTimeout})
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &started) {
		return ss.recorded(ctx, id, started.RunId, string(b), in, out)
	}
	if err != nil {
		return nil, out, fmt.Errorf("act %s: %w", in.Device, err)
	}
	r, err := ss.result(ctx, id, run.GetRunID())
	if err != nil {
		return nil, out, fmt.Errorf("act %s (request %s, workflow %s): %w", in.Device, in.RequestID, id, deviceErr(err, in.Device))
	}
	ss.s.o.Logger.Info("mcp act", "session", ss.id, "device", in.Device, "request_id", in.RequestID, "kind", in.Kind, "outcome", r.Outcome)
	return nil, fill(out, r, false), nil
}

// recorded answers a request made before from its workflow: its result
// (waiting for it when it still runs), if it asked for the same action.
func (ss *session) recorded(ctx context.Context, id, runID, asked string, in ActArgs, out ActResult) (*mcp.CallToolResult, ActResult, error) {
	c := ss.s.o.Client
	first, err := startInput(ctx, c, id, runID)
	if err != nil {
		return nil, out, fmt.Errorf("act %s: request %s was made before, and its workflow %s cannot be read: %w", in.Device, in.RequestID, id, err)
	}
	if first.Asked != asked {
		return nil, out, fmt.Errorf("request_id %s was used on device %s for another action (%s): give each action a new request_id, and the same one only to retry the same call", in.RequestID, in.Device, first.Action.Summary())
	}
	r, err := ss.result(ctx, id, runID)
	if err != nil {
		return nil, out, fmt.Errorf("act %s (request %s, workflow %s): %w", in.Device, in.RequestID, id, deviceErr(err, in.Device))
	}
	ss.s.o.Logger.Info("mcp act answered from its record", "session", ss.id, "device", in.Device, "request_id", in.RequestID, "outcome", r.Outcome)
	return nil, fill(out, r, true), nil
}

// OutcomeWaitingApproval is an act's outcome while a policy's confirm
// rule holds it for a person.
const OutcomeWaitingApproval = "waiting_approval"

// result waits for an act workflow's result; while the act waits for a
// person's approval, it answers that (Outcome OutcomeWaitingApproval)
// instead of blocking the client.
func (ss *session) result(ctx context.Context, id, runID string) (workflows.MCPActResult, error) {
	c := ss.s.o.Client
	for {
		var r workflows.MCPActResult
		wctx, cancel := context.WithTimeout(ctx, time.Second)
		err := c.GetWorkflow(wctx, id, runID).Get(wctx, &r)
		// The server may end the long poll a moment before wctx does.
		var de *serviceerror.DeadlineExceeded
		timedOut := wctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || errors.As(err, &de)
		cancel()
		switch {
		case err == nil:
			return r, nil
		case ctx.Err() != nil:
			return r, ctx.Err()
		case !timedOut:
			return r, err
		}
		if w := actWaiting(ctx, c, id); w != nil && w.Kind == workflows.WaitApproval {
			rule := w.Rule
			return workflows.MCPActResult{Outcome: OutcomeWaitingApproval, Summary: w.Action,
				Error: fmt.Sprintf("a person must approve it first (%s), until %s: pcflow approve %s (or pcflow reject %s); then call act again with the same request_id for its result",
					rule, w.Deadline.UTC().Format(time.RFC3339), id, id)}, nil
		}
	}
}

// actWaiting is what an act workflow waits for (nil: nothing, or it does
// not answer).
func actWaiting(ctx context.Context, c client.Client, id string) *workflows.Waiting {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	v, err := c.QueryWorkflow(ctx, id, "", workflows.ProgressQuery)
	if err != nil {
		return nil
	}
	var l workflows.MCPActLive
	if v.Get(&l) != nil {
		return nil
	}
	return l.Waiting
}

// fill copies the workflow's result into the tool's.
func fill(out ActResult, r workflows.MCPActResult, recorded bool) ActResult {
	out.Outcome, out.Note, out.Error, out.Summary, out.Person = r.Outcome, r.Note, r.Error, r.Summary, r.Person
	if r.ActionID != "" {
		out.ActionID = r.ActionID
	}
	out.Recorded = recorded && r.Outcome != OutcomeWaitingApproval
	return out
}

// startInput is the input a workflow's run started with.
func startInput(ctx context.Context, c client.Client, id, runID string) (workflows.MCPActInput, error) {
	var in workflows.MCPActInput
	it := c.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	if !it.HasNext() {
		return in, errors.New("no history")
	}
	ev, err := it.Next()
	if err != nil {
		return in, err
	}
	a := ev.GetWorkflowExecutionStartedEventAttributes()
	if a == nil {
		return in, errors.New("its history does not start with its input")
	}
	return in, converter.GetDefaultDataConverter().FromPayloads(a.GetInput(), &in)
}

func isNotFound(err error) bool {
	var nf *serviceerror.NotFound
	return errors.As(err, &nf)
}

// deviceErr says what an MCP workflow's failure means for the client.
func deviceErr(err error, device string) error {
	if strings.Contains(err.Error(), "ScheduleToStart") || strings.Contains(err.Error(), "SCHEDULE_TO_START") {
		return fmt.Errorf("device %s is offline: no worker took the work from queue %s; start one with pcflow worker --device %s (%w)", device, plan.DeviceQueue(device), device, err)
	}
	return err
}
