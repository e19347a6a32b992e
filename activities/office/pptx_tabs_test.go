package office_test

import (
	"archive/zip"
	"os"
	"path/filepath"
	"testing"

	"github.com/pcflow/pcflow/activities/office"
)

// TestPptxTabStopsAreNotText: <a:tab> inside a paragraph's
// <a:pPr><a:tabLst> is a tab stop (a position), not a character; a tab
// character is a literal "\t" in <a:t>. Impress writes a tab list into
// the paragraph properties of a deck it saves as .pptx, and every
// paragraph read with a leading tab made titles, equals and anchored
// matches fail (issue 43.7).
func TestPptxTabStopsAreNotText(t *testing.T) {
	const (
		ns    = `xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
		stops = `<a:pPr><a:tabLst><a:tab pos="457200" algn="l"/><a:tab pos="914400" algn="l"/></a:tabLst></a:pPr>`
	)
	parts := map[string]string{
		"ppt/presentation.xml":            `<p:presentation ` + ns + `><p:sldIdLst><p:sldId id="256" r:id="rId1"/></p:sldIdLst></p:presentation>`,
		"ppt/_rels/presentation.xml.rels": `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide1.xml"/></Relationships>`,
		"ppt/slides/slide1.xml": `<p:sld ` + ns + `><p:cSld><p:spTree>` +
			`<p:sp><p:nvSpPr><p:cNvPr id="2" name="Title"/><p:cNvSpPr/><p:nvPr><p:ph type="title"/></p:nvPr></p:nvSpPr><p:txBody><a:bodyPr/>` +
			`<a:p>` + stops + `<a:r><a:t>Budget 2027</a:t></a:r></a:p></p:txBody></p:sp>` +
			`<p:sp><p:nvSpPr><p:cNvPr id="3" name="Body"/><p:cNvSpPr/><p:nvPr><p:ph idx="1"/></p:nvPr></p:nvSpPr><p:txBody><a:bodyPr/>` +
			`<a:p>` + stops + `<a:r><a:t>Rent` + "\t" + `1200</a:t></a:r></a:p></p:txBody></p:sp>` +
			`</p:spTree></p:cSld></p:sld>`,
	}
	path := filepath.Join(t.TempDir(), "stops.pptx")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, body := range parts {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	p := openDeck(t, path)
	if got, err := office.SlideText(p, 1); err != nil || got != "Budget 2027\nRent\t1200" {
		t.Errorf("slide 1 text = %q, %v; want %q (tab stops are no characters, a tab in the text is one)", got, err, "Budget 2027\nRent\t1200")
	}
	if ok, detail := (office.DeckCond{Titles: []string{"Budget 2027"}}).Eval(p); !ok {
		t.Errorf("titles: %s", detail)
	}
}
