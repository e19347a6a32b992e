package office_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pcflow/pcflow/activities/office"
	"github.com/pcflow/pcflow/specs/plan"
)

// TestPresentationConditions runs every presentation condition against the
// decks LibreOffice Impress saved, in .pptx and .odp: it must hold on the
// right deck and fail on the wrong one with a detail naming what differed.
func TestPresentationConditions(t *testing.T) {
	tests := []struct {
		name       string
		cond       office.DeckCond
		wantDetail string
	}{
		{"slides", office.DeckCond{Slides: ptr(3)}, "the presentation has 4 slides, want 3"},
		{"titles", office.DeckCond{Titles: []string{"Quarterly review", "Results", "Next steps"}},
			`slide titles are ["Quarterly review", "Next steps", "Results", "Appendix"], want ["Quarterly review", "Results", "Next steps"]`},
		{"notes", office.DeckCond{Slide: 1, Notes: ptr(" Welcome everyone.\n")}, `slide 1's notes are "Welcome, everyone!", want "Welcome everyone."`},
		{"own background", office.DeckCond{Slide: 2, Background: ptr("yellow")}, "slide 2's background is (none), want FFFF00"},
		{"master background", office.DeckCond{Slide: 1, Background: ptr("#DDEEFF")}, "slide 1's background is (none), want DDEEFF"},
		{"layout", office.DeckCond{Slide: 2, Layout: ptr("title_content")}, "slide 2's layout is title, want title_content"},
		{"orientation", office.DeckCond{Orientation: ptr("landscape")}, "the slides are portrait (15.75 × 28 cm), want landscape"},
		{"size", office.DeckCond{Width: ptr(28.0), Height: ptr(15.75)}, "the slide width is 15.75 cm, want 28 cm"},
	}
	for _, tt := range tests {
		for _, f := range []string{"deck.pptx", "deck.odp"} {
			t.Run(tt.name+"/"+f, func(t *testing.T) {
				if ok, detail := tt.cond.Eval(openDeck(t, right(f))); !ok {
					t.Errorf("right %s: %s", f, detail)
				}
				if ok, detail := tt.cond.Eval(openDeck(t, wrong(f))); ok || !strings.Contains(detail, tt.wantDetail) {
					t.Errorf("wrong %s: ok=%v detail=%q, want a failure saying %q", f, ok, detail, tt.wantDetail)
				}
			})
		}
	}
}

// TestPresentationText: a slide's text holds its title, bullets and table
// cells (not its notes), in the file's slide order; the whole deck's text
// holds every slide's; a slide past the end is an error.
func TestPresentationText(t *testing.T) {
	for _, f := range []string{"deck.pptx", "deck.odp"} {
		p := openDeck(t, right(f))
		for n, want := range map[int]string{
			1: "Quarterly review\nSales team, 2024",
			2: "Results\nNorth grew 12%\nSouth held steady",
			3: "Next steps\nHire\nQ3",
		} {
			if got, err := office.SlideText(p, n); got != want || err != nil {
				t.Errorf("%s slide %d text = %q, %v; want %q", f, n, got, err, want)
			}
		}
		if all, _ := office.SlideText(p, 0); !strings.Contains(all, "Sales team, 2024\nResults\n") || strings.Contains(all, "Welcome") {
			t.Errorf("%s whole text = %q, want every slide's text without the notes", f, all)
		}
		if _, err := office.SlideText(p, 4); err == nil || !strings.Contains(err.Error(), "the presentation has 3 slides, not 4") {
			t.Errorf("%s slide 4: %v", f, err)
		}
		w := openDeck(t, wrong(f))
		if got, _ := office.SlideText(w, 2); strings.Contains(got, "North grew") {
			t.Errorf("wrong %s slide 2 = %q, want the slide that comes second (Next steps)", f, got)
		}
	}
}

