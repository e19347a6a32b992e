package x11

import (
	"bytes"
	"testing"
	"time"
)

// grab reads the same pixels as robotgo's capture (which stays the
// fallback), on a screen showing a real application.
func TestGrabIsTheScreen(t *testing.T) {
	dev := desktop(t)
	app(t, dev, "galculator", "galculator")
	settle(dev, 5*time.Second)
	xu, err := dev.x()
	if err != nil {
		t.Fatal(err)
	}
	for attempt := 0; ; attempt++ {
		got, err := grab(xu)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Capture()
		if err != nil {
			t.Fatal(err)
		}
		if got.Bounds() != want.Bounds() {
			t.Fatalf("grab: %v, robotgo: %v", got.Bounds(), want.Bounds())
		}
		if bytes.Equal(got.Pix, want.Pix) {
			return
		}
		// The screen may have changed between the two (a caret blinks).
		if attempt == 5 {
			diff := 0
			for i := range got.Pix {
				if got.Pix[i] != want.Pix[i] {
					diff++
				}
			}
			t.Fatalf("grab and robotgo differ in %d of %d bytes", diff, len(got.Pix))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func BenchmarkCapture(b *testing.B) {
	dev := desktop(b)
	xu, err := dev.x()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("robotgo", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := Capture(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("grab", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := grab(xu); err != nil {
				b.Fatal(err)
			}
		}
	})
}
