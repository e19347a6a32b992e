// Package calibrate is pcflow's coordinate self-test: a pattern of
// numbered targets (at the corners and edges too) shown full-screen on a
// display, a record of where real clicks arrive, and the score of a
// model's clicks (hit rate, mean error in screen pixels).
package calibrate

import (
	"fmt"
	"image"
	"image/color"
	"math"

	"github.com/pcflow/pcflow/activities/screen"
)

// Target is one numbered square of the pattern, in screen pixels.
type Target struct {
	N   int         `json:"n"`
	Box screen.Rect `json:"box"`
}

// Size is a target's side in screen pixels.
const Size = 40

// Layout places the targets on a w×h screen: the four corners, the middle
// of each edge, the centre, and four between centre and corners — 13
// targets, numbered from 1 in reading order.
func Layout(w, h int) []Target {
	xs := []int{0, (w - Size) / 4, (w - Size) / 2, 3 * (w - Size) / 4, w - Size}
	ys := []int{0, (h - Size) / 4, (h - Size) / 2, 3 * (h - Size) / 4, h - Size}
	cells := [][2]int{
		{0, 0}, {2, 0}, {4, 0},
		{1, 1}, {3, 1},
		{0, 2}, {2, 2}, {4, 2},
		{1, 3}, {3, 3},
		{0, 4}, {2, 4}, {4, 4},
	}
	ts := make([]Target, len(cells))
	for i, c := range cells {
		ts[i] = Target{N: i + 1, Box: screen.Rect{X: xs[c[0]], Y: ys[c[1]], W: Size, H: Size}}
	}
	return ts
}

// Color is target n's fill: full green, no blue, and a red that tells the
// targets apart. Scaling blends edges with the black background (less
// green) or the black label (less green), so a pixel of exactly this
// colour is inside target n.
func Color(n int) color.RGBA {
	return color.RGBA{R: uint8(16 * n), G: 255, B: 0, A: 255}
}

const tolerance = 3

// Find locates target n in an image by its colour, as a model finds it by
// looking: the centre of the box around the pixels of n's colour, in the
// image's pixels. ok is false when the target is not visible.
func Find(img image.Image, n int) (cx, cy float64, ok bool) {
	want := Color(n)
	b := img.Bounds()
	x0, y0, x1, y1 := math.MaxInt, math.MaxInt, -1, -1
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if near(r>>8, want.R) && near(g>>8, want.G) && near(bl>>8, want.B) {
				x0, y0 = min(x0, x), min(y0, y)
				x1, y1 = max(x1, x), max(y1, y)
			}
		}
	}
	if x1 < 0 {
		return 0, 0, false
	}
	return float64(x0+x1+1)/2 - float64(b.Min.X), float64(y0+y1+1)/2 - float64(b.Min.Y), true
}

func near(v uint32, w uint8) bool {
	d := int(v) - int(w)
	return d >= -tolerance && d <= tolerance
}

// Shot is one target's outcome: where the model's click arrived on the
// screen (as the pattern window received it), or the error that kept the
// click from happening.
type Shot struct {
	Target Target `json:"target"`
	X      int    `json:"x"`
	Y      int    `json:"y"`
	Err    string `json:"error,omitempty"`
}

// Hit reports whether the click landed inside the target.
func (s Shot) Hit() bool {
	b := s.Target.Box
	return s.Err == "" && s.X >= b.X && s.X < b.X+b.W && s.Y >= b.Y && s.Y < b.Y+b.H
}

// Distance is how far the click landed from the target's centre, in
// screen pixels.
func (s Shot) Distance() float64 {
	b := s.Target.Box
	cx, cy := float64(b.X)+float64(b.W)/2, float64(b.Y)+float64(b.H)/2
	return math.Hypot(float64(s.X)-cx, float64(s.Y)-cy)
}

// Score sums up shots: hits, the mean distance of the clicks that
// happened, and the worst.
type Score struct {
	Targets int     `json:"targets"`
	Hits    int     `json:"hits"`
	Missing int     `json:"missing"` // no click (invalid answers, errors)
	MeanErr float64 `json:"mean_error_px"`
	MaxErr  float64 `json:"max_error_px"`
}

// HitRate is hits per target, 0–1.
func (s Score) HitRate() float64 {
	if s.Targets == 0 {
		return 0
	}
	return float64(s.Hits) / float64(s.Targets)
}

// String is the one-line summary.
func (s Score) String() string {
	return fmt.Sprintf("hit rate %d/%d (%.0f%%), mean error %.1f px, worst %.1f px, %d without a click",
		s.Hits, s.Targets, 100*s.HitRate(), s.MeanErr, s.MaxErr, s.Missing)
}

// Tally scores shots.
func Tally(shots []Shot) Score {
	s := Score{Targets: len(shots)}
	n := 0
	for _, sh := range shots {
		if sh.Err != "" {
			s.Missing++
			continue
		}
		if sh.Hit() {
			s.Hits++
		}
		d := sh.Distance()
		s.MeanErr += d
		s.MaxErr = max(s.MaxErr, d)
		n++
	}
	if n > 0 {
		s.MeanErr /= float64(n)
	}
	return s
}

// Draw renders the pattern into an image of w×h (the pattern window draws
// the same; tests use it without a display).
func Draw(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		if i%4 == 3 {
			img.Pix[i] = 255
		}
	}
	for _, t := range Layout(w, h) {
		c := Color(t.N)
		for y := t.Box.Y; y < t.Box.Y+t.Box.H; y++ {
			for x := t.Box.X; x < t.Box.X+t.Box.W; x++ {
				img.SetRGBA(x, y, c)
			}
		}
	}
	return img
}
