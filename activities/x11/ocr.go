package x11

import (
	"context"
	"image"
	"image/color"

	"github.com/pcflow/pcflow/activities/screen"
)

// MergeOCR adds OCR text lines that overlap no tree element, as PC-Agent
// does, and renumbers.
func MergeOCR(els []screen.Element, words []screen.Word) []screen.Element {
	out := append([]screen.Element(nil), els...)
	for _, l := range lines(words) {
		covered := false
		for _, e := range els {
			if e.Box.Overlaps(l.Box) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, screen.Element{Role: "text", Name: l.Text, Box: l.Box, Source: "ocr"})
		}
	}
	for i := range out {
		out[i].ID = i + 1
	}
	return out
}

// lines joins consecutive words on one line (close together) into one box.
func lines(words []screen.Word) []screen.Word {
	var out []screen.Word
	for _, w := range words {
		if n := len(out); n > 0 {
			last := &out[n-1]
			sameLine := abs(last.Box.Y-w.Box.Y) < max(last.Box.H, w.Box.H)/2+2
			near := w.Box.X-(last.Box.X+last.Box.W) < 2*max(w.Box.H, 8)
			if sameLine && near && w.Box.X >= last.Box.X {
				last.Text += " " + w.Text
				last.Box = last.Box.Union(w.Box)
				continue
			}
		}
		out = append(out, w)
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// OCR runs tesseract on a 2× upscaled grayscale copy of img (which more
// than doubles its recall of small UI text) and returns word boxes in
// screen coordinates.
func OCR(ctx context.Context, img image.Image) ([]screen.Word, error) {
	b := img.Bounds()
	words, err := tesseract(ctx, gray2x(img), "11")
	if err != nil {
		return nil, err
	}
	for i := range words {
		r := words[i].Box
		words[i].Box = screen.Rect{X: r.X/2 + b.Min.X, Y: r.Y/2 + b.Min.Y, W: (r.W + 1) / 2, H: (r.H + 1) / 2}
	}
	return words, nil
}

// ReadText reads the words img shows with tesseract (see OCR), again
// only where it differs from the last screen the device read (ocrFrame).
func (d *Device) ReadText(ctx context.Context, img image.Image) ([]screen.Word, error) {
	return d.ocrLast.read(ctx, img)
}

// gray2x is img in grayscale at twice its size, interpolated bilinearly
// between pixel centres as draw.BiLinear does: each new pixel is ¾ of its
// nearest source pixel and ¼ of the next one, in each direction. It is
// computed directly: x/image/draw has no fast path into a Gray image, and
// took a quarter of a second per screen there.
func gray2x(img image.Image) *image.Gray {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	out := image.NewGray(image.Rect(0, 0, 2*w, 2*h))
	if w == 0 || h == 0 {
		return out
	}
	src := make([]uint8, w*h)
	if rgba, ok := img.(*image.RGBA); ok {
		for y := 0; y < h; y++ {
			row := rgba.Pix[(y+b.Min.Y-rgba.Rect.Min.Y)*rgba.Stride+(b.Min.X-rgba.Rect.Min.X)*4:]
			for x := 0; x < w; x++ {
				r, g, bl := uint32(row[4*x])*0x101, uint32(row[4*x+1])*0x101, uint32(row[4*x+2])*0x101
				src[y*w+x] = uint8((19595*r + 38470*g + 7471*bl + 1<<15) >> 24) // color.GrayModel
			}
		}
	} else {
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				src[y*w+x] = color.GrayModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.Gray).Y
			}
		}
	}
	// Rows doubled horizontally, in quarters (×4).
	wide := make([]uint16, 2*w*h)
	for y := 0; y < h; y++ {
		s, d := src[y*w:(y+1)*w], wide[y*2*w:(y+1)*2*w]
		for x := 0; x < w; x++ {
			c, l, r := uint16(s[x]), uint16(s[max(x-1, 0)]), uint16(s[min(x+1, w-1)])
			d[2*x], d[2*x+1] = 3*c+l, 3*c+r
		}
	}
	// Then vertically, in sixteenths.
	for y := 0; y < h; y++ {
		c, u, dn := wide[y*2*w:(y+1)*2*w], wide[max(y-1, 0)*2*w:], wide[min(y+1, h-1)*2*w:]
		top, bottom := out.Pix[2*y*out.Stride:], out.Pix[(2*y+1)*out.Stride:]
		for x := 0; x < 2*w; x++ {
			top[x] = uint8((3*uint32(c[x]) + uint32(u[x]) + 8) / 16)
			bottom[x] = uint8((3*uint32(c[x]) + uint32(dn[x]) + 8) / 16)
		}
	}
	return out
}
