package x11

import (
	"context"
	"encoding/binary"
	"hash/maphash"
	"image"
	"image/draw"
	"slices"
	"sync"

	"github.com/pcflow/pcflow/activities/screen"
)

// The screen's words are read again only where its pixels changed. A
// task with a secret has every observation read whole by OCR (a secret
// on the screen is hidden before anything is stored), and tesseract
// takes about a second of CPU a screen; most steps change a few rows.

// ocrBand is the height of the bands a screen is compared in, and the
// margin read around the changed ones: taller than a line of UI text, so
// any word that touches a changed band is whole in what is read again.
const ocrBand = 48

// ocrFrame is the last screen this device read whole: its size, its
// bands' hashes and its words.
type ocrFrame struct {
	mu    sync.Mutex
	size  image.Point
	bands []uint64
	words []screen.Word
	// rowsRead counts the rows the latest read gave tesseract; for tests.
	rowsRead int
}

// read returns the words img shows: the last screen's where its bands are
// unchanged, and tesseract's over the changed rows (with a band's margin
// around them) elsewhere. A screen of another size, or changed in more
// than half its height, is read whole.
func (f *ocrFrame) read(ctx context.Context, img image.Image) ([]screen.Word, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b := img.Bounds()
	rgba, ok := img.(*image.RGBA)
	if !ok || b.Dy() == 0 {
		f.size, f.bands, f.rowsRead = image.Point{}, nil, b.Dy()
		return OCR(ctx, img)
	}
	n := (b.Dy() + ocrBand - 1) / ocrBand
	bands := make([]uint64, n)
	for i := range bands {
		bands[i] = pixelHash(rgba, image.Rect(b.Min.X, b.Min.Y+i*ocrBand, b.Max.X, min(b.Min.Y+(i+1)*ocrBand, b.Max.Y)))
	}
	lo, hi := -1, -1
	if f.size == b.Size() && len(f.bands) == n {
		for i := range bands {
			if bands[i] != f.bands[i] {
				if lo < 0 {
					lo = i
				}
				hi = i
			}
		}
		if lo < 0 {
			f.rowsRead = 0
			return append([]screen.Word(nil), f.words...), nil
		}
	}
	// The runs of changed bands, each read with a band above and below
	// it (runs whose margins meet are read as one).
	var spans, areas []image.Rectangle
	rows := 0
	if lo >= 0 {
		for i := lo; i <= hi; {
			if bands[i] == f.bands[i] {
				i++
				continue
			}
			j := i
			for j+1 < n && bands[j+1] != f.bands[j+1] {
				j++
			}
			span := image.Rect(b.Min.X, b.Min.Y+i*ocrBand, b.Max.X, min(b.Min.Y+(j+1)*ocrBand, b.Max.Y))
			area := image.Rect(b.Min.X, max(span.Min.Y-ocrBand, b.Min.Y), b.Max.X, min(span.Max.Y+ocrBand, b.Max.Y))
			if k := len(areas) - 1; k >= 0 && area.Min.Y <= areas[k].Max.Y {
				rows -= areas[k].Dy()
				spans[k], areas[k] = spans[k].Union(span), areas[k].Union(area)
			} else {
				spans, areas = append(spans, span), append(areas, area)
			}
			rows += areas[len(areas)-1].Dy()
			i = j + 1
		}
	}
	if lo < 0 || rows > b.Dy()/2 {
		words, err := OCR(ctx, img)
		if err != nil {
			return nil, err
		}
		f.size, f.bands, f.words, f.rowsRead = b.Size(), bands, words, b.Dy()
		return append([]screen.Word(nil), words...), nil
	}
	// The areas one below the other, a gap of the screen's first pixel's
	// colour between them, read in one run of tesseract.
	const gap = 16
	sheet := image.NewRGBA(image.Rect(0, 0, b.Dx(), rows+gap*(len(areas)-1)))
	bg := rgba.RGBAAt(b.Min.X, b.Min.Y)
	draw.Draw(sheet, sheet.Bounds(), &image.Uniform{C: bg}, image.Point{}, draw.Src)
	tops := make([]int, len(areas))
	y := 0
	for k, area := range areas {
		tops[k] = y
		draw.Draw(sheet, image.Rect(0, y, b.Dx(), y+area.Dy()), rgba, area.Min, draw.Src)
		y += area.Dy() + gap
	}
	read, err := OCR(ctx, sheet)
	if err != nil {
		return nil, err
	}
	var fresh []screen.Word
	for _, w := range read {
		for k, area := range areas {
			if w.Box.Y >= tops[k]-gap/2 && w.Box.Y < tops[k]+area.Dy()+gap/2 {
				w.Box.X += b.Min.X
				w.Box.Y += area.Min.Y - tops[k]
				if touches(w.Box, spans[k]) {
					fresh = append(fresh, w)
				}
				break
			}
		}
	}
	// The last screen's words untouched by a change, and the fresh words
	// on the changed rows, in reading order: by band, each band's words
	// in the order tesseract gave them.
	var words []screen.Word
	for _, w := range f.words {
		if !slices.ContainsFunc(spans, func(sp image.Rectangle) bool { return touches(w.Box, sp) }) {
			words = append(words, w)
		}
	}
	words = append(words, fresh...)
	slices.SortStableFunc(words, func(p, q screen.Word) int { return p.Box.Y/ocrBand - q.Box.Y/ocrBand })
	f.bands, f.words, f.rowsRead = bands, words, rows
	return append([]screen.Word(nil), words...), nil
}

// pixelSeed seeds the hashes of pixels this process compares.
var pixelSeed = maphash.MakeSeed()

// pixelHash hashes r's size and m's pixels within r: equal hashes, the
// same pixels (for what OCR read in them).
func pixelHash(m *image.RGBA, r image.Rectangle) uint64 {
	var h maphash.Hash
	h.SetSeed(pixelSeed)
	var dims [8]byte
	binary.LittleEndian.PutUint32(dims[0:], uint32(r.Dx()))
	binary.LittleEndian.PutUint32(dims[4:], uint32(r.Dy()))
	h.Write(dims[:])
	r = r.Intersect(m.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		off := m.PixOffset(r.Min.X, y)
		h.Write(m.Pix[off : off+4*r.Dx()])
	}
	return h.Sum64()
}

// touches reports whether box r has a row in span's rows.
func touches(r screen.Rect, span image.Rectangle) bool {
	return r.Y < span.Max.Y && r.Y+r.H > span.Min.Y
}
