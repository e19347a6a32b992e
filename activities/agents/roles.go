package agents

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"regexp"
	"sort"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"golang.org/x/image/draw"

	"github.com/pcflow/pcflow/activities/screen"
)

// Exchange is one request/answer pair, for recording and replay.
type Exchange struct {
	Role     string                         `json:"role"`
	Request  openai.ChatCompletionRequest   `json:"request"`
	Response *openai.ChatCompletionResponse `json:"response,omitempty"`
	Error    string                         `json:"error,omitempty"`
}

// call sends one chat request and accounts for it.
func (c *Client) call(ctx context.Context, role string, req openai.ChatCompletionRequest, u *screen.Usage, rec func(Exchange)) (openai.ChatCompletionResponse, error) {
	start := time.Now()
	resp, err := c.api.CreateChatCompletion(ctx, req)
	u.Calls++
	u.LatencyMS += time.Since(start).Milliseconds()
	if rec != nil {
		ex := Exchange{Role: role, Request: redactImages(req)}
		if err == nil {
			ex.Response = &resp
		} else {
			ex.Error = err.Error()
		}
		rec(ex)
	}
	if err != nil {
		return resp, c.classify(req.Model, err)
	}
	u.PromptTokens += resp.Usage.PromptTokens
	u.CompletionTokens += resp.Usage.CompletionTokens
	if len(resp.Choices) == 0 {
		return resp, &APIError{Retryable: true, Msg: fmt.Sprintf("model %s at %s returned no choices", req.Model, c.cfg.BaseURL)}
	}
	return resp, nil
}

// redactImages drops image bytes from a recorded request (they are stored
// as screenshot artifacts already).
func redactImages(req openai.ChatCompletionRequest) openai.ChatCompletionRequest {
	msgs := make([]openai.ChatCompletionMessage, len(req.Messages))
	for i, m := range req.Messages {
		if len(m.MultiContent) == 0 {
			msgs[i] = m
			continue
		}
		parts := make([]openai.ChatMessagePart, len(m.MultiContent))
		for j, p := range m.MultiContent {
			if p.ImageURL != nil {
				p.ImageURL = &openai.ChatMessageImageURL{URL: fmt.Sprintf("(image, %d bytes)", len(p.ImageURL.URL))}
			}
			parts[j] = p
		}
		m.MultiContent = parts
		msgs[i] = m
	}
	req.Messages = msgs
	return req
}

// toolCall returns the name and arguments the model chose, from a tool call
// or, in text mode, from an "Action: NAME {json}" line.
func toolCall(msg openai.ChatCompletionMessage, text bool) (name string, args json.RawMessage, thought string, err error) {
	thought = strings.TrimSpace(msg.Content)
	if len(msg.ToolCalls) > 0 {
		if len(msg.ToolCalls) > 1 {
			return "", nil, thought, fmt.Errorf("%d tool calls in one answer; call exactly one tool", len(msg.ToolCalls))
		}
		tc := msg.ToolCalls[0]
		a := strings.TrimSpace(tc.Function.Arguments)
		if a == "" {
			a = "{}"
		}
		if !json.Valid([]byte(a)) {
			return tc.Function.Name, nil, thought, fmt.Errorf("arguments of %s are not valid JSON: %s", tc.Function.Name, trunc(a, 120))
		}
		return tc.Function.Name, json.RawMessage(a), thought, nil
	}
	if !text {
		return "", nil, thought, fmt.Errorf("no tool call in the answer; call exactly one tool")
	}
	return parseTextAction(msg.Content)
}

var actionLine = regexp.MustCompile(`(?m)^\s*Action:\s*([a-z_]+)\s*(\{.*\})?\s*$`)

// parseTextAction is the fallback parser for models without tool calling.
func parseTextAction(content string) (string, json.RawMessage, string, error) {
	m := actionLine.FindAllStringSubmatchIndex(content, -1)
	if len(m) == 0 {
		return "", nil, strings.TrimSpace(content), fmt.Errorf(`no "Action: NAME {json}" line in the answer`)
	}
	last := m[len(m)-1]
	name := content[last[2]:last[3]]
	args := "{}"
	if last[4] >= 0 {
		args = content[last[4]:last[5]]
	}
	thought := strings.TrimSpace(content[:last[0]])
	thought = strings.TrimSpace(strings.TrimPrefix(thought, "Thought:"))
	if !json.Valid([]byte(args)) {
		return name, nil, thought, fmt.Errorf("arguments of %s are not valid JSON: %s", name, trunc(args, 120))
	}
	return name, json.RawMessage(args), thought, nil
}

