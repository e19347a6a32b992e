package office

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
)

const nsSVG = "urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"

type odfStyle struct {
	family, parent, display string
	outline                 int
	align                   string // "" when the style states none
	props                   props
}

// odfStyles are the styles of an OpenDocument file: common and automatic
// ones by name, fonts, page layouts and master pages.
type odfStyles struct {
	byName   map[string]*odfStyle // "family/name"
	defaults map[string]props     // by family
	align    string               // the default paragraph style's
	fonts    map[string]string    // font-face name → family
	layouts  map[string]Page
	masters  []string // page-layout names, in order
}

// textProps reads style:text-properties.
func textProps(t xml.StartElement, fonts map[string]string) props {
	p := props{}
	for _, a := range t.Attr {
		v := a.Value
		switch a.Name.Space + " " + a.Name.Local {
		case nsFO + " font-weight":
			p["b"] = map[bool]string{true: "1", false: "0"}[v == "bold" || v == "600" || v == "700" || v == "800" || v == "900"]
		case nsFO + " font-style":
			p["i"] = map[bool]string{true: "1", false: "0"}[v == "italic" || v == "oblique"]
		case nsStyle + " text-underline-style":
			p["u"] = map[bool]string{true: "0", false: "1"}[v == "none"]
		case nsStyle + " text-line-through-style":
			p["strike"] = map[bool]string{true: "0", false: "1"}[v == "none"]
		case nsStyle + " text-position":
			f := strings.Fields(v)
			switch {
			case len(f) == 0:
			case f[0] == "super" || (!strings.HasPrefix(f[0], "-") && f[0] != "0%" && strings.HasSuffix(f[0], "%")):
				p["vert"] = "superscript"
			case f[0] == "sub" || strings.HasPrefix(f[0], "-"):
				p["vert"] = "subscript"
			default:
				p["vert"] = ""
			}
		case nsStyle + " font-name":
			if fam, ok := fonts[v]; ok {
				v = fam
			}
			p["font"] = v
		case nsFO + " font-family":
			p["font"] = strings.Trim(v, "'\"")
		case nsFO + " font-size":
			if strings.HasSuffix(v, "pt") {
				p["size"] = strings.TrimSuffix(v, "pt")
			}
		case nsFO + " color":
			p["color"] = normColor(v)
		case nsFO + " background-color":
			if v == "transparent" {
				p["highlight"] = ""
			} else {
				p["highlight"] = normColor(v)
			}
		}
	}
	return p
}

// readStyles adds the styles of one part (styles.xml or content.xml).
func (s *odfStyles) read(r io.Reader) error {
	dec := xml.NewDecoder(r)
	var cur *odfStyle
	var curDefault string
	var layout string
	inBody := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Space + " " + t.Name.Local {
			case nsOffice + " body":
				inBody = true
			case nsStyle + " font-face":
				if fam := attr(t, nsSVG, "font-family"); fam != "" {
					s.fonts[attr(t, nsStyle, "name")] = strings.Trim(fam, "'\"")
				}
			case nsStyle + " style":
				cur = &odfStyle{
					family:  attr(t, nsStyle, "family"),
					parent:  attr(t, nsStyle, "parent-style-name"),
					display: attr(t, nsStyle, "display-name"),
					outline: atoi(attr(t, nsStyle, "default-outline-level")),
					props:   props{},
				}
				if cur.display == "" {
					cur.display = strings.ReplaceAll(attr(t, nsStyle, "name"), "_20_", " ")
				}
				s.byName[cur.family+"/"+attr(t, nsStyle, "name")] = cur
			case nsStyle + " default-style":
				curDefault = attr(t, nsStyle, "family")
			case nsStyle + " paragraph-properties":
				if a := foAlign(attr(t, nsFO, "text-align")); a != "" {
					switch {
					case cur != nil:
						cur.align = a
					case curDefault == "paragraph":
						s.align = a
					}
				}
			case nsStyle + " text-properties":
				p := textProps(t, s.fonts)
				switch {
				case cur != nil:
					cur.props = p
				case curDefault != "":
					s.defaults[curDefault] = p
				}
			case nsStyle + " page-layout":
				layout = attr(t, nsStyle, "name")
			case nsStyle + " page-layout-properties":
				pg := Page{
					Orientation:  attr(t, nsStyle, "print-orientation"),
					Width:        odfLength(attr(t, nsFO, "page-width")),
					Height:       odfLength(attr(t, nsFO, "page-height")),
					MarginTop:    odfLength(attr(t, nsFO, "margin-top")),
					MarginBottom: odfLength(attr(t, nsFO, "margin-bottom")),
					MarginLeft:   odfLength(attr(t, nsFO, "margin-left")),
					MarginRight:  odfLength(attr(t, nsFO, "margin-right")),
				}
				if pg.Orientation == "" && pg.Width > 0 {
					pg.Orientation = map[bool]string{true: "landscape", false: "portrait"}[pg.Width > pg.Height]
				}
				s.layouts[layout] = pg
			case nsStyle + " master-page":
				s.masters = append(s.masters, attr(t, nsStyle, "page-layout-name"))
			}
			if inBody {
				return nil
			}
		case xml.EndElement:
			switch t.Name.Space + " " + t.Name.Local {
			case nsStyle + " style":
				cur = nil
			case nsStyle + " default-style":
				curDefault = ""
			}
		}
	}
}

