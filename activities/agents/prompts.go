package agents

import (
	"bytes"
	"strings"
	"text/template"
)

// PromptVersion names the prompt set; recorded with every model exchange so
// a trajectory can be traced to the prompts that produced it.
const PromptVersion = "pcflow-prompts/1"

const decisionSystem = `You are the Decision agent of pcflow, operating a real computer (PC-Agent design).
Each turn you see the current subtask, a progress summary, your memory, the last reflection, the open windows,
the clipboard, a numbered list of on-screen elements (Set-of-Marks) and a screenshot with the same numbers drawn on it.
Think briefly about what to do next, then call exactly one tool: the single next action.
Prefer element ids from the list over coordinates. Coordinates, when you must use them, are pixels of the image you see.
When the subtask is complete call done with every declared output; if it cannot be completed call fail with the reason.`

const decisionUser = `Subtask: {{.Subtask}}
Step: {{.Step}} of {{.MaxSteps}}
Instruction: {{.Instruction}}
{{- if .Knowledge}}
Knowledge:
{{- range .Knowledge}}
- {{.}}{{end}}{{end}}
{{- if .Outputs}}
Outputs to report with done:
{{- range .Outputs}}
- {{.Key}}{{if .Description}}: {{.Description}}{{end}}{{end}}{{end}}
Progress so far: {{if .Progress}}{{.Progress}}{{else}}(nothing yet){{end}}
Memory: {{if .Memory}}{{.Memory}}{{else}}(empty){{end}}
{{- if .LastAction}}
Last action: {{.LastAction}} → reflection: {{.LastVerdict}}{{if .LastReason}} ({{.LastReason}}){{end}}{{end}}
{{- if .Feedback}}
Your previous answer was invalid: {{.Feedback}}{{end}}
Active window: {{.ActiveWindow}}
Windows: {{join .Windows " | "}}
Clipboard: {{if .Clipboard}}{{.Clipboard}}{{else}}(empty){{end}}
Screen: {{.ImageWidth}}x{{.ImageHeight}} image
Elements:
{{- range .Elements}}
{{.}}{{else}}
(none found){{end}}`

const textActionFormat = `
Answer with one line of thought, then one line "Action: NAME {JSON arguments}", for example:
Action: click {"element": 12}`

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

const progressSystem = `You are the Progress agent of pcflow. You keep a short running summary of what has been achieved in
the subtask and a memory of facts that later steps or subtasks will need (values read, file names, results).
Keep both short: rewrite them, never append a log. Call update_progress.`

const progressUser = `Subtask: {{.Subtask}}
Instruction: {{.Instruction}}
{{- if .Outputs}}
Outputs that must be reported at the end: {{join .Outputs ", "}}{{end}}
Previous summary: {{if .Summary}}{{.Summary}}{{else}}(nothing yet){{end}}
Previous memory: {{if .Memory}}{{.Memory}}{{else}}(empty){{end}}
Step {{.Step}}: {{.Action}}
Thought: {{.Thought}}
Reflection: {{.Verdict}}{{if .Reason}} ({{.Reason}}){{end}}`

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

var funcs = template.FuncMap{"join": strings.Join}

var (
	tDecision   = template.Must(template.New("decision").Funcs(funcs).Parse(decisionUser))
	tReflection = template.Must(template.New("reflection").Funcs(funcs).Parse(reflectionUser))
	tProgress   = template.Must(template.New("progress").Funcs(funcs).Parse(progressUser))
	tManager    = template.Must(template.New("manager").Funcs(funcs).Parse(managerUser))
)

func render(t *template.Template, data any) string {
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		// The templates are fixed and tested; a failure is a programming error.
		panic(err)
	}
	return b.String()
}