func trunc(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// EncodeImage scales img so its longest side is at most maxSide and encodes
// it; scale is image pixels per screen pixel.
func EncodeImage(img image.Image, maxSide int, format string, quality int) (data []byte, mime string, scale float64, w, h int, err error) {
	b := img.Bounds()
	scale = 1
	if long := max(b.Dx(), b.Dy()); maxSide > 0 && long > maxSide {
		scale = float64(maxSide) / float64(long)
		dst := image.NewRGBA(image.Rect(0, 0, int(float64(b.Dx())*scale), int(float64(b.Dy())*scale)))
		draw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
		img = dst
	}
	var buf bytes.Buffer
	switch format {
	case "jpeg":
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality})
		mime = "image/jpeg"
	default:
		enc := png.Encoder{CompressionLevel: png.BestSpeed}
		err = enc.Encode(&buf, img)
		mime = "image/png"
	}
	return buf.Bytes(), mime, scale, img.Bounds().Dx(), img.Bounds().Dy(), err
}

func dataURL(data []byte, mime string) string {
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)
}

// DecisionInput is everything the Decision agent sees.
type DecisionInput struct {
	Subtask      string
	Instruction  string
	Knowledge    []string
	Outputs      []OutputSpec
	Step         int
	MaxSteps     int
	Progress     string
	Memory       string
	LastAction   string
	LastVerdict  string
	LastReason   string
	ActiveWindow string
	Windows      []string
	Clipboard    string
	Elements     []screen.Element
	Image        image.Image // annotated screenshot
	// Locate finds on-screen text for select (OCR); nil disables select.
	Locate func(text string) []screen.Rect
	Record func(Exchange)
}

// OutputSpec is a declared output.
type OutputSpec struct {
	Key         string
	Description string
}

// Decision is the Decision agent's choice, in screen coordinates.
type Decision struct {
	Thought string
	Action  screen.Action
	Invalid int      // answers that were invalid and re-asked
	Errors  []string // why they were invalid
	Prompt  int      // bytes of the text prompt, for the prompt-size benchmark
}

// ErrInvalidOutput is returned when every answer in a call was invalid.
type ErrInvalidOutput struct {
	Attempts int
	Last     string
}

func (e *ErrInvalidOutput) Error() string {
	return fmt.Sprintf("model gave %d invalid answer(s); last problem: %s", e.Attempts, e.Last)
}

// DecisionPrompt renders the Decision agent's text prompt.
func DecisionPrompt(in DecisionInput, imgW, imgH int, feedback string) string {
	labels := make([]string, len(in.Elements))
	for i, e := range in.Elements {
		labels[i] = e.Label()
	}
	return render(tDecision, map[string]any{
		"Subtask": in.Subtask, "Step": in.Step, "MaxSteps": in.MaxSteps, "Instruction": in.Instruction,
		"Knowledge": in.Knowledge, "Outputs": in.Outputs, "Progress": in.Progress, "Memory": in.Memory,
		"LastAction": in.LastAction, "LastVerdict": in.LastVerdict, "LastReason": in.LastReason,
		"Feedback": feedback, "ActiveWindow": in.ActiveWindow, "Windows": in.Windows,
		"Clipboard": trunc(in.Clipboard, 500), "ImageWidth": imgW, "ImageHeight": imgH, "Elements": labels,
	})
}