// TestHostilePresentations: presentations that are not what their names
// say, that unpack to more than a part may hold, that nest elements without
// end or that list slides the package lacks fail with a message naming the
// file — never a panic, a hang or all the machine's memory.
func TestHostilePresentations(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const pres = `<p:presentation xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">`
	// Bombs: one slide of 200 MiB of spaces, and five slides of 60 MiB
	// each (within a part's bound, past the file's), a few hundred KiB
	// zipped.
	bomb := func(name string, slides, mib int) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		zw := zip.NewWriter(f)
		defer zw.Close()
		var ids, rels strings.Builder
		for i := range slides {
			fmt.Fprintf(&ids, `<p:sldId r:id="rId%d"/>`, i)
			fmt.Fprintf(&rels, `<Relationship Id="rId%d" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide%d.xml"/>`, i, i)
		}
		w, _ := zw.Create("ppt/presentation.xml")
		w.Write([]byte(pres + `<p:sldIdLst>` + ids.String() + `</p:sldIdLst></p:presentation>`))
		w, _ = zw.Create("ppt/_rels/presentation.xml.rels")
		w.Write([]byte(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` + rels.String() + `</Relationships>`))
		// One slide compressed once, stored as every slide.
		var body bytes.Buffer
		crc := crc32.NewIEEE()
		fw, _ := flate.NewWriter(&body, flate.BestSpeed)
		out := io.MultiWriter(fw, crc)
		out.Write([]byte("<p:sld>"))
		chunk := []byte(strings.Repeat(" ", 1<<20))
		for range mib {
			out.Write(chunk)
		}
		out.Write([]byte("</p:sld>"))
		fw.Close()
		for i := range slides {
			w, err := zw.CreateRaw(&zip.FileHeader{
				Name: fmt.Sprintf("ppt/slides/slide%d.xml", i), Method: zip.Deflate, CRC32: crc.Sum32(),
				CompressedSize64: uint64(body.Len()), UncompressedSize64: uint64(mib<<20 + len("<p:sld></p:sld>")),
			})
			if err != nil {
				t.Fatal(err)
			}
			w.Write(body.Bytes())
		}
		return p
	}
	deep := strings.Repeat("<a>", 100000) + strings.Repeat("</a>", 100000)
	for _, tt := range []struct {
		path, want string
	}{
		{write("text.pptx", []byte("just text")), "text.pptx: not a zip package"},
		{write("empty.odp", nil), "empty.odp: not a zip package"},
		{write("nopres.pptx", mustZip(t, map[string]string{"[Content_Types].xml": "<x/>"})), "no ppt/presentation.xml inside"},
		{write("nocontent.odp", mustZip(t, map[string]string{"mimetype": "x"})), "nocontent.odp: no content.xml inside"},
		{write("badxml.odp", mustZip(t, map[string]string{"content.xml": "<office:document-content"})), "badxml.odp: content.xml"},
		{bomb("bomb.pptx", 1, 200), "bomb.pptx: ppt/slides/slide0.xml unpacks to 200 MiB, more than the 64 MiB a part may hold"},
		{bomb("bombs.pptx", 5, 60), "bombs.pptx: ppt/slides/slide4.xml: the file unpacks to more than 256 MiB in all"},
		{write("deep.odp", mustZip(t, map[string]string{"content.xml": deep})), "deep.odp: content.xml: elements nest more than 256 deep"},
		{write("deep.pptx", mustZip(t, map[string]string{"ppt/presentation.xml": deep})), "deep.pptx: ppt/presentation.xml: elements nest more than 256 deep"},
		{write("missing.pptx", mustZip(t, map[string]string{"ppt/presentation.xml": pres + `<p:sldIdLst><p:sldId id="256" r:id="rId9"/></p:sldIdLst></p:presentation>`})),
			`missing.pptx: slide 1 (relationship "rId9") is not in the package`},
		{write("many.pptx", mustZip(t, map[string]string{"ppt/presentation.xml": pres + `<p:sldIdLst>` + strings.Repeat(`<p:sldId r:id="rId1"/>`, 10001) + `</p:sldIdLst></p:presentation>`})),
			"many.pptx: more than 10000 slides"},
		{write("old.ppt", []byte("old")), `presentations are read from .pptx and .odp files, not ".ppt"`},
	} {
		_, err := office.OpenPresentation(tt.path)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("OpenPresentation(%s) = %v, want an error with %q", filepath.Base(tt.path), err, tt.want)
		}
	}
}

func openDeck(t *testing.T, path string) *office.Presentation {
	t.Helper()
	p, err := office.OpenPresentation(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSlideLayoutsAsPlanned: the layouts a check may name (the spec
// language's list) are the ones the reader gives.
func TestSlideLayoutsAsPlanned(t *testing.T) {
	if !slices.Equal(plan.SlideLayouts, office.Layouts) {
		t.Errorf("plan.SlideLayouts = %v, office.Layouts = %v: keep them the same", plan.SlideLayouts, office.Layouts)
	}
}