// resolve returns a style's text formatting with its parents applied.
func (s *odfStyles) resolve(family, name string) (props, *odfStyle) {
	var chain []*odfStyle
	for n, seen := name, 0; n != "" && seen < 20; seen++ {
		st, ok := s.byName[family+"/"+n]
		if !ok {
			break
		}
		chain = append(chain, st)
		n = st.parent
	}
	p := props{}
	if family == "paragraph" {
		p = s.defaults["paragraph"].over(nil)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		p = chain[i].props.over(p)
	}
	if len(chain) == 0 {
		return p, nil
	}
	return p, chain[0]
}

// outline is a paragraph style's outline level, through its parents; name
// is the first named (non-automatic) style's display name.
func (s *odfStyles) outlineAndName(name string) (int, string) {
	level, display := 0, ""
	for n, seen := name, 0; n != "" && seen < 20; seen++ {
		st, ok := s.byName["paragraph/"+n]
		if !ok {
			break
		}
		if level == 0 {
			level = st.outline
		}
		// Automatic styles (P1, P2…) stand in for the style they derive from.
		if display == "" && !(len(n) > 1 && n[0] == 'P' && atoi(n[1:]) > 0) {
			display = st.display
		}
		n = st.parent
	}
	return level, display
}

// alignOf is a paragraph style's alignment through its parents.
func (s *odfStyles) alignOf(name string) string {
	for n, seen := name, 0; n != "" && seen < 20; seen++ {
		st, ok := s.byName["paragraph/"+n]
		if !ok {
			break
		}
		if st.align != "" {
			return st.align
		}
		n = st.parent
	}
	return s.align
}

// foAlign maps fo:text-align's values to Paragraph.Align (start and end
// as in left-to-right text).
func foAlign(v string) string {
	switch v {
	case "start", "left":
		return "left"
	case "end", "right":
		return "right"
	case "center", "justify":
		return v
	}
	return ""
}

// odfLength converts "2cm", "20mm", "1in", "72pt" to centimetres.
func odfLength(s string) float64 {
	units := []struct {
		suffix string
		cm     float64
	}{{"cm", 1}, {"mm", 0.1}, {"in", 2.54}, {"pt", 2.54 / 72}, {"pc", 2.54 / 6}}
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			n, err := strconv.ParseFloat(strings.TrimSuffix(s, u.suffix), 64)
			if err != nil {
				return 0
			}
			return round2(n * u.cm)
		}
	}
	return 0
}

