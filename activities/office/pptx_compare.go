package office

import (
	"encoding/xml"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// DeckAspects are what ComparePresentations compares, each of which a
// check may leave out: the number of slides, each slide's speaker notes,
// and for each pair of shapes in order their position and size, their
// text, and for each pair of paragraphs and runs the alignment, the
// indent level, the font's name, size, bold, italic, RGB colour,
// underline and strike-through, and the slide's bullets. They are
// OSWorld's compare_pptx_files options, as python-pptx reads a deck.
var DeckAspects = []string{"slide_count", "notes", "positions", "text", "alignment", "indent",
	"font_name", "font_size", "bold", "italic", "color", "underline", "strike", "bullets"}

// ComparePresentations compares the PowerPoint deck at path with the
// reference deck ref as OSWorld's compare_pptx_files does by default,
// leaving out the aspects in ignore (of DeckAspects): the slide counts;
// then slide by slide, the notes (without surrounding space); the shapes
// of the slide (its shape tree's top level, in order, pairs up to the
// shorter list): left, top, width and height in EMU (a placeholder
// without its own inherits its layout's, which inherits its master's);
// for two text shapes their text (without surrounding space), then
// paragraph by paragraph the alignment, text and level, and run by run the
// font (name, size, bold, italic, underline and strike-through as written
// on the run, the colour when both runs give an RGB one) and the bullets
// of the whole slide (each paragraph's level, bullet character, text and
// bullet colour). It returns whether the decks are the same and, when not,
// the first difference.
func ComparePresentations(path, ref string, ignore []string) (bool, string, error) {
	for _, p := range []string{path, ref} {
		if ext := strings.ToLower(filepath.Ext(p)); ext != ".pptx" {
			return false, "", fmt.Errorf("%s: a deck is compared with a reference as a PowerPoint file (.pptx), not %s", p, ext)
		}
	}
	a, err := readDeckTree(path)
	if err != nil {
		return false, "", err
	}
	b, err := readDeckTree(ref)
	if err != nil {
		return false, "", fmt.Errorf("reference deck: %w", err)
	}
	c := deckCmp{on: func(aspect string) bool { return !slices.Contains(ignore, aspect) }}
	if c.on("slide_count") && len(a.slides) != len(b.slides) {
		return false, fmt.Sprintf("%d slides, the reference has %d", len(a.slides), len(b.slides)), nil
	}
	for i := range min(len(a.slides), len(b.slides)) {
		if d := c.slide(a.slides[i], b.slides[i]); d != "" {
			return false, fmt.Sprintf("slide %d: %s", i+1, d), nil
		}
	}
	return true, "", nil
}

// xnode is an element of a part, with its text when it holds only text.
type xnode struct {
	name xml.Name
	attr []xml.Attr
	kids []*xnode
	text string
}

func (n *xnode) get(space, local string) (string, bool) {
	for _, a := range n.attr {
		if a.Name.Space == space && a.Name.Local == local {
			return a.Value, true
		}
	}
	return "", false
}

func (n *xnode) is(space, local string) bool {
	return n != nil && n.name.Space == space && n.name.Local == local
}

// child is n's first child named space:local, or nil.
func (n *xnode) child(space, local string) *xnode {
	if n == nil {
		return nil
	}
	for _, k := range n.kids {
		if k.is(space, local) {
			return k
		}
	}
	return nil
}

func (n *xnode) path(steps ...string) *xnode {
	for i := 0; i+1 < len(steps) && n != nil; i += 2 {
		n = n.child(steps[i], steps[i+1])
	}
	return n
}

// each calls fn on n and its descendants in document order.
func (n *xnode) each(fn func(*xnode)) {
	fn(n)
	for _, k := range n.kids {
		k.each(fn)
	}
}

// maxTreeNodes bounds the elements one part's tree may hold.
const maxTreeNodes = 2_000_000

// tree reads a part into elements (within pkg's limits on size and depth).
func (p *pkg) tree(name string) (*xnode, error) {
	n, _, err := p.treeCount(name)
	return n, err
}

// treeCount is tree with the number of elements read.
func (p *pkg) treeCount(name string) (*xnode, int, error) {
	root := &xnode{}
	stack := []*xnode{root}
	count := 0
	err := p.walk(name, func(t *tokens, tok xml.Token) error {
		switch e := tok.(type) {
		case xml.StartElement:
			if count++; count > maxTreeNodes {
				return fmt.Errorf("%s: %s holds more than %d elements", p.path, name, maxTreeNodes)
			}
			n := &xnode{name: e.Name, attr: slices.Clone(e.Attr)}
			top := stack[len(stack)-1]
			top.kids = append(top.kids, n)
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			stack[len(stack)-1].text += string(e)
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	if len(root.kids) == 0 {
		return nil, 0, fmt.Errorf("%s: %s is empty", p.path, name)
	}
	return root.kids[0], count, nil
}

// deckTree is a deck as ComparePresentations reads it.
type deckTree struct {
	slides []*slideTree
}

type slideTree struct {
	root   *xnode
	nodes  int      // elements in the slide's part
	shapes []*xnode // the shape tree's top-level shapes, in order
	notes  *string  // nil: a notes slide without a body placeholder
	// layout and master are the placeholders of the slide's layout and
	// master (top-level shapes with p:ph).
	layout, master []*xnode
}

// shapeTags are the elements python-pptx counts as a slide's shapes.
var shapeTags = []string{"sp", "grpSp", "graphicFrame", "cxnSp", "pic", "contentPart"}

func topShapes(root *xnode) []*xnode {
	var out []*xnode
	for _, k := range root.path(nsP, "cSld", nsP, "spTree").kids {
		if k.name.Space == nsP && slices.Contains(shapeTags, k.name.Local) {
			out = append(out, k)
		}
	}
	return out
}

// ph is a shape's placeholder element, or nil.
func ph(sh *xnode) *xnode {
	for _, nv := range sh.kids {
		if strings.HasPrefix(nv.name.Local, "nv") {
			return nv.path(nsP, "nvPr", nsP, "ph")
		}
	}
	return nil
}

func phType(p *xnode) string {
	if t, ok := p.get("", "type"); ok {
		return t
	}
	return "obj"
}

func phIdx(p *xnode) string {
	if i, ok := p.get("", "idx"); ok {
		return i
	}
	return "0"
}

func readDeckTree(path string) (*deckTree, error) {
	p, err := openPkg(path)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	const main = "ppt/presentation.xml"
	pres, err := p.tree(main)
	if err != nil {
		return nil, err
	}
	rels, err := p.rels(main)
	if err != nil {
		return nil, err
	}
	placeholders := map[string][]*xnode{} // layout or master part → its placeholders
	phsOf := func(part string) ([]*xnode, error) {
		if part == "" || !p.has(part) {
			return nil, nil
		}
		if v, ok := placeholders[part]; ok {
			return v, nil
		}
		t, err := p.tree(part)
		if err != nil {
			return nil, err
		}
		var out []*xnode
		for _, sh := range topShapes(t) {
			if ph(sh) != nil {
				out = append(out, sh)
			}
		}
		placeholders[part] = out
		return out, nil
	}
	deck := &deckTree{}
	for i, id := range pres.path(nsP, "sldIdLst").kids {
		if i == maxSlides {
			return nil, fmt.Errorf("%s: more than %d slides", path, maxSlides)
		}
		rid, _ := id.get(nsR, "id")
		rel, ok := rels[rid]
		if !ok || !p.has(rel[1]) {
			return nil, fmt.Errorf("%s: slide %d (relationship %q) is not in the package", path, i+1, rid)
		}
		root, nodes, err := p.treeCount(rel[1])
		if err != nil {
			return nil, err
		}
		s := &slideTree{root: root, nodes: nodes, shapes: topShapes(root)}
		srels, err := p.rels(rel[1])
		if err != nil {
			return nil, err
		}
		layout := relOfType(srels, "/slideLayout")
		if s.layout, err = phsOf(layout); err != nil {
			return nil, err
		}
		if layout != "" && p.has(layout) {
			lrels, err := p.rels(layout)
			if err != nil {
				return nil, err
			}
			if s.master, err = phsOf(relOfType(lrels, "/slideMaster")); err != nil {
				return nil, err
			}
		}
		// python-pptx makes a notes slide, with empty notes, for a slide
		// without one.
		empty := ""
		s.notes = &empty
		if n := relOfType(srels, "/notesSlide"); n != "" && p.has(n) {
			nt, err := p.tree(n)
			if err != nil {
				return nil, err
			}
			s.notes = nil
			for _, sh := range topShapes(nt) {
				if x := ph(sh); x != nil && phType(x) == "body" {
					text := shapeText(sh)
					s.notes = &text
					break
				}
			}
		}
		deck.slides = append(deck.slides, s)
	}
	return deck, nil
}

// paragraphs are a text shape's paragraphs; a shape without a text body
// has one empty paragraph, as python-pptx gives it.
func paragraphs(sh *xnode) []*xnode {
	body := sh.child(nsP, "txBody")
	if body == nil {
		return []*xnode{{name: xml.Name{Space: nsA, Local: "p"}}}
	}
	var out []*xnode
	for _, k := range body.kids {
		if k.is(nsA, "p") {
			out = append(out, k)
		}
	}
	return out
}

// paraText is a paragraph's text as python-pptx reads it: runs and fields,
// a line break as a vertical tab.
func paraText(p *xnode) string {
	var sb strings.Builder
	for _, k := range p.kids {
		switch {
		case k.is(nsA, "r"), k.is(nsA, "fld"):
			if t := k.child(nsA, "t"); t != nil {
				sb.WriteString(t.text)
			}
		case k.is(nsA, "br"):
			sb.WriteByte('\v')
		}
	}
	return sb.String()
}

func shapeText(sh *xnode) string {
	var parts []string
	for _, p := range paragraphs(sh) {
		parts = append(parts, paraText(p))
	}
	return strings.Join(parts, "\n")
}

// pyStrip trims what Python's str.strip trims.
func pyStrip(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return r >= 0x1c && r <= 0x1f || strings.ContainsRune(" \t\n\v\f\r\u0085\u00a0\u1680\u2028\u2029\u202f\u205f\u3000", r) || r >= 0x2000 && r <= 0x200a
	})
}

// xfrm is a shape's own transform.
func xfrm(sh *xnode) *xnode {
	switch sh.name.Local {
	case "graphicFrame":
		return sh.child(nsP, "xfrm")
	case "grpSp":
		return sh.path(nsP, "grpSpPr", nsA, "xfrm")
	}
	return sh.path(nsP, "spPr", nsA, "xfrm")
}

// dims are a shape's left, top, width and height; "" is None.
type dims [4]string

func ownDims(sh *xnode) dims {
	x := xfrm(sh)
	var d dims
	if off := x.child(nsA, "off"); off != nil {
		d[0], d[1] = emuAttr(off, "x"), emuAttr(off, "y")
	}
	if ext := x.child(nsA, "ext"); ext != nil {
		d[2], d[3] = emuAttr(ext, "cx"), emuAttr(ext, "cy")
	}
	return d
}

func emuAttr(n *xnode, name string) string {
	v, _ := n.get("", name)
	if i, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
		return strconv.FormatInt(i, 10)
	}
	return v
}

// masterType is the master placeholder type a layout placeholder of a type
// inherits from (python-pptx's LayoutPlaceholder._base_placeholder).
var masterType = map[string]string{
	"body": "body", "chart": "body", "clipArt": "body", "ctrTitle": "title", "dgm": "body", "dt": "dt",
	"ftr": "ftr", "media": "body", "obj": "body", "pic": "body", "sldNum": "sldNum", "subTitle": "body",
	"tbl": "body", "title": "title",
}

// shapeDims are a slide shape's dimensions, a placeholder's inherited
// from its layout's placeholder of the same idx, and that one's from the
// master's of its type, each dimension on its own (python-pptx's
// _InheritsDimensions).
func (s *slideTree) shapeDims(sh *xnode) dims {
	d := ownDims(sh)
	p := ph(sh)
	// python-pptx inherits the dimensions of placeholder shapes and
	// pictures; a placeholder table, chart or group keeps its own.
	if p == nil || !slices.Contains(d[:], "") || !sh.is(nsP, "sp") && !sh.is(nsP, "pic") {
		return d
	}
	var base *xnode
	for _, l := range s.layout {
		if phIdx(ph(l)) == phIdx(p) {
			base = l
			break
		}
	}
	if base == nil {
		return d
	}
	bd := ownDims(base)
	if slices.Contains(bd[:], "") && base.is(nsP, "sp") { // a layout's placeholder shape inherits the master's
		var m *xnode
		for _, x := range s.master {
			if want, ok := masterType[phType(ph(base))]; ok && phType(ph(x)) == want {
				m = x
				break
			}
		}
		if m != nil {
			md := ownDims(m)
			for i := range bd {
				if bd[i] == "" {
					bd[i] = md[i]
				}
			}
		}
	}
	for i := range d {
		if d[i] == "" {
			d[i] = bd[i]
		}
	}
	return d
}

type deckCmp struct {
	on func(aspect string) bool
}

func (c deckCmp) slide(a, b *slideTree) string {
	if c.on("notes") {
		if a.notes == nil || b.notes == nil {
			return "a notes slide without a notes placeholder (the benchmark's reader fails on it)"
		}
		if x, y := pyStrip(*a.notes), pyStrip(*b.notes); x != y {
			return fmt.Sprintf("notes %q, the reference's %q", x, y)
		}
	}
	// python-pptx gives a text shape without a text body an empty one
	// when its text is read, which the slide's bullets then count: the
	// bullets change only when such a shape is read, so they are compared
	// once for each count of them.
	st := &bulletState{readA: map[*xnode]bool{}, readB: map[*xnode]bool{}, seen: map[[2]int]string{}}
	for i := range min(len(a.shapes), len(b.shapes)) {
		s1, s2 := a.shapes[i], b.shapes[i]
		where := fmt.Sprintf("shape %d", i+1)
		if c.on("positions") {
			if d1, d2 := a.shapeDims(s1), b.shapeDims(s2); d1 != d2 {
				return fmt.Sprintf("%s is at left %s, top %s, %s × %s EMU, the reference's at %s, %s, %s × %s", where,
					none(d1[0]), none(d1[1]), none(d1[2]), none(d1[3]), none(d2[0]), none(d2[1]), none(d2[2]), none(d2[3]))
			}
		}
		if !s1.is(nsP, "sp") {
			continue
		}
		st.read(s1, st.readA, &st.bareA)
		if !s2.is(nsP, "sp") {
			continue
		}
		st.read(s2, st.readB, &st.bareB)
		if d := c.text(s1, s2, a, b, st); d != "" {
			return where + ": " + d
		}
	}
	return ""
}

func none(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// bulletState is what the comparison of one slide has read: the text
// shapes of each side, how many of them have no text body, and the
// bullets' verdict for each pair of those counts.
type bulletState struct {
	readA, readB map[*xnode]bool
	bareA, bareB int
	seen         map[[2]int]string
}

func (st *bulletState) read(sh *xnode, set map[*xnode]bool, bare *int) {
	if !set[sh] {
		set[sh] = true
		if sh.child(nsP, "txBody") == nil {
			*bare++
		}
	}
}

// maxBulletWork bounds the elements the bullets of one slide pair are
// read over in all, so that a hostile deck (thousands of bare shapes
// over a huge slide) fails instead of holding the device.
const maxBulletWork = 5_000_000

// bullets compares the two slides' bullets in the state read so far.
func (st *bulletState) bullets(a, b *slideTree) string {
	key := [2]int{st.bareA, st.bareB}
	if d, ok := st.seen[key]; ok {
		return d
	}
	if (len(st.seen)+1)*(a.nodes+b.nodes) > maxBulletWork {
		return "the slide is too large to compare its bullets again and again (a hostile deck?)"
	}
	d := ""
	x, okA := bullets(a.root, st.readA)
	y, okB := bullets(b.root, st.readB)
	switch {
	case !okA || !okB:
		d = "an empty text element (<a:t/>) on the slide, on which the benchmark's bullet reader fails"
	case !slices.Equal(x, y):
		d = fmt.Sprintf("the slide's bullets (level, bullet, text, colour) are %s, the reference's %s", strings.Join(x, " | "), strings.Join(y, " | "))
	}
	st.seen[key] = d
	return d
}

func (c deckCmp) text(s1, s2 *xnode, a, b *slideTree, st *bulletState) string {
	if x, y := pyStrip(shapeText(s1)), pyStrip(shapeText(s2)); x != y && c.on("text") {
		return fmt.Sprintf("text %q, the reference's %q", x, y)
	}
	p1, p2 := paragraphs(s1), paragraphs(s2)
	for j := range min(len(p1), len(p2)) {
		where := fmt.Sprintf("paragraph %d", j+1)
		pr1, pr2 := p1[j].child(nsA, "pPr"), p2[j].child(nsA, "pPr")
		if x, y := optAttr(pr1, "algn"), optAttr(pr2, "algn"); x != y && c.on("alignment") {
			return fmt.Sprintf("%s is aligned %s, the reference's %s", where, none(x), none(y))
		}
		if x, y := paraText(p1[j]), paraText(p2[j]); x != y && c.on("text") {
			return fmt.Sprintf("%s reads %q, the reference's %q", where, x, y)
		}
		if x, y := level(pr1), level(pr2); x != y && c.on("indent") {
			return fmt.Sprintf("%s is at level %d, the reference's at %d", where, x, y)
		}
		r1, r2 := runs(p1[j]), runs(p2[j])
		for k := range min(len(r1), len(r2)) {
			if d := c.run(r1[k].child(nsA, "rPr"), r2[k].child(nsA, "rPr")); d != "" {
				return fmt.Sprintf("%s, run %d: %s", where, k+1, d)
			}
			if c.on("bullets") {
				if d := st.bullets(a, b); d != "" {
					return d
				}
			}
		}
	}
	return ""
}

func runs(p *xnode) []*xnode {
	var out []*xnode
	for _, k := range p.kids {
		if k.is(nsA, "r") {
			out = append(out, k)
		}
	}
	return out
}

func optAttr(n *xnode, name string) string {
	if n == nil {
		return ""
	}
	v, _ := n.get("", name)
	return v
}

func level(pPr *xnode) int {
	n, _ := strconv.Atoi(optAttr(pPr, "lvl"))
	return n
}

// xsdBool is an xsd:boolean attribute as python-pptx reads it: "true",
// "false" or "" (None).
func xsdBool(n *xnode, name string) string {
	if n == nil {
		return ""
	}
	switch v, ok := n.get("", name); {
	case !ok:
		return ""
	case v == "1" || v == "true":
		return "true"
	default:
		return "false"
	}
}

func (c deckCmp) run(a, b *xnode) string {
	for _, f := range []struct {
		aspect, what string
		read         func(*xnode) string
	}{
		{"font_name", "font", func(r *xnode) string { return optAttr(r.child(nsA, "latin"), "typeface") }},
		{"font_size", "size (hundredths of a point)", func(r *xnode) string { return optAttr(r, "sz") }},
		{"bold", "bold", func(r *xnode) string { return xsdBool(r, "b") }},
		{"italic", "italic", func(r *xnode) string { return xsdBool(r, "i") }},
		{"color", "colour", nil},
		{"underline", "underline", func(r *xnode) string {
			switch v := optAttr(r, "u"); v {
			case "none":
				return "false"
			case "sng":
				return "true"
			default:
				return v
			}
		}},
		{"strike", "strike-through", func(r *xnode) string {
			if v := optAttr(r, "strike"); v != "" {
				return v
			}
			return "noStrike"
		}},
	} {
		if !c.on(f.aspect) {
			continue
		}
		if f.read == nil { // the colour, compared when both are RGB
			x, y := rgb(a), rgb(b)
			if x != "" && y != "" && x != y {
				return fmt.Sprintf("colour %s, the reference's %s", x, y)
			}
			continue
		}
		if x, y := f.read(a), f.read(b); x != y {
			return fmt.Sprintf("%s %s, the reference's %s", f.what, none(x), none(y))
		}
	}
	return ""
}

// rgb is a run's solid RGB colour, upper case, or "".
func rgb(rPr *xnode) string {
	fill := rPr.child(nsA, "solidFill")
	if fill == nil || len(fill.kids) == 0 || !fill.kids[0].is(nsA, "srgbClr") {
		return ""
	}
	return strings.ToUpper(optAttr(fill.kids[0], "val"))
}

// bullets lists every paragraph of a slide as OSWorld's _extract_bullets
// does: level, bullet character, text and bullet colour. read are the
// slide's top-level text shapes whose text the comparison has read so far:
// those without a text body hold the empty paragraph python-pptx gave them.
// ok is false when a paragraph has an empty text element, whose text
// Python reads as None and fails to join.
func bullets(root *xnode, read map[*xnode]bool) (out []string, ok bool) {
	ok = true
	var walk func(n *xnode)
	walk = func(n *xnode) {
		if n.is(nsA, "p") {
			lvl, char, color := "No Level", "No Bullet", "No Color"
			if pPr := n.child(nsA, "pPr"); pPr != nil {
				lvl = "None"
				if v, ok := pPr.get("", "lvl"); ok {
					lvl = v
				}
				if bu := pPr.child(nsA, "buChar"); bu != nil {
					char = "None"
					if v, ok := bu.get("", "char"); ok {
						char = v
					}
				}
				if clr := pPr.path(nsA, "buClr", nsA, "srgbClr"); clr != nil {
					color = "None"
					if v, ok := clr.get("", "val"); ok {
						color = v
					}
				}
			}
			var text strings.Builder
			n.each(func(t *xnode) {
				if t.is(nsA, "t") {
					ok = ok && t.text != ""
					text.WriteString(t.text)
				}
			})
			out = append(out, fmt.Sprintf("(%s, %s, %q, %s)", lvl, char, text.String(), color))
		}
		for _, k := range n.kids {
			walk(k)
		}
		if n.is(nsP, "sp") && n.child(nsP, "txBody") == nil && read[n] {
			out = append(out, `(No Level, No Bullet, "", No Color)`)
		}
	}
	walk(root)
	return out, ok
}
