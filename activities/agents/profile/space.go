package profile

import (
	"fmt"
	"math"
)

// Space is the coordinate space a model answers in. Every space has one
// transform to screen pixels (ToScreen) and its inverse (FromScreen).
type Space string

// Coordinate spaces of the model families pcflow speaks to.
const (
	// SpaceImage is pixels of the image sent (GPT-4o, Claude, OpenAI's
	// computer tool): the screen scaled by the image sizing.
	SpaceImage Space = "image"
	// SpaceRelative1000 is 0–1000 per axis, relative to the image
	// (UI-TARS 1.0, Qwen3-VL, Doubao): x = 1000 is the right edge.
	SpaceRelative1000 Space = "relative-1000"
	// SpaceRelative999 is 0–999 per axis, relative to the image, with 999
	// the right or bottom edge: screen x = x / 999 × width (EvoCUA, whose
	// agent maps its Qwen3-VL answers so).
	SpaceRelative999 Space = "relative-999"
	// SpaceNormalized999 is a 1000×1000 grid with values 0–999 (Gemini's
	// computer-use model): screen x = x / 1000 × width.
	SpaceNormalized999 Space = "normalized-999"
	// SpaceSmartResize is absolute pixels of the image after Qwen's
	// smart_resize (Qwen2.5-VL, UI-TARS-1.5): the vision encoder resizes
	// whatever it is sent, and the model answers in the resized frame.
	SpaceSmartResize Space = "smart-resize"
)

// Frame is what a transform needs to know: the screen and the image sent.
type Frame struct {
	ScreenW, ScreenH int
	ImageW, ImageH   int
}

// SmartResize holds the parameters of Qwen's smart_resize.
type SmartResize struct {
	Factor    int `json:"factor"`
	MinPixels int `json:"min_pixels"`
	MaxPixels int `json:"max_pixels"`
}

// Qwen's published defaults.
var (
	// QwenVL25Resize is Qwen2.5-VL's image processor default
	// (min_pixels 56×56, max_pixels 16384×28×28). OpenCUA-7B/32B map
	// their answers with the same (factor 28, min_pixels 3136, max_pixels
	// 12845056: OpenCUA's model/README.md, OSWorld's mm_agents/opencua).
	QwenVL25Resize = SmartResize{Factor: 28, MinPixels: 56 * 56, MaxPixels: 16384 * 28 * 28}
	// UITARS15Resize is UI-TARS-1.5's coordinate processing
	// (MIN_PIXELS 100×28×28, MAX_PIXELS 16384×28×28).
	UITARS15Resize = SmartResize{Factor: 28, MinPixels: 100 * 28 * 28, MaxPixels: 16384 * 28 * 28}
	// EvoCUAResize is EvoCUA's image processing (mm_agents/evocua/utils.py:
	// factor 32, min_pixels 56×56, max_pixels 16×16×4×12800).
	EvoCUAResize = SmartResize{Factor: 32, MinPixels: 56 * 56, MaxPixels: 16 * 16 * 4 * 12800}
	// QwenVL3Resize is Qwen3-VL's (patch 16, merge 2: factor 32).
	QwenVL3Resize = SmartResize{Factor: 32, MinPixels: 64 * 32 * 32, MaxPixels: 16384 * 32 * 32}
)

// maxRatio is smart_resize's aspect-ratio limit.
const maxRatio = 200

// Resize returns smart_resize(height, width) as Qwen's vision_process.py
// computes it: both sides multiples of Factor, the pixel count within
// [MinPixels, MaxPixels], the aspect ratio kept as closely as possible.
// Python's round() rounds half to even; so does this.
func (s SmartResize) Resize(width, height int) (w, h int, err error) {
	if width <= 0 || height <= 0 {
		return 0, 0, fmt.Errorf("smart_resize of %dx%d: sides must be positive", width, height)
	}
	if s.Factor <= 0 {
		return 0, 0, fmt.Errorf("smart_resize factor %d must be positive", s.Factor)
	}
	if r := float64(max(width, height)) / float64(min(width, height)); r > maxRatio {
		return 0, 0, fmt.Errorf("smart_resize of %dx%d: aspect ratio %.0f is over %d", width, height, r, maxRatio)
	}
	f := float64(s.Factor)
	roundBy := func(v float64) int { return int(math.RoundToEven(v/f)) * s.Factor }
	floorBy := func(v float64) int { return int(math.Floor(v/f)) * s.Factor }
	ceilBy := func(v float64) int { return int(math.Ceil(v/f)) * s.Factor }
	hh, ww := float64(height), float64(width)
	hBar := max(s.Factor, roundBy(hh))
	wBar := max(s.Factor, roundBy(ww))
	switch {
	case s.MaxPixels > 0 && hBar*wBar > s.MaxPixels:
		beta := math.Sqrt(hh * ww / float64(s.MaxPixels))
		hBar, wBar = floorBy(hh/beta), floorBy(ww/beta)
	case hBar*wBar < s.MinPixels:
		beta := math.Sqrt(float64(s.MinPixels) / (hh * ww))
		hBar, wBar = ceilBy(hh*beta), ceilBy(ww*beta)
	}
	return wBar, hBar, nil
}

