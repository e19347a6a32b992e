package activities

import (
	"archive/zip"
	"context"
	"encoding/csv"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
)

// CheckInput is one device check with its templates rendered.
type CheckInput struct {
	Name     string   `json:"name"`
	Kind     string   `json:"kind"`
	Path     string   `json:"path,omitempty"`
	Argv     []string `json:"argv,omitempty"`
	Cell     string   `json:"cell,omitempty"`
	Sheet    string   `json:"sheet,omitempty"`
	Exists   *bool    `json:"exists,omitempty"`
	Contains *string  `json:"contains,omitempty"`
	Matches  *string  `json:"matches,omitempty"`
	Equals   *string  `json:"equals,omitempty"`
	ExitCode *int     `json:"exit_code,omitempty"`
}

// CheckResult is the outcome of one check.
type CheckResult struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Passed  bool   `json:"passed"`
	Skipped bool   `json:"skipped,omitempty"`
	Detail  string `json:"detail"`
}

// Check runs one check on the device. A check that cannot be evaluated (a
// missing file) fails with a detail that says why; only infrastructure
// problems are activity errors.
func (a *Activities) Check(ctx context.Context, in CheckInput) (*CheckResult, error) {
	defer heartbeat(ctx)()
	r := &CheckResult{Name: in.Name, Kind: in.Kind}
	red := a.redactor()
	// The subject (a file, a command's output, the screen) may show a
	// secret: the detail never does.
	defer func() { r.Detail = red.String(r.Detail) }()
	var rerr error
	sec := func(p *string) *string {
		if p == nil {
			return nil
		}
		v, err := red.Resolve(*p, a.Secrets)
		if err != nil {
			rerr = err
		}
		return &v
	}
	contains, matches, equals := sec(in.Contains), sec(in.Matches), sec(in.Equals)
	path := sec(&in.Path)
	if rerr != nil {
		return nil, rerr
	}
	var subject string
	switch in.Kind {
	case plan.CheckFile:
		b, err := os.ReadFile(*path)
		exists := err == nil
		if in.Exists != nil && *in.Exists != exists {
			r.Detail = fmt.Sprintf("%s: exists=%v, want %v", in.Path, exists, *in.Exists)
			return r, nil
		}
		if !exists {
			if in.Exists != nil && !*in.Exists {
				r.Passed, r.Detail = true, in.Path+" does not exist"
				return r, nil
			}
			r.Detail = fmt.Sprintf("%s: %v", in.Path, err)
			return r, nil
		}
		subject = string(b)
	case plan.CheckCommand:
		argv, err := a.resolveArgv(in.Argv)
		if err != nil {
			return nil, err
		}
		out, code, err := runCommand(ctx, argv, a.secretEnv())
		if err != nil {
			r.Detail = fmt.Sprintf("%s: %v", strings.Join(in.Argv, " "), err)
			return r, nil
		}
		if in.ExitCode != nil && code != *in.ExitCode {
			r.Detail = fmt.Sprintf("%s exited %d, want %d: %s", strings.Join(in.Argv, " "), code, *in.ExitCode, trunc(red.String(out), 200))
			return r, nil
		}
		subject = out
	case plan.CheckWindowTitle:
		wins, err := a.Device.Windows(ctx)
		if err != nil {
			return nil, fmt.Errorf("check %s: %w", in.Name, err)
		}
		for _, w := range wins {
			if ok, _ := holds(w, red, contains, matches, equals); ok {
				r.Passed, r.Detail = true, fmt.Sprintf("window %q", w)
				return r, nil
			}
		}
		r.Detail = fmt.Sprintf("no window title fits; open windows: %s", strings.Join(wins, " | "))
		return r, nil
	case plan.CheckScreenText, plan.CheckClipboard:
		s, err := a.Device.Observe(ctx)
		if err != nil {
			return nil, fmt.Errorf("check %s: %w", in.Name, err)
		}
		if in.Kind == plan.CheckClipboard {
			subject = s.Clipboard
		} else {
			subject = ScreenText(s)
		}
	case plan.CheckCell:
		v, err := ReadCell(*path, in.Sheet, in.Cell)
		if err != nil {
			r.Detail = err.Error()
			return r, nil
		}
		subject = v
	default:
		return nil, fmt.Errorf("check %s: unknown kind %q", in.Name, in.Kind)
	}
	ok, detail := holds(subject, red, contains, matches, equals)
	r.Passed, r.Detail = ok, detail
	if ok && r.Detail == "" {
		r.Detail = "ok"
	}
	return r, nil
}

// holds tests every given condition against s. The detail shows s
// redacted before it is shortened, so no part of a secret is shown.
func holds(s string, red *Redactor, contains, matches, equals *string) (bool, string) {
	shown := trunc(red.String(s), 200)
	if contains != nil && !strings.Contains(s, *contains) {
		return false, fmt.Sprintf("does not contain %q (got %q)", *contains, shown)
	}
	if matches != nil {
		re, err := regexp.Compile(*matches)
		if err != nil {
			return false, fmt.Sprintf("bad pattern %q: %v", *matches, err)
		}
		if !re.MatchString(s) {
			return false, fmt.Sprintf("does not match %q (got %q)", *matches, shown)
		}
	}
	if equals != nil && strings.TrimRight(s, "\r\n") != *equals {
		return false, fmt.Sprintf("is %q, want %q", shown, *equals)
	}
	return true, ""
}

