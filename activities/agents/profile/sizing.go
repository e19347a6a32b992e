package profile

import (
	"fmt"
	"math"
)

// Sizing modes: how a screenshot is scaled before it is sent.
const (
	// SizeLongestSide scales so the longest side is at most MaxSide
	// (pcflow's default; 0 sends the screen unscaled).
	SizeLongestSide = "longest-side"
	// SizeSmartResize sends the image smart_resize would make of the
	// screen, so the model's pixels are the image's pixels.
	SizeSmartResize = "smart-resize"
	// SizeFit scales down to fit within Width×Height, keeping the aspect
	// ratio (Anthropic recommends at most 1024×768).
	SizeFit = "fit"
)

// Sizing says how screenshots are scaled for the model.
type Sizing struct {
	Mode    string      `json:"mode"`
	MaxSide int         `json:"max_side,omitempty"`
	Width   int         `json:"width,omitempty"`
	Height  int         `json:"height,omitempty"`
	Resize  SmartResize `json:"resize,omitzero"`
}

// Size returns the size of the image to send for a w×h screen.
func (s Sizing) Size(w, h int) (int, int, error) {
	if w <= 0 || h <= 0 {
		return 0, 0, fmt.Errorf("screen %dx%d is empty", w, h)
	}
	switch s.Mode {
	case SizeLongestSide, "":
		if long := max(w, h); s.MaxSide > 0 && long > s.MaxSide {
			k := float64(s.MaxSide) / float64(long)
			return max(1, int(float64(w)*k)), max(1, int(float64(h)*k)), nil
		}
		return w, h, nil
	case SizeSmartResize:
		return s.Resize.Resize(w, h)
	case SizeFit:
		if s.Width <= 0 || s.Height <= 0 {
			return 0, 0, fmt.Errorf("sizing %q needs width and height", s.Mode)
		}
		k := math.Min(float64(s.Width)/float64(w), float64(s.Height)/float64(h))
		if k >= 1 {
			return w, h, nil
		}
		return max(1, int(math.Round(float64(w)*k))), max(1, int(math.Round(float64(h)*k))), nil
	}
	return 0, 0, fmt.Errorf("unknown image sizing %q; use %s, %s or %s", s.Mode, SizeLongestSide, SizeSmartResize, SizeFit)
}