// Decide asks the Decision agent for one action, re-asking with the error
// when the answer is invalid, at most MaxReasks times.
func (c *Client) Decide(ctx context.Context, in DecisionInput, u *screen.Usage) (*Decision, error) {
	if in.Image == nil {
		return nil, fmt.Errorf("decision needs a screenshot")
	}
	img, mime, scale, iw, ih, err := EncodeImage(in.Image, c.cfg.ImageMaxSide, c.cfg.ImageFormat, c.cfg.JPEGQuality)
	if err != nil {
		return nil, fmt.Errorf("encode screenshot: %w", err)
	}
	var outKeys []string
	for _, o := range in.Outputs {
		outKeys = append(outKeys, o.Key)
	}
	d := &Decision{}
	feedback := ""
	for attempt := 0; ; attempt++ {
		text := DecisionPrompt(in, iw, ih, feedback)
		d.Prompt = len(text)
		sys := decisionSystem
		if c.cfg.TextActions {
			sys += textActionFormat
		}
		req := openai.ChatCompletionRequest{
			Model:       c.cfg.DecisionModel,
			Temperature: c.cfg.Temperature,
			MaxTokens:   c.cfg.MaxTokens,
			Messages: []openai.ChatCompletionMessage{
				{Role: openai.ChatMessageRoleSystem, Content: sys},
				{Role: openai.ChatMessageRoleUser, MultiContent: []openai.ChatMessagePart{
					{Type: openai.ChatMessagePartTypeText, Text: text},
					{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: dataURL(img, mime), Detail: openai.ImageURLDetailHigh}},
				}},
			},
		}
		if !c.cfg.TextActions {
			req.Tools = actionTools(outKeys)
		}
		resp, err := c.call(ctx, "decision", req, u, in.Record)
		if err != nil {
			return nil, err
		}
		name, args, thought, perr := toolCall(resp.Choices[0].Message, c.cfg.TextActions)
		var act screen.Action
		if perr == nil {
			act, perr = buildAction(name, args, in, scale, outKeys)
		}
		if perr == nil {
			d.Thought, d.Action = thought, act
			return d, nil
		}
		d.Invalid++
		d.Errors = append(d.Errors, perr.Error())
		if attempt >= c.cfg.MaxReasks {
			return d, &ErrInvalidOutput{Attempts: d.Invalid, Last: perr.Error()}
		}
		feedback = perr.Error()
	}
}

type rawArgs struct {
	Element   *int           `json:"element"`
	X         *float64       `json:"x"`
	Y         *float64       `json:"y"`
	X2        *float64       `json:"x2"`
	Y2        *float64       `json:"y2"`
	Text      *string        `json:"text"`
	Enter     bool           `json:"enter"`
	Keys      []string       `json:"keys"`
	Direction string         `json:"direction"`
	Amount    int            `json:"amount"`
	Start     string         `json:"start"`
	End       string         `json:"end"`
	App       string         `json:"app"`
	Title     string         `json:"title"`
	Seconds   float64        `json:"seconds"`
	Outputs   map[string]any `json:"outputs"`
	Reason    string         `json:"reason"`
}

