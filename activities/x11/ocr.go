package x11

import (
	"context"
	"image"

	"golang.org/x/image/draw"

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
	gray := image.NewGray(image.Rect(0, 0, b.Dx()*2, b.Dy()*2))
	draw.BiLinear.Scale(gray, gray.Bounds(), img, b, draw.Src, nil)
	words, err := tesseract(ctx, gray, "11")
	if err != nil {
		return nil, err
	}
	for i := range words {
		r := words[i].Box
		words[i].Box = screen.Rect{X: r.X/2 + b.Min.X, Y: r.Y/2 + b.Min.Y, W: (r.W + 1) / 2, H: (r.H + 1) / 2}
	}
	return words, nil
}

// ReadText reads the words img shows with tesseract (see OCR).
func (d *Device) ReadText(ctx context.Context, img image.Image) ([]screen.Word, error) {
	return OCR(ctx, img)
}
