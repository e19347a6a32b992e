package agents

import (
	"context"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/text"
)

const progressSystem = `You are the Progress agent of pcflow. You keep a short running summary of what has been achieved in
the subtask and a memory of facts that later steps or subtasks will need (values read, file names, results).
Keep both short: rewrite them, never append a log. Call update_progress.`

const progressUser = `Subtask: {{.Subtask}}
Instruction: {{.Instruction}}
{{- if .Outputs}}
Outputs that must be reported at the end: {{join .OutputKeys ", "}}{{end}}
Previous summary: {{if .Progress}}{{.Progress}}{{else}}(nothing yet){{end}}
Previous memory: {{if .Memory}}{{.Memory}}{{else}}(empty){{end}}
Step {{.Step}}: {{.Action}}
Thought: {{.Thought}}
Reflection: {{.Verdict}}{{if .Reason}} ({{.Reason}}){{end}}
{{- if .Earlier}}
The step before: {{.Earlier}}{{end}}
{{- if .Person}}
A person: {{.Person}}{{end}}
{{- if .Answers}}
The person's answers to the agent's questions:
{{- range .Answers}}
- {{.}}{{end}}{{end}}
{{- if .Feedback}}
Your previous answer was invalid: {{.Feedback}}{{end}}`

var tProgress = mustTemplate("progress", progressUser)

var progressTool = tool("update_progress", "Replace the progress summary and the memory.", `{"type":"object","properties":{
"summary":{"type":"string"},"memory":{"type":"string"}},"required":["summary","memory"]}`)

// maxProgress bounds the summary and the memory, so the prompts stay flat
// however long the subtask.
const maxProgress = 800

// progressThought bounds the thought a Progress prompt shows.
const progressThought = 600

// progressView is the Progress prompt's data.
type progressView struct {
	agent.ProgressInput
	Thought, Reason, Feedback string
}

// ProgressPrompt renders the Progress agent's prompt. Its size depends on
// the summary and memory, not on the number of steps taken.
func ProgressPrompt(in agent.ProgressInput, feedback string) string {
	return render(tProgress, progressView{ProgressInput: in, Thought: text.Trunc(in.Thought, progressThought), Reason: text.Trunc(in.Reason, 300), Feedback: feedback})
}

// UpdateProgress asks the Progress agent (text only) for a new summary and memory.
func (c *Client) UpdateProgress(ctx context.Context, in agent.ProgressInput, u *screen.Usage) (*agent.Progress, error) {
	p := &agent.Progress{}
	got, inv, err := ask(ctx, c, exchange[agent.Progress]{
		call:   agent.Call{Role: agent.RoleProgress, Subtask: in.Subtask, Step: in.Step, Turn: progressTurn(in)},
		record: in.Record,
		request: func(feedback string) openai.ChatCompletionRequest {
			prompt := ProgressPrompt(in, feedback)
			p.Prompt = len(prompt)
			return c.roleRequest(agent.RoleProgress, c.cfg.ProgressModel, c.cfg.MaxTokens, progressSystem,
				openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: prompt}, progressTool)
		},
		parse: func(msg openai.ChatCompletionMessage) (agent.Progress, error) {
			var v struct{ Summary, Memory string }
			content, err := oneTool(msg, "update_progress", &v)
			if err != nil && len(msg.ToolCalls) == 0 && strings.TrimSpace(content) != "" && !strings.Contains(msg.Content, "<tool_call>") {
				// Text-only models: take the whole answer as the summary
				// (a <tool_call> that does not parse is asked again).
				v.Summary, v.Memory, err = content, in.Memory, nil
			}
			return agent.Progress{Summary: text.Trunc(v.Summary, maxProgress), Memory: text.Trunc(v.Memory, maxProgress)}, err
		},
	}, u)
	p.Summary, p.Memory, p.Invalid = got.Summary, got.Memory, inv.n
	if err != nil {
		return p, err
	}
	return p, nil
}
