package x11

import (
	"bytes"
	"context"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/artifacts"
	"github.com/pcflow/pcflow/activities/screen"
)

// waitModel looks at the screen and waits.
type waitModel struct{ pressModel }

func (waitModel) Decide(context.Context, agent.DecisionInput, *screen.Usage) (*agent.Decision, error) {
	return &agent.Decision{Thought: "look", Action: screen.Action{Kind: screen.ActWait}}, nil
}

// TestSecretInATitleBarIsMasked: a window whose title holds a secret (an
// editor showing a file named after it) has its title bar painted over in
// the screenshot that is stored and sent to the model, from one end to
// the other — the window manager draws that text, so neither an element
// nor, reliably, OCR accounts for it — and the title is redacted in the
// observation's text.
func TestSecretInATitleBarIsMasked(t *testing.T) {
	dev := desktop(t)
	const secret = "hunter2zq"
	file := filepath.Join(t.TempDir(), secret+"-notes.txt")
	if err := os.WriteFile(file, []byte("nothing to see\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	app(t, dev, secret, "mousepad", file)
	s, err := dev.Observe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var bar screen.Rect
	for _, tb := range s.TitleBars {
		if strings.Contains(tb.Title, secret) {
			bar = tb.Box
		}
	}
	if bar.W < 100 || bar.H < 5 {
		t.Fatalf("no title bar found for the editor: %+v", s.TitleBars)
	}
	store := artifacts.Dir{Root: t.TempDir()}
	a := &activities.Activities{Device: dev, Model: waitModel{}, Artifacts: store, Secrets: map[string]string{"pw": secret}}
	res, err := a.Decide(context.Background(), activities.DecideInput{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Observation.ActiveWindow, secret) {
		t.Errorf("observation's active window = %q, holds the secret", res.Observation.ActiveWindow)
	}
	b, err := store.Get(res.Observation.Screenshot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	mask := color.RGBA{40, 40, 40, 255}
	y := bar.Y + bar.H/2
	for _, x := range []int{bar.X + 4, bar.X + bar.W/4, bar.X + bar.W/2, bar.X + 3*bar.W/4, bar.X + bar.W - 4} {
		if c := color.RGBAModel.Convert(img.At(x, y)); c != mask {
			t.Errorf("title bar pixel (%d,%d) = %v, want the mask %v (bar %+v)", x, y, c, mask, bar)
		}
	}
}
