package x11

import (
	"image"
	"image/color"
	"math/rand"
	"testing"

	"golang.org/x/image/draw"
)

// gray2x is draw.BiLinear into a Gray image twice the size, within one
// level of grey (rounding), on a screen-like image of text-sharp edges and
// on a cropped one.
func TestGray2xIsBiLinear(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	img := image.NewRGBA(image.Rect(0, 0, 97, 61))
	for i := range img.Pix {
		img.Pix[i] = uint8(rng.Intn(256))
	}
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
	for _, src := range []image.Image{img, img.SubImage(image.Rect(10, 7, 50, 40))} {
		b := src.Bounds()
		want := image.NewGray(image.Rect(0, 0, 2*b.Dx(), 2*b.Dy()))
		draw.BiLinear.Scale(want, want.Bounds(), src, b, draw.Src, nil)
		got := gray2x(src)
		if got.Bounds() != want.Bounds() {
			t.Fatalf("bounds %v, want %v", got.Bounds(), want.Bounds())
		}
		worst := 0
		for y := 0; y < 2*b.Dy(); y++ {
			for x := 0; x < 2*b.Dx(); x++ {
				d := int(got.GrayAt(x, y).Y) - int(want.GrayAt(x, y).Y)
				worst = max(worst, d, -d)
			}
		}
		if worst > 1 {
			t.Errorf("source %v: differs from draw.BiLinear by up to %d levels, want ≤ 1", b, worst)
		}
	}
	// Any other image type goes through the colour model.
	gr := image.NewGray(image.Rect(0, 0, 3, 2))
	gr.SetGray(1, 1, color.Gray{Y: 200})
	if got := gray2x(gr); got.GrayAt(3, 3).Y == 0 {
		t.Errorf("a Gray source lost its pixel: %v", got.Pix)
	}
}

func BenchmarkOCRUpscale(b *testing.B) {
	img := image.NewRGBA(image.Rect(0, 0, 1280, 800))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	b.Run("draw.BiLinear", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			g := image.NewGray(image.Rect(0, 0, 2560, 1600))
			draw.BiLinear.Scale(g, g.Bounds(), img, img.Bounds(), draw.Src, nil)
		}
	})
	b.Run("gray2x", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			gray2x(img)
		}
	})
}
