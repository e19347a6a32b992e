package x11

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"golang.org/x/image/draw"

	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/fifomap"
)

// AT-SPI relation types (AtspiRelationType).
const (
	relationLabelledBy  = 2
	relationDescribedBy = 17
)

// shortcut is a key binding a tooltip appends to a name: "Properties
// (Ctrl+Alt+1)".
var shortcut = regexp.MustCompile(`\s*\((Ctrl|Alt|Shift|Super|F\d+)[^)]*\)$`)

// nameOf names an element whose name is empty from what else the
// accessibility API says about it, in the order a screen reader would
// use: its label (labelled-by), its description or tooltip, the name of a
// child (an icon's or a label's), its image description, its action's
// description. It returns "" when none of them speaks, and the object the
// name came from (the zero objRef for none).
func (a *a11y) nameOf(conn bus, sc *scene, t *appTree, it *cacheItem) (string, objRef) {
	obj := conn.Object(it.Ref.Bus, it.Ref.Path)
	var rels []struct {
		Type    uint32
		Targets []objRef
	}
	if obj.Call("org.a11y.atspi.Accessible.GetRelationSet", 0).Store(&rels) == nil {
		for _, want := range []uint32{relationLabelledBy, relationDescribedBy} {
			for _, r := range rels {
				if r.Type != want {
					continue
				}
				for _, target := range r.Targets {
					if n := clean(nameFrom(conn, t, target)); n != "" {
						return n, target
					}
				}
			}
		}
	}
	if n := clean(it.Desc); n != "" {
		return n, it.Ref
	}
	// A child that speaks: an icon's or a label's name, one or two levels down.
	for _, c := range t.children[it.Ref] {
		if ci := t.byRef[c]; ci != nil {
			if n := clean(ci.Name); n != "" {
				return n, c
			}
			if n := clean(ci.Desc); n != "" {
				return n, c
			}
			for _, g := range t.children[c] {
				if gi := t.byRef[g]; gi != nil {
					if n := clean(gi.Name); n != "" {
						return n, g
					}
				}
			}
		}
	}
	// A wrapper that speaks for it: a parent with the same box (LibreOffice's
	// sidebar buttons sit in panels that carry the tooltip), or the combo
	// box whose drop-down button it is.
	box, _ := sc.extent(it.Ref)
	p := it.Parent
	for depth := 0; depth < 2; depth++ {
		pi := t.byRef[p]
		if pi == nil {
			break
		}
		if pb, ok := sc.extent(p); (ok && edgeDistance(pb, box) <= 4) || roleName(pi.Role) == "combo box" {
			if n := clean(pi.Name); n != "" {
				return n, p
			}
			if n := clean(pi.Desc); n != "" {
				return n, p
			}
		}
		p = pi.Parent
	}
	if hasIface(it.Interfaces, "org.a11y.atspi.Image") {
		if v, err := obj.GetProperty("org.a11y.atspi.Image.ImageDescription"); err == nil {
			if n := clean(fmt.Sprint(v.Value())); n != "" {
				return n, it.Ref
			}
		}
	}
	if hasIface(it.Interfaces, "org.a11y.atspi.Action") {
		var d string
		if obj.Call("org.a11y.atspi.Action.GetDescription", 0, int32(0)).Store(&d) == nil {
			if n := clean(d); n != "" && !genericAction[strings.ToLower(n)] && !genericPhrase.MatchString(n) {
				return n, it.Ref
			}
		}
	}
	return "", objRef{}
}

// genericAction are action descriptions that name no control.
var genericAction = map[string]bool{"click": true, "press": true, "activate": true, "toggle": true, "jump": true, "open": true, "showmenu": true, "expand or contract": true}

// genericPhrase is how toolkits describe an action without naming the
// control: "Clicks the button", "Toggles the button".
var genericPhrase = regexp.MustCompile(`(?i)^(clicks|presses|toggles|activates|opens|selects|expands|collapses)\b`)

func nameFrom(conn bus, t *appTree, ref objRef) string {
	if it := t.byRef[ref]; it != nil {
		return it.Name
	}
	v, err := conn.Object(ref.Bus, ref.Path).GetProperty("org.a11y.atspi.Accessible.Name")
	if err != nil {
		return ""
	}
	s, _ := v.Value().(string)
	return s
}

// clean trims a name, a trailing colon of a label and a tooltip's key binding.
func clean(s string) string {
	s = strings.TrimSpace(shortcut.ReplaceAllString(strings.TrimSpace(s), ""))
	s = strings.TrimSuffix(s, ":")
	return strings.TrimSpace(s)
}

// Limits of the boxes OCR names.
const (
	maxNamedByOCR = 60
	maxOCRBoxW    = 500
	maxOCRBoxH    = 60
)

