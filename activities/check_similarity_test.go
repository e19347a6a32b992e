package activities_test

import (
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/activities/office"
	"github.com/pcflow/pcflow/activities/office/officetest"
	"github.com/pcflow/pcflow/specs/plan"
)

// logo draws a picture with edges, flat areas and a gradient, as an
// application's saved drawing has; spot paints a square of another colour
// into it.
func logo(w, h int, spot bool) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.NRGBA{uint8(x * 255 / w), uint8(y * 255 / h), 128, 255}
			if (x-w/2)*(x-w/2)+(y-h/2)*(y-h/2) < (h/3)*(h/3) {
				c = color.NRGBA{200, 30, 30, 255}
			}
			if spot && x > w/8 && x < w/2 && y > h/8 && y < h/2 {
				c = color.NRGBA{20, 200, 40, 255}
			}
			img.Set(x, y, c)
		}
	}
	return img
}

func writeImage(t *testing.T, path string, img image.Image) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if strings.HasSuffix(path, ".jpg") {
		err = jpeg.Encode(f, img, &jpeg.Options{Quality: 75})
	} else {
		err = png.Encode(f, img)
	}
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// similarity runs a similarity check through Check, as a worker does.
func similarity(t *testing.T, path string, expected, sameAs *string, threshold float64, fold bool) *activities.CheckResult {
	t.Helper()
	lit := func(s *string) *plan.Expr {
		if s == nil {
			return nil
		}
		x := plan.Lit(*s)
		return &x
	}
	ck := plan.Check{Name: "similar", Kind: plan.CheckSimilarity, Path: lit(&path), SameAs: lit(sameAs),
		Similarity: &plan.Similarity{Expected: lit(expected), Threshold: threshold, IgnoreCase: fold}}
	in, err := activities.NewCheckInput(ck, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := (&activities.Activities{Device: fakedevice.New()}).Check(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if r.Score == nil {
		t.Fatalf("similarity check of %s recorded no score (%s)", path, r.Detail)
	}
	t.Logf("%s: score %v", filepath.Base(path), *r.Score)
	return r
}

func str(s string) *string { return &s }

// TestSimilarityCheckOfTextFiles: a file typed with one slip scores high
// and passes a 0.9 threshold but not the default (identical) one; another
// text scores low; white space runs and, when asked, case do not count; a
// missing file scores 0 and says why.
func TestSimilarityCheckOfTextFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	want := "Dear Ann,\nthe meeting moves to Friday at 10.\nBest, Bo\n"
	slip := write("slip.txt", "Dear Ann,\nthe meeting moves to Fridya at 10.\nBest, Bo\n")
	spaced := write("spaced.txt", "DEAR ANN,   the meeting moves to Friday at 10.\r\n\r\nBest, Bo")
	other := write("other.txt", "Shopping: milk, eggs, bread.\n")
	ref := write("ref.txt", want)
	for _, tt := range []struct {
		name      string
		path      string
		expected  *string
		sameAs    *string
		threshold float64
		fold      bool
		passed    bool
		score     [2]float64 // the score lies in [lo, hi]
		detail    string
	}{
		{"slip passes 0.9", slip, str(want), nil, 0.9, false, true, [2]float64{0.97, 0.99}, "first differ at character 36"},
		{"slip fails identical", slip, nil, str(ref), 1, false, false, [2]float64{0.97, 0.99}, "below the threshold 1"},
		{"white space and case", spaced, str(want), nil, 1, true, true, [2]float64{1, 1}, "has the text of the expected text"},
		{"case counts by default", spaced, nil, str(ref), 0.95, false, false, [2]float64{0.8, 0.95}, "below"},
		{"another text", other, str(want), nil, 0.5, false, false, [2]float64{0, 0.5}, "below"},
		{"missing file", filepath.Join(dir, "gone.txt"), str(want), nil, 0.1, false, false, [2]float64{0, 0}, "no such file"},
		{"missing reference", slip, nil, str(filepath.Join(dir, "gone.txt")), 0.1, false, false, [2]float64{0, 0}, "reference file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := similarity(t, tt.path, tt.expected, tt.sameAs, tt.threshold, tt.fold)
			if r.Passed != tt.passed || *r.Score < tt.score[0] || *r.Score > tt.score[1] || !strings.Contains(r.Detail, tt.detail) {
				t.Errorf("similarity(%s) = passed=%v score=%v %q; want passed=%v, score in %v, detail with %q",
					tt.name, r.Passed, *r.Score, r.Detail, tt.passed, tt.score, tt.detail)
			}
		})
	}
}

