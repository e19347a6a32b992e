package activities

import (
	"fmt"
	"image"
	"image/color"
	"math/bits"
	"strings"
	"unicode"
)

// The measures of a similarity check, as OSWorld's evaluators score
// closeness: text by rapidfuzz's ratio (the share of characters the two
// texts have in common, in order: 2·LCS / (len a + len b)), after
// collapsing runs of white space, as its compare_docx_files does;
// images by the mean structural similarity (SSIM) of their RGB channels
// over 7×7 windows, as skimage's structural_similarity that its GIMP
// checks call (constants K1 = 0.01, K2 = 0.03, sample covariance), with
// images of different sizes scoring 0.

// TextRatio scores how alike two texts are, from 0 to 1: 2·LCS/(|a|+|b|)
// over runes, where LCS is the length of their longest common
// subsequence. Two empty texts are identical (1).
func TextRatio(a, b string) float64 {
	ra, rb := []rune(a), []rune(b)
	if len(ra)+len(rb) == 0 {
		return 1
	}
	return 2 * float64(lcs(ra, rb)) / float64(len(ra)+len(rb))
}

// normalizeText collapses every run of white space into one space and
// trims the ends; with fold, it also compares without case.
func normalizeText(s string, fold bool) string {
	s = strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
	if fold {
		s = strings.ToLower(s)
	}
	return s
}

// lcs is the length of the longest common subsequence of a and b, by the
// bit-parallel method of Allison and Dix (as Hyyrö writes it): one bit per
// rune of a, so the work is len(b) × len(a)/64 word operations — a
// 100,000-character document against another takes a fraction of a
// second where the plain table would take minutes.
func lcs(a, b []rune) int {
	if len(a) < len(b) {
		a, b = b, a
	}
	if len(b) == 0 {
		return 0
	}
	words := (len(a) + 63) / 64
	match := map[rune][]uint64{}
	for i, r := range a {
		m := match[r]
		if m == nil {
			m = make([]uint64, words)
			match[r] = m
		}
		m[i/64] |= 1 << (i % 64)
	}
	v := make([]uint64, words)
	for i := range v {
		v[i] = ^uint64(0)
	}
	zero := make([]uint64, words)
	for _, r := range b {
		m := match[r]
		if m == nil {
			m = zero
		}
		// v = (v + (v & m)) | (v & ^m), the sum carried across words.
		var carry uint64
		for i := range v {
			u := v[i] & m[i]
			sum, c := bits.Add64(v[i], u, carry)
			carry = c
			v[i] = sum | (v[i] &^ m[i])
		}
	}
	// Each zero bit among the first len(a) is one rune of the LCS.
	n := 0
	for i, w := range v {
		if i == words-1 && len(a)%64 != 0 {
			w |= ^uint64(0) << (len(a) % 64)
		}
		n += 64 - bits.OnesCount64(w)
	}
	return n
}

// ssimWindow is the side of the square window SSIM averages over.
const ssimWindow = 7

// SSIM is the mean structural similarity of two images of the same size,
// over their red, green and blue channels (alpha is dropped, as PIL's
// convert("RGB") does), from -1 to 1 (1: identical). Images of different
// sizes are an error; images smaller than the window use the largest odd
// window that fits.
func SSIM(a, b image.Image) (float64, error) {
	ab, bb := a.Bounds(), b.Bounds()
	if ab.Dx() != bb.Dx() || ab.Dy() != bb.Dy() {
		return 0, fmt.Errorf("the images differ in size: %dx%d and %dx%d", ab.Dx(), ab.Dy(), bb.Dx(), bb.Dy())
	}
	w, h := ab.Dx(), ab.Dy()
	win := min(ssimWindow, w, h)
	if win%2 == 0 {
		win--
	}
	if win < 1 {
		return 0, fmt.Errorf("an image of %dx%d has no pixels to compare", w, h)
	}
	pa, pb := rgbPlanes(a), rgbPlanes(b)
	var total float64
	for ch := range 3 {
		total += planeSSIM(pa[ch], pb[ch], w, h, win)
	}
	return total / 3, nil
}

// rgbPlanes splits an image into three planes of 8-bit values, row by row.
func rgbPlanes(img image.Image) [3][]uint8 {
	r := img.Bounds()
	var p [3][]uint8
	for ch := range p {
		p[ch] = make([]uint8, r.Dx()*r.Dy())
	}
	i := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			p[0][i], p[1][i], p[2][i] = c.R, c.G, c.B
			i++
		}
	}
	return p
}

// planeSSIM averages SSIM over every win×win window that lies wholly in
// the plane. Column sums over the current band of rows are kept up to
// date as the band moves down, so each window costs a few additions.
func planeSSIM(x, y []uint8, w, h, win int) float64 {
	const l = 255.0
	c1, c2 := (0.01*l)*(0.01*l), (0.03*l)*(0.03*l)
	n := float64(win * win)
	norm := n / (n - 1) // sample covariance, as skimage's default
	if win == 1 {
		norm = 1
	}
	// col[k][c]: the sum over the band's rows of x, y, x², y², xy at column c.
	var col [5][]int64
	for k := range col {
		col[k] = make([]int64, w)
	}
	add := func(row int, sign int64) {
		for c := range w {
			a, b := int64(x[row*w+c]), int64(y[row*w+c])
			col[0][c] += sign * a
			col[1][c] += sign * b
			col[2][c] += sign * a * a
			col[3][c] += sign * b * b
			col[4][c] += sign * a * b
		}
	}
	for r := range win - 1 {
		add(r, 1)
	}
	var total float64
	windows := 0
	for top := 0; top+win <= h; top++ {
		add(top+win-1, 1)
		var s [5]int64
		for c := range win - 1 {
			for k := range s {
				s[k] += col[k][c]
			}
		}
		for left := 0; left+win <= w; left++ {
			for k := range s {
				s[k] += col[k][left+win-1]
			}
			ux, uy := float64(s[0])/n, float64(s[1])/n
			vx := norm * (float64(s[2])/n - ux*ux)
			vy := norm * (float64(s[3])/n - uy*uy)
			vxy := norm * (float64(s[4])/n - ux*uy)
			total += ((2*ux*uy + c1) * (2*vxy + c2)) / ((ux*ux + uy*uy + c1) * (vx + vy + c2))
			windows++
			for k := range s {
				s[k] -= col[k][left]
			}
		}
		add(top, -1)
	}
	return total / float64(windows)
}
