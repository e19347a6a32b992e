package imgscale

import (
	"image"
	"image/color"
	"math/rand/v2"
	"testing"

	"golang.org/x/image/draw"
)

// screenLike is an image with flat areas, sharp edges and noise, as
// screens have.
func screenLike(w, h int, seed uint64) *image.RGBA {
	r := rand.New(rand.NewPCG(seed, 1))
	im := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.RGBA{uint8(x * 7), uint8(y * 3), uint8((x ^ y) & 0xff), 255}
			if (x/9+y/13)%3 == 0 {
				c = color.RGBA{uint8(r.IntN(256)), uint8(r.IntN(256)), uint8(r.IntN(256)), 255}
			}
			im.SetRGBA(x, y, c)
		}
	}
	return im
}

// TestBilinearIsApproxBiLinear: down and up, whole images and sub-images,
// every channel of every pixel within one level of x/image/draw's.
func TestBilinearIsApproxBiLinear(t *testing.T) {
	src := screenLike(331, 207, 7)
	for _, c := range []struct {
		src  image.Image
		w, h int
	}{
		{src, 256, 160}, {src, 331, 207}, {src, 500, 301}, {src, 37, 11}, {src, 1, 1},
		{src.SubImage(image.Rect(40, 30, 200, 190)), 120, 77},
	} {
		want := image.NewRGBA(image.Rect(0, 0, c.w, c.h))
		draw.ApproxBiLinear.Scale(want, want.Bounds(), c.src, c.src.Bounds(), draw.Src, nil)
		got := image.NewRGBA(image.Rect(0, 0, c.w, c.h))
		Bilinear(got, c.src)
		worst := 0
		for i := range want.Pix {
			worst = max(worst, abs(int(want.Pix[i])-int(got.Pix[i])))
		}
		if worst > 1 {
			t.Errorf("%v → %dx%d: a channel differs by %d levels from draw.ApproxBiLinear", c.src.Bounds(), c.w, c.h, worst)
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// BenchmarkScale: a 1280×800 screen to 1024×640, this package against
// x/image/draw's ApproxBiLinear.
func BenchmarkScale(b *testing.B) {
	src := screenLike(1280, 800, 3)
	dst := image.NewRGBA(image.Rect(0, 0, 1024, 640))
	b.Run("imgscale", func(b *testing.B) {
		for b.Loop() {
			Bilinear(dst, src)
		}
	})
	b.Run("x-image-draw", func(b *testing.B) {
		for b.Loop() {
			draw.ApproxBiLinear.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
		}
	})
}
