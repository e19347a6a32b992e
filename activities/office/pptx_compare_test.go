package office_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcflow/pcflow/activities/office"
	"github.com/pcflow/pcflow/specs/plan"
)

const deckNS = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"`

// deck is a PowerPoint package written part by part: each slide's shapes
// (the inside of its p:spTree) and notes, over one layout and one master
// whose shapes are given too.
type deck struct {
	slides, notes  []string
	layout, master string
}

func (d deck) write(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z := zip.NewWriter(f)
	put := func(name, body string) {
		w, err := z.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" + body)); err != nil {
			t.Fatal(err)
		}
	}
	rel := func(id, typ, target string) string {
		return `<Relationship Id="` + id + `" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/` + typ + `" Target="` + target + `"/>`
	}
	rels := func(body string) string {
		return `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` + body + `</Relationships>`
	}
	tree := func(root, shapes string) string {
		return `<p:` + root + ` ` + deckNS + `><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>` + shapes + `</p:spTree></p:cSld></p:` + root + `>`
	}
	var ids, prels string
	for i, s := range d.slides {
		n := i + 1
		ids += fmt.Sprintf(`<p:sldId id="%d" r:id="rId%d"/>`, 256+n, n)
		prels += rel(fmt.Sprintf("rId%d", n), "slide", fmt.Sprintf("slides/slide%d.xml", n))
		put(fmt.Sprintf("ppt/slides/slide%d.xml", n), tree("sld", s))
		srels := rel("rId1", "slideLayout", "../slideLayouts/slideLayout1.xml")
		if i < len(d.notes) {
			srels += rel("rId2", "notesSlide", fmt.Sprintf("../notesSlides/notesSlide%d.xml", n))
			put(fmt.Sprintf("ppt/notesSlides/notesSlide%d.xml", n), tree("notes", d.notes[i]))
		}
		put(fmt.Sprintf("ppt/slides/_rels/slide%d.xml.rels", n), rels(srels))
	}
	put("ppt/presentation.xml", `<p:presentation `+deckNS+`><p:sldIdLst>`+ids+`</p:sldIdLst><p:sldSz cx="12192000" cy="6858000"/></p:presentation>`)
	put("ppt/_rels/presentation.xml.rels", rels(prels))
	put("ppt/slideLayouts/slideLayout1.xml", tree("sldLayout", d.layout))
	put("ppt/slideLayouts/_rels/slideLayout1.xml.rels", rels(rel("rId1", "slideMaster", "../slideMasters/slideMaster1.xml")))
	put("ppt/slideMasters/slideMaster1.xml", tree("sldMaster", d.master))
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// sp is a text shape: its placeholder element (or ""), its transform (or
// ""), and its text body's paragraphs (nil: no text body).
func sp(id int, ph, xfrm string, paras ...string) string {
	s := fmt.Sprintf(`<p:sp><p:nvSpPr><p:cNvPr id="%d" name="s%d"/><p:cNvSpPr/><p:nvPr>%s</p:nvPr></p:nvSpPr><p:spPr>%s</p:spPr>`, id, id, ph, xfrm)
	if paras != nil {
		s += `<p:txBody><a:bodyPr/><a:lstStyle/>` + strings.Join(paras, "") + `</p:txBody>`
	}
	return s + `</p:sp>`
}

func at(x, y, cx, cy int) string {
	return fmt.Sprintf(`<a:xfrm><a:off x="%d" y="%d"/><a:ext cx="%d" cy="%d"/></a:xfrm>`, x, y, cx, cy)
}

func para(pPr, rPr, text string) string {
	return `<a:p>` + pPr + `<a:r>` + rPr + `<a:t>` + text + `</a:t></a:r></a:p>`
}

