package office

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
)

// Presentation is a slide deck's content: its slides in show order and the
// slide size.
type Presentation struct {
	Slides []Slide `json:"slides"`
	// Width and Height are the slide size in centimetres; Orientation is
	// "landscape" when the slides are wider than high, else "portrait".
	Width       float64 `json:"width,omitempty"`
	Height      float64 `json:"height,omitempty"`
	Orientation string  `json:"orientation,omitempty"`
}

// Slide is one slide's text.
type Slide struct {
	// Title is the text of its title placeholder ("" without one).
	Title string `json:"title,omitempty"`
	// Text is every paragraph on the slide, the title's included, one a
	// line, in the order the file lists its shapes (table cells too).
	Text string `json:"text"`
	// Notes are the speaker notes, one paragraph a line.
	Notes string `json:"notes,omitempty"`
	// Background is the slide's solid background colour (RRGGBB), its own
	// or its layout's or master's; "" when it has none (a picture, a
	// gradient, a theme colour or the default white).
	Background string `json:"background,omitempty"`
	// Layout is the kind of the slide's layout (one of Layouts), read from
	// the placeholders the layout holds: a pptx slide's slideLayout part, an
	// odp page's presentation-page-layout. "" when the slide has none.
	Layout string `json:"layout,omitempty"`
}

// Layouts are the kinds of slide layout a check names: a title slide
// (title and subtitle), a title and one content (outline, object, chart,
// table, picture), a title and two, a title only, centered text (a
// subtitle only) and blank (no placeholder); a layout of any other make
// reads "other". They come from the placeholders, not the layout's name or
// type, which producers write as they please (LibreOffice saves its "Title
// Slide" to .pptx with type "tx", to .odp as "AL1T0").
var Layouts = []string{"title", "title_content", "two_content", "title_only", "centered_text", "blank"}

// layoutKind names the layout holding titles title placeholders,
// subtitles subtitle ones and contents content ones.
func layoutKind(titles, subtitles, contents int) string {
	switch {
	case titles == 0 && subtitles == 0 && contents == 0:
		return "blank"
	case titles == 0 && subtitles > 0 && contents == 0:
		return "centered_text"
	case titles > 0 && subtitles > 0 && contents == 0:
		return "title"
	case titles > 0 && subtitles == 0 && contents == 0:
		return "title_only"
	case titles > 0 && subtitles == 0 && contents == 1:
		return "title_content"
	case titles > 0 && subtitles == 0 && contents == 2:
		return "two_content"
	}
	return "other"
}

// PresentationFormats lists the extensions OpenPresentation reads.
var PresentationFormats = []string{".pptx", ".odp"}

// OpenPresentation reads a .pptx or .odp file.
func OpenPresentation(path string) (*Presentation, error) {
	var (
		p   *Presentation
		err error
	)
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".pptx":
		p, err = readPPTX(path)
	case ".odp":
		p, err = readODP(path)
	default:
		return nil, fmt.Errorf("%s: presentations are read from .pptx and .odp files, not %q", path, ext)
	}
	if err != nil {
		return nil, err
	}
	p.Width, p.Height = round2(p.Width), round2(p.Height)
	if p.Width > 0 {
		p.Orientation = "portrait"
		if p.Width > p.Height {
			p.Orientation = "landscape"
		}
	}
	return p, nil
}

// SlideText is the text the generic conditions (contains, matches, equals)
// read: slide n's (1-based), or with n = 0 every slide's, one after the
// other.
func SlideText(p *Presentation, n int) (string, error) {
	if n == 0 {
		var b strings.Builder
		for _, s := range p.Slides {
			b.WriteString(s.Text)
			b.WriteByte('\n')
		}
		return b.String(), nil
	}
	if n > len(p.Slides) {
		return "", fmt.Errorf("the presentation has %d slides, not %d", len(p.Slides), n)
	}
	return p.Slides[n-1].Text, nil
}

// DeckCond are conditions on a presentation beyond its text.
type DeckCond struct {
	// Slides is the number of slides.
	Slides *int `json:"slides,omitempty"`
	// Slide (1-based) is the slide Notes and Background read; 0 makes
	// Background apply to every slide.
	Slide int `json:"slide,omitempty"`
	// Titles are the slides' titles in order, one per slide.
	Titles []string `json:"titles,omitempty"`
	// Notes are the slide's speaker notes, compared without surrounding
	// space.
	Notes *string `json:"notes,omitempty"`
	// Background is a colour (RRGGBB or a name).
	Background *string `json:"background,omitempty"`
	// Layout is the kind of layout (one of Layouts) of slide Slide, or
	// with Slide 0 of every slide.
	Layout      *string `json:"layout,omitempty"`
	Orientation *string `json:"orientation,omitempty"`
	// Width and Height are the slide size in centimetres, within 0.05 cm.
	Width  *float64 `json:"width,omitempty"`
	Height *float64 `json:"height,omitempty"`
}

// Eval checks the conditions against p.
func (c DeckCond) Eval(p *Presentation) (bool, string) {
	if c.Slides != nil && len(p.Slides) != *c.Slides {
		return false, fmt.Sprintf("the presentation has %d slides, want %d", len(p.Slides), *c.Slides)
	}
	if c.Slide > len(p.Slides) {
		return false, fmt.Sprintf("the presentation has %d slides, not %d", len(p.Slides), c.Slide)
	}
	if c.Titles != nil {
		got := make([]string, len(p.Slides))
		for i, s := range p.Slides {
			got[i] = s.Title
		}
		if !slices.Equal(got, c.Titles) {
			return false, fmt.Sprintf("slide titles are [%s], want [%s]", strings.Join(quoteAll(got), ", "), strings.Join(quoteAll(c.Titles), ", "))
		}
	}
	if c.Notes != nil && c.Slide > 0 {
		if got := strings.TrimSpace(p.Slides[c.Slide-1].Notes); got != strings.TrimSpace(*c.Notes) {
			return false, fmt.Sprintf("slide %d's notes are %q, want %q", c.Slide, got, strings.TrimSpace(*c.Notes))
		}
	}
	if c.Background != nil {
		want := NormColor(*c.Background)
		for i, s := range p.Slides {
			if c.Slide > 0 && i != c.Slide-1 {
				continue
			}
			if s.Background != want {
				return false, fmt.Sprintf("slide %d's background is %s, want %s", i+1, orNone(s.Background), want)
			}
		}
	}
	if c.Layout != nil {
		for i, s := range p.Slides {
			if c.Slide > 0 && i != c.Slide-1 {
				continue
			}
			if s.Layout != *c.Layout {
				return false, fmt.Sprintf("slide %d's layout is %s, want %s", i+1, orNone(s.Layout), *c.Layout)
			}
		}
	}
	if c.Orientation != nil && p.Orientation != *c.Orientation {
		return false, fmt.Sprintf("the slides are %s (%s × %s cm), want %s", orNone(p.Orientation), fnum(p.Width), fnum(p.Height), *c.Orientation)
	}
	for _, d := range []struct {
		name string
		want *float64
		got  float64
	}{{"width", c.Width, p.Width}, {"height", c.Height, p.Height}} {
		if d.want != nil && math.Abs(d.got-*d.want) > 0.05 {
			return false, fmt.Sprintf("the slide %s is %s cm, want %s cm", d.name, fnum(d.got), fnum(*d.want))
		}
	}
	return true, ""
}
