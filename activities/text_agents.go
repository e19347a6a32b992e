package activities

import (
	"context"
	"fmt"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.temporal.io/sdk/temporal"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
)

// ProgressInput is the step the Progress agent folds into its summary: the
// turn just taken and its outcome.
type ProgressInput struct {
	agent.Turn
	agent.Outcome
	// Profiles are the task's profiles block (agent → profile name).
	Profiles map[string]string `json:"profiles,omitempty"`
}

// ProgressResult is the new summary and memory.
type ProgressResult struct {
	Summary     string       `json:"summary"`
	Memory      string       `json:"memory"`
	Usage       screen.Usage `json:"usage"`
	PromptBytes int          `json:"prompt_bytes"`
	Exchanges   []string     `json:"exchanges,omitempty"`
}

// Progress asks the Progress agent (text only) to update summary and memory.
func (a *Activities) Progress(ctx context.Context, in ProgressInput) (*ProgressResult, error) {
	m := a.startModelAttempt(ctx)
	defer m.stop()
	res := &ProgressResult{}
	r := a.Redactor()
	r.Value(&in.Turn)
	r.Value(&in.Outcome)
	model, err := a.model(in.Profiles)
	if err != nil {
		return nil, err
	}
	stepSpan(ctx, in.Turn.Goal.Subtask, in.Turn.Step)
	mctx, call := startModelCall(ctx, "progress", &res.Usage)
	p, err := model.UpdateProgress(mctx, agent.ProgressInput{Turn: in.Turn, Outcome: in.Outcome, Record: a.recorder(&res.Exchanges)}, &res.Usage)
	call.end(err)
	if err := a.finish(m, &res.Usage, err); err != nil {
		return res, err
	}
	res.Summary, res.Memory, res.PromptBytes = p.Summary, p.Memory, p.Prompt
	return res, nil
}

// ManageInput is a free-text instruction to decompose.
type ManageInput struct {
	Instruction string        `json:"instruction"`
	Devices     []plan.Device `json:"devices"`
	Knowledge   []string      `json:"knowledge,omitempty"`
	MaxSteps    int           `json:"max_steps"`
	// Profiles are the task's profiles block (agent → profile name).
	Profiles map[string]string `json:"profiles,omitempty"`
}

// ManageResult is the Manager's plan, validated like an HCL plan.
type ManageResult struct {
	Subtasks  []plan.Subtask `json:"subtasks"`
	Usage     screen.Usage   `json:"usage"`
	Invalid   int            `json:"invalid,omitempty"`
	Exchanges []string       `json:"exchanges,omitempty"`
}

// Manage asks the Manager agent to decompose the instruction into subtasks,
// valid against the same rules as HCL subtasks; an invalid plan is re-asked
// with the problem.
func (a *Activities) Manage(ctx context.Context, in ManageInput) (*ManageResult, error) {
	m := a.startModelAttempt(ctx)
	defer m.stop()
	res := &ManageResult{}
	var devs []string
	for _, d := range in.Devices {
		devs = append(devs, strings.TrimSuffix(d.Name+": "+d.Description, ": "))
	}
	var built []plan.Subtask
	if a.CompileInstruction == nil {
		return nil, temporal.NewNonRetryableApplicationError("manage: this worker has no instruction compiler (Activities.CompileInstruction)", agent.ErrTypeModelRequest, nil)
	}
	validate := func(ps []agent.PlannedSubtask) error {
		built = built[:0]
		outs := map[string][]string{}
		for _, s := range ps {
			outs[s.Name] = []string{}
			for _, o := range s.Outputs {
				outs[s.Name] = append(outs[s.Name], o.Key)
			}
		}
		for _, s := range ps {
			st := plan.Subtask{Name: s.Name, Device: s.Device, DependsOn: s.DependsOn, MaxSteps: in.MaxSteps}
			if st.Device == "" && len(in.Devices) == 1 {
				st.Device = in.Devices[0].Name
			}
			x, err := a.CompileInstruction(s.Instruction, outs)
			if err != nil {
				return fmt.Errorf("subtask %q: %w", s.Name, err)
			}
			st.Instruction = x
			for _, o := range s.Outputs {
				st.Outputs = append(st.Outputs, plan.Output{Key: o.Key, Description: o.Description})
			}
			built = append(built, st)
		}
		p := plan.Plan{Devices: in.Devices, Subtasks: built}
		return p.Validate()
	}
	model, err := a.model(in.Profiles)
	if err != nil {
		return nil, err
	}
	mctx, call := startModelCall(ctx, "manager", &res.Usage)
	p, err := model.Manage(mctx, agent.ManagerInput{
		Instruction: in.Instruction, Devices: devs, Knowledge: in.Knowledge, Validate: validate,
		Record: a.recorder(&res.Exchanges),
	}, &res.Usage)
	if p != nil {
		res.Invalid = p.Invalid
	}
	call.end(err, attribute.Int(AttrInvalid, res.Invalid))
	if err := a.finish(m, &res.Usage, err); err != nil {
		return res, err
	}
	res.Subtasks = built
	return res, nil
}
