package imgmemo

import (
	"image"
	"testing"
)

func TestOnceForUnchangingImagesOnly(t *testing.T) {
	made := 0
	make := func() (int, error) { made++; return made, nil }
	kept := image.NewRGBA(image.Rect(0, 0, 4, 4))
	Unchanging(kept)
	a, _ := Once(kept, "k", make)
	b, _ := Once(kept, "k", make)
	if a != 1 || b != 1 || made != 1 {
		t.Errorf("an unchanging image: results %d, %d after %d makes, want 1, 1 after 1", a, b, made)
	}
	if c, _ := Once(kept, "other size", make); c != 2 {
		t.Errorf("another key: %d, want a result of its own (2)", c)
	}
	// An image nobody declared unchanging may be drawn on between two
	// uses: it is made again every time.
	free := image.NewRGBA(image.Rect(0, 0, 4, 4))
	Once(free, "k", make)
	if x, _ := Once(free, "k", make); x != 4 {
		t.Errorf("an image not declared unchanging: result %d, want 4 (made each time)", x)
	}
	// A non-pointer image (uncomparable as a map key) is made each time,
	// never kept.
	Unchanging(image.Rectangle{})
	if y, _ := Once(image.Image(image.Rectangle{}), "k", make); y != 5 {
		t.Errorf("a value image: result %d, want 5", y)
	}
	// Only the last memoImages images are kept.
	for i := 0; i < memoImages; i++ {
		Unchanging(image.NewRGBA(image.Rect(0, 0, 1, 1)))
	}
	if z, _ := Once(kept, "k", make); z != 6 {
		t.Errorf("an image pushed out by %d newer ones: result %d, want 6 (made again)", memoImages, z)
	}
}
