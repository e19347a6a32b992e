package activities

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestTextRatio: the score is rapidfuzz's ratio (2·LCS / total length),
// which OSWorld's fuzzy_match and compare_docx_files use: the published
// examples give the published numbers, and the bit-parallel LCS equals the
// plain table on random texts longer than one and two machine words.
func TestTextRatio(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want float64
	}{
		{"this is a test", "this is a test!", 28.0 / 29},
		{"fuzzy wuzzy was a bear", "wuzzy fuzzy was a bear", 40.0 / 44},
		{"same", "same", 1},
		{"", "", 1},
		{"abc", "", 0},
		{"abc", "xyz", 0},
		{"Grüße", "Grusse", 2 * 3.0 / 11},
	} {
		if got := TextRatio(tt.a, tt.b); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("TextRatio(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	text := func(n int) []rune {
		r := make([]rune, n)
		for i := range r {
			r[i] = rune('a' + rng.IntN(4))
		}
		return r
	}
	for _, n := range [][2]int{{1, 1}, {63, 64}, {64, 65}, {130, 97}, {200, 300}, {7, 129}} {
		a, b := text(n[0]), text(n[1])
		if got, want := lcs(a, b), naiveLCS(a, b); got != want {
			t.Errorf("lcs of %d and %d runes = %d, want %d (the plain table)", n[0], n[1], got, want)
		}
	}
}

func naiveLCS(a, b []rune) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// TestSSIMMatchesTheDefinition: the sliding sums give, window by window,
// what the SSIM formula gives over each 7×7 window computed directly
// (skimage's defaults: K1 0.01, K2 0.03, sample covariance).
func TestSSIMMatchesTheDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const w, h = 23, 17
	x, y := make([]uint8, w*h), make([]uint8, w*h)
	for i := range x {
		x[i] = uint8(rng.IntN(256))
		y[i] = uint8(min(255, max(0, int(x[i])+rng.IntN(81)-40)))
	}
	got := planeSSIM(x, y, w, h, 7)
	var total float64
	var n int
	for top := 0; top+7 <= h; top++ {
		for left := 0; left+7 <= w; left++ {
			var xs, ys []float64
			for r := top; r < top+7; r++ {
				for c := left; c < left+7; c++ {
					xs, ys = append(xs, float64(x[r*w+c])), append(ys, float64(y[r*w+c]))
				}
			}
			total += windowSSIM(xs, ys)
			n++
		}
	}
	if want := total / float64(n); math.Abs(got-want) > 1e-9 {
		t.Errorf("planeSSIM = %.12f, want %.12f (window by window)", got, want)
	}
	if same := planeSSIM(x, x, w, h, 7); same != 1 {
		t.Errorf("planeSSIM of a plane with itself = %v, want exactly 1", same)
	}
}

func windowSSIM(x, y []float64) float64 {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i] / n
		my += y[i] / n
	}
	var vx, vy, cov float64
	for i := range x {
		vx += (x[i] - mx) * (x[i] - mx) / (n - 1)
		vy += (y[i] - my) * (y[i] - my) / (n - 1)
		cov += (x[i] - mx) * (y[i] - my) / (n - 1)
	}
	c1, c2 := math.Pow(0.01*255, 2), math.Pow(0.03*255, 2)
	return (2*mx*my + c1) * (2*cov + c2) / ((mx*mx + my*my + c1) * (vx + vy + c2))
}
