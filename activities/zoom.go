package activities

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/draw"
	"image/png"

	"go.temporal.io/sdk/temporal"

	"github.com/pcflow/pcflow/activities/agent"
	"github.com/pcflow/pcflow/activities/screen"
)

// ZoomName is the registered name of the Zoom activity.
const ZoomName = "Zoom"

// ZoomInput is a zoom action and the screenshot of the step it looks into.
type ZoomInput struct {
	Step       int           `json:"step"`
	Screenshot string        `json:"screenshot"` // artifact ref, redacted like every stored screenshot
	Action     screen.Action `json:"action"`
}

// ZoomResult is the region, cropped and stored.
type ZoomResult struct {
	Zoom agent.Zoom `json:"zoom"`
}

// Zoom crops the region a zoom action names out of its step's screenshot
// and stores the crop for the next decision. It reads the stored
// screenshot (whose secrets are painted over already), never the device:
// it touches no input, and it is idempotent (artifacts are
// content-addressed), so a retry or a replay changes nothing.
func (a *Activities) Zoom(ctx context.Context, in ZoomInput) (*ZoomResult, error) {
	if in.Action.Kind != screen.ActZoom {
		return nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf("zoom: not a zoom action: %s", in.Action.Summary()), ErrTypeDevice, nil)
	}
	img, err := a.loadPNG(in.Screenshot)
	if err != nil {
		return nil, fmt.Errorf("zoom: the step's screenshot: %w", err)
	}
	r := screen.Rect{X: in.Action.X, Y: in.Action.Y, W: in.Action.X2 - in.Action.X, H: in.Action.Y2 - in.Action.Y}
	crop, err := Crop(img, r)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError("zoom: "+err.Error(), ErrTypeDevice, nil)
	}
	ref, err := a.putPNG(crop)
	if err != nil {
		return nil, err
	}
	cb := crop.Bounds()
	return &ZoomResult{Zoom: agent.Zoom{Image: ref, Region: screen.Rect{X: cb.Min.X, Y: cb.Min.Y, W: cb.Dx(), H: cb.Dy()}}}, nil
}

// Crop returns the part of img within r, clipped to img; its bounds keep
// r's position. A region outside img is an error.
func Crop(img image.Image, r screen.Rect) (image.Image, error) {
	want := image.Rect(r.X, r.Y, r.X+r.W, r.Y+r.H)
	got := want.Intersect(img.Bounds())
	if got.Empty() {
		return nil, fmt.Errorf("region (%d,%d)–(%d,%d) is outside the %dx%d screen", r.X, r.Y, r.X+r.W, r.Y+r.H, img.Bounds().Dx(), img.Bounds().Dy())
	}
	dst := image.NewRGBA(got)
	draw.Draw(dst, got, img, got.Min, draw.Src)
	return dst, nil
}

// zoomView loads the crop a previous zoom stored, for the Decision agent.
func (a *Activities) zoomView(z *agent.Zoom) (*agent.ZoomView, error) {
	if z == nil {
		return nil, nil
	}
	img, err := a.loadPNG(z.Image)
	if err != nil {
		return nil, fmt.Errorf("the previous step's zoom: %w", err)
	}
	return &agent.ZoomView{Image: img, Region: z.Region}, nil
}

// loadPNG reads a stored PNG.
func (a *Activities) loadPNG(ref string) (image.Image, error) {
	if img, ok := a.images.get(ref); ok {
		return img, nil
	}
	b, err := a.Artifacts.Get(ref)
	if err != nil {
		return nil, err
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ref, err)
	}
	a.images.put(ref, img)
	return img, nil
}
