package office

import (
	"encoding/xml"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

const nsW = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"

// props is formatting as a file states it, before inheritance: only the
// keys it sets (b i u strike vert font size color highlight).
type props map[string]string

func (p props) over(base props) props {
	out := props{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range p {
		out[k] = v
	}
	return out
}

func (p props) format() Format {
	size, _ := strconv.ParseFloat(p["size"], 64)
	return Format{
		Bold: p["b"] == "1", Italic: p["i"] == "1", Underline: p["u"] == "1", Strike: p["strike"] == "1",
		VertAlign: p["vert"], Font: p["font"], Size: size, Color: p["color"], Highlight: p["highlight"],
	}
}

type docxStyle struct {
	name, basedOn string
	outline       int    // 1-based, 0 none
	align         string // "" when the style states none
	rpr           props
}

// onOff reads an OOXML boolean property: present without val means on.
func onOff(t xml.StartElement) string {
	v := attr(t, nsW, "val")
	if v == "" || v == "true" || v == "1" || v == "on" {
		return "1"
	}
	return "0"
}

// readRPr reads a w:rPr element's children (the decoder is just past its
// start) into props.
func readRPr(dec *xml.Decoder) (props, error) {
	p := props{}
	depth := 1
	for depth > 0 {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if t.Name.Space != nsW {
				continue
			}
			v := attr(t, nsW, "val")
			switch t.Name.Local {
			case "b":
				p["b"] = onOff(t)
			case "i":
				p["i"] = onOff(t)
			case "strike", "dstrike":
				p["strike"] = onOff(t)
			case "u":
				p["u"] = map[bool]string{true: "0", false: "1"}[v == "none" || v == "0"]
			case "vertAlign":
				if v == "baseline" {
					v = ""
				}
				p["vert"] = v
			case "rFonts":
				if f := attr(t, nsW, "ascii"); f != "" {
					p["font"] = f
				} else if f := attr(t, nsW, "hAnsi"); f != "" {
					p["font"] = f
				}
			case "sz":
				if n, err := strconv.ParseFloat(v, 64); err == nil {
					p["size"] = strconv.FormatFloat(n/2, 'f', -1, 64)
				}
			case "color":
				if v != "auto" {
					p["color"] = normColor(v)
				}
			case "highlight":
				if v != "none" {
					p["highlight"] = NormColor(v)
				}
			case "shd":
				if f := attr(t, nsW, "fill"); f != "" && f != "auto" {
					if _, set := p["highlight"]; !set {
						p["highlight"] = normColor(f)
					}
				}
			}
		case xml.EndElement:
			depth--
		}
	}
	return p, nil
}

func readDOCXStyles(path string) (map[string]*docxStyle, props, error) {
	styles := map[string]*docxStyle{}
	defaults := props{}
	r, closeFn, err := zipPart(path, "word/styles.xml")
	if err != nil {
		return styles, defaults, nil // styles are optional
	}
	defer closeFn()
	dec := xml.NewDecoder(r)
	var cur *docxStyle
	inDefaults, inPPr := false, false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: styles: %w", path, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space != nsW {
				continue
			}
			switch t.Name.Local {
			case "rPrDefault":
				inDefaults = true
			case "style":
				cur = &docxStyle{}
				styles[attr(t, nsW, "styleId")] = cur
				if def := attr(t, nsW, "default"); attr(t, nsW, "type") == "paragraph" && (def == "1" || def == "true") {
					// The default paragraph style, for paragraphs naming none.
					styles[""] = &docxStyle{basedOn: attr(t, nsW, "styleId")}
				}
			case "name":
				if cur != nil {
					cur.name = attr(t, nsW, "val")
				}
			case "basedOn":
				if cur != nil {
					cur.basedOn = attr(t, nsW, "val")
				}
			case "outlineLvl":
				if cur != nil {
					if n, err := strconv.Atoi(attr(t, nsW, "val")); err == nil && n < 9 {
						cur.outline = n + 1
					}
				}
			case "pPr":
				inPPr = true
			case "jc":
				if cur != nil && inPPr {
					cur.align = jcAlign(attr(t, nsW, "val"))
				}
			case "rPr":
				p, err := readRPr(dec)
				if err != nil {
					return nil, nil, fmt.Errorf("%s: styles: %w", path, err)
				}
				switch {
				case cur != nil:
					cur.rpr = p
				case inDefaults:
					defaults = p
				}
			}
		case xml.EndElement:
			if t.Name.Space == nsW && t.Name.Local == "style" {
				cur = nil
			}
			if t.Name.Space == nsW && t.Name.Local == "rPrDefault" {
				inDefaults = false
			}
			if t.Name.Space == nsW && t.Name.Local == "pPr" {
				inPPr = false
			}
		}
	}
	return styles, defaults, nil
}

