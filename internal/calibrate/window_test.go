package calibrate_test

import (
	"context"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/activities/x11"
	"github.com/pcflow/pcflow/internal/calibrate"
)

// TestWindowOnRealDisplay shows the pattern on a headless desktop: every
// target is on the screenshot where the layout says, and a real click on
// each arrives at the window where it was made.
func TestWindowOnRealDisplay(t *testing.T) {
	d, err := x11.Up(context.Background(), x11.DesktopOptions{StateDir: t.TempDir()})
	if err != nil {
		t.Fatalf("desktop: %v", err)
	}
	t.Cleanup(d.Down)
	for k, v := range d.Env {
		t.Setenv(k, v)
	}
	dev, err := x11.New()
	if err != nil {
		t.Fatal(err)
	}
	dev.OCRMode = x11.OCRNever
	t.Cleanup(dev.Close)

	w, err := calibrate.Open(d.Display)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	time.Sleep(300 * time.Millisecond)
	s, err := dev.Observe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range w.Targets() {
		x, y, ok := calibrate.Find(s.Image, tg.N)
		cx, cy := tg.Box.Center()
		if !ok || int(x) != cx || int(y) != cy {
			t.Errorf("target %d: found at (%g,%g) ok=%v on the screenshot, want its centre (%d,%d)", tg.N, x, y, ok, cx, cy)
		}
	}
	w.Drain()
	for _, tg := range w.Targets() {
		x, y := tg.Box.X+3, tg.Box.Y+tg.Box.H-2
		if _, err := dev.Act(context.Background(), screen.Action{Kind: screen.ActClick, X: x, Y: y}); err != nil {
			t.Fatal(err)
		}
		p, err := w.NextClick(5 * time.Second)
		if err != nil || p.X != x || p.Y != y {
			t.Errorf("click at (%d,%d) on target %d arrived at %v, %v", x, y, tg.N, p, err)
		}
	}
}