// ScreenText is the text visible on screen: element names and values, and
// OCR words, one per line.
func ScreenText(s *screen.Screen) string {
	var b strings.Builder
	for _, e := range s.Elements {
		b.WriteString(e.Name)
		b.WriteByte('\n')
		if e.Value != "" {
			b.WriteString(e.Value)
			b.WriteByte('\n')
		}
	}
	for _, w := range Words(s) {
		b.WriteString(w.Text)
		b.WriteByte(' ')
	}
	b.WriteString("\n" + s.ActiveWindow)
	return b.String()
}

// FindText locates text among OCR words: every run of consecutive words
// (in reading order, on one line) whose joined text contains it.
func FindText(words []screen.Word, text string) []screen.Rect {
	want := strings.Fields(strings.ToLower(text))
	if len(want) == 0 {
		return nil
	}
	var hits []screen.Rect
	for i := range words {
		if !strings.Contains(strings.ToLower(words[i].Text), want[0]) {
			continue
		}
		box := words[i].Box
		ok := true
		for k := 1; k < len(want); k++ {
			j := i + k
			if j >= len(words) || !strings.Contains(strings.ToLower(words[j].Text), want[k]) {
				ok = false
				break
			}
			box = box.Union(words[j].Box)
		}
		if ok {
			hits = append(hits, box)
		}
	}
	return hits
}

// ReadCell reads one cell of a spreadsheet: .ods (OpenDocument) or .csv.
func ReadCell(path, sheet, cell string) (string, error) {
	col, row, err := parseCell(cell)
	if err != nil {
		return "", err
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		f, err := os.Open(path)
		if err != nil {
			return "", err
		}
		defer f.Close()
		recs, err := csv.NewReader(f).ReadAll()
		if err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		if row < len(recs) && col < len(recs[row]) {
			return recs[row][col], nil
		}
		return "", nil
	case ".ods":
		return readODSCell(path, sheet, col, row)
	}
	return "", fmt.Errorf("%s: cell checks read .ods and .csv files", path)
}

func parseCell(c string) (col, row int, err error) {
	i := 0
	for i < len(c) && c[i] >= 'A' && c[i] <= 'Z' {
		col = col*26 + int(c[i]-'A'+1)
		i++
	}
	r, err := strconv.Atoi(c[i:])
	if i == 0 || err != nil || r < 1 {
		return 0, 0, fmt.Errorf("bad cell reference %q", c)
	}
	return col - 1, r - 1, nil
}

func readODSCell(path, sheet string, col, row int) (string, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	defer zr.Close()
	var content io.ReadCloser
	for _, f := range zr.File {
		if f.Name == "content.xml" {
			content, err = f.Open()
			if err != nil {
				return "", err
			}
			break
		}
	}
	if content == nil {
		return "", fmt.Errorf("%s: not an OpenDocument spreadsheet (no content.xml)", path)
	}
	defer content.Close()
	dec := xml.NewDecoder(content)
	const tns = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
	const ons = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
	inSheet, sheetSeen := false, false
	r, c := -1, 0
	var text strings.Builder
	var capturing bool
	var value string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch {
			case t.Name.Space == tns && t.Name.Local == "table":
				name := attr(t, tns, "name")
				inSheet = !sheetSeen && (sheet == "" || name == sheet)
				if inSheet {
					sheetSeen = true
				}
				r = -1
			case inSheet && t.Name.Space == tns && t.Name.Local == "table-row":
				rep, _ := strconv.Atoi(attr(t, tns, "number-rows-repeated"))
				r++
				if rep > 1 && r+rep-1 < row {
					r += rep - 1
				}
				c = 0
			case inSheet && t.Name.Space == tns && (t.Name.Local == "table-cell" || t.Name.Local == "covered-table-cell"):
				rep, _ := strconv.Atoi(attr(t, tns, "number-columns-repeated"))
				if rep < 1 {
					rep = 1
				}
				if r == row && col >= c && col < c+rep {
					capturing = true
					value = attr(t, ons, "value")
					if value == "" {
						value = attr(t, ons, "string-value")
					}
				}
				c += rep
			}
		case xml.CharData:
			if capturing {
				text.Write(t)
			}
		case xml.EndElement:
			if capturing && t.Name.Space == tns && (t.Name.Local == "table-cell" || t.Name.Local == "covered-table-cell") {
				if s := text.String(); s != "" {
					return s, nil
				}
				return value, nil
			}
			if inSheet && t.Name.Space == tns && t.Name.Local == "table" {
				return "", nil
			}
		}
	}
	if !sheetSeen {
		return "", fmt.Errorf("%s: no sheet %q", path, sheet)
	}
	return "", nil
}

func attr(t xml.StartElement, space, local string) string {
	for _, a := range t.Attr {
		if a.Name.Space == space && a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}
