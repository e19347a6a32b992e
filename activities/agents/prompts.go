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

// JudgePromptVersion and UserPromptVersion name the judge's and the
// simulated user's prompts alone ("pcflow-judge/…", "pcflow-user/…": the
// first 12 hex digits of a SHA-256 over the prompt's templates and
// tools), recorded with every judge check's result, so a score can be
// traced to the prompt that gave it even when other prompts change.
var (
	JudgePromptVersion = digest("pcflow-judge/", []string{judgeSystem, judgeUser}, judgeTool)
	UserPromptVersion  = digest("pcflow-user/", []string{userSystem, userUser}, replyTool, decideTool)
)

// digest names texts and tools: prefix and the first 12 hex digits of a
// SHA-256 over them.
func digest(prefix string, texts []string, tools ...openai.Tool) string {
	h := sha256.New()
	for _, t := range texts {
		h.Write([]byte(t))
		h.Write([]byte{0})
	}
	b, err := json.Marshal(tools)
	if err != nil {
		panic(err) // fixed schemas: a programming error
	}
	h.Write(b)
	return prefix + hex.EncodeToString(h.Sum(nil))[:12]
}

// promptVersion hashes the prompts and tools in a fixed order.
func promptVersion() string {
	h := sha256.New()
	texts := []string{
		renderSystem(tDecisionSystem, pixelWords), decisionUser, reflectionSystem, reflectionUser, progressSystem, progressUser,
		managerSystem, managerUser, renderSystem(tCalibrateSystem, pixelWords), calibrateUser, textToolPrompt, invalidFeedback,
		judgeSystem, judgeUser, userSystem, userUser,
	}
	for _, f := range []string{profile.FormatActionJSON, profile.FormatUITARS, profile.FormatHermes, profile.FormatPyAutoGUI} {
		texts = append(texts, profile.FormatInstructions(f, "HINT"))
	}
	for _, p := range profile.Builtins() {
		texts = append(texts, p.CoordinateHint(profile.Frame{ScreenW: 1920, ScreenH: 1080, ImageW: 1280, ImageH: 720}))
	}
	for _, t := range texts {
		h.Write([]byte(t))
		h.Write([]byte{0})
	}
	tools, err := json.Marshal(append(actionTools(nil), []openai.Tool{verdictTool, progressTool, managerTool, judgeTool, replyTool, decideTool}...))
	if err != nil {
		panic(err) // fixed schemas: a programming error
	}
	h.Write(tools)
	return "pcflow-prompts/" + hex.EncodeToString(h.Sum(nil))[:12]
}

// systemView is the data of a system prompt that names coordinates
// (tDecisionSystem, tCalibrateSystem, tGroundSystem): Coordinates is the
// profile's coordinate space in words (profile.Profile.CoordinateHint),
// rendered where the prompt says what coordinates are.
type systemView struct {
	Coordinates string
}

// pixelWords is the coordinate space a system prompt names when no frame
// is known; the prompt version hashes the prompts rendered with it.
const pixelWords = "pixels of the image you see"

// renderSystem renders a system prompt with coordinates in words.
func renderSystem(t *template.Template, coordinates string) string {
	return render(t, systemView{Coordinates: coordinates})
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
