package scripted

import (
	"context"
	"fmt"
	"image"
	"regexp"
	"strings"
	"unicode"

	openai "github.com/sashabaranov/go-openai"
	"golang.org/x/image/draw"

	"github.com/pcflow/pcflow/activities/agents/profile"
	"github.com/pcflow/pcflow/activities/screen"
)

// OCR reads the words an image shows, with their boxes in its pixels
// (x11.OCR on Linux).
type OCR func(ctx context.Context, img image.Image) ([]screen.Word, error)

// SetOCR gives the scripted grounder its eyes: it finds a described
// target by reading the screenshot it is sent. Call before Start.
func (s *Server) SetOCR(f OCR) { s.ocr = f }

// grounder plays a grounder model: it reads the screenshot the request
// carries (OCR), finds the text the description names — its quoted words,
// else its words that are not about the kind of thing ("button", "the",
// …) — and clicks the centre of that text, in the profile's wire format
// and coordinate space. It answers without a point when the text is not
// on the screenshot, as a model that cannot see it would.
func (s *Server) grounder(ctx context.Context, rec Request, req openai.ChatCompletionRequest, fault *Fault) (openai.ChatCompletionResponse, error) {
	desc := rec.Turn.Describe
	if desc == "" {
		return openai.ChatCompletionResponse{}, fmt.Errorf("grounder request names nothing to find (%s has no describe)", "X-Pcflow-Turn")
	}
	if s.ocr == nil {
		return openai.ChatCompletionResponse{}, fmt.Errorf("the scripted grounder cannot read the screenshot: the server has no OCR (SetOCR)")
	}
	img, err := requestImage(req)
	if err != nil {
		return openai.ChatCompletionResponse{}, err
	}
	p := profile.Profile{Name: "openai-tools", Protocol: profile.ProtoOpenAITools, Space: profile.SpaceImage}
	if prof := s.profileFor(rec); prof != nil {
		p = *prof
	}
	box, ok, err := s.look(ctx, img, wanted(desc))
	if err != nil {
		return openai.ChatCompletionResponse{}, err
	}
	if !ok {
		return toolAnswer(rec, "", nil, fmt.Sprintf("I cannot find %q on the screenshot.", desc), fault), nil
	}
	b := img.Bounds()
	ix, iy := box.Center()
	x, y, err := imageToSpace(p, b.Dx(), b.Dy(), float64(ix), float64(iy))
	if err != nil {
		return openai.ChatCompletionResponse{}, err
	}
	return profiled(p, rec, nil, Step{Action: "click"}, map[string]any{"x": x, "y": y}, fmt.Sprintf("%q reads at (%d,%d).", desc, x, y), fault)
}

// look finds want on img by OCR: at its size, then (large text, which
// OCR tuned for UI text misses) at half its size, boxes scaled back.
func (s *Server) look(ctx context.Context, img image.Image, want []string) (screen.Rect, bool, error) {
	for _, k := range []int{1, 2} {
		src := img
		if k > 1 {
			b := img.Bounds()
			small := image.NewRGBA(image.Rect(0, 0, b.Dx()/k, b.Dy()/k))
			draw.ApproxBiLinear.Scale(small, small.Bounds(), img, b, draw.Src, nil)
			src = small
		}
		words, err := s.ocr(ctx, src)
		if err != nil {
			return screen.Rect{}, false, fmt.Errorf("scripted grounder: OCR: %w", err)
		}
		if r, ok := findWords(words, want); ok {
			return screen.Rect{X: r.X * k, Y: r.Y * k, W: r.W * k, H: r.H * k}, true, nil
		}
	}
	return screen.Rect{}, false, nil
}

// quoted is a quoted phrase in a description.
var quoted = regexp.MustCompile(`["“'‘]([^"”'’]+)["”'’]`)

// kindWords say what kind of thing is described, not what it reads.
var kindWords = map[string]bool{
	"the": true, "a": true, "an": true, "button": true, "icon": true, "labelled": true, "labeled": true,
	"named": true, "called": true, "in": true, "on": true, "of": true, "at": true, "with": true, "toolbar": true,
	"canvas": true, "text": true, "link": true, "field": true, "box": true, "that": true, "says": true,
	"reads": true, "shows": true, "drawn": true, "page": true, "tab": true, "menu": true, "item": true, "word": true,
}

// wanted are the words a description asks to find, in order: its quoted
// phrase, else its words that are not kind words.
func wanted(desc string) []string {
	if m := quoted.FindStringSubmatch(desc); m != nil {
		return fold(m[1])
	}
	var out []string
	for _, w := range fold(desc) {
		if !kindWords[w] {
			out = append(out, w)
		}
	}
	return out
}

// fold is the lower-case words of s, punctuation dropped.
func fold(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// findWords finds want as consecutive OCR words (in reading order) and
// returns their box; failing that, the first word that is one of want.
func findWords(ws []screen.Word, want []string) (screen.Rect, bool) {
	if len(want) == 0 {
		return screen.Rect{}, false
	}
	type word struct {
		text string
		box  screen.Rect
	}
	var seq []word
	for _, w := range ws {
		for _, f := range fold(w.Text) {
			seq = append(seq, word{f, w.Box})
		}
	}
	for i := 0; i+len(want) <= len(seq); i++ {
		box, ok := seq[i].box, true
		for j, w := range want {
			if seq[i+j].text != w {
				ok = false
				break
			}
			box = box.Union(seq[i+j].box)
		}
		if ok {
			return box, true
		}
	}
	for _, s := range seq {
		for _, w := range want {
			if s.text == w {
				return s.box, true
			}
		}
	}
	return screen.Rect{}, false
}