var headingName = regexp.MustCompile(`(?i)^heading\s*([1-9])$`)

// resolve returns a style's formatting with its bases applied, and its
// outline level.
func resolveStyle(styles map[string]*docxStyle, id string) (props, int) {
	outline := 0
	// Walk from the root base down, so nearer styles win.
	var chain []*docxStyle
	for seen := 0; id != "" && seen < 20; seen++ {
		s, ok := styles[id]
		if !ok {
			break
		}
		chain = append(chain, s)
		id = s.basedOn
	}
	p := props{}
	for i := len(chain) - 1; i >= 0; i-- {
		p = chain[i].rpr.over(p)
		if chain[i].outline > 0 {
			outline = chain[i].outline
		}
		if m := headingName.FindStringSubmatch(chain[i].name); m != nil && chain[i].outline == 0 {
			outline, _ = strconv.Atoi(m[1])
		}
	}
	return p, outline
}

// resolveAlign is a paragraph style's alignment through its bases.
func resolveAlign(styles map[string]*docxStyle, id string) string {
	for seen := 0; id != "" && seen < 20; seen++ {
		s, ok := styles[id]
		if !ok {
			break
		}
		if s.align != "" {
			return s.align
		}
		id = s.basedOn
	}
	return ""
}

// jcAlign maps w:jc's values to Paragraph.Align.
func jcAlign(v string) string {
	switch v {
	case "left", "start":
		return "left"
	case "center":
		return "center"
	case "right", "end":
		return "right"
	case "both", "distribute", "lowKashida", "mediumKashida", "highKashida", "thaiDistribute":
		return "justify"
	}
	return ""
}

