package office_test

import (
	"archive/zip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pcflow/pcflow/activities/office"
)

// TestHostileFiles: files that are not what their names say, empty,
// truncated or built to blow up fail with a message naming the file —
// never a panic or a hang.
func TestHostileFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good, _ := os.ReadFile(right("sales.xlsx"))
	// An .ods whose one row repeats a million times and whose one cell
	// repeats 16,384 times, as sheets written to their edge do.
	var buf strings.Builder
	buf.WriteString(`<?xml version="1.0"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:spreadsheet><table:table table:name="S">`)
	buf.WriteString(`<table:table-row table:number-rows-repeated="1048576"><table:table-cell table:number-columns-repeated="16384" office:value-type="string"><text:p>x</text:p></table:table-cell></table:table-row>`)
	buf.WriteString(`</table:table></office:spreadsheet></office:body></office:document-content>`)
	huge := filepath.Join(dir, "huge.ods")
	f, _ := os.Create(huge)
	zw := zip.NewWriter(f)
	w, _ := zw.Create("content.xml")
	w.Write([]byte(buf.String()))
	zw.Close()
	f.Close()

	for _, tt := range []struct {
		path, want string
	}{
		{write("text.xlsx", []byte("just text")), "text.xlsx: not a readable .xlsx file"},
		{write("empty.ods", nil), "empty.ods: not a zip package"},
		{write("cut.xlsx", good[:len(good)/2]), "cut.xlsx: not a readable .xlsx file"},
		{write("notes.ods", mustZip(t, map[string]string{"mimetype": "x"})), "notes.ods: no content.xml inside"},
		{dir, "spreadsheets are read from"},
	} {
		_, err := office.OpenWorkbook(context.Background(), tt.path, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("OpenWorkbook(%s) = %v, want an error with %q", filepath.Base(tt.path), err, tt.want)
		}
	}
	wb, err := office.OpenWorkbook(context.Background(), huge, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := wb.Cell("S", "A1"); c.Value != "x" {
		t.Errorf("huge A1 = %q", c.Value)
	}
	if c, _ := wb.Cell("S", "XFD1048576"); c.Value != "" {
		t.Errorf("cells beyond the expansion bound read %q, want empty", c.Value)
	}
	for _, tt := range []struct {
		path, want string
	}{
		{write("text.docx", []byte("just text")), "text.docx: not a zip package"},
		{write("nodoc.docx", mustZip(t, map[string]string{"[Content_Types].xml": "<x/>"})), "no word/document.xml inside"},
		{write("badxml.odt", mustZip(t, map[string]string{"content.xml": "<office:document-content"})), "badxml.odt: content.xml"},
		{write("text.pdf", []byte("%PDF-1.4 nothing else")), "text.pdf: not a readable PDF"},
		{write("x.doc", []byte("old")), `documents are read from .docx, .odt and .pdf files, not ".doc"`},
	} {
		_, err := office.OpenDocument(tt.path)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("OpenDocument(%s) = %v, want an error with %q", filepath.Base(tt.path), err, tt.want)
		}
	}
}

// TestODSFrozen reads frozen panes from an .ods file's view settings
// (headless LibreOffice drops them when it converts, so they are read
// directly): row 1 and column A frozen on Data, nothing on Other.
func TestODSFrozen(t *testing.T) {
	settings := `<?xml version="1.0" encoding="UTF-8"?>
<office:document-settings xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:config="urn:oasis:names:tc:opendocument:xmlns:config:1.0"><office:settings>
<config:config-item-set config:name="ooo:view-settings"><config:config-item-map-indexed config:name="Views"><config:config-item-map-entry>
<config:config-item-map-named config:name="Tables">
<config:config-item-map-entry config:name="Other"><config:config-item config:name="HorizontalSplitMode" config:type="short">0</config:config-item></config:config-item-map-entry>
<config:config-item-map-entry config:name="Data">
<config:config-item config:name="HorizontalSplitMode" config:type="short">2</config:config-item>
<config:config-item config:name="VerticalSplitMode" config:type="short">2</config:config-item>
<config:config-item config:name="HorizontalSplitPosition" config:type="int">1</config:config-item>
<config:config-item config:name="VerticalSplitPosition" config:type="int">1</config:config-item>
</config:config-item-map-entry></config:config-item-map-named>
</config:config-item-map-entry></config:config-item-map-indexed></config:config-item-set></office:settings></office:document-settings>`
	content := `<?xml version="1.0"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:spreadsheet>` +
		`<table:table table:name="Data"><table:table-row><table:table-cell office:value-type="string"><text:p>h</text:p></table:table-cell></table:table-row></table:table>` +
		`<table:table table:name="Other"><table:table-row><table:table-cell/></table:table-row></table:table></office:spreadsheet></office:body></office:document-content>`
	p := filepath.Join(t.TempDir(), "frozen.ods")
	if err := os.WriteFile(p, mustZip(t, map[string]string{"content.xml": content, "settings.xml": settings}), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := office.OpenWorkbook(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	for sheet, want := range map[string]string{"Data": "B2", "Other": ""} {
		if got, err := w.Frozen(sheet); got != want || err != nil {
			t.Errorf("Frozen(%s) = %q, %v; want %q", sheet, got, err, want)
		}
	}
	// The right .ods made by headless LibreOffice has no view settings.
	w2 := open(t, right("sales.ods"))
	if got, err := w2.Frozen("Sales"); got != "" || err != nil {
		t.Errorf("Frozen of a converted .ods = %q, %v; want none", got, err)
	}
}

func mustZip(t *testing.T, files map[string]string) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), "z.zip")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, body := range files {
		w, _ := zw.Create(name)
		w.Write([]byte(body))
	}
	zw.Close()
	f.Close()
	b, _ := os.ReadFile(p)
	return b
}
