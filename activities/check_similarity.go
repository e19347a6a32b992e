package activities

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/gif"  // similarity checks read GIF images
	_ "image/jpeg" // and JPEG
	_ "image/png"  // and PNG
	"io"
	"math"

	_ "golang.org/x/image/bmp"  // and BMP
	_ "golang.org/x/image/webp" // and WebP

	"github.com/pcflow/pcflow/activities/office"
	"github.com/pcflow/pcflow/internal/text"
	"github.com/pcflow/pcflow/specs/plan"
)

// Bounds on what a similarity check compares, so a huge file fails with a
// reason instead of holding the device for minutes or all its memory.
const (
	// MaxSimilarText is the longest text compared, in characters: two of
	// them take 1.6 s here (a 1440×900 screenshot's SSIM 0.3 s).
	MaxSimilarText = 200_000
	// MaxSimilarPixels is the largest image compared (50 megapixels).
	MaxSimilarPixels = 50_000_000
)

// checkSimilarity scores how close a file is to an expected text or a
// reference file (similarity { path, expected, same_as, threshold,
// ignore_case }): images by SSIM, documents and other files by their text.
// The score is recorded whatever it is (0 when the file cannot be read);
// the check passes when it reaches the threshold.
func (a *Activities) checkSimilarity(ctx context.Context, in CheckInput, c conditions) (string, *CheckResult, error) {
	var score float64
	var detail string
	if plan.IsImage(c.path) {
		score, detail = a.imageSimilarity(ctx, in, c)
	} else {
		score, detail = a.textSimilarity(ctx, in, c)
	}
	score = math.Round(score*10000) / 10000
	r := &CheckResult{Score: &score, Passed: score >= in.Threshold}
	verdict := "below"
	if r.Passed {
		verdict = "reaches"
	}
	r.Detail = fmt.Sprintf("similarity %.4g %s the threshold %.4g", score, verdict, in.Threshold)
	if detail != "" {
		r.Detail += ": " + detail
	}
	return "", r, nil
}

func (a *Activities) imageSimilarity(ctx context.Context, in CheckInput, c conditions) (float64, string) {
	if in.SameAs == "" {
		return 0, fmt.Sprintf("%s is an image: compare it with a reference image (same_as)", in.Path)
	}
	files, err := a.files()
	if err != nil {
		return 0, fmt.Sprintf("%s: %v", in.Path, err)
	}
	got, err := readImage(ctx, files, c.path)
	if err != nil {
		return 0, fmt.Sprintf("%s: %v", in.Path, err)
	}
	ref, err := readImage(ctx, files, in.SameAs)
	if err != nil {
		return 0, fmt.Sprintf("reference image %s: %v", in.SameAs, err)
	}
	s, err := SSIM(got, ref)
	if err != nil {
		return 0, fmt.Sprintf("%s and %s: %v", in.Path, in.SameAs, err)
	}
	b := got.Bounds()
	return max(s, 0), fmt.Sprintf("SSIM of %s (%dx%d) and %s", in.Path, b.Dx(), b.Dy(), in.SameAs)
}

// readImage decodes an image file of the device, within MaxSimilarPixels.
func readImage(ctx context.Context, files Files, path string) (image.Image, error) {
	file, err := files.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	// The header first, then the image from the start: a file that can
	// seek (the worker's own) is read once, another one from memory.
	f, ok := file.(io.ReadSeeker)
	if !ok {
		b, err := io.ReadAll(file)
		if err != nil {
			return nil, err
		}
		f = bytes.NewReader(b)
	}
	cfg, format, err := image.DecodeConfig(f)
	if err != nil {
		return nil, fmt.Errorf("not an image this check reads (PNG, JPEG, GIF, BMP, WebP): %w", err)
	}
	if px := int64(cfg.Width) * int64(cfg.Height); px > MaxSimilarPixels {
		return nil, fmt.Errorf("a %s of %dx%d is larger than the %d pixels a similarity check compares", format, cfg.Width, cfg.Height, MaxSimilarPixels)
	}
	if _, err := f.Seek(0, 0); err != nil {
		return nil, err
	}
	img, _, err := image.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", format, err)
	}
	return img, nil
}

func (a *Activities) textSimilarity(ctx context.Context, in CheckInput, c conditions) (float64, string) {
	got, err := a.readText(ctx, c.path)
	if err != nil {
		return 0, fmt.Sprintf("%s: %v", in.Path, err)
	}
	var want, against string
	switch {
	case c.expected != nil:
		want, against = *c.expected, "the expected text"
	case in.SameAs != "":
		if want, err = a.readText(ctx, in.SameAs); err != nil {
			return 0, fmt.Sprintf("reference file %s: %v", in.SameAs, err)
		}
		against = in.SameAs
	default:
		return 0, "nothing to compare with: give expected or same_as"
	}
	g, w := normalizeText(got, in.IgnoreCase), normalizeText(want, in.IgnoreCase)
	gr, wr := []rune(g), []rune(w)
	for _, n := range []int{len(gr), len(wr)} {
		if n > MaxSimilarText {
			return 0, fmt.Sprintf("a text of %d characters is longer than the %d a similarity check compares", n, MaxSimilarText)
		}
	}
	score := TextRatio(g, w)
	if score == 1 {
		return 1, fmt.Sprintf("%s has the text of %s", in.Path, against)
	}
	i := 0
	for i < len(gr) && i < len(wr) && gr[i] == wr[i] {
		i++
	}
	return score, fmt.Sprintf("%s against %s (%d and %d characters, white space collapsed); they first differ at character %d: %q, want %q",
		in.Path, against, len(gr), len(wr), i+1, text.Trunc(string(gr[i:]), 40), text.Trunc(string(wr[i:]), 40))
}

// readText is the text of a file of the device: a document's (.docx,
// .odt, .pdf) paragraphs and tables, any other file as it is.
func (a *Activities) readText(ctx context.Context, path string) (string, error) {
	if plan.IsDocument(path) {
		l, err := a.localFiles(ctx, path)
		if err != nil {
			return "", err
		}
		defer l.close()
		d, err := office.OpenDocument(l.path(path))
		if err != nil {
			return "", errors.New(l.shown(err.Error()))
		}
		return d.Text(), nil
	}
	files, err := a.files()
	if err != nil {
		return "", err
	}
	fi, err := files.Stat(ctx, path)
	if err != nil {
		return "", err
	}
	if fi.IsDir() {
		return "", fmt.Errorf("a directory, not a file")
	}
	if fi.Size() > 4*MaxSimilarText {
		return "", fmt.Errorf("%d bytes is more text than the %d characters a similarity check compares", fi.Size(), MaxSimilarText)
	}
	b, err := readFile(ctx, files, path, 0)
	return string(b), err
}
