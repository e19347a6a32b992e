package agents

import (
	"bytes"
	"strings"
	"text/template"
)

// PromptVersion names the prompt set; recorded with every model exchange so
// a trajectory can be traced to the prompts that produced it.
const PromptVersion = "pcflow-prompts/1"

// invalidFeedback introduces the problem with a re-asked answer.
const invalidFeedback = "Your previous answer was invalid: "

var funcs = template.FuncMap{"join": strings.Join}

func mustTemplate(name, text string) *template.Template {
	return template.Must(template.New(name).Funcs(funcs).Parse(text))
}

func render(t *template.Template, data any) string {
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		// The templates are fixed and tested; a failure is a programming error.
		panic(err)
	}
	return b.String()
}
