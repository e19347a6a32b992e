package activities

import (
	"image"
	"image/color"
	"testing"

	"github.com/pcflow/pcflow/activities/screen"
)

// TestCrop: the crop holds the region's pixels, keeps its position, is
// clipped to the screen, and a region off the screen is an error.
func TestCrop(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 100, 80))
	for y := 0; y < 80; y++ {
		for x := 0; x < 100; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 0, 255})
		}
	}
	c, err := Crop(img, screen.Rect{X: 10, Y: 20, W: 30, H: 15})
	if err != nil {
		t.Fatal(err)
	}
	if b := c.Bounds(); b != image.Rect(10, 20, 40, 35) {
		t.Fatalf("Crop bounds = %v, want (10,20)-(40,35)", b)
	}
	for _, p := range []image.Point{{10, 20}, {39, 34}, {25, 27}} {
		r, g, _, _ := c.At(p.X, p.Y).RGBA()
		if int(r>>8) != p.X || int(g>>8) != p.Y {
			t.Errorf("crop at %v = (%d,%d), want the screen's pixel there", p, r>>8, g>>8)
		}
	}
	c, err = Crop(img, screen.Rect{X: 90, Y: 70, W: 30, H: 30})
	if err != nil || c.Bounds() != image.Rect(90, 70, 100, 80) {
		t.Errorf("Crop past the edge = %v, %v; want it clipped to (90,70)-(100,80)", c.Bounds(), err)
	}
	if _, err := Crop(img, screen.Rect{X: 200, Y: 10, W: 20, H: 20}); err == nil {
		t.Errorf("Crop off the screen: no error")
	}
}
