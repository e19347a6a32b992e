package agents

import (
	"context"
	"fmt"
	"image"
	"regexp"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/screen"
)

const reflectionSystem = `You are the Reflection agent of pcflow. You compare the screen before and after one action and judge
its effect: "correct" if it did what was intended and moves the subtask forward, "wrong" if it did something
unintended (the next decision must repair it), "no_effect" if nothing changed. Call the verdict tool.`

const reflectionUser = `Subtask: {{.Subtask}}
Instruction: {{.Instruction}}
Action taken (step {{.Step}}): {{.Action}}
Thought behind it: {{.Thought}}
{{- if .Note}}
Device note: {{.Note}}{{end}}
Active window before: {{.BeforeWindow}}
Active window after: {{.AfterWindow}}
Elements before:
{{- range .Before}}
{{.}}{{end}}
Elements after:
{{- range .After}}
{{.}}{{end}}
The first image is the screen before, the second after.`

var tReflection = mustTemplate("reflection", reflectionUser)

var verdictTool = tool("verdict", "Judge the action's effect.", `{"type":"object","properties":{
"verdict":{"type":"string","enum":["correct","wrong","no_effect"]},"reason":{"type":"string"}},"required":["verdict","reason"]}`)

// verdictLine is the text fallback: "Verdict: correct — reason".
var verdictLine = regexp.MustCompile(`(?i)verdict:\s*(correct|wrong|no_effect)\b[\s:—-]*(.*)`)

func labels(els []screen.Element, maxN int) []string {
	var out []string
	for i, e := range els {
		if i >= maxN {
			out = append(out, fmt.Sprintf("… %d more", len(els)-maxN))
			break
		}
		out = append(out, e.Label())
	}
	return out
}

// reflectionView is the Reflection prompt's data.
type reflectionView struct {
	agent.ReflectionInput
	Before, After []string
}

// reflectionElements bounds each element list of a Reflection prompt.
const reflectionElements = 150

// ReflectionPrompt renders the Reflection agent's text prompt.
func ReflectionPrompt(in agent.ReflectionInput) string {
	return render(tReflection, reflectionView{ReflectionInput: in, Before: labels(in.Before, reflectionElements), After: labels(in.After, reflectionElements)})
}

// Reflect asks the Reflection agent whether the action worked.
func (c *Client) Reflect(ctx context.Context, in agent.ReflectionInput, u *screen.Usage) (*agent.Reflection, error) {
	parts := []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: ReflectionPrompt(in)}}
	for _, im := range []image.Image{in.BeforeImage, in.AfterImage} {
		if im == nil {
			continue
		}
		part, err := c.roleImage(agent.RoleReflection, im)
		if err != nil {
			return nil, err
		}
		parts = append(parts, part)
	}
	r, inv, err := ask(ctx, c, exchange[agent.Reflection]{
		call:   agent.Call{Role: agent.RoleReflection, Subtask: in.Subtask, Step: in.Step, Turn: reflectionTurn(in)},
		record: in.Record,
		request: func(feedback string) openai.ChatCompletionRequest {
			msg := parts
			if feedback != "" {
				msg = append(append([]openai.ChatMessagePart(nil), parts...), openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: invalidFeedback + feedback})
			}
			return c.roleRequest(agent.RoleReflection, c.cfg.ReflectionModel, c.cfg.MaxTokens, reflectionSystem,
				openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, MultiContent: msg}, verdictTool)
		},
		parse: parseVerdict,
	}, u)
	r.Invalid = inv.n
	return &r, err
}

func parseVerdict(msg openai.ChatCompletionMessage) (agent.Reflection, error) {
	var v struct{ Verdict, Reason string }
	content, err := oneTool(msg, "verdict", &v)
	if err != nil && len(msg.ToolCalls) == 0 {
		if m := verdictLine.FindStringSubmatch(content); m != nil {
			v.Verdict, v.Reason, err = m[1], strings.TrimSpace(m[2]), nil
		}
	}
	if err != nil {
		return agent.Reflection{}, err
	}
	switch v.Verdict {
	case screen.VerdictCorrect, screen.VerdictWrong, screen.VerdictNoEffect:
		return agent.Reflection{Verdict: v.Verdict, Reason: v.Reason}, nil
	}
	return agent.Reflection{}, fmt.Errorf("verdict must be correct, wrong or no_effect, not %q", v.Verdict)
}
