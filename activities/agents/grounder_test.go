package agents_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/agents"
	"github.com/pcflow/pcflow/activities/agents/profile"
	"github.com/pcflow/pcflow/activities/agents/scripted"
	"github.com/pcflow/pcflow/activities/screen"
)

// canvas is an 1280×800 screen that shows two words drawn as pixels only
// (no element names them): Cancel at about (250,400) and Save at about
// (900,400).
func canvas(t *testing.T) image.Image {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 1280, 800))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	f, err := opentype.Parse(gobold.TTF)
	if err != nil {
		t.Fatal(err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 48, DPI: 72})
	if err != nil {
		t.Fatal(err)
	}
	d := font.Drawer{Dst: img, Src: image.NewUniform(color.Black), Face: face}
	for _, w := range []struct {
		text string
		x, y int
	}{{"Cancel", 180, 415}, {"Save", 850, 415}} {
		d.Dot = fixed.P(w.x, w.y)
		d.DrawString(w.text)
	}
	return img
}

// tesseractOCR reads an image's words with the tesseract program, as the
// Linux device does (TSV, sparse text).
func tesseractOCR(ctx context.Context, img image.Image) ([]screen.Word, error) {
	var in bytes.Buffer
	if err := png.Encode(&in, img); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "tesseract", "stdin", "stdout", "--psm", "11", "-l", "eng", "tsv")
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		return nil, err
	}
	r := csv.NewReader(bytes.NewReader(out))
	r.Comma, r.LazyQuotes, r.FieldsPerRecord = '\t', true, -1
	var ws []screen.Word
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil || len(rec) < 12 || strings.TrimSpace(rec[11]) == "" || rec[0] == "level" {
			continue
		}
		n := make([]int, 4)
		for i := range n {
			n[i], _ = strconv.Atoi(rec[6+i])
		}
		ws = append(ws, screen.Word{Text: rec[11], Box: screen.Rect{X: n[0], Y: n[1], W: n[2], H: n[3]}})
	}
	return ws, nil
}

// TestGrounderInEveryProfile: the Decision agent names its target by
// description; the grounder, speaking each built-in profile (its wire
// format and coordinate space, computer-use tools included), is played by
// the scripted model, which reads the screenshot by OCR. The click must
// land on the word Save, and the action must carry the description, the
// grounder's answer and the point.
func TestGrounderInEveryProfile(t *testing.T) {
	if _, err := exec.LookPath("tesseract"); err != nil {
		t.Skip("tesseract is not installed (scripts/setup.sh installs it)")
	}
	shot := canvas(t)
	desc := `the "Save" button`
	for _, p := range profile.Builtins() {
		t.Run(p.Name, func(t *testing.T) {
			srv, cfg := serve(t, script(scripted.Step{Action: "click", Args: map[string]any{"target": desc}, Thought: "Save it."}))
			srv.SetOCR(tesseractOCR)
			cfg.Roles = map[string]profile.Profile{agent.RoleGrounder: p}
			cfg.GrounderModel = "m-grounder"
			in := input()
			in.Elements, in.Image, in.Screenshot = nil, shot, shot
			var u screen.Usage
			d, err := agents.New(cfg).Decide(context.Background(), in, &u)
			if err != nil {
				t.Fatal(err)
			}
			a := d.Action
			if a.Kind != "click" || a.X < 850 || a.X > 970 || a.Y < 375 || a.Y > 420 {
				t.Errorf("click = %+v, want it on the word Save (850–970, 375–420)", a)
			}
			if len(a.Grounded) != 1 || a.Grounded[0].Describe != desc || a.Grounded[0].Profile != p.Name || a.Grounded[0].Answer == "" ||
				a.Grounded[0].X != a.X || a.Grounded[0].Model != "m-grounder" {
				t.Errorf("grounded = %+v, want the description, %s's answer and the point", a.Grounded, p.Name)
			}
			if u.ByModel["m-grounder"].Calls != 1 || u.ByModel["m-decision"].Calls != 1 {
				t.Errorf("usage by model = %+v, want one call each of m-decision and m-grounder", u.ByModel)
			}
		})
	}
}

// TestGrounderRefusals: without a grounder a description is an invalid
// answer saying what to do; a grounder that lands on a named control of
// another name is refused, and the Decision agent is told which it hit.
func TestGrounderRefusals(t *testing.T) {
	if _, err := exec.LookPath("tesseract"); err != nil {
		t.Skip("tesseract is not installed (scripts/setup.sh installs it)")
	}
	shot := canvas(t)
	step := scripted.Step{Action: "click", Args: map[string]any{"target": `the "Save" button`}}

	srv, cfg := serve(t, script(step))
	srv.SetOCR(tesseractOCR)
	in := input()
	in.Image, in.Screenshot = shot, shot
	_, err := agents.New(cfg).Decide(context.Background(), in, &screen.Usage{})
	if err == nil || !strings.Contains(err.Error(), "no grounder is configured") {
		t.Errorf("Decide without a grounder = %v, want an invalid answer naming the missing grounder", err)
	}

	srv, cfg = serve(t, script(step))
	srv.SetOCR(tesseractOCR)
	cfg.Roles = map[string]profile.Profile{agent.RoleGrounder: profile.Builtins()[0]}
	in.Elements = []screen.Element{{ID: 7, Role: "push button", Name: "Delete everything", Box: screen.Rect{X: 800, Y: 350, W: 250, H: 100}}}
	d, err := agents.New(cfg).Decide(context.Background(), in, &screen.Usage{})
	if err == nil || len(d.Errors) == 0 || !strings.Contains(d.Errors[0], `on element [7] push button "Delete everything"`) {
		t.Errorf("Decide onto another control = %v (%v), want it refused naming element 7", err, d)
	}
}

// BenchmarkGroundedDecision measures a decision whose target is named by
// description, the scripted grounder (uitars-1.5) reading a 1280×800
// screenshot by OCR, against one naming a mark.
func BenchmarkGroundedDecision(b *testing.B) {
	if _, err := exec.LookPath("tesseract"); err != nil {
		b.Skip("tesseract is not installed")
	}
	t := &testing.T{}
	shot := canvas(t)
	set, _ := profile.NewSet()
	uitars, _ := set.Get("uitars-1.5")
	for _, bc := range []struct {
		name string
		step scripted.Step
	}{
		{"mark", scripted.Step{Action: "click", Target: "Save"}},
		{"described", scripted.Step{Action: "click", Args: map[string]any{"target": `the "Save" button`}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			srv := scripted.New(script(bc.step))
			if err := srv.Start("127.0.0.1:0"); err != nil {
				b.Fatal(err)
			}
			defer srv.Close()
			srv.SetOCR(tesseractOCR)
			cfg := agents.Config{BaseURL: srv.URL, APIKey: "k", DecisionModel: "m", MaxTokens: 256, ImageMaxSide: 1280,
				ImageFormat: "png", MaxReasks: 1, Scripted: true, Roles: map[string]profile.Profile{agent.RoleGrounder: uitars}}
			c := agents.New(cfg)
			in := input()
			in.Image, in.Screenshot = shot, shot
			b.ResetTimer()
			for b.Loop() {
				if _, err := c.Decide(context.Background(), in, &screen.Usage{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
