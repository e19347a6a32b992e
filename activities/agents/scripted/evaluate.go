package scripted

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	_ "image/jpeg" // judge screenshots may come as JPEG
	"image/png"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"golang.org/x/image/draw"

	"github.com/pcflow/pcflow/internal/text"
)

// JudgeScript is how the scripted judge decides one judge check (by the
// check's name): every pattern of Expect (a Go regular expression) must
// be found in what the judge was shown — the text OCR reads on the
// screenshots attached, and the files' text the prompt carries. The
// score, when the rubric asks for one, is the share of patterns found.
type JudgeScript struct {
	Expect []string `json:"expect"`
}

// UserRule is how the scripted simulated user answers: a question that
// Question matches (a Go regular expression) is answered with the first
// group (or the whole match) of FromPersona over the persona's text (who
// they are, what they know, want, and how they answer); an approval whose
// action Action matches is approved when FromPersona matches the persona,
// rejected when not. A question no rule matches, or whose answer the
// persona does not hold, is answered "I don't know.".
type UserRule struct {
	Question    string `json:"question,omitempty"`
	Action      string `json:"action,omitempty"`
	FromPersona string `json:"from_persona"`
}

// judge plays the judge of a judge check from what it was shown.
func (s *Server) judge(rec Request, req openai.ChatCompletionRequest, fault *Fault) (openai.ChatCompletionResponse, error) {
	jf := rec.Turn.Judge
	if jf == nil {
		return openai.ChatCompletionResponse{}, fmt.Errorf("a judge request must carry the judge's facts in %s", "X-Pcflow-Turn")
	}
	js, ok := s.script.Judges[jf.Check]
	if !ok {
		return roleAnswer(rec, "judgement", map[string]any{"verdict": "fail", "reasons": fmt.Sprintf("the script has no judge for check %q", jf.Check)}, fault), nil
	}
	var seen []string
	for i, im := range requestImages(req) {
		t, err := s.read(im)
		if err != nil {
			return roleAnswer(rec, "judgement", map[string]any{"verdict": "fail", "reasons": fmt.Sprintf("cannot read screenshot %d: %v", i+1, err)}, fault), nil
		}
		seen = append(seen, t)
	}
	for _, f := range jf.Files {
		seen = append(seen, f.Text)
	}
	all := strings.Join(seen, "\n")
	var found, missing []string
	for _, p := range js.Expect {
		re, err := regexp.Compile(p)
		if err != nil {
			return openai.ChatCompletionResponse{}, fmt.Errorf("judge %q: pattern %q: %w", jf.Check, p, err)
		}
		if m := re.FindString(all); m != "" {
			found = append(found, fmt.Sprintf("%q", m))
		} else {
			missing = append(missing, "/"+p+"/")
		}
	}
	args := map[string]any{"verdict": "pass"}
	reasons := fmt.Sprintf("%d screenshot(s) and %d file(s) show %d of %d things the rubric asks", len(requestImages(req)), len(jf.Files), len(found), len(js.Expect))
	if len(found) > 0 {
		reasons += "; seen: " + strings.Join(found, ", ")
	}
	if len(missing) > 0 {
		args["verdict"] = "fail"
		reasons += "; not seen: " + strings.Join(missing, ", ") + " (read: " + fmt.Sprintf("%q", text.Trunc(strings.Join(strings.Fields(all), " "), 200)) + ")"
	}
	args["reasons"] = reasons
	if jf.Score && len(js.Expect) > 0 {
		args["score"] = float64(len(found)) / float64(len(js.Expect))
	}
	return roleAnswer(rec, "judgement", args, fault), nil
}

// user plays a task's simulated user from the persona and what is asked.
func (s *Server) user(rec Request, fault *Fault) (openai.ChatCompletionResponse, error) {
	uf := rec.Turn.User
	if uf == nil {
		return openai.ChatCompletionResponse{}, fmt.Errorf("a simulated user's request must carry the persona in %s", "X-Pcflow-Turn")
	}
	p := uf.Persona
	persona := strings.Join([]string{p.Persona, p.Knows, p.Wants, p.Style}, "\n")
	for _, r := range s.script.User {
		asked, pattern := uf.Question, r.Question
		if uf.Question == "" {
			asked, pattern = uf.Action, r.Action
		}
		if pattern == "" {
			continue
		}
		q, err := regexp.Compile(pattern)
		if err != nil {
			return openai.ChatCompletionResponse{}, fmt.Errorf("user rule %q: %w", pattern, err)
		}
		if !q.MatchString(asked) {
			continue
		}
		from, err := regexp.Compile(r.FromPersona)
		if err != nil {
			return openai.ChatCompletionResponse{}, fmt.Errorf("user rule from_persona %q: %w", r.FromPersona, err)
		}
		m := from.FindStringSubmatch(persona)
		if uf.Question == "" {
			if m == nil {
				return roleAnswer(rec, "decide", map[string]any{"decision": "reject", "reason": "that is not what I want"}, fault), nil
			}
			return roleAnswer(rec, "decide", map[string]any{"decision": "approve", "reason": "yes, I want " + m[0]}, fault), nil
		}
		if m == nil {
			break
		}
		ans := m[0]
		if len(m) > 1 {
			ans = m[1]
		}
		return roleAnswer(rec, "reply", map[string]any{"answer": ans}, fault), nil
	}
	if uf.Question == "" {
		return roleAnswer(rec, "decide", map[string]any{"decision": "reject", "reason": "I was not asked to approve that"}, fault), nil
	}
	return roleAnswer(rec, "reply", map[string]any{"answer": "I don't know."}, fault), nil
}

// requestImages decodes the images a request carries as data URLs.
func requestImages(req openai.ChatCompletionRequest) []image.Image {
	var out []image.Image
	for _, m := range req.Messages {
		for _, p := range m.MultiContent {
			if p.ImageURL == nil {
				continue
			}
			_, data, ok := strings.Cut(p.ImageURL.URL, ";base64,")
			if !ok {
				continue
			}
			b, err := base64.StdEncoding.DecodeString(data)
			if err != nil {
				continue
			}
			if im, _, err := image.Decode(bytes.NewReader(b)); err == nil {
				out = append(out, im)
			}
		}
	}
	return out
}

// read is the text an image shows, read by tesseract as the devices read
// screens (twice the size, in grey, sparse text).
func (s *Server) read(im image.Image) (string, error) {
	b := im.Bounds()
	gray := image.NewGray(image.Rect(0, 0, b.Dx()*2, b.Dy()*2))
	draw.BiLinear.Scale(gray, gray.Bounds(), im, b, draw.Src, nil)
	var buf bytes.Buffer
	if err := png.Encode(&buf, gray); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "tesseract", "stdin", "stdout", "--psm", "11")
	cmd.Stdin = &buf
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("tesseract: %v: %s", err, text.Trunc(strings.TrimSpace(stderr.String()), 200))
	}
	return string(out), nil
}