// Extent is the size of the model's coordinate frame for f: the
// largest coordinate values plus one for pixel spaces, 1000 or 1000 for
// the grids (999 for relative-999).
func (p Profile) Extent(f Frame) (w, h float64, err error) {
	switch p.Space {
	case SpaceImage, "":
		return float64(f.ImageW), float64(f.ImageH), nil
	case SpaceRelative1000, SpaceNormalized999:
		return 1000, 1000, nil
	case SpaceRelative999:
		return 999, 999, nil
	case SpaceSmartResize:
		sw, sh, err := p.Resize.Resize(f.ImageW, f.ImageH)
		return float64(sw), float64(sh), err
	}
	return 0, 0, fmt.Errorf("unknown coordinate space %q", p.Space)
}

// limit is the largest value the model may give on an axis of extent e.
func (p Profile) limit(e float64) float64 {
	switch p.Space {
	case SpaceRelative1000:
		return 1000
	case SpaceNormalized999, SpaceRelative999:
		return 999
	}
	return e - 1
}

// RangeError is a coordinate outside the model's space. It is fed back to
// the model (a re-ask), never clamped.
type RangeError struct {
	Axis  string
	Value float64
	Max   float64
	Space Space
}

func (e *RangeError) Error() string {
	return fmt.Sprintf("%s=%g is outside the %s coordinate space (0–%g); %s", e.Axis, e.Value, e.Space, e.Max, hint(e.Space, e.Max))
}

func hint(s Space, m float64) string {
	switch s {
	case SpaceRelative1000:
		return "give x and y in thousandths of the image width and height (0–1000)"
	case SpaceNormalized999:
		return "give x and y on the 1000×1000 grid (0–999)"
	case SpaceRelative999:
		return "give x and y in 999ths of the image width and height (0–999)"
	}
	return fmt.Sprintf("give pixels of the %s frame you see (0–%g)", s, m)
}

// ToScreen maps a point the model gave to screen pixels. A point outside
// the space is a *RangeError, never clamped.
func (p Profile) ToScreen(x, y float64, f Frame) (int, int, error) {
	ew, eh, err := p.Extent(f)
	if err != nil {
		return 0, 0, err
	}
	if f.ScreenW <= 0 || f.ScreenH <= 0 || ew <= 0 || eh <= 0 {
		return 0, 0, fmt.Errorf("coordinate frame %+v is empty", f)
	}
	for _, c := range []struct {
		axis string
		v, e float64
	}{{"x", x, ew}, {"y", y, eh}} {
		if lim := p.limit(c.e); math.IsNaN(c.v) || c.v < 0 || c.v > lim {
			return 0, 0, &RangeError{Axis: c.axis, Value: c.v, Max: lim, Space: p.spaceOrImage()}
		}
	}
	sx := axisToScreen(x, ew, f.ScreenW)
	sy := axisToScreen(y, eh, f.ScreenH)
	return sx, sy, nil
}

// axisToScreen scales v in [0, extent] to a pixel in [0, screen-1]. The
// last value of a grid (1000 of 0–1000) is the last pixel, not one past it.
func axisToScreen(v, extent float64, screen int) int {
	s := int(math.Floor(v * float64(screen) / extent))
	return min(s, screen-1)
}

// FromScreen maps a screen pixel into the model's space: the centre of the
// pixel's cell, so ToScreen(FromScreen(p)) == p for every pixel in the
// spaces at least as fine as the screen, and a point within one cell of p
// otherwise.
func (p Profile) FromScreen(sx, sy int, f Frame) (float64, float64, error) {
	ew, eh, err := p.Extent(f)
	if err != nil {
		return 0, 0, err
	}
	if f.ScreenW <= 0 || f.ScreenH <= 0 {
		return 0, 0, fmt.Errorf("coordinate frame %+v is empty", f)
	}
	return axisFromScreen(sx, ew, f.ScreenW), axisFromScreen(sy, eh, f.ScreenH), nil
}

func axisFromScreen(s int, extent float64, screen int) float64 {
	return (float64(s) + 0.5) * extent / float64(screen)
}

func (p Profile) spaceOrImage() Space {
	if p.Space == "" {
		return SpaceImage
	}
	return p.Space
}