func readDOCX(path string) (*Document, error) {
	styles, defaults, err := readDOCXStyles(path)
	if err != nil {
		return nil, err
	}
	r, closeFn, err := zipPart(path, "word/document.xml")
	if err != nil {
		return nil, err
	}
	defer closeFn()
	defaultPara := ""
	if s, ok := styles[""]; ok {
		defaultPara = s.basedOn
	}
	d := &Document{}
	dec := xml.NewDecoder(r)
	var (
		para              *Paragraph
		paraProps         props
		runProps          props
		inRun             bool
		inText            bool
		tblDepth          int
		tables            []*Table // open tables, innermost last
		cellText          []string
		inDeleted         int
		paraDirectOutline int
		inPPr             bool
		inPPrChange       bool // the paragraph's formatting before a tracked change
	)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space != nsW {
				continue
			}
			switch t.Name.Local {
			case "tbl":
				tblDepth++
				tables = append(tables, &Table{nested: tblDepth > 1})
			case "tr":
				if len(tables) > 0 {
					tb := tables[len(tables)-1]
					tb.Rows = append(tb.Rows, nil)
				}
			case "tc":
				cellText = cellText[:0]
			case "p":
				para = &Paragraph{}
				sp, o := resolveStyle(styles, defaultPara)
				paraProps, para.Heading = sp.over(defaults), o
				para.Align = resolveAlign(styles, defaultPara)
				paraDirectOutline = -1
			case "pPr":
				inPPr = para != nil && !inRun
			case "pPrChange":
				inPPrChange = true
			case "jc":
				if inPPr && !inPPrChange {
					para.Align = jcAlign(attr(t, nsW, "val"))
				}
			case "pStyle":
				if para != nil {
					id := attr(t, nsW, "val")
					sp, o := resolveStyle(styles, id)
					paraProps = sp.over(defaults)
					para.Heading = o
					para.Align = resolveAlign(styles, id)
					if s, ok := styles[id]; ok && s.name != "" {
						para.Style = s.name
					} else {
						para.Style = id
					}
				}
			case "outlineLvl":
				if para != nil && !inRun {
					if n, err := strconv.Atoi(attr(t, nsW, "val")); err == nil {
						paraDirectOutline = n
					}
				}
			case "r":
				inRun = true
				runProps = paraProps
			case "rStyle":
				if inRun {
					sp, _ := resolveStyle(styles, attr(t, nsW, "val"))
					runProps = sp.over(runProps)
				}
			case "rPr":
				p, err := readRPr(dec)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", path, err)
				}
				if inRun {
					runProps = p.over(runProps)
				}
			case "t":
				inText = inRun && inDeleted == 0
			case "tab":
				if inRun && para != nil {
					addRun(para, "\t", runProps)
				}
			case "br", "cr":
				if inRun && para != nil {
					addRun(para, "\n", runProps)
				}
			case "del":
				inDeleted++
			case "pgSz":
				d.Page.Width = twips(attr(t, nsW, "w"))
				d.Page.Height = twips(attr(t, nsW, "h"))
				d.Page.Orientation = attr(t, nsW, "orient")
			case "pgMar":
				d.Page.MarginTop = twips(attr(t, nsW, "top"))
				d.Page.MarginBottom = twips(attr(t, nsW, "bottom"))
				d.Page.MarginLeft = twips(attr(t, nsW, "left"))
				d.Page.MarginRight = twips(attr(t, nsW, "right"))
			}
		case xml.CharData:
			if inText && para != nil {
				addRun(para, string(t), runProps)
			}
		case xml.EndElement:
			if t.Name.Space != nsW {
				continue
			}
			switch t.Name.Local {
			case "t":
				inText = false
			case "pPr":
				inPPr = false
			case "pPrChange":
				inPPrChange = false
			case "r":
				inRun = false
			case "del":
				inDeleted--
			case "p":
				if para == nil {
					continue
				}
				if paraDirectOutline >= 0 {
					para.Heading = 0
					if paraDirectOutline < 9 {
						para.Heading = paraDirectOutline + 1
					}
				}
				if tblDepth > 0 {
					cellText = append(cellText, para.Text)
					d.cellParas = append(d.cellParas, *para)
				} else {
					d.Paragraphs = append(d.Paragraphs, *para)
				}
				para = nil
			case "tc":
				if len(tables) > 0 {
					tb := tables[len(tables)-1]
					if len(tb.Rows) > 0 {
						tb.Rows[len(tb.Rows)-1] = append(tb.Rows[len(tb.Rows)-1], strings.Join(cellText, "\n"))
					}
				}
			case "tbl":
				tblDepth--
				d.Tables = append(d.Tables, *tables[len(tables)-1])
				tables = tables[:len(tables)-1]
			}
		}
	}
	if d.Page.Orientation == "" && d.Page.Width > 0 {
		d.Page.Orientation = "portrait"
		if d.Page.Width > d.Page.Height {
			d.Page.Orientation = "landscape"
		}
	}
	return d, nil
}

func addRun(p *Paragraph, text string, pr props) {
	f := pr.format()
	p.Text += text
	if n := len(p.Runs); n > 0 && p.Runs[n-1].Format == f {
		p.Runs[n-1].Text += text
		return
	}
	p.Runs = append(p.Runs, Run{Text: text, Format: f})
}

// twips converts twentieths of a point to centimetres.
func twips(s string) float64 {
	n, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0
	}
	return round2(n / 1440 * 2.54)
}

func round2(f float64) float64 { return float64(int64(f*100+0.5)) / 100 }
