package fastpng

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math/rand"
	"os"
	"testing"
)

// screen is a screenshot-like image: flat panels, a gradient, text-like
// noise, and (unless opaque) a translucent corner; a sub-image of a
// larger one when offset.
func screen(w, h int, opaque, offset bool) *image.RGBA {
	r := rand.New(rand.NewSource(1))
	big := image.NewRGBA(image.Rect(-7, -5, w+20, h+9))
	for y := big.Rect.Min.Y; y < big.Rect.Max.Y; y++ {
		for x := big.Rect.Min.X; x < big.Rect.Max.X; x++ {
			c := color.RGBA{0xee, 0xee, 0xec, 0xff}
			switch {
			case y%40 < 12 && x%90 < 60 && r.Intn(3) == 0:
				c = color.RGBA{uint8(r.Intn(80)), uint8(r.Intn(80)), uint8(r.Intn(80)), 0xff}
			case x > w/2:
				c = color.RGBA{uint8(x), uint8(y), 0x80, 0xff}
			}
			if !opaque && x < 10 && y < 10 {
				c.A = 0x80
			}
			big.SetRGBA(x, y, c)
		}
	}
	if offset {
		return big.SubImage(image.Rect(3, 2, 3+w, 2+h)).(*image.RGBA)
	}
	return big.SubImage(image.Rect(0, 0, w, h)).(*image.RGBA)
}

// TestEncodeDecodesToTheSamePixels: what Encode writes, image/png reads
// back pixel for pixel, opaque or not, whole image or sub-image.
func TestEncodeDecodesToTheSamePixels(t *testing.T) {
	for _, c := range []struct {
		name           string
		opaque, offset bool
	}{{"opaque", true, false}, {"alpha", false, false}, {"sub-image", true, true}} {
		src := screen(301, 77, c.opaque, c.offset)
		var buf bytes.Buffer
		if err := Encode(&buf, src); err != nil {
			t.Fatal(err)
		}
		got, err := png.Decode(&buf)
		if err != nil {
			t.Fatalf("%s: image/png cannot read it: %v", c.name, err)
		}
		if got.Bounds().Dx() != src.Rect.Dx() || got.Bounds().Dy() != src.Rect.Dy() {
			t.Fatalf("%s: size %v, want %v", c.name, got.Bounds(), src.Rect)
		}
		gb := got.Bounds()
		for y := 0; y < src.Rect.Dy(); y++ {
			for x := 0; x < src.Rect.Dx(); x++ {
				want := src.RGBAAt(src.Rect.Min.X+x, src.Rect.Min.Y+y)
				r, g, b, a := got.At(gb.Min.X+x, gb.Min.Y+y).RGBA()
				// image/png gives non-premultiplied RGBA as NRGBA: compare
				// through the colour model.
				w := color.NRGBAModel.Convert(want).(color.NRGBA)
				gc := color.NRGBAModel.Convert(color.RGBA64{uint16(r), uint16(g), uint16(b), uint16(a)}).(color.NRGBA)
				if c.opaque && gc != w {
					t.Fatalf("%s: pixel (%d,%d) = %v, want %v", c.name, x, y, gc, w)
				}
				if !c.opaque && (gc.A != w.A || (w.A == 0xff && gc != w)) {
					t.Fatalf("%s: pixel (%d,%d) = %v, want %v", c.name, x, y, gc, w)
				}
			}
		}
	}
}

// BenchmarkEncode compares Encode with image/png at BestSpeed on a
// screenshot (PCFLOW_SHOT, a PNG file; else a made-up screen): time and
// bytes.
func BenchmarkEncode(b *testing.B) {
	var img *image.RGBA
	if f := os.Getenv("PCFLOW_SHOT"); f != "" {
		fh, err := os.Open(f)
		if err != nil {
			b.Fatal(err)
		}
		m, err := png.Decode(fh)
		fh.Close()
		if err != nil {
			b.Fatal(err)
		}
		img = image.NewRGBA(m.Bounds())
		draw.Draw(img, img.Bounds(), m, m.Bounds().Min, draw.Src)
	} else {
		img = screen(1440, 900, true, false)
	}
	for _, c := range []struct {
		name string
		enc  func(*bytes.Buffer) error
	}{
		{"fastpng", func(buf *bytes.Buffer) error { return Encode(buf, img) }},
		{"image-png-bestspeed", func(buf *bytes.Buffer) error {
			return (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(buf, img)
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var buf bytes.Buffer
			for i := 0; i < b.N; i++ {
				buf.Reset()
				if err := c.enc(&buf); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(buf.Len())/1024, "KiB")
		})
	}
}