// TestSimilarityCheckOfDocuments: documents LibreOffice saved are compared
// by their text, across formats: the right report as .docx against the
// same report as .odt is identical; against the wrong report (another
// heading, another word, an extra table) it scores high but below 1.
func TestSimilarityCheckOfDocuments(t *testing.T) {
	dir := t.TempDir()
	right, wrong := filepath.Join(dir, "right"), filepath.Join(dir, "wrong")
	if err := officetest.MakeSets(context.Background(), officetest.Set{Dir: right}, officetest.Set{Dir: wrong, Wrong: true}); err != nil {
		t.Fatal(err)
	}
	same := similarity(t, filepath.Join(right, "report.docx"), nil, str(filepath.Join(right, "report.odt")), 1, false)
	if !same.Passed || *same.Score != 1 {
		t.Errorf("report.docx against report.odt = passed=%v score=%v %q, want identical text", same.Passed, *same.Score, same.Detail)
	}
	diff := similarity(t, filepath.Join(wrong, "report.docx"), nil, str(filepath.Join(right, "report.odt")), 0.9, false)
	if !diff.Passed || *diff.Score >= 1 || *diff.Score < 0.9 {
		t.Errorf("wrong report.docx against the right report.odt = passed=%v score=%v %q, want a score in [0.9, 1)", diff.Passed, *diff.Score, diff.Detail)
	}
	strict := similarity(t, filepath.Join(wrong, "report.docx"), nil, str(filepath.Join(right, "report.odt")), 1, false)
	if strict.Passed || *strict.Score != *diff.Score {
		t.Errorf("the same at threshold 1 = passed=%v score=%v, want a failure with the same score %v", strict.Passed, *strict.Score, *diff.Score)
	}
}

// TestSimilarityCheckOfImages: images Go's encoders wrote: the same
// picture in another file is identical; a JPEG of it is close; a picture
// with a square painted over scores lower, and below the threshold; a
// picture of another size scores 0 saying so; a file that is no image
// fails saying so.
func TestSimilarityCheckOfImages(t *testing.T) {
	dir := t.TempDir()
	ref := writeImage(t, filepath.Join(dir, "ref.png"), logo(160, 120, false))
	copyPNG := writeImage(t, filepath.Join(dir, "copy.png"), logo(160, 120, false))
	lossy := writeImage(t, filepath.Join(dir, "lossy.jpg"), logo(160, 120, false))
	spot := writeImage(t, filepath.Join(dir, "spot.png"), logo(160, 120, true))
	small := writeImage(t, filepath.Join(dir, "small.png"), logo(80, 60, false))
	notImage := filepath.Join(dir, "text.png")
	if err := os.WriteFile(notImage, []byte("not a picture"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name      string
		path      string
		threshold float64
		passed    bool
		score     [2]float64
		detail    string
	}{
		{"same pixels", copyPNG, 1, true, [2]float64{1, 1}, "SSIM of"},
		{"jpeg of it", lossy, 0.9, true, [2]float64{0.9, 0.999}, "reaches the threshold 0.9"},
		{"square painted", spot, 0.9, false, [2]float64{0.3, 0.9}, "below the threshold 0.9"},
		{"other size", small, 0.5, false, [2]float64{0, 0}, "differ in size: 80x60 and 160x120"},
		{"not an image", notImage, 0.5, false, [2]float64{0, 0}, "not an image this check reads"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := similarity(t, tt.path, nil, &ref, tt.threshold, false)
			if r.Passed != tt.passed || *r.Score < tt.score[0] || *r.Score > tt.score[1] || !strings.Contains(r.Detail, tt.detail) {
				t.Errorf("similarity(%s) = passed=%v score=%v %q; want passed=%v, score in %v, detail with %q",
					tt.name, r.Passed, *r.Score, r.Detail, tt.passed, tt.score, tt.detail)
			}
		})
	}
}

