package agents

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/jpeg"

	openai "github.com/sashabaranov/go-openai"

	"github.com/pcflow/pcflow/activities/agents/profile"
	"github.com/pcflow/pcflow/internal/fastpng"
	"github.com/pcflow/pcflow/internal/imgmemo"
	"github.com/pcflow/pcflow/internal/imgscale"
)

// EncodeImage scales img so its longest side is at most maxSide and encodes
// it; scale is image pixels per screen pixel.
func EncodeImage(img image.Image, maxSide int, format string, quality int) (data []byte, mime string, scale float64, w, h int, err error) {
	b := img.Bounds()
	scale = 1
	if long := max(b.Dx(), b.Dy()); maxSide > 0 && long > maxSide {
		scale = float64(maxSide) / float64(long)
		dst := image.NewRGBA(image.Rect(0, 0, int(float64(b.Dx())*scale), int(float64(b.Dy())*scale)))
		imgscale.Bilinear(dst, img)
		img = dst
	}
	var buf bytes.Buffer
	switch format {
	case "jpeg":
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality})
		mime = "image/jpeg"
	default:
		err = fastpng.Encode(&buf, img)
		mime = "image/png"
	}
	return buf.Bytes(), mime, scale, img.Bounds().Dx(), img.Bounds().Dy(), err
}

func dataURL(data []byte, mime string) string {
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)
}

// shot is a screenshot as a profile sends it: encoded, and the frame its
// coordinates are read in.
type shot struct {
	data  []byte
	mime  string
	frame profile.Frame
}

// encodeFor scales img as p wants and encodes it in the configured format,
// once per unchanging image (see Unchanging).
func (c *Client) encodeFor(p profile.Profile, img image.Image) (shot, error) {
	key := fmt.Sprintf("sizing %+v as %s %d", p.Sizing, c.cfg.ImageFormat, c.cfg.JPEGQuality)
	return imgmemo.Once(img, key, func() (shot, error) {
		scaled, f, err := p.ScaleImage(img)
		if err != nil {
			return shot{}, err
		}
		data, mime, _, _, _, err := EncodeImage(scaled, 0, c.cfg.ImageFormat, c.cfg.JPEGQuality)
		if err != nil {
			return shot{}, fmt.Errorf("encode screenshot: %w", err)
		}
		return shot{data: data, mime: mime, frame: f}, nil
	})
}

// roleImage encodes a screenshot for a role other than Decision: scaled
// as its profile wants (else to ImageMaxSide).
func (c *Client) roleImage(role string, im image.Image) (openai.ChatMessagePart, error) {
	var s shot
	var err error
	if p := c.cfg.RoleProfile(role); p.Name != "" {
		s, err = c.encodeFor(p, im)
	} else {
		key := fmt.Sprintf("longest side %d as %s %d", c.cfg.ImageMaxSide, c.cfg.ImageFormat, c.cfg.JPEGQuality)
		s, err = imgmemo.Once(im, key, func() (shot, error) {
			data, mime, _, _, _, err := EncodeImage(im, c.cfg.ImageMaxSide, c.cfg.ImageFormat, c.cfg.JPEGQuality)
			if err != nil {
				return shot{}, fmt.Errorf("encode screenshot: %w", err)
			}
			return shot{data: data, mime: mime}, nil
		})
	}
	if err != nil {
		return openai.ChatMessagePart{}, err
	}
	return openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL, ImageURL: &openai.ChatMessageImageURL{URL: dataURL(s.data, s.mime)}}, nil
}
