package office

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/ledongthuc/pdf"
)

// Document is a text document's content: paragraphs (headings included) in
// reading order, tables, and the page setup.
type Document struct {
	Paragraphs []Paragraph `json:"paragraphs"`
	Tables     []Table     `json:"tables,omitempty"`
	Page       Page        `json:"page"`

	// cellParas are the paragraphs inside table cells, for span formats.
	cellParas []Paragraph
}

// Paragraph is one paragraph or heading. Paragraphs inside table cells are
// listed in Tables, not here.
type Paragraph struct {
	Text string `json:"text"`
	// Style is the paragraph style's name ("Heading 1", "Text Body").
	Style string `json:"style,omitempty"`
	// Heading is the outline level (1 for a top heading), 0 for body text.
	Heading int   `json:"heading,omitempty"`
	Runs    []Run `json:"runs,omitempty"`
}

// Run is a stretch of text with one formatting.
type Run struct {
	Text   string `json:"text"`
	Format Format `json:"format"`
}

// Format is character formatting after styles are applied. Colours are
// upper-case RRGGBB; Size is in points.
type Format struct {
	Bold      bool    `json:"bold,omitempty"`
	Italic    bool    `json:"italic,omitempty"`
	Underline bool    `json:"underline,omitempty"`
	Strike    bool    `json:"strike,omitempty"`
	VertAlign string  `json:"vert_align,omitempty"` // "superscript", "subscript" or ""
	Font      string  `json:"font,omitempty"`
	Size      float64 `json:"size,omitempty"`
	Color     string  `json:"color,omitempty"`
	Highlight string  `json:"highlight,omitempty"`
}

// Table is a table's cell texts, row by row.
type Table struct {
	Rows [][]string `json:"rows"`
}

// Page is the first page style's setup; lengths in centimetres.
type Page struct {
	Orientation  string  `json:"orientation,omitempty"` // "portrait" or "landscape"
	Width        float64 `json:"width,omitempty"`
	Height       float64 `json:"height,omitempty"`
	MarginTop    float64 `json:"margin_top,omitempty"`
	MarginBottom float64 `json:"margin_bottom,omitempty"`
	MarginLeft   float64 `json:"margin_left,omitempty"`
	MarginRight  float64 `json:"margin_right,omitempty"`
}

// DocumentFormats lists the extensions OpenDocument reads.
var DocumentFormats = []string{".docx", ".odt", ".pdf"}

// OpenDocument reads a .docx, .odt or .pdf file (a PDF gives its text only,
// one paragraph per line).
func OpenDocument(path string) (*Document, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".docx":
		return readDOCX(path)
	case ".odt":
		return readODT(path)
	case ".pdf":
		return readPDF(path)
	default:
		return nil, fmt.Errorf("%s: documents are read from .docx, .odt and .pdf files, not %q", path, ext)
	}
}

// Text is the whole text, paragraphs and table cells, one paragraph a line.
func (d *Document) Text() string {
	var b strings.Builder
	for _, p := range d.Paragraphs {
		b.WriteString(p.Text)
		b.WriteByte('\n')
	}
	for _, t := range d.Tables {
		for _, r := range t.Rows {
			b.WriteString(strings.Join(r, "\t"))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// Headings returns the headings, optionally of one level (0: all).
func (d *Document) Headings(level int) []Paragraph {
	var out []Paragraph
	for _, p := range d.Paragraphs {
		if p.Heading > 0 && (level == 0 || p.Heading == level) {
			out = append(out, p)
		}
	}
	return out
}

// SpanFormats finds every occurrence of text inside one paragraph and
// returns, per occurrence, the formats of the runs it covers.
func (d *Document) SpanFormats(text string) [][]Format {
	var out [][]Format
	for _, p := range d.Paragraphs {
		out = append(out, spanIn(p, text)...)
	}
	for _, t := range d.cellParas {
		out = append(out, spanIn(t, text)...)
	}
	return out
}

func spanIn(p Paragraph, text string) [][]Format {
	if text == "" {
		return nil
	}
	var out [][]Format
	for from := 0; ; {
		i := strings.Index(p.Text[from:], text)
		if i < 0 {
			return out
		}
		start, end := from+i, from+i+len(text)
		var fs []Format
		pos := 0
		for _, r := range p.Runs {
			rs, re := pos, pos+len(r.Text)
			pos = re
			if re > start && rs < end && strings.TrimSpace(r.Text) != "" {
				fs = append(fs, r.Format)
			}
		}
		out = append(out, fs)
		from = end
	}
}

func readPDF(path string) (*Document, error) {
	f, r, err := pdf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable PDF: %w", path, err)
	}
	defer f.Close()
	tr, err := r.GetPlainText()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	b, err := io.ReadAll(tr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	d := &Document{}
	for _, line := range strings.Split(string(b), "\n") {
		if s := strings.TrimSpace(line); s != "" {
			d.Paragraphs = append(d.Paragraphs, Paragraph{Text: s, Runs: []Run{{Text: s}}})
		}
	}
	return d, nil
}
