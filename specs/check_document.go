package specs

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

// spanFormat are the formatting attributes of a document check; they apply
// to every occurrence of its text.
var spanFormat = []string{"bold", "italic", "underline", "strike", "vert_align", "font", "font_size", "color", "highlight"}

// documentCheck: document { path, paragraph, contains, not_contains,
// matches, equals, headings, heading_level, table, table_equals, text,
// bold, italic, underline, strike, vert_align, font, font_size, color,
// highlight, orientation, margin_top, margin_bottom, margin_left,
// margin_right, tables, alignment } reads a text document (.docx, .odt,
// .pdf) on the device.
func documentCheck() checkKind {
	attrs := []hcl.AttributeSchema{
		{Name: "path", Required: true}, {Name: "paragraph"},
		{Name: "contains"}, {Name: "not_contains"}, {Name: "matches"}, {Name: "equals"},
		{Name: "headings"}, {Name: "heading_level"}, {Name: "table"}, {Name: "table_equals"},
		{Name: "text"}, {Name: "orientation"}, {Name: "tables"}, {Name: "alignment"},
	}
	for _, n := range spanFormat {
		attrs = append(attrs, hcl.AttributeSchema{Name: n})
	}
	for _, s := range plan.PageSides {
		attrs = append(attrs, hcl.AttributeSchema{Name: "margin_" + s})
	}
	return checkKind{
		name:   plan.CheckDocument,
		schema: &hcl.BodySchema{Attributes: attrs},
		decode: func(p *parser, st *scope, kb *hcl.Block, kc *hcl.BodyContent, ck *plan.Check) {
			p.officePath(st, kc, ck, plan.DocumentFormats)
			p.conditions(st, kc, ck, textConds)
			o := plan.Office{Format: p.format(st, kc, spanFormat...), Orientation: p.stringAttr(st, kc, "orientation")}
			p.oneOf(kc, "orientation", o.Orientation, []string{"portrait", "landscape"})
			o.Alignment = p.stringAttr(st, kc, "alignment")
			p.oneOf(kc, "alignment", o.Alignment, plan.Alignments)
			if a, ok := kc.Attributes["tables"]; ok {
				n := p.count(st, a, intRange{0, 1 << 16})
				o.Tables = &n
			}
			if a, ok := kc.Attributes["paragraph"]; ok {
				o.Paragraph = p.count(st, a, intRange{1, 1 << 20})
				if ck.Contains == nil && ck.Matches == nil && ck.Equals == nil && ck.NotContains == nil && o.Alignment == nil {
					p.diags = append(p.diags, exprDiag(a.NameRange, "Paragraph without a condition",
						"paragraph picks the paragraph that contains, not_contains, matches, equals or alignment read; add one of them."))
				}
			}
			if a, ok := kc.Attributes["headings"]; ok {
				o.Headings = p.stringList(st, a)
			}
			if a, ok := kc.Attributes["heading_level"]; ok {
				o.HeadingLevel = p.count(st, a, intRange{1, 9})
				if o.Headings == nil {
					p.diags = append(p.diags, exprDiag(a.NameRange, "heading_level without headings", "heading_level picks which headings headings = [...] lists; add headings."))
				}
			}
			if a, ok := kc.Attributes["table"]; ok {
				o.TableIndex = p.count(st, a, intRange{1, 1 << 16})
			}
			if a, ok := kc.Attributes["table_equals"]; ok {
				o.Table = p.table(st, a)
				if o.TableIndex == 0 {
					o.TableIndex = 1
				}
			} else if a, ok := kc.Attributes["table"]; ok {
				p.diags = append(p.diags, exprDiag(a.NameRange, "table without table_equals", "table picks which table (1 is the first) table_equals describes; add table_equals = [[...]]."))
			}
			if a, ok := kc.Attributes["text"]; ok {
				o.Span = p.staticString(st, a)
				if o.Format == nil && o.Alignment == nil {
					p.diags = append(p.diags, exprDiag(a.NameRange, "text without formatting",
						fmt.Sprintf("text names the words whose formatting (or paragraphs' alignment) is checked; add one of %v or alignment, or use contains to check that the text is there.", spanFormat)))
				}
			} else if o.Format != nil {
				p.diags = append(p.diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Formatting without text",
					Detail:   "bold, italic, font and the other formatting attributes apply to text = \"the words\"; add text.",
					Subject:  kb.DefRange.Ptr(),
				})
			}
			for _, s := range plan.PageSides {
				if f := p.numberAttr(st, kc, "margin_"+s); f != nil {
					if o.Margins == nil {
						o.Margins = map[string]float64{}
					}
					o.Margins[s] = *f
				}
			}
			if a, ok := kc.Attributes["alignment"]; ok && o.Paragraph == 0 && o.Span == "" {
				p.diags = append(p.diags, exprDiag(a.NameRange, "alignment without a paragraph",
					"alignment applies to paragraph = N (1 is the first) or to every paragraph holding text = \"words\"; add one of them."))
			}
			if o.Format != nil || o.Orientation != nil || o.Paragraph != 0 || o.Headings != nil || o.Table != nil || o.Margins != nil ||
				o.Tables != nil || o.Alignment != nil {
				ck.Office = &o
			}
			p.settleConditions(kb, kc, ck, true)
		},
	}
}
