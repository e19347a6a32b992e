package agents

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"text/template"

	openai "github.com/sashabaranov/go-openai"

	"github.com/pcflow/pcflow/activities/agents/profile"
)

// PromptVersion names the prompt set: "pcflow-prompts/" and the first 12
// hex digits of a SHA-256 over every prompt template, the text formats'
// instructions and the built-in profiles' coordinate words, and every tool
// schema, so it changes whenever one of them does. It is recorded with a
// suite's results so a trajectory can be traced to the prompts that
// produced it.
var PromptVersion = promptVersion()

// promptVersion hashes the prompts and tools in a fixed order.
func promptVersion() string {
	h := sha256.New()
	texts := []string{
		decisionSystem, decisionUser, reflectionSystem, reflectionUser, progressSystem, progressUser,
		managerSystem, managerUser, calibrateSystem, calibrateUser, textToolPrompt, invalidFeedback,
	}
	for _, f := range []string{profile.FormatActionJSON, profile.FormatUITARS, profile.FormatHermes} {
		texts = append(texts, profile.FormatInstructions(f, "HINT"))
	}
	for _, p := range profile.Builtins() {
		texts = append(texts, p.CoordinateHint(profile.Frame{ScreenW: 1920, ScreenH: 1080, ImageW: 1280, ImageH: 720}))
	}
	for _, t := range texts {
		h.Write([]byte(t))
		h.Write([]byte{0})
	}
	tools, err := json.Marshal(append(actionTools(nil), []openai.Tool{verdictTool, progressTool, managerTool}...))
	if err != nil {
		panic(err) // fixed schemas: a programming error
	}
	h.Write(tools)
	return "pcflow-prompts/" + hex.EncodeToString(h.Sum(nil))[:12]
}

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
