package x11

import (
	"errors"
	"fmt"
	"image"

	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgbutil"
)

// errGrabFormat is grab's answer for a display whose pixel format it does
// not read: Capture (robotgo) reads it instead.
var errGrabFormat = errors.New("the display's pixel format is not 32 bits per pixel, least significant byte first")

// grab reads the screen with one GetImage request on the device's own X
// connection: ZPixmap, 32 bits per pixel, least significant byte first
// (blue, green, red, unused), the format of Xvfb and of 24-bit displays.
// robotgo's capture took about 90 ms for a 1280×800 screen here; this
// moves the same bytes through the socket and reorders them in Go. No
// shared memory is involved, so it works inside a sandbox with its own
// IPC namespace; shmScreen.grab reads through shared memory where it can.
func grab(xu *xgbutil.XUtil) (*image.RGBA, error) {
	w, h, err := grabSize(xu)
	if err != nil {
		return nil, err
	}
	rep, err := xproto.GetImage(xu.Conn(), xproto.ImageFormatZPixmap, xproto.Drawable(xu.RootWin()), 0, 0, uint16(w), uint16(h), 0xffffffff).Reply()
	if err != nil {
		return nil, fmt.Errorf("screenshot: %w", err)
	}
	if len(rep.Data) < w*h*4 {
		return nil, fmt.Errorf("screenshot: %d bytes for a %dx%d screen", len(rep.Data), w, h)
	}
	return toRGBA(rep.Data, w, h), nil
}

// grabSize returns the screen's size, or errGrabFormat for a pixel format
// that grab does not read.
func grabSize(xu *xgbutil.XUtil) (w, h int, err error) {
	setup := xproto.Setup(xu.Conn())
	scr := xu.Screen()
	bpp := 0
	for _, f := range setup.PixmapFormats {
		if f.Depth == scr.RootDepth {
			bpp = int(f.BitsPerPixel)
		}
	}
	if setup.ImageByteOrder != xproto.ImageOrderLSBFirst || bpp != 32 || scr.RootDepth < 24 {
		return 0, 0, errGrabFormat
	}
	return int(scr.WidthInPixels), int(scr.HeightInPixels), nil
}

// toRGBA copies a w×h ZPixmap (blue, green, red, unused) into a new RGBA
// image, opaque.
func toRGBA(d []byte, w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	p, d := img.Pix, d[:w*h*4]
	for i := 0; i+3 < len(d); i += 4 {
		p[i], p[i+1], p[i+2], p[i+3] = d[i+2], d[i+1], d[i], 255
	}
	return img
}
