package agents

import (
	"context"
	"fmt"
	"sort"

	openai "github.com/sashabaranov/go-openai"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/screen"
)

const managerSystem = `You are the Manager agent of pcflow. Decompose the user's instruction into subtasks, each done on one
device by a GUI agent. Give each subtask a short snake_case name, a self-contained instruction, the device it runs on,
the subtasks it depends on, and the outputs it must report. When a subtask needs a value another one finds, write
${subtask.NAME.output.KEY} in its instruction and list NAME in depends_on. Call plan_subtasks.`

const managerUser = `Instruction: {{.Instruction}}
Devices:
{{- range .Devices}}
- {{.}}{{end}}
{{- if .Knowledge}}
Knowledge:
{{- range .Knowledge}}
- {{.}}{{end}}{{end}}
{{- if .Feedback}}
Your previous plan was invalid: {{.Feedback}}{{end}}`

var tManager = mustTemplate("manager", managerUser)

var managerTool = tool("plan_subtasks", "The subtasks that together do the instruction.", `{"type":"object","properties":{
"subtasks":{"type":"array","items":{"type":"object","properties":{
"name":{"type":"string"},"instruction":{"type":"string"},"device":{"type":"string"},
"depends_on":{"type":"array","items":{"type":"string"}},
"outputs":{"type":"array","items":{"type":"object","properties":{"key":{"type":"string"},"description":{"type":"string"}},"required":["key"]}}},
"required":["name","instruction"]}}},"required":["subtasks"]}`)

// managerView is the Manager prompt's data.
type managerView struct {
	agent.ManagerInput
	Feedback string
}

// ManagerPrompt renders the Manager agent's prompt.
func ManagerPrompt(in agent.ManagerInput, feedback string) string {
	return render(tManager, managerView{ManagerInput: in, Feedback: feedback})
}

// Manage asks the Manager agent to decompose an instruction; a proposal
// that in.Validate rejects is re-asked with the problem.
func (c *Client) Manage(ctx context.Context, in agent.ManagerInput, u *screen.Usage) (*agent.Plan, error) {
	subtasks, inv, err := ask(ctx, c, exchange[[]agent.PlannedSubtask]{
		call:   agent.Call{Role: agent.RoleManager, Turn: &agent.TurnFacts{Instruction: in.Instruction}},
		record: in.Record,
		request: func(feedback string) openai.ChatCompletionRequest {
			return c.roleRequest(agent.RoleManager, c.cfg.ManagerModel, c.cfg.MaxTokens*2, managerSystem,
				openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: ManagerPrompt(in, feedback)}, managerTool)
		},
		parse: func(msg openai.ChatCompletionMessage) ([]agent.PlannedSubtask, error) {
			var p struct {
				Subtasks []agent.PlannedSubtask `json:"subtasks"`
			}
			if _, err := oneTool(msg, "plan_subtasks", &p); err != nil {
				return nil, err
			}
			for i := range p.Subtasks {
				sort.Strings(p.Subtasks[i].DependsOn)
			}
			if len(p.Subtasks) == 0 {
				return nil, fmt.Errorf("the plan has no subtasks")
			}
			if in.Validate != nil {
				if err := in.Validate(p.Subtasks); err != nil {
					return nil, err
				}
			}
			return p.Subtasks, nil
		},
	}, u)
	return &agent.Plan{Subtasks: subtasks, Invalid: inv.n}, err
}