func readODT(path string) (*Document, error) {
	st := &odfStyles{byName: map[string]*odfStyle{}, defaults: map[string]props{}, fonts: map[string]string{}, layouts: map[string]Page{}}
	if r, closeFn, err := zipPart(path, "styles.xml"); err == nil {
		err := st.read(r)
		closeFn()
		if err != nil {
			return nil, fmt.Errorf("%s: styles.xml: %w", path, err)
		}
	}
	r, closeFn, err := zipPart(path, "content.xml")
	if err != nil {
		return nil, err
	}
	if err := st.read(r); err != nil {
		closeFn()
		return nil, fmt.Errorf("%s: content.xml: %w", path, err)
	}
	closeFn()
	r, closeFn, err = zipPart(path, "content.xml")
	if err != nil {
		return nil, err
	}
	defer closeFn()
	d := &Document{}
	if len(st.masters) > 0 {
		d.Page = st.layouts[st.masters[0]]
	}
	dec := xml.NewDecoder(r)
	type open struct {
		p     *Paragraph
		props []props // span stack; [0] is the paragraph's
	}
	var paras []open
	var tables []*Table
	var cellText [][]string
	skip := 0 // inside notes and annotations, whose text is not the body's
	inBody := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		top := func() *open {
			if len(paras) == 0 {
				return nil
			}
			return &paras[len(paras)-1]
		}
		switch t := tok.(type) {
		case xml.StartElement:
			key := t.Name.Space + " " + t.Name.Local
			if key == nsOffice+" body" {
				inBody = true
			}
			if !inBody {
				continue
			}
			if skip > 0 {
				skip++
				continue
			}
			switch key {
			case nsText + " note", nsOffice + " annotation", nsText + " tracked-changes":
				skip = 1
			case nsTable + " table":
				tables = append(tables, &Table{nested: len(tables) > 0})
			case nsTable + " table-row":
				if n := len(tables); n > 0 {
					tables[n-1].Rows = append(tables[n-1].Rows, nil)
				}
			case nsTable + " table-cell", nsTable + " covered-table-cell":
				cellText = append(cellText, nil)
			case nsText + " p", nsText + " h":
				name := attr(t, nsText, "style-name")
				pp, _ := st.resolve("paragraph", name)
				level, display := st.outlineAndName(name)
				if t.Name.Local == "h" {
					if l := atoi(attr(t, nsText, "outline-level")); l > 0 {
						level = l
					} else if level == 0 {
						level = 1
					}
				}
				paras = append(paras, open{p: &Paragraph{Style: display, Heading: level, Align: st.alignOf(name)}, props: []props{pp}})
			case nsText + " span":
				if o := top(); o != nil {
					sp, _ := st.resolve("text", attr(t, nsText, "style-name"))
					o.props = append(o.props, sp.over(o.props[len(o.props)-1]))
				}
			case nsText + " s":
				if o := top(); o != nil {
					addRun(o.p, strings.Repeat(" ", max(atoi(attr(t, nsText, "c")), 1)), o.props[len(o.props)-1])
				}
			case nsText + " tab":
				if o := top(); o != nil {
					addRun(o.p, "\t", o.props[len(o.props)-1])
				}
			case nsText + " line-break":
				if o := top(); o != nil {
					addRun(o.p, "\n", o.props[len(o.props)-1])
				}
			}
		case xml.CharData:
			if skip > 0 {
				continue
			}
			if o := top(); o != nil {
				addRun(o.p, string(t), o.props[len(o.props)-1])
			}
		case xml.EndElement:
			if !inBody {
				continue
			}
			if skip > 0 {
				skip--
				continue
			}
			switch t.Name.Space + " " + t.Name.Local {
			case nsText + " span":
				if o := top(); o != nil && len(o.props) > 1 {
					o.props = o.props[:len(o.props)-1]
				}
			case nsText + " p", nsText + " h":
				o := paras[len(paras)-1]
				paras = paras[:len(paras)-1]
				if n := len(cellText); n > 0 && len(tables) > 0 {
					cellText[n-1] = append(cellText[n-1], o.p.Text)
					d.cellParas = append(d.cellParas, *o.p)
				} else {
					d.Paragraphs = append(d.Paragraphs, *o.p)
				}
			case nsTable + " table-cell", nsTable + " covered-table-cell":
				n := len(cellText)
				if tb := len(tables); tb > 0 && len(tables[tb-1].Rows) > 0 {
					rows := tables[tb-1].Rows
					rows[len(rows)-1] = append(rows[len(rows)-1], strings.Join(cellText[n-1], "\n"))
				}
				cellText = cellText[:n-1]
			case nsTable + " table":
				d.Tables = append(d.Tables, *tables[len(tables)-1])
				tables = tables[:len(tables)-1]
			}
		}
	}
	return d, nil
}