// buildAction validates the model's tool call and maps it to screen space.
func buildAction(name string, args json.RawMessage, in DecisionInput, scale float64, outKeys []string) (screen.Action, error) {
	var r rawArgs
	dec := json.NewDecoder(bytes.NewReader(args))
	if err := dec.Decode(&r); err != nil {
		return screen.Action{}, fmt.Errorf("arguments of %s: %v", name, err)
	}
	a := screen.Action{Kind: name}
	toScreen := func(v float64) int { return int(v/scale + 0.5) }
	byID := map[int]screen.Element{}
	for _, e := range in.Elements {
		byID[e.ID] = e
	}
	point := func(required bool) error {
		if r.Element != nil {
			e, ok := byID[*r.Element]
			if !ok {
				return fmt.Errorf("element %d is not in the element list (ids 1–%d)", *r.Element, len(in.Elements))
			}
			a.Element = e.ID
			a.Target = e.Name
			a.X, a.Y = e.Box.Center()
			return nil
		}
		if r.X != nil && r.Y != nil {
			a.X, a.Y = toScreen(*r.X), toScreen(*r.Y)
			return nil
		}
		if required {
			return fmt.Errorf("%s needs an element id or x and y", name)
		}
		return nil
	}
	switch name {
	case screen.ActClick, screen.ActDoubleClick, screen.ActRightClick:
		return a, point(true)
	case screen.ActType:
		if r.Text == nil {
			return a, fmt.Errorf("type needs text")
		}
		a.Text, a.Enter = *r.Text, r.Enter
		return a, point(false)
	case screen.ActScroll:
		switch r.Direction {
		case "up", "down", "left", "right":
		default:
			return a, fmt.Errorf("scroll direction must be up, down, left or right, not %q", r.Direction)
		}
		a.Direction, a.Amount = r.Direction, r.Amount
		if a.Amount <= 0 {
			a.Amount = 3
		}
		return a, point(false)
	case screen.ActDrag:
		if r.X == nil || r.Y == nil || r.X2 == nil || r.Y2 == nil {
			return a, fmt.Errorf("drag needs x, y, x2 and y2")
		}
		a.X, a.Y, a.X2, a.Y2 = toScreen(*r.X), toScreen(*r.Y), toScreen(*r.X2), toScreen(*r.Y2)
		return a, nil
	case screen.ActSelect:
		if r.Start == "" || r.End == "" {
			return a, fmt.Errorf("select needs start and end text")
		}
		a.Start, a.End = r.Start, r.End
		if in.Locate == nil {
			return a, fmt.Errorf("select is unavailable: no OCR on this device; click and drag instead")
		}
		s, err := locateOne(in.Locate, r.Start, "start")
		if err != nil {
			return a, err
		}
		e, err := locateOne(in.Locate, r.End, "end")
		if err != nil {
			return a, err
		}
		a.X, a.Y = s.X, s.Y+s.H/2
		a.X2, a.Y2 = e.X+e.W, e.Y+e.H/2
		return a, nil
	case screen.ActHotkey:
		if len(r.Keys) == 0 {
			return a, fmt.Errorf("hotkey needs keys, e.g. [\"ctrl\", \"s\"]")
		}
		a.Keys = r.Keys
		return a, nil
	case screen.ActWait:
		a.Seconds = r.Seconds
		if a.Seconds <= 0 || a.Seconds > 30 {
			a.Seconds = 1
		}
		return a, nil
	case screen.ActOpenApp:
		if r.App == "" {
			return a, fmt.Errorf("open_app needs app")
		}
		a.App = r.App
		return a, nil
	case screen.ActSwitchWindow:
		if r.Title == "" {
			return a, fmt.Errorf("switch_window needs title")
		}
		a.Title = r.Title
		return a, nil
	case screen.ActCopy, screen.ActPaste:
		return a, nil
	case screen.ActDone:
		a.Outputs = map[string]string{}
		for k, v := range r.Outputs {
			switch x := v.(type) {
			case string:
				a.Outputs[k] = x
			case nil:
			default:
				b, _ := json.Marshal(x)
				a.Outputs[k] = string(b)
			}
		}
		var missing []string
		for _, k := range outKeys {
			if strings.TrimSpace(a.Outputs[k]) == "" {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			return a, fmt.Errorf("done must report the declared outputs; missing %s", strings.Join(missing, ", "))
		}
		return a, nil
	case screen.ActFail:
		a.Reason = r.Reason
		return a, nil
	}
	return a, fmt.Errorf("unknown action %q; use one of the offered tools", name)
}

// locateOne applies Mobile-Agent's rule for text targets: no hit, ask again;
// one hit, act; a few, show the candidates and ask; many, ask for more text.
func locateOne(locate func(string) []screen.Rect, text, which string) (screen.Rect, error) {
	hits := locate(text)
	switch {
	case len(hits) == 0:
		return screen.Rect{}, fmt.Errorf("select %s text %q is not on screen (OCR found no match); choose text that is visible", which, text)
	case len(hits) == 1:
		return hits[0], nil
	case len(hits) <= 4:
		var c []string
		for _, h := range hits {
			c = append(c, fmt.Sprintf("(%d,%d)", h.X, h.Y))
		}
		return screen.Rect{}, fmt.Errorf("select %s text %q appears %d times, at %s; give longer text that occurs once", which, text, len(hits), strings.Join(c, ", "))
	default:
		return screen.Rect{}, fmt.Errorf("select %s text %q appears %d times; give a more specific target", which, text, len(hits))
	}
}

// ReflectionInput is what the Reflection agent compares.
type ReflectionInput struct {
	Subtask, Instruction, Action, Thought, Note string
	Step                                        int
	BeforeWindow, AfterWindow                   string
	Before, After                               []screen.Element
	BeforeImage, AfterImage                     image.Image
	Record                                      func(Exchange)
}

// Reflection is the verdict on one action.
type Reflection struct {
	Verdict string
	Reason  string
	Invalid int
}

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

// ReflectionPrompt renders the Reflection agent's text prompt.
func ReflectionPrompt(in ReflectionInput) string {
	return render(tReflection, map[string]any{
		"Subtask": in.Subtask, "Instruction": in.Instruction, "Action": in.Action, "Thought": in.Thought,
		"Note": in.Note, "Step": in.Step, "BeforeWindow": in.BeforeWindow, "AfterWindow": in.AfterWindow,
		"Before": labels(in.Before, 150), "After": labels(in.After, 150),
	})
}

// Reflect asks the Reflection agent whether the action worked.
func (c *Client) Reflect(ctx context.Context, in ReflectionInput, u *screen.Usage) (*Reflection, error) {
	text := ReflectionPrompt(in)
	parts := []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: text}}
	for _, im := range []image.Image{in.BeforeImage, in.AfterImage} {
		if im == nil {
			continue
		}
		data, mime, _, _, _, err := EncodeImage(im, c.cfg.ImageMaxSide, c.cfg.ImageFormat, c.cfg.JPEGQuality)
		if err != nil {
			return nil, fmt.Errorf("encode screenshot: %w", err)
		}
		parts = append(parts, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: dataURL(data, mime)}})
	}
	r := &Reflection{}
	feedback := ""
	for attempt := 0; ; attempt++ {
		msgParts := parts
		if feedback != "" {
			msgParts = append(append([]openai.ChatMessagePart(nil), parts...), openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: "Your previous answer was invalid: " + feedback})
		}
		req := openai.ChatCompletionRequest{
			Model: c.cfg.ReflectionModel, Temperature: c.cfg.Temperature, MaxTokens: c.cfg.MaxTokens,
			Messages: []openai.ChatCompletionMessage{
				{Role: openai.ChatMessageRoleSystem, Content: reflectionSystem},
				{Role: openai.ChatMessageRoleUser, MultiContent: msgParts},
			},
			Tools: []openai.Tool{verdictTool},
		}
		resp, err := c.call(ctx, "reflection", req, u, in.Record)
		if err != nil {
			return nil, err
		}
		var v struct{ Verdict, Reason string }
		name, args, content, perr := toolCall(resp.Choices[0].Message, false)
		if perr != nil {
			// Text fallback: "Verdict: correct — reason".
			if m := verdictLine.FindStringSubmatch(content); m != nil {
				v.Verdict, v.Reason, perr = m[1], strings.TrimSpace(m[2]), nil
			}
		} else if name != "verdict" {
			perr = fmt.Errorf("call the verdict tool, not %s", name)
		} else if err := json.Unmarshal(args, &v); err != nil {
			perr = fmt.Errorf("verdict arguments: %v", err)
		}
		if perr == nil {
			switch v.Verdict {
			case screen.VerdictCorrect, screen.VerdictWrong, screen.VerdictNoEffect:
				r.Verdict, r.Reason = v.Verdict, v.Reason
				return r, nil
			}
			perr = fmt.Errorf("verdict must be correct, wrong or no_effect, not %q", v.Verdict)
		}
		r.Invalid++
		if attempt >= c.cfg.MaxReasks {
			return r, &ErrInvalidOutput{Attempts: r.Invalid, Last: perr.Error()}
		}
		feedback = perr.Error()
	}
}

