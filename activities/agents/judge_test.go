package agents_test

import (
	"context"
	"image"
	"image/color"
	"image/draw"
	"strings"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/agents"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/screen"
)

// screenWith is a 1280×800 screen showing lines of dark text in Go's
// sans-serif at 32 px, as an editor would.
func screenWith(t testing.TB, lines ...string) image.Image {
	t.Helper()
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 32, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, 1280, 800))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	d := font.Drawer{Dst: img, Src: image.NewUniform(color.Black), Face: face}
	for i, l := range lines {
		d.Dot = fixed.P(40, 80+48*i)
		d.DrawString(l)
	}
	return img
}

// TestScriptedJudgeReadsTheScreenshot: the scripted judge decides from the
// text OCR reads on the screenshot it is sent, not from anything else: the
// same check passes a screen that shows the list and fails one that does
// not, with a score of the share seen.
func TestScriptedJudgeReadsTheScreenshot(t *testing.T) {
	s := script(scripted.Step{Action: "wait"})
	s.Judges = map[string]scripted.JudgeScript{"list": {Expect: []string{`(?i)milk`, `(?i)eggs`, `(?i)bread`}}}
	_, cfg := serve(t, s)
	cfg.ImageMaxSide = 1280 // as a judge's screenshot is sent by default
	c := agents.New(cfg)
	for _, tc := range []struct {
		lines []string
		pass  bool
		score float64
	}{
		{[]string{"SHOPPING", "milk", "eggs", "bread"}, true, 1},
		{[]string{"SHOPPING", "milk", "butter"}, false, 1.0 / 3},
	} {
		j, err := c.Judge(context.Background(), agent.JudgeInput{Check: "list", Rubric: "The list has milk, eggs and bread.", Score: true,
			Screens: []agent.JudgeScreen{{Device: "desktop", Image: screenWith(t, tc.lines...)}}}, &screen.Usage{})
		if err != nil {
			t.Fatal(err)
		}
		if j.Pass != tc.pass || j.Score == nil || *j.Score != tc.score || !strings.Contains(j.Reasons, "1 screenshot(s)") {
			t.Errorf("judge of a screen showing %q = %+v (score %v), want pass %v with score %v", tc.lines, j, j.Score, tc.pass, tc.score)
		}
	}
}

// BenchmarkScriptedJudge is one judge check's model call on the scripted
// model: a 1280×800 screenshot (encoded, sent, OCR'd) and a file of 20,000
// characters.
func BenchmarkScriptedJudge(b *testing.B) {
	s := script(scripted.Step{Action: "wait"})
	s.Judges = map[string]scripted.JudgeScript{"list": {Expect: []string{`(?i)milk`}}}
	_, cfg := serve(b, s)
	cfg.ImageMaxSide = 1280
	c := agents.New(cfg)
	in := agent.JudgeInput{Check: "list", Rubric: "The list has milk.", Screens: []agent.JudgeScreen{{Device: "desktop", Image: screenWith(b, "milk", "eggs")}},
		Files: []agent.JudgeFile{{Path: "/tmp/list.txt", Text: strings.Repeat("milk eggs bread\n", 1250)}}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if j, err := c.Judge(context.Background(), in, &screen.Usage{}); err != nil || !j.Pass {
			b.Fatalf("judge = %+v, %v", j, err)
		}
	}
}