// drawingFODG is a flat OpenDocument drawing LibreOffice Draw exports as
// PNG: a labelled blue box and an orange disc filling an A4 page; moved
// shifts the box 1.5 cm to the right and relabels it.
func drawingFODG(moved bool) string {
	x, label := "2cm", "Q3 sales"
	if moved {
		x, label = "3.5cm", "Q4 sales"
	}
	return `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.graphics">
 <office:automatic-styles>
  <style:style style:name="gr1" style:family="graphic"><style:graphic-properties draw:fill="solid" draw:fill-color="#2050c0" draw:stroke="none"/></style:style>
  <style:style style:name="gr2" style:family="graphic"><style:graphic-properties draw:fill="solid" draw:fill-color="#ff8800" draw:stroke="none"/></style:style>
 </office:automatic-styles>
 <office:body><office:drawing><draw:page draw:name="p1">
  <draw:rect draw:style-name="gr1" svg:x="` + x + `" svg:y="2cm" svg:width="14cm" svg:height="10cm"><text:p>` + label + `</text:p></draw:rect>
  <draw:ellipse draw:style-name="gr2" svg:x="4cm" svg:y="14cm" svg:width="12cm" svg:height="12cm"/>
 </draw:page></office:drawing></office:body>
</office:document>
`
}

// TestSimilarityCheckOfExportedImages: PNG files LibreOffice Draw exports
// (soffice --convert-to png) compared with a gold export: the same drawing
// exported again reaches the threshold; the drawing with its box moved and
// relabelled scores lower and fails it, and passes a lower one with the
// same score.
func TestSimilarityCheckOfExportedImages(t *testing.T) {
	dir := t.TempDir()
	var srcs []string
	for name, moved := range map[string]bool{"gold": false, "right": false, "moved": true} {
		p := filepath.Join(dir, name+".fodg")
		if err := os.WriteFile(p, []byte(drawingFODG(moved)), 0o644); err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, p)
	}
	if _, err := (office.Soffice{}).ConvertAll(context.Background(), srcs, "png", filepath.Join(dir, "png")); err != nil {
		t.Fatal(err)
	}
	png := func(name string) string { return filepath.Join(dir, "png", name+".png") }
	gold := png("gold")
	right := similarity(t, png("right"), nil, &gold, 0.98, false)
	if !right.Passed || *right.Score < 0.98 {
		t.Errorf("the drawing exported again = passed=%v score=%v %q, want at least 0.98", right.Passed, *right.Score, right.Detail)
	}
	moved := similarity(t, png("moved"), nil, &gold, 0.98, false)
	if moved.Passed || *moved.Score >= 0.98 || !strings.Contains(moved.Detail, "below the threshold 0.98") {
		t.Errorf("the drawing with its box moved = passed=%v score=%v %q, want a failure below 0.98", moved.Passed, *moved.Score, moved.Detail)
	}
	lenient := similarity(t, png("moved"), nil, &gold, 0.5, false)
	if !lenient.Passed || *lenient.Score != *moved.Score {
		t.Errorf("the same at threshold 0.5 = passed=%v score=%v, want a pass with the same score %v", lenient.Passed, *lenient.Score, *moved.Score)
	}
}