// nameByOCR reads the text that unnamed controls show (a button with a
// caption the toolkit does not expose), in one tesseract run over a strip
// of their boxes; icon-only controls stay unnamed. A box whose pixels
// were read before takes its text from memo (nil: none) instead of being
// read again: most of a screen is unchanged from one step to the next,
// and tesseract costs about a second a strip on a dialog full of unnamed
// controls. It returns how many it named.
func nameByOCR(ctx context.Context, img image.Image, els []screen.Element, memo *ocrMemo) (int, error) {
	var idx []int
	for i, e := range els {
		if e.Name == "" && e.Value == "" && ocrSized(e.Box) {
			idx = append(idx, i)
			if len(idx) == maxNamedByOCR {
				break
			}
		}
	}
	if len(idx) == 0 {
		return 0, nil
	}
	texts := make([][]string, len(idx))
	keys := make([]uint64, len(idx))
	rgba, _ := img.(*image.RGBA) // what the device captures; others are read each time
	if rgba == nil {
		memo = nil
	}
	var read []int // indexes into idx of the boxes tesseract reads
	for k, i := range idx {
		if memo == nil {
			read = append(read, k)
			continue
		}
		b := els[i].Box
		keys[k] = pixelHash(rgba, image.Rect(b.X, b.Y, b.X+b.W, b.Y+b.H).Add(rgba.Rect.Min))
		if t, ok := memo.Get(keys[k]); ok {
			texts[k] = t
		} else {
			read = append(read, k)
		}
	}
	if len(read) > 0 {
		// Each box, scaled 2× in gray, on its own band of a white strip.
		const pad = 16
		w, h := 0, pad
		for _, k := range read {
			b := els[idx[k]].Box
			w = max(w, 2*b.W+2*pad)
			h += 2*b.H + pad
		}
		strip := image.NewGray(image.Rect(0, 0, w, h))
		for i := range strip.Pix {
			strip.Pix[i] = 255
		}
		bands := make([][2]int, len(read))
		y := pad
		for j, k := range read {
			b := els[idx[k]].Box
			dst := image.Rect(pad, y, pad+2*b.W, y+2*b.H)
			src := image.Rect(b.X, b.Y, b.X+b.W, b.Y+b.H).Add(img.Bounds().Min)
			draw.BiLinear.Scale(strip, dst, img, src, draw.Src, nil)
			bands[j] = [2]int{y, y + 2*b.H}
			y += 2*b.H + pad
		}
		words, err := tesseract(ctx, strip, "6")
		if err != nil {
			return 0, err
		}
		for _, wd := range words {
			if wd.Conf < 70 || !speaks(wd.Text) {
				continue
			}
			cy := wd.Box.Y + wd.Box.H/2
			for j, band := range bands {
				if cy >= band[0] && cy < band[1] {
					texts[read[j]] = append(texts[read[j]], wd.Text)
				}
			}
		}
		if memo != nil {
			for _, k := range read {
				memo.Add(keys[k], texts[k])
			}
		}
	}
	n := 0
	for k, i := range idx {
		if len(texts[k]) > 0 {
			els[i].Name = strings.Join(texts[k], " ")
			els[i].Source = "a11y+ocr"
			n++
		}
	}
	return n, nil
}

// ocrSized reports whether a box is one nameByOCR reads: the size of a
// caption, not of a pane or a speck.
func ocrSized(b screen.Rect) bool {
	return b.W <= maxOCRBoxW && b.H <= maxOCRBoxH && b.W >= 8 && b.H >= 8
}

// ocrMemo remembers what OCR read in a box, by the box's size and pixels
// (pixelHash).
type ocrMemo = fifomap.Map[uint64, []string]

// ocrMemoSize is how many boxes an ocrMemo remembers: a few screens'.
const ocrMemoSize = 1024

// speaks reports whether OCR text looks like a word rather than an icon
// read as letters: two or more letters or digits.
func speaks(s string) bool {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			n++
		}
	}
	return n >= 2
}

// tesseractRuns counts tesseract's runs in this process.
var tesseractRuns atomic.Int64

// tesseract runs OCR on img with a page segmentation mode and returns word
// boxes in img's pixels.
func tesseract(ctx context.Context, img image.Image, psm string) ([]screen.Word, error) {
	var in bytes.Buffer
	if g, ok := img.(*image.Gray); ok {
		// A grey image goes as PGM: a header and its bytes, where PNG
		// took tens of milliseconds to compress what tesseract unpacks.
		r := g.Bounds()
		in.Grow(32 + r.Dx()*r.Dy())
		fmt.Fprintf(&in, "P5\n%d %d\n255\n", r.Dx(), r.Dy())
		for y := r.Min.Y; y < r.Max.Y; y++ {
			in.Write(g.Pix[(y-r.Min.Y)*g.Stride : (y-r.Min.Y)*g.Stride+r.Dx()])
		}
	} else if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&in, img); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	tesseractRuns.Add(1)
	cmd := exec.CommandContext(ctx, "tesseract", "stdin", "stdout", "--psm", psm, "-l", "eng", "tsv")
	cmd.Stdin = &in
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if _, lerr := exec.LookPath("tesseract"); lerr != nil {
			return nil, fmt.Errorf("OCR needs tesseract, which is not installed: apt-get install tesseract-ocr tesseract-ocr-eng (or run scripts/setup.sh)")
		}
		return nil, fmt.Errorf("tesseract: %w: %s", err, strings.TrimSpace(errb.String()))
	}
	var words []screen.Word
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 12 || f[0] != "5" {
			continue
		}
		text := strings.TrimSpace(f[11])
		conf, _ := strconv.ParseFloat(f[10], 64)
		if text == "" || conf < 30 {
			continue
		}
		n := make([]int, 4)
		for i := range n {
			n[i], _ = strconv.Atoi(f[6+i])
		}
		words = append(words, screen.Word{Text: text, Conf: conf, Box: screen.Rect{X: n[0], Y: n[1], W: n[2], H: n[3]}})
	}
	return words, nil
}