// TestComparePresentations compares decks as OSWorld's compare_pptx_files
// reads them with python-pptx: a placeholder without a position of its
// own has its layout's (and the layout's placeholder its master's), so a
// deck that writes them out (as LibreOffice does) matches one that
// inherits them; each difference compare_pptx_files looks at fails with
// a detail naming it (the bullets of the whole slide are compared at its
// first pair of runs, so a bullet's level or character differs there),
// and passes when ignored; what it does not look at
// (a run's language, the text of extra shapes past the shorter list)
// passes.
func TestComparePresentations(t *testing.T) {
	dir := t.TempDir()
	master := sp(2, `<p:ph type="title"/>`, at(100, 200, 3000, 400), []string{`<a:p/>`}...) +
		sp(3, `<p:ph type="body" idx="1"/>`, at(100, 900, 3000, 2000), []string{`<a:p/>`}...)
	// The layout's title inherits the master's position; its body has
	// one of its own.
	layout := sp(2, `<p:ph type="title"/>`, "", `<a:p/>`) + sp(3, `<p:ph idx="1"/>`, at(150, 950, 2900, 1900), `<a:p/>`)
	title := func(text, xfrm string) string {
		return sp(2, `<p:ph type="title"/>`, xfrm, para("", `<a:rPr lang="en-US" b="1"/>`, text))
	}
	body := func(xfrm string, paras ...string) string { return sp(3, `<p:ph idx="1"/>`, xfrm, paras...) }
	box := sp(4, "", at(5000, 5000, 800, 800)) // a shape without text
	notes := func(text string) string { return sp(2, `<p:ph type="body" idx="1"/>`, "", para("", "", text)) }
	ref := deck{
		slides: []string{
			title("Quarterly review", "") + body("", para(`<a:pPr lvl="1"><a:buChar char="•"/></a:pPr>`, `<a:rPr sz="2400"><a:solidFill><a:srgbClr val="FF0000"/></a:solidFill><a:latin typeface="Arial"/></a:rPr>`, "North grew 12%")) + box,
			title("Next steps", ""),
		},
		notes:  []string{notes("Welcome everyone. ")},
		layout: layout, master: master,
	}.write(t, filepath.Join(dir, "ref.pptx"))
	// The same deck as LibreOffice writes it: every position explicit,
	// languages on runs, the colour in lower case, no notes slide for the
	// second slide, and a shape without text past the reference's shapes.
	same := deck{
		slides: []string{
			title("Quarterly review", at(100, 200, 3000, 400)) + body(at(150, 950, 2900, 1900), para(`<a:pPr lvl="1"><a:buChar char="•"/></a:pPr>`, `<a:rPr lang="en-GB" sz="2400"><a:solidFill><a:srgbClr val="ff0000"/></a:solidFill><a:latin typeface="Arial"/></a:rPr>`, "North grew 12%")) + box,
			title("Next steps", at(100, 200, 3000, 400)) + sp(9, "", at(1, 1, 1, 1)),
		},
		notes:  []string{notes("Welcome everyone.")},
		layout: layout, master: master,
	}.write(t, filepath.Join(dir, "same.pptx"))
	if ok, diff, err := office.ComparePresentations(same, ref, nil); err != nil || !ok {
		t.Fatalf("ComparePresentations(same, ref) = %v, %q, %v; want the same deck", ok, diff, err)
	}

	for _, tt := range []struct {
		name, aspect string
		deck         deck
		want         string
	}{
		{"one slide fewer", "slide_count", deck{slides: []string{title("Quarterly review", "")}}, "1 slides, the reference has 2"},
		{"other notes", "notes", deck{slides: []string{title("Quarterly review", ""), title("Next steps", "")}, notes: []string{notes("Hello")}},
			`slide 1: notes "Hello", the reference's "Welcome everyone."`},
		{"title moved", "positions", deck{slides: []string{title("Quarterly review", at(100, 300, 3000, 400)), title("Next steps", "")}, notes: []string{notes("Welcome everyone.")}},
			"slide 1: shape 1 is at left 100, top 300, 3000 × 400 EMU, the reference's at 100, 200, 3000 × 400"},
		{"other title", "text", deck{slides: []string{title("Quarterly results", ""), title("Next steps", "")}, notes: []string{notes("Welcome everyone.")}},
			`slide 1: shape 1: text "Quarterly results", the reference's "Quarterly review"`},
		{"title not bold", "bold", deck{slides: []string{sp(2, `<p:ph type="title"/>`, "", para("", `<a:rPr b="0"/>`, "Quarterly review")), title("Next steps", "")}, notes: []string{notes("Welcome everyone.")}},
			"slide 1: shape 1: paragraph 1, run 1: bold false, the reference's true"},
		{"bullet level", "bullets", deck{slides: []string{title("Quarterly review", "") + body("", para(`<a:pPr lvl="2"><a:buChar char="•"/></a:pPr>`, `<a:rPr sz="2400"><a:solidFill><a:srgbClr val="FF0000"/></a:solidFill><a:latin typeface="Arial"/></a:rPr>`, "North grew 12%")) + box, title("Next steps", "")}, notes: []string{notes("Welcome everyone.")}},
			`slide 1: shape 1: the slide's bullets (level, bullet, text, colour) are (No Level, No Bullet, "Quarterly review", No Color) | (2, •, "North grew 12%", No Color), ` +
				`the reference's (No Level, No Bullet, "Quarterly review", No Color) | (1, •, "North grew 12%", No Color)`},
		{"blue text", "color", deck{slides: []string{title("Quarterly review", "") + body("", para(`<a:pPr lvl="1"><a:buChar char="•"/></a:pPr>`, `<a:rPr sz="2400"><a:solidFill><a:srgbClr val="0000FF"/></a:solidFill><a:latin typeface="Arial"/></a:rPr>`, "North grew 12%")) + box, title("Next steps", "")}, notes: []string{notes("Welcome everyone.")}},
			"slide 1: shape 2: paragraph 1, run 1: colour 0000FF, the reference's FF0000"},
		{"other bullet", "bullets", deck{slides: []string{title("Quarterly review", "") + body("", para(`<a:pPr lvl="1"><a:buChar char="-"/></a:pPr>`, `<a:rPr sz="2400"><a:solidFill><a:srgbClr val="FF0000"/></a:solidFill><a:latin typeface="Arial"/></a:rPr>`, "North grew 12%")) + box, title("Next steps", "")}, notes: []string{notes("Welcome everyone.")}},
			`slide 1: shape 1: the slide's bullets (level, bullet, text, colour) are (No Level, No Bullet, "Quarterly review", No Color) | (1, -, "North grew 12%", No Color), ` +
				`the reference's (No Level, No Bullet, "Quarterly review", No Color) | (1, •, "North grew 12%", No Color)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.deck.layout, tt.deck.master = layout, master
			path := tt.deck.write(t, filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_")+".pptx"))
			ok, diff, err := office.ComparePresentations(path, ref, nil)
			if err != nil || ok || diff != tt.want {
				t.Errorf("ComparePresentations = %v, %q, %v; want a difference %q", ok, diff, err, tt.want)
			}
			// Left out, the aspect no longer fails the comparison there.
			ok, diff, err = office.ComparePresentations(path, ref, []string{tt.aspect})
			if err != nil || (ok == false && strings.HasPrefix(diff, tt.want)) {
				t.Errorf("ComparePresentations ignoring %s = %v, %q, %v; want that difference gone", tt.aspect, ok, diff, err)
			}
		})
	}
}

// TestCompareBulletsOfShapesWithoutText: python-pptx gives a text shape
// without a text body an empty paragraph once its text is read, and
// OSWorld's bullets then count it: a deck whose bare shape is paired with
// a picture in the reference has had that shape's text read, and differs
// from the reference by that empty paragraph, as compare_pptx_files finds;
// paired the other way round, the bare shape is never read.
func TestCompareBulletsOfShapesWithoutText(t *testing.T) {
	dir := t.TempDir()
	pic := `<p:pic><p:nvPicPr><p:cNvPr id="7" name="p"/><p:cNvPicPr/><p:nvPr/></p:nvPicPr><p:blipFill/><p:spPr>` + at(0, 0, 10, 10) + `</p:spPr></p:pic>`
	bare := sp(7, "", at(0, 0, 10, 10))
	text := sp(8, "", at(20, 20, 10, 10), para("", `<a:rPr b="1"/>`, "Hi"))
	bareDeck := deck{slides: []string{bare + text}}.write(t, filepath.Join(dir, "bare.pptx"))
	picDeck := deck{slides: []string{pic + text}}.write(t, filepath.Join(dir, "pic.pptx"))
	if ok, diff, err := office.ComparePresentations(picDeck, bareDeck, nil); !ok || err != nil {
		t.Errorf("picture against the bare shape: %v, %q, %v; want the same (the bare shape is never read)", ok, diff, err)
	}
	ok, diff, err := office.ComparePresentations(bareDeck, picDeck, nil)
	if want := `slide 1: shape 2: the slide's bullets (level, bullet, text, colour) are (No Level, No Bullet, "", No Color) | (No Level, No Bullet, "Hi", No Color), the reference's (No Level, No Bullet, "Hi", No Color)`; ok || err != nil || diff != want {
		t.Errorf("bare shape against the picture = %v, %q, %v; want %q", ok, diff, err, want)
	}
}

// TestCompareSavedDecks: decks as an agent and a benchmark's author leave
// them, each saved by LibreOffice Impress from the deck a task starts
// with: the deck edited as the reference was (its first title changed) is
// the same deck; the deck left as it was differs in that title; the
// wrong deck has a slide more; an .odp cannot be compared. (Impress
// rewrites a deck it saves again: sizes rounded through hundredths of a
// millimetre, table paragraphs given properties, so both sides must come
// from the same kind of save, as in the benchmark.)
func TestCompareSavedDecks(t *testing.T) {
	dir := t.TempDir()
	start, err := os.ReadFile(right("deck.pptx"))
	if err != nil {
		t.Fatal(err)
	}
	edited := editPart(t, start, "ppt/slides/slide1.xml", "Quarterly review", "Annual review")
	var ins []string
	files := map[string][]byte{"gold.pptx": edited, "agent.pptx": edited, "untouched.pptx": start}
	for name, b := range files {
		in := filepath.Join(dir, name)
		if err := os.WriteFile(in, b, 0o644); err != nil {
			t.Fatal(err)
		}
		ins = append(ins, in)
	}
	if _, err := (office.Soffice{}).ConvertAll(context.Background(), ins, "pptx", filepath.Join(dir, "saved")); err != nil {
		t.Fatal(err)
	}
	saved := func(name string) string { return filepath.Join(dir, "saved", name) }
	if ok, diff, err := office.ComparePresentations(saved("agent.pptx"), saved("gold.pptx"), nil); !ok || err != nil {
		t.Errorf("the deck edited as the reference: %v, %q, %v; want the same deck", ok, diff, err)
	}
	if ok, diff, err := office.ComparePresentations(saved("untouched.pptx"), saved("gold.pptx"), nil); ok || err != nil || !strings.Contains(diff, `text "Quarterly review", the reference's "Annual review"`) {
		t.Errorf("the deck left as it was: %v, %q, %v; want its first title to differ", ok, diff, err)
	}
	if ok, diff, err := office.ComparePresentations(wrong("deck.pptx"), right("deck.pptx"), nil); ok || err != nil || diff != "4 slides, the reference has 3" {
		t.Errorf("the wrong deck: %v, %q, %v; want 4 slides against 3", ok, diff, err)
	}
	if _, _, err := office.ComparePresentations(right("deck.odp"), right("deck.pptx"), nil); err == nil || !strings.Contains(err.Error(), "not .odp") {
		t.Errorf("an .odp: %v, want an error saying it is compared as .pptx", err)
	}
}

// editPart returns the package pkg with old replaced by new in one part.
func editPart(t *testing.T, pkg []byte, part, old, new string) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(pkg), int64(len(pkg)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	found := false
	for _, f := range zr.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		if f.Name == part && bytes.Contains(b, []byte(old)) {
			b, found = bytes.ReplaceAll(b, []byte(old), []byte(new)), true
		}
		w, err := zw.Create(f.Name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if !found {
		t.Fatalf("%s holds no %q", part, old)
	}
	return buf.Bytes()
}

// TestDeckAspectsAsPlanned: the aspects a task may ignore are the ones the
// device compares.
func TestDeckAspectsAsPlanned(t *testing.T) {
	if diff := cmp.Diff(plan.DeckAspects, office.DeckAspects); diff != "" {
		t.Errorf("plan.DeckAspects and office.DeckAspects differ (-plan +office):\n%s", diff)
	}
}

// TestCompareHostileDeck: a slide of thousands of bare shapes between
// text shapes would have its bullets read again after each one; the
// comparison stops with a reason once that would read more than its
// bound, and a deck of the same shapes in small numbers compares.
func TestCompareHostileDeck(t *testing.T) {
	dir := t.TempDir()
	shapes := func(n int) string {
		var sb strings.Builder
		for i := range n {
			sb.WriteString(sp(2*i+2, "", at(i, i, 10, 10)))
			sb.WriteString(sp(2*i+3, "", at(i, i, 20, 20), para("", `<a:rPr b="1"/>`, fmt.Sprint("text ", i))))
		}
		return sb.String()
	}
	small := deck{slides: []string{shapes(20)}}.write(t, filepath.Join(dir, "small.pptx"))
	if ok, diff, err := office.ComparePresentations(small, small, nil); !ok || err != nil {
		t.Errorf("20 pairs of shapes against themselves: %v, %q, %v; want the same deck", ok, diff, err)
	}
	big := deck{slides: []string{shapes(3000)}}.write(t, filepath.Join(dir, "big.pptx"))
	ok, diff, err := office.ComparePresentations(big, big, nil)
	if ok || err != nil || !strings.Contains(diff, "too large to compare its bullets") {
		t.Errorf("3000 pairs of shapes: %v, %q, %v; want a failure saying the slide is too large", ok, diff, err)
	}
}