var verdictLine = regexp.MustCompile(`(?i)verdict:\s*(correct|wrong|no_effect)\b[\s:—-]*(.*)`)

// ProgressInput is what the Progress agent updates from.
type ProgressInput struct {
	Subtask, Instruction, Summary, Memory, Action, Thought, Verdict, Reason string
	Step                                                                    int
	Outputs                                                                 []string
	Record                                                                  func(Exchange)
}

// Progress is the updated summary and memory.
type Progress struct {
	Summary, Memory string
	Prompt          int
}

// ProgressPrompt renders the Progress agent's prompt. Its size depends on
// the summary and memory, not on the number of steps taken.
func ProgressPrompt(in ProgressInput) string {
	return render(tProgress, map[string]any{
		"Subtask": in.Subtask, "Instruction": in.Instruction, "Outputs": in.Outputs, "Summary": in.Summary,
		"Memory": in.Memory, "Step": in.Step, "Action": in.Action, "Thought": trunc(in.Thought, 600),
		"Verdict": in.Verdict, "Reason": trunc(in.Reason, 300),
	})
}

// UpdateProgress asks the Progress agent (text only) for a new summary and memory.
func (c *Client) UpdateProgress(ctx context.Context, in ProgressInput, u *screen.Usage) (*Progress, error) {
	text := ProgressPrompt(in)
	req := openai.ChatCompletionRequest{
		Model: c.cfg.ProgressModel, Temperature: c.cfg.Temperature, MaxTokens: c.cfg.MaxTokens,
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: progressSystem},
			{Role: openai.ChatMessageRoleUser, Content: text},
		},
		Tools: []openai.Tool{progressTool},
	}
	for attempt := 0; ; attempt++ {
		resp, err := c.call(ctx, "progress", req, u, in.Record)
		if err != nil {
			return nil, err
		}
		var p struct{ Summary, Memory string }
		name, args, content, perr := toolCall(resp.Choices[0].Message, false)
		if perr == nil && name == "update_progress" {
			perr = json.Unmarshal(args, &p)
		} else if perr != nil && content != "" {
			// Text-only models: take the whole answer as the summary.
			p.Summary, p.Memory, perr = trunc(content, 800), in.Memory, nil
		}
		if perr == nil {
			// Bound the sizes so the prompt stays flat however long the subtask.
			return &Progress{Summary: trunc(p.Summary, 800), Memory: trunc(p.Memory, 800), Prompt: len(text)}, nil
		}
		if attempt >= c.cfg.MaxReasks {
			return nil, &ErrInvalidOutput{Attempts: attempt + 1, Last: perr.Error()}
		}
	}
}

