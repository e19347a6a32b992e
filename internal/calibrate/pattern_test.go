package calibrate_test

import (
	"math"
	"testing"

	"github.com/pcflow/pcflow/activities/agents/profile"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/calibrate"
)

func TestLayoutCoversCornersAndEdges(t *testing.T) {
	w, h := 1440, 900
	ts := calibrate.Layout(w, h)
	if len(ts) != 13 {
		t.Fatalf("Layout has %d targets, want 13", len(ts))
	}
	corners := map[[2]int]bool{}
	for i, a := range ts {
		if a.N != i+1 {
			t.Errorf("target %d numbered %d", i+1, a.N)
		}
		b := a.Box
		if b.X < 0 || b.Y < 0 || b.X+b.W > w || b.Y+b.H > h {
			t.Errorf("target %d %+v is off the %dx%d screen", a.N, b, w, h)
		}
		corners[[2]int{b.X, b.Y}] = true
		for _, o := range ts[i+1:] {
			if b.Overlaps(o.Box) {
				t.Errorf("targets %d and %d overlap", a.N, o.N)
			}
		}
	}
	for _, c := range [][2]int{{0, 0}, {w - calibrate.Size, 0}, {0, h - calibrate.Size}, {w - calibrate.Size, h - calibrate.Size}} {
		if !corners[c] {
			t.Errorf("no target in the corner at %v", c)
		}
	}
}

// TestFindThroughEverySizing: each target is found by colour in the image
// each built-in profile sends, and the point found, taken back to the
// screen by the profile, lies inside the target.
func TestFindThroughEverySizing(t *testing.T) {
	w, h := 1440, 900
	pattern := calibrate.Draw(w, h)
	for _, p := range profile.Builtins() {
		img, f, err := p.ScaleImage(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, tg := range calibrate.Layout(w, h) {
			ix, iy, ok := calibrate.Find(img, tg.N)
			if !ok {
				t.Errorf("%s: target %d not found in the %dx%d image", p.Name, tg.N, f.ImageW, f.ImageH)
				continue
			}
			// Image pixels → the screen, by the image's own scale.
			sx, sy := int(ix*float64(w)/float64(f.ImageW)), int(iy*float64(h)/float64(f.ImageH))
			shot := calibrate.Shot{Target: tg, X: sx, Y: sy}
			if !shot.Hit() || shot.Distance() > 3 {
				t.Errorf("%s: target %d %+v found at image (%g,%g) = screen (%d,%d), %.1f px off", p.Name, tg.N, tg.Box, ix, iy, sx, sy, shot.Distance())
			}
		}
	}
}

func TestTally(t *testing.T) {
	tg := calibrate.Target{N: 1, Box: screen.Rect{X: 0, Y: 0, W: 40, H: 40}}
	s := calibrate.Tally([]calibrate.Shot{
		{Target: tg, X: 20, Y: 20},
		{Target: tg, X: 23, Y: 24},
		{Target: tg, X: 60, Y: 20},
		{Target: tg, Err: "invalid answer"},
	})
	if s.Hits != 2 || s.Missing != 1 || s.Targets != 4 || math.Abs(s.MeanErr-(0+5+40)/3.0) > 1e-9 || s.MaxErr != 40 {
		t.Errorf("Tally = %+v, want 2 hits of 4, 1 missing, mean 15, max 40", s)
	}
	if got := s.String(); got != "hit rate 2/4 (50%), mean error 15.0 px, worst 40.0 px, 1 without a click" {
		t.Errorf("String() = %q", got)
	}
}
