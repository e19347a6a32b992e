package office

import (
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
)

const (
	nsP  = "http://schemas.openxmlformats.org/presentationml/2006/main"
	nsA  = "http://schemas.openxmlformats.org/drawingml/2006/main"
	nsR  = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
	nsMC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
)

// emuPerCm is how many English Metric Units make a centimetre.
const emuPerCm = 360000

// readPPTX reads a PowerPoint package: the slides in the order
// ppt/presentation.xml lists them (p:sldIdLst, resolved through its
// relationships), each slide's text and title placeholder, the notes slide
// it links to, the kind of its slideLayout (from the layout's
// placeholders), and the background of the slide, its layout or its master.
func readPPTX(path string) (*Presentation, error) {
	p, err := openPkg(path)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	const main = "ppt/presentation.xml"
	deck := &Presentation{}
	var ids []string
	err = p.walk(main, func(_ *tokens, tok xml.Token) error {
		t, ok := tok.(xml.StartElement)
		if !ok || t.Name.Space != nsP {
			return nil
		}
		switch t.Name.Local {
		case "sldId":
			if len(ids) == maxSlides {
				return fmt.Errorf("%s: more than %d slides", path, maxSlides)
			}
			ids = append(ids, attr(t, nsR, "id"))
		case "sldSz":
			deck.Width = emu(attr(t, "", "cx"))
			deck.Height = emu(attr(t, "", "cy"))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	rels, err := p.rels(main)
	if err != nil {
		return nil, err
	}
	// Layouts and masters are shared by many slides: each is read once.
	backgrounds := map[string]string{}
	layouts := map[string]string{} // layout part → its kind
	inherited := func(part, kind string) (string, error) {
		rs, err := p.rels(part)
		if err != nil {
			return "", err
		}
		target := relOfType(rs, kind)
		if target == "" || !p.has(target) {
			return "", nil
		}
		if bg, ok := backgrounds[target]; ok {
			return bg, nil
		}
		sh, err := readShapes(p, target)
		if err != nil {
			return "", err
		}
		backgrounds[target] = sh.background
		return sh.background, nil
	}
	for i, id := range ids {
		rel, ok := rels[id]
		if !ok || !p.has(rel[1]) {
			return nil, fmt.Errorf("%s: slide %d (relationship %q) is not in the package", path, i+1, id)
		}
		sh, err := readShapes(p, rel[1])
		if err != nil {
			return nil, err
		}
		s := Slide{Title: strings.Join(sh.title, "\n"), Text: strings.Join(sh.paras, "\n"), Background: sh.background}
		srels, err := p.rels(rel[1])
		if err != nil {
			return nil, err
		}
		if n := relOfType(srels, "/notesSlide"); n != "" && p.has(n) {
			notes, err := readShapes(p, n)
			if err != nil {
				return nil, err
			}
			s.Notes = strings.Join(notes.body, "\n")
		}
		if layout := relOfType(srels, "/slideLayout"); layout != "" && p.has(layout) {
			if _, ok := layouts[layout]; !ok {
				sh, err := readShapes(p, layout)
				if err != nil {
					return nil, err
				}
				layouts[layout] = sh.layout()
			}
			s.Layout = layouts[layout]
		}
		if s.Background == "" {
			layout := relOfType(srels, "/slideLayout")
			if layout != "" {
				if s.Background, err = inherited(rel[1], "/slideLayout"); err != nil {
					return nil, err
				}
			}
			if s.Background == "" && layout != "" && p.has(layout) {
				if s.Background, err = inherited(layout, "/slideMaster"); err != nil {
					return nil, err
				}
			}
		}
		deck.Slides = append(deck.Slides, s)
	}
	return deck, nil
}

func emu(s string) float64 {
	n, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0
	}
	return n / emuPerCm
}

// shapes is what readShapes gathers from a slide, layout, master or notes
// part.
type shapes struct {
	paras      []string // every paragraph, in order
	title      []string // the paragraphs of title placeholders
	body       []string // the paragraphs of body placeholders (a notes slide's notes)
	background string   // the solid colour of p:bg, RRGGBB
	// placeholders are the types of its placeholders (p:ph), "obj" for
	// one without a type.
	placeholders []string
}

// layout is the kind of layout (Layouts) a layout part with these
// placeholders is: dates, footers, slide numbers and headers do not count.
func (sh *shapes) layout() string {
	var titles, subtitles, contents int
	for _, t := range sh.placeholders {
		switch t {
		case "title", "ctrTitle":
			titles++
		case "subTitle":
			subtitles++
		case "dt", "ftr", "sldNum", "hdr", "sldImg":
		default:
			contents++
		}
	}
	return layoutKind(titles, subtitles, contents)
}

// readShapes walks a PresentationML part: the paragraphs (a:p) of its
// shapes, group shapes and tables, which placeholder (p:ph) each belongs
// to, and the solid colour of its background (p:bg). Alternate content is
// read once, from its first choice.
func readShapes(p *pkg, name string) (*shapes, error) {
	out := &shapes{}
	var (
		ph     []string // placeholder type of the open p:sp shapes
		para   *strings.Builder
		inText bool
		inBg   bool
		parent []string // local names of the open elements inside p:bg
	)
	err := p.walk(name, func(t *tokens, tok xml.Token) error {
		switch e := tok.(type) {
		case xml.StartElement:
			if inBg {
				if e.Name.Local == "srgbClr" && len(parent) > 0 && out.background == "" &&
					(parent[len(parent)-1] == "solidFill" || parent[len(parent)-1] == "bgRef") {
					out.background = normColor(attr(e, "", "val"))
				}
				parent = append(parent, e.Name.Local)
			}
			switch e.Name.Space + " " + e.Name.Local {
			case nsMC + " Fallback":
				return t.skip()
			case nsP + " bg":
				inBg, parent = true, nil
			case nsP + " sp":
				ph = append(ph, "")
			case nsP + " ph":
				if n := len(ph); n > 0 {
					ph[n-1] = attr(e, "", "type")
					if ph[n-1] == "" {
						ph[n-1] = "obj" // the type a placeholder has by default
					}
					out.placeholders = append(out.placeholders, ph[n-1])
				}
			case nsA + " p":
				para = &strings.Builder{}
			case nsA + " t":
				inText = para != nil
			case nsA + " br":
				if para != nil {
					para.WriteByte('\n')
				}
				// No case for <a:tab>: in DrawingML it is a tab stop of a
				// paragraph's <a:tabLst>, never a character (a tab is a
				// literal "\t" in <a:t>).
			}
		case xml.CharData:
			if inText {
				para.Write(e)
			}
		case xml.EndElement:
			if inBg && len(parent) > 0 {
				parent = parent[:len(parent)-1]
			}
			switch e.Name.Space + " " + e.Name.Local {
			case nsP + " bg":
				inBg = false
			case nsP + " sp":
				if len(ph) > 0 {
					ph = ph[:len(ph)-1]
				}
			case nsA + " t":
				inText = false
			case nsA + " p":
				if para == nil {
					break
				}
				text := para.String()
				out.paras = append(out.paras, text)
				if n := len(ph); n > 0 {
					switch ph[n-1] {
					case "title", "ctrTitle":
						out.title = append(out.title, text)
					case "body":
						out.body = append(out.body, text)
					}
				}
				para = nil
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