// PlannedSubtask is one subtask as the Manager agent proposes it.
type PlannedSubtask struct {
	Name        string       `json:"name"`
	Instruction string       `json:"instruction"`
	Device      string       `json:"device"`
	DependsOn   []string     `json:"depends_on"`
	Outputs     []OutputSpec `json:"outputs"`
}

// ManagerInput is what the Manager decomposes.
type ManagerInput struct {
	Instruction string
	Devices     []string // "name: description"
	Knowledge   []string
	// Validate checks a proposal against the task language's rules; its
	// error is fed back to the model.
	Validate func([]PlannedSubtask) error
	Record   func(Exchange)
}

// ManagerPrompt renders the Manager agent's prompt.
func ManagerPrompt(in ManagerInput, feedback string) string {
	return render(tManager, map[string]any{"Instruction": in.Instruction, "Devices": in.Devices, "Knowledge": in.Knowledge, "Feedback": feedback})
}

// Manage asks the Manager agent to decompose an instruction.
func (c *Client) Manage(ctx context.Context, in ManagerInput, u *screen.Usage) ([]PlannedSubtask, int, error) {
	feedback := ""
	invalid := 0
	for attempt := 0; ; attempt++ {
		text := ManagerPrompt(in, feedback)
		req := openai.ChatCompletionRequest{
			Model: c.cfg.ManagerModel, Temperature: c.cfg.Temperature, MaxTokens: c.cfg.MaxTokens * 2,
			Messages: []openai.ChatCompletionMessage{
				{Role: openai.ChatMessageRoleSystem, Content: managerSystem},
				{Role: openai.ChatMessageRoleUser, Content: text},
			},
			Tools: []openai.Tool{managerTool},
		}
		resp, err := c.call(ctx, "manager", req, u, in.Record)
		if err != nil {
			return nil, invalid, err
		}
		var p struct {
			Subtasks []struct {
				PlannedSubtask
				Outputs []struct{ Key, Description string } `json:"outputs"`
			} `json:"subtasks"`
		}
		name, args, _, perr := toolCall(resp.Choices[0].Message, false)
		if perr == nil && name != "plan_subtasks" {
			perr = fmt.Errorf("call plan_subtasks, not %s", name)
		}
		if perr == nil {
			perr = json.Unmarshal(args, &p)
		}
		var out []PlannedSubtask
		if perr == nil {
			for _, s := range p.Subtasks {
				ps := s.PlannedSubtask
				ps.Outputs = nil
				for _, o := range s.Outputs {
					ps.Outputs = append(ps.Outputs, OutputSpec{Key: o.Key, Description: o.Description})
				}
				sort.Strings(ps.DependsOn)
				out = append(out, ps)
			}
			if len(out) == 0 {
				perr = fmt.Errorf("the plan has no subtasks")
			} else if in.Validate != nil {
				perr = in.Validate(out)
			}
		}
		if perr == nil {
			return out, invalid, nil
		}
		invalid++
		if attempt >= c.cfg.MaxReasks {
			return nil, invalid, &ErrInvalidOutput{Attempts: invalid, Last: perr.Error()}
		}
		feedback = perr.Error()
	}
}
