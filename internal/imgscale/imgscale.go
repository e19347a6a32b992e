// Package imgscale scales screenshots bilinearly, fast for the RGBA
// images screens are captured in.
package imgscale

import (
	"image"

	"golang.org/x/image/draw"
)

// Bilinear scales src into all of dst as draw.ApproxBiLinear does (each
// destination pixel centre mapped into src, the four source pixels
// around it weighted by distance, clamped at the edges), within one level
// per channel. From an *image.RGBA it is computed in fixed point: the
// generic scaler took a third of a screenshot's way to a model.
func Bilinear(dst *image.RGBA, src image.Image) {
	s, ok := src.(*image.RGBA)
	db, sb := dst.Bounds(), src.Bounds()
	if !ok || db.Empty() || sb.Empty() {
		draw.ApproxBiLinear.Scale(dst, db, src, sb, draw.Src, nil)
		return
	}
	dw, dh, sw, sh := db.Dx(), db.Dy(), sb.Dx(), sb.Dy()
	xs := axis(dw, sw)
	ys := axis(dh, sh)
	base := (sb.Min.Y-s.Rect.Min.Y)*s.Stride + (sb.Min.X-s.Rect.Min.X)*4
	for dy, ay := range ys {
		r0 := s.Pix[base+ay.i0*s.Stride:]
		r1 := s.Pix[base+ay.i1*s.Stride:]
		fy1 := uint32(ay.f)
		fy0 := 256 - fy1
		out := dst.Pix[dy*dst.Stride : dy*dst.Stride+dw*4]
		for dx, ax := range xs {
			i0, i1 := 4*ax.i0, 4*ax.i1
			fx1 := uint32(ax.f)
			fx0 := 256 - fx1
			o := out[4*dx : 4*dx+4 : 4*dx+4]
			p00, p01, p10, p11 := r0[i0:i0+4:i0+4], r0[i1:i1+4:i1+4], r1[i0:i0+4:i0+4], r1[i1:i1+4:i1+4]
			o[0] = mix(fx0, fx1, fy0, fy1, p00[0], p01[0], p10[0], p11[0])
			o[1] = mix(fx0, fx1, fy0, fy1, p00[1], p01[1], p10[1], p11[1])
			o[2] = mix(fx0, fx1, fy0, fy1, p00[2], p01[2], p10[2], p11[2])
			o[3] = mix(fx0, fx1, fy0, fy1, p00[3], p01[3], p10[3], p11[3])
		}
	}
}

// mix weighs four neighbours, the weights in 256ths.
func mix(fx0, fx1, fy0, fy1 uint32, p00, p01, p10, p11 uint8) uint8 {
	top := fx0*uint32(p00) + fx1*uint32(p01)
	bottom := fx0*uint32(p10) + fx1*uint32(p11)
	return uint8((fy0*top + fy1*bottom + 1<<15) >> 16)
}

// tap is one destination coordinate's two source coordinates and the
// weight of the second, in 256ths.
type tap struct{ i0, i1, f int }

// axis maps each of n destination coordinates to the source's m as
// x/image/draw's ablInterpolator does.
func axis(n, m int) []tap {
	taps := make([]tap, n)
	scale := float64(m) / float64(n)
	for d := range taps {
		s := (float64(d)+0.5)*scale - 0.5
		i0 := int(s)
		frac := s - float64(i0)
		i1 := i0 + 1
		switch {
		case s < 0:
			i0, i1, frac = 0, 0, 0
		case i1 > m-1:
			i0, i1, frac = m-1, m-1, 0
		}
		taps[d] = tap{i0: i0, i1: i1, f: int(frac*256 + 0.5)}
	}
	return taps
}
