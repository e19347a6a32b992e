package mcpserver

import (
	"context"
	"fmt"
	"regexp"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Runs starts and reads pcflow runs for the run, status, history and
// approve tools. The command line implements it with its own code paths
// (the task compiled as pcflow run compiles it, started as --detach
// starts it; status, history and approve as those commands print them).
type Runs interface {
	// Start compiles the task file and starts its run; lease is called
	// with the task's devices before it starts.
	Start(ctx context.Context, r RunRequest, lease func(devices []string) error) (RunStarted, error)
	// Status is what pcflow status RUN prints.
	Status(ctx context.Context, run string) (string, error)
	// History is what pcflow history RUN prints.
	History(ctx context.Context, run string) (string, error)
	// Approve approves (or rejects) the action a run's subtask waits
	// for, as pcflow approve (reject) does.
	Approve(ctx context.Context, run, subtask string, approve bool, reason string) (string, error)
}

// RunRequest is a run to start.
type RunRequest struct {
	// TaskFile is a task file's name in the folder pcflow mcp offers
	// (--tasks DIR).
	TaskFile string
	// Instruction, instead of TaskFile, is a free-text task the Manager
	// agent decomposes at run time, on Device.
	Instruction, Device string
	// Vars are the task's variables, by name.
	Vars map[string]string
	// ID is the run's id (empty: the task's name and the time).
	ID string
}

// RunStarted is a run just started.
type RunStarted struct {
	ID      string   `json:"run_id"`
	Task    string   `json:"task"`
	Devices []string `json:"devices"`
}

// RunArgs are the run tool's arguments.
type RunArgs struct {
	TaskFile    string            `json:"task_file,omitempty" jsonschema:"a task file's name in the folder pcflow mcp offers (--tasks), e.g. editor.hcl"`
	Instruction string            `json:"instruction,omitempty" jsonschema:"instead of task_file: a task in words, which pcflow's Manager agent decomposes into subtasks at run time"`
	Device      string            `json:"device,omitempty" jsonschema:"with instruction: the device it runs on (default desktop)"`
	Vars        map[string]string `json:"vars,omitempty" jsonschema:"the task's variables, NAME: VALUE"`
	RunID       string            `json:"run_id,omitempty" jsonschema:"the run's id (default: the task's name and the time)"`
}

// RunIDArgs name a run.
type RunIDArgs struct {
	RunID string `json:"run_id" jsonschema:"the run's id, as run returned it"`
}

// ApproveArgs decide the action a run waits for.
type ApproveArgs struct {
	RunID   string `json:"run_id" jsonschema:"the run's id"`
	Subtask string `json:"subtask,omitempty" jsonschema:"the subtask, when several wait"`
	Reject  bool   `json:"reject,omitempty" jsonschema:"reject it instead of approving it"`
	Reason  string `json:"reason,omitempty" jsonschema:"why it is rejected, told to the agent"`
}

// TextResult is a command's output.
type TextResult struct {
	Text string `json:"text"`
}

// runIDPattern is what a run id may be.
var runIDPattern = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,200}$`)

// addRunTools adds run, status and history (and approve, when allowed).
func (ss *session) addRunTools(srv *mcp.Server) {
	r := ss.s.o.Runs
	mcp.AddTool(srv, &mcp.Tool{Name: "run", Title: "Run a task",
		Description: "Start a pcflow run of a task file from the folder pcflow mcp offers, or of an instruction in words (the Manager agent decomposes it); it runs durably on the Temporal server (pcflow's own agent loop, on its devices, which this session leases). Follow it with status and history."},
		func(ctx context.Context, req *mcp.CallToolRequest, in RunArgs) (*mcp.CallToolResult, RunStarted, error) {
			if in.RunID != "" && !runIDPattern.MatchString(in.RunID) {
				return nil, RunStarted{}, fmt.Errorf("run_id %q: give letters, digits, '.', '_', ':' or '-'", in.RunID)
			}
			if (in.TaskFile == "") == (in.Instruction == "") {
				return nil, RunStarted{}, fmt.Errorf("give task_file or instruction, one of them")
			}
			st, err := r.Start(ctx, RunRequest{TaskFile: in.TaskFile, Instruction: in.Instruction, Device: in.Device, Vars: in.Vars, ID: in.RunID}, func(devices []string) error {
				for _, d := range devices {
					if err := ss.lease(ctx, req, d); err != nil {
						return err
					}
				}
				return nil
			})
			if st.Devices == nil {
				st.Devices = []string{}
			}
			return nil, st, err
		})
	text := func(f func(ctx context.Context, run string) (string, error)) mcp.ToolHandlerFor[RunIDArgs, TextResult] {
		return func(ctx context.Context, _ *mcp.CallToolRequest, in RunIDArgs) (*mcp.CallToolResult, TextResult, error) {
			if !runIDPattern.MatchString(in.RunID) {
				return nil, TextResult{}, fmt.Errorf("run_id %q is not a run id", in.RunID)
			}
			out, err := f(ctx, in.RunID)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out}}}, TextResult{Text: out}, err
		}
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "status", Title: "A run's status",
		Description: "What pcflow status RUN prints: while it runs, its phase, each subtask's step and what it waits for (an approval, an answer); once ended, its result.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, text(r.Status))
	mcp.AddTool(srv, &mcp.Tool{Name: "history", Title: "A run's history",
		Description: "What pcflow history RUN prints: every step, its thought, action, what the device did, the verdict and the progress.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, text(r.History))
	if !ss.s.o.Approve {
		return
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "approve", Title: "Approve or reject a waiting action",
		Description: "Decide the action a run waits to run (a policy's confirm rule, a provider's safety check), as pcflow approve or pcflow reject does: approved, it runs once; rejected, the agent is told (with the reason) and chooses another."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in ApproveArgs) (*mcp.CallToolResult, TextResult, error) {
			if !runIDPattern.MatchString(in.RunID) {
				return nil, TextResult{}, fmt.Errorf("run_id %q is not a run id", in.RunID)
			}
			out, err := r.Approve(ctx, in.RunID, in.Subtask, !in.Reject, in.Reason)
			return nil, TextResult{Text: out}, err
		})
}
