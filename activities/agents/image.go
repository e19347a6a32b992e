package agents

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/draw"
)

// EncodeImage scales img so its longest side is at most maxSide and encodes
// it; scale is image pixels per screen pixel.
func EncodeImage(img image.Image, maxSide int, format string, quality int) (data []byte, mime string, scale float64, w, h int, err error) {
	b := img.Bounds()
	scale = 1
	if long := max(b.Dx(), b.Dy()); maxSide > 0 && long > maxSide {
		scale = float64(maxSide) / float64(long)
		dst := image.NewRGBA(image.Rect(0, 0, int(float64(b.Dx())*scale), int(float64(b.Dy())*scale)))
		draw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
		img = dst
	}
	var buf bytes.Buffer
	switch format {
	case "jpeg":
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality})
		mime = "image/jpeg"
	default:
		enc := png.Encoder{CompressionLevel: png.BestSpeed}
		err = enc.Encode(&buf, img)
		mime = "image/png"
	}
	return buf.Bytes(), mime, scale, img.Bounds().Dx(), img.Bounds().Dy(), err
}

func dataURL(data []byte, mime string) string {
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)
}
