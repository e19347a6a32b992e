package activities

import (
	"image"
	"image/color"
	"image/draw"
	"strconv"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/pcflow/pcflow/activities/screen"
)

var markColors = []color.RGBA{
	{230, 25, 75, 255}, {60, 140, 60, 255}, {0, 100, 200, 255}, {200, 100, 0, 255},
	{145, 30, 180, 255}, {0, 128, 128, 255}, {128, 0, 0, 255}, {70, 70, 70, 255},
}

// Annotate draws the Set-of-Marks: a coloured box around every element and
// its number on a solid label, so the number stays legible whatever is
// beneath it. The original image is not changed.
func Annotate(img image.Image, els []screen.Element) image.Image {
	if img == nil {
		return nil
	}
	b := img.Bounds()
	out := image.NewRGBA(b)
	draw.Draw(out, b, img, b.Min, draw.Src)
	face := basicfont.Face7x13
	for _, e := range els {
		c := markColors[e.ID%len(markColors)]
		r := image.Rect(e.Box.X, e.Box.Y, e.Box.X+e.Box.W, e.Box.Y+e.Box.H).Intersect(b)
		if r.Empty() {
			continue
		}
		rectOutline(out, r, c)
		label := strconv.Itoa(e.ID)
		w := font.MeasureString(face, label).Ceil() + 4
		lr := image.Rect(r.Min.X, r.Min.Y-14, r.Min.X+w, r.Min.Y)
		if lr.Min.Y < b.Min.Y {
			lr = lr.Add(image.Pt(0, 14))
		}
		draw.Draw(out, lr, &image.Uniform{c}, image.Point{}, draw.Src)
		d := font.Drawer{Dst: out, Src: image.White, Face: face, Dot: fixed.P(lr.Min.X+2, lr.Max.Y-3)}
		d.DrawString(label)
	}
	return out
}

func rectOutline(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	for x := r.Min.X; x < r.Max.X; x++ {
		img.SetRGBA(x, r.Min.Y, c)
		img.SetRGBA(x, r.Max.Y-1, c)
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		img.SetRGBA(r.Min.X, y, c)
		img.SetRGBA(r.Max.X-1, y, c)
	}
}
