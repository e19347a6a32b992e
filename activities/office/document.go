package office

import (
	"fmt"
	"math"
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
	Heading int `json:"heading,omitempty"`
	// Align is left, center, right or justify after styles are applied
	// ("" when the file states none: left).
	Align string `json:"align,omitempty"`
	Runs  []Run  `json:"runs,omitempty"`
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
	// nested is a table inside another table's cell.
	nested bool
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

func readPDF(path string) (d *Document, err error) {
	f, r, err := pdf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable PDF: %w", path, err)
	}
	defer f.Close()
	defer func() {
		// The PDF library panics on some malformed files.
		if p := recover(); p != nil {
			d, err = nil, fmt.Errorf("%s: not a readable PDF: %v", path, p)
		}
	}()
	d = &Document{}
	for i := 1; i <= r.NumPage(); i++ {
		pg := r.Page(i)
		if pg.V.IsNull() || pg.V.Key("Contents").Kind() == pdf.Null {
			continue
		}
		for _, line := range pdfLines(pg) {
			d.Paragraphs = append(d.Paragraphs, Paragraph{Text: line, Runs: []Run{{Text: line}}})
		}
	}
	return d, nil
}

// pdfLines reads a page's text in content order, starting a new line only
// where the text position moves down by more than half the font size, so
// that runs in other fonts, subscripts and superscripts stay on their line
// (the library's own GetPlainText breaks at every text object).
func pdfLines(pg pdf.Page) []string {
	fonts := map[string]*pdf.Font{}
	for _, name := range pg.Fonts() {
		f := pg.Font(name)
		fonts[name] = &f
	}
	var enc pdf.TextEncoding
	var lines []string
	var cur strings.Builder
	var y, lineY, size, scale float64 = 0, math.NaN(), 1, 1
	flush := func() {
		if s := strings.Join(strings.Fields(cur.String()), " "); s != "" {
			lines = append(lines, s)
		}
		cur.Reset()
	}
	show := func(s string) {
		if enc != nil {
			s = enc.Decode(s)
		}
		if !math.IsNaN(lineY) && math.Abs(y-lineY) > 0.5*math.Abs(size*scale) {
			if y < lineY-0.5*math.Abs(size*scale) {
				flush()
				lineY = y
			}
		}
		if math.IsNaN(lineY) {
			lineY = y
		}
		cur.WriteString(s)
	}
	pdf.Interpret(pg.V.Key("Contents"), func(stk *pdf.Stack, op string) {
		n := stk.Len()
		args := make([]pdf.Value, n)
		for i := n - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		switch op {
		case "BT": // each text object starts from the identity matrix
			y, scale = 0, 1
		case "Tf":
			if n == 2 {
				if f, ok := fonts[args[0].Name()]; ok {
					enc = f.Encoder()
				} else {
					enc = nil
				}
				size = args[1].Float64()
			}
		case "Tm":
			if n == 6 {
				y, scale = args[5].Float64(), args[3].Float64()
				if scale == 0 {
					scale = 1
				}
			}
		case "Td", "TD":
			if n == 2 {
				y += args[1].Float64() * scale
			}
		case "T*":
			y -= size * scale
		case "Tj", "'", "\"":
			if n >= 1 {
				show(args[n-1].RawString())
			}
		case "TJ":
			if n == 1 {
				v := args[0]
				for i := 0; i < v.Len(); i++ {
					if x := v.Index(i); x.Kind() == pdf.String {
						show(x.RawString())
					} else if x.Float64() < -200 {
						cur.WriteByte(' ') // a wide negative kern is a space
					}
				}
			}
		}
	})
	flush()
	return lines
}
