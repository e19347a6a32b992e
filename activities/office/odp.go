package office

import (
	"encoding/xml"
	"fmt"
	"strings"
)

const (
	nsDraw = "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"
	nsPres = "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"
)

// odpStyles are what a presentation's styles say about its pages: page
// layouts (slide sizes), master pages, and the fill of drawing-page styles.
type odpStyles struct {
	layouts map[string][2]float64 // page layout → width, height in cm
	masters map[string][2]string  // master page → page layout, drawing-page style
	first   string                // the first master page
	// fills are the drawing-page styles that set a fill, by name: the
	// solid colour, or "" for another fill (none, a bitmap, a gradient).
	fills map[string]string
	// presLayouts are the presentation page layouts: the objects of their
	// placeholders (title, subtitle, outline, ...), by name.
	presLayouts map[string][]string
}

// style notes what a style element says about pages; curStyle is the
// page layout or drawing-page style being read ("layout/NAME", "page/NAME").
func (s *odpStyles) style(tok xml.StartElement, curStyle *string) {
	switch tok.Name.Space + " " + tok.Name.Local {
	case nsStyle + " page-layout":
		*curStyle = "layout/" + attr(tok, nsStyle, "name")
	case nsStyle + " page-layout-properties":
		if name, ok := strings.CutPrefix(*curStyle, "layout/"); ok {
			s.layouts[name] = [2]float64{odfLength(attr(tok, nsFO, "page-width")), odfLength(attr(tok, nsFO, "page-height"))}
		}
	case nsStyle + " presentation-page-layout":
		*curStyle = "pres/" + attr(tok, nsStyle, "name")
		s.presLayouts[attr(tok, nsStyle, "name")] = []string{}
	case nsPres + " placeholder":
		if name, ok := strings.CutPrefix(*curStyle, "pres/"); ok {
			s.presLayouts[name] = append(s.presLayouts[name], attr(tok, nsPres, "object"))
		}
	case nsStyle + " master-page":
		name := attr(tok, nsStyle, "name")
		s.masters[name] = [2]string{attr(tok, nsStyle, "page-layout-name"), attr(tok, nsDraw, "style-name")}
		if s.first == "" {
			s.first = name
		}
	case nsStyle + " style":
		*curStyle = ""
		if attr(tok, nsStyle, "family") == "drawing-page" {
			*curStyle = "page/" + attr(tok, nsStyle, "name")
		}
	case nsStyle + " drawing-page-properties":
		name, ok := strings.CutPrefix(*curStyle, "page/")
		if !ok {
			return
		}
		switch fill := attr(tok, nsDraw, "fill"); fill {
		case "":
		case "solid":
			s.fills[name] = normColor(attr(tok, nsDraw, "fill-color"))
		default:
			s.fills[name] = ""
		}
	}
}

// layout is the kind of the presentation page layout name (Layouts), ""
// when the page names none or one the file lacks.
func (s *odpStyles) layout(name string) string {
	objs, ok := s.presLayouts[name]
	if name == "" || !ok {
		return ""
	}
	var titles, subtitles, contents int
	for _, o := range objs {
		switch o {
		case "title", "vertical_title":
			titles++
		case "subtitle":
			subtitles++
		case "header", "footer", "date-time", "page-number", "page", "notes", "handout":
		default:
			contents++
		}
	}
	return layoutKind(titles, subtitles, contents)
}

// readODP reads an OpenDocument presentation: the draw:page elements of
// content.xml in order, the text of their frames (presentation:class
// "title" gives the title), the notes frame of their presentation:notes,
// their background fill or their master page's, the kind of their
// presentation page layout (from its placeholders), and the slide size from
// the first slide's master page layout in styles.xml.
func readODP(path string) (*Presentation, error) {
	p, err := openPkg(path)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	st := &odpStyles{layouts: map[string][2]float64{}, masters: map[string][2]string{}, fills: map[string]string{}, presLayouts: map[string][]string{}}
	masterFills := map[string]string{}
	if p.has("styles.xml") {
		var cur string
		err := p.walk("styles.xml", func(_ *tokens, tok xml.Token) error {
			if t, ok := tok.(xml.StartElement); ok {
				st.style(t, &cur)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		masterFills, st.fills = st.fills, map[string]string{}
	}
	deck := &Presentation{}
	var (
		slide    *Slide
		master   string // the first slide's
		pageFill string
		hasFill  bool
		cur      string   // the style being read
		classes  []string // presentation:class of the open frames
		paras    []*strings.Builder
		inNotes  bool
		titles   []string
		body     []string
		notes    []string
	)
	finish := func() {
		slide.Title = strings.Join(titles, "\n")
		slide.Text = strings.Join(body, "\n")
		slide.Notes = strings.Join(notes, "\n")
		deck.Slides = append(deck.Slides, *slide)
		slide = nil
	}
	err = p.walk("content.xml", func(t *tokens, tok xml.Token) error {
		switch e := tok.(type) {
		case xml.StartElement:
			if slide == nil {
				st.style(e, &cur)
			}
			switch e.Name.Space + " " + e.Name.Local {
			case nsDraw + " page":
				if len(deck.Slides) == maxSlides {
					return fmt.Errorf("%s: more than %d slides", path, maxSlides)
				}
				slide = &Slide{}
				titles, body, notes, classes, paras = nil, nil, nil, nil, nil
				m := attr(e, nsDraw, "master-page-name")
				if len(deck.Slides) == 0 {
					master = m
				}
				pageFill, hasFill = st.fills[attr(e, nsDraw, "style-name")]
				if !hasFill {
					pageFill = masterFills[st.masters[m][1]]
				}
				slide.Background = pageFill
				slide.Layout = st.layout(attr(e, nsPres, "presentation-page-layout-name"))
			case nsOffice + " annotation":
				return t.skip() // a comment, not the slide's text
			case nsPres + " notes":
				inNotes = true
			case nsDraw + " frame":
				classes = append(classes, attr(e, nsPres, "class"))
			case nsText + " p", nsText + " h":
				if slide != nil {
					paras = append(paras, &strings.Builder{})
				}
			case nsText + " s":
				if n := len(paras); n > 0 {
					paras[n-1].WriteString(strings.Repeat(" ", max(atoi(attr(e, nsText, "c")), 1)))
				}
			case nsText + " tab":
				if n := len(paras); n > 0 {
					paras[n-1].WriteByte('\t')
				}
			case nsText + " line-break":
				if n := len(paras); n > 0 {
					paras[n-1].WriteByte('\n')
				}
			}
		case xml.CharData:
			if n := len(paras); n > 0 {
				paras[n-1].Write(e)
			}
		case xml.EndElement:
			switch e.Name.Space + " " + e.Name.Local {
			case nsDraw + " page":
				if slide != nil {
					finish()
				}
			case nsPres + " notes":
				inNotes = false
			case nsDraw + " frame":
				if len(classes) > 0 {
					classes = classes[:len(classes)-1]
				}
			case nsText + " p", nsText + " h":
				n := len(paras)
				if n == 0 {
					break
				}
				text := paras[n-1].String()
				paras = paras[:n-1]
				class := ""
				if len(classes) > 0 {
					class = classes[len(classes)-1]
				}
				switch {
				case inNotes && class == "notes":
					notes = append(notes, text)
				case inNotes:
				default:
					body = append(body, text)
					if class == "title" {
						titles = append(titles, text)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if _, ok := st.masters[master]; !ok {
		master = st.first
	}
	size := st.layouts[st.masters[master][0]]
	deck.Width, deck.Height = size[0], size[1]
	return deck, nil
}
