package specs

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

// maxSlides is the highest slide number or count a presentation check may
// name (the device's reader refuses decks of more).
const maxSlides = 10000

// presentationCheck: presentation { path, slide, contains, not_contains,
// matches, equals, slides, titles, notes, background, layout, orientation,
// slide_width, slide_height, same_as, ignore } reads a slide deck (.pptx,
// .odp) on the device: the text of one slide or of all, the number of
// slides, their titles in order, a slide's speaker notes, backgrounds and
// layouts, and the slide size; with same_as, a .pptx compared with a
// reference deck shape by shape and run by run, less the aspects in
// ignore.
func presentationCheck() checkKind {
	return checkKind{
		name: plan.CheckPresentation,
		schema: &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
			{Name: "path", Required: true}, {Name: "slide"},
			{Name: "contains"}, {Name: "not_contains"}, {Name: "matches"}, {Name: "equals"},
			{Name: "slides"}, {Name: "titles"}, {Name: "notes"}, {Name: "background"},
			{Name: "orientation"}, {Name: "slide_width"}, {Name: "slide_height"}, {Name: "layout"},
			{Name: "same_as"}, {Name: "ignore"},
		}},
		decode: func(p *parser, st *scope, kb *hcl.Block, kc *hcl.BodyContent, ck *plan.Check) {
			p.officePath(st, kc, ck, plan.PresentationFormats)
			p.conditions(st, kc, ck, textConds)
			o := plan.Office{}
			if a, ok := kc.Attributes["slides"]; ok {
				n := p.count(st, a, intRange{0, maxSlides})
				o.Slides = &n
			}
			if a, ok := kc.Attributes["titles"]; ok {
				o.Titles = p.stringList(st, a)
			}
			o.Notes = p.stringAttr(st, kc, "notes")
			o.Orientation = p.stringAttr(st, kc, "orientation")
			p.oneOf(kc, "orientation", o.Orientation, []string{"portrait", "landscape"})
			o.Background = p.stringAttr(st, kc, "background")
			o.Layout = p.stringAttr(st, kc, "layout")
			p.oneOf(kc, "layout", o.Layout, plan.SlideLayouts)
			if v := o.Background; v != nil && !hexColor.MatchString(*v) && !slices.Contains(colorNames, strings.ToLower(*v)) {
				p.diags = append(p.diags, exprDiag(kc.Attributes["background"].Expr.Range(), "Invalid colour",
					fmt.Sprintf("background = %q is not a colour: write six hex digits such as \"FF0000\", or one of %s.", *v, strings.Join(colorNames[:8], ", "))))
			}
			for _, d := range []struct {
				name string
				cm   **float64
			}{{"slide_width", &o.SlideWidth}, {"slide_height", &o.SlideHeight}} {
				*d.cm = p.numberAttr(st, kc, d.name)
				if f := *d.cm; f != nil && !(*f > 0 && *f <= 1000) {
					p.diags = append(p.diags, exprDiag(kc.Attributes[d.name].Expr.Range(), "Invalid value",
						fmt.Sprintf("%s is a length in centimetres (a 16:9 slide is 28 wide, 15.75 high); it must be more than 0 and at most 1000.", d.name)))
				}
			}
			p.deckReference(st, kb, kc, ck, &o)
			textCond := ck.Contains != nil || ck.Matches != nil || ck.Equals != nil || ck.NotContains != nil
			a, hasSlide := kc.Attributes["slide"]
			if hasSlide {
				o.Slide = p.count(st, a, intRange{1, maxSlides})
				if !textCond && o.Notes == nil && o.Background == nil && o.Layout == nil && !p.capturing {
					p.diags = append(p.diags, exprDiag(a.NameRange, "Slide without a condition",
						"slide picks the slide that contains, not_contains, matches, equals, notes, background or layout read; add one of them."))
				}
			} else if a, ok := kc.Attributes["notes"]; ok {
				p.diags = append(p.diags, exprDiag(a.NameRange, "Notes without slide",
					"notes are the speaker notes of one slide; add slide = N (1 is the first)."))
			}
			if hasSlide || ck.SameAs != nil || o.Slides != nil || o.Titles != nil || o.Notes != nil || o.Background != nil || o.Layout != nil ||
				o.Orientation != nil || o.SlideWidth != nil || o.SlideHeight != nil {
				ck.Office = &o
			} else if !textCond && !p.capturing {
				p.diags = append(p.diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Check with no condition",
					Detail: fmt.Sprintf("The presentation block of check %q needs a condition: same_as, slides, titles, orientation, slide_width, slide_height, background, layout, "+
						"or contains, not_contains, matches or equals on the whole text (or with slide = N, on one slide's, with notes too).", ck.Name),
					Subject: kb.DefRange.Ptr(),
				})
			}
			p.settleConditions(kb, kc, ck, false)
		},
	}
}

// deckReference decodes same_as (a reference .pptx the deck is compared
// with) and ignore (aspects of DeckAspects not compared), which needs
// same_as.
func (p *parser) deckReference(st *scope, kb *hcl.Block, kc *hcl.BodyContent, ck *plan.Check, o *plan.Office) {
	ck.SameAs = p.referenceFile(st, kc, "same_as", []string{".pptx"})
	if ck.SameAs != nil && ck.Path != nil && ck.Path.Kind == plan.ExprLit {
		if path := plan.ToString(ck.Path.Lit); strings.EqualFold(filepath.Ext(path), ".odp") {
			p.diags = append(p.diags, exprDiag(kc.Attributes["path"].Expr.Range(), "Deck compared as .odp",
				fmt.Sprintf("%s is compared with a reference deck as PowerPoint reads it: save it as .pptx, or drop same_as and check its text, slides and titles.", path)))
		}
	}
	a, ok := kc.Attributes["ignore"]
	if !ok {
		return
	}
	if ck.SameAs == nil {
		p.diags = append(p.diags, exprDiag(a.NameRange, "Ignore without same_as",
			"ignore lists what the comparison with a reference deck leaves out; add same_as = \"reference.pptx\", or remove ignore."))
		return
	}
	for _, v := range p.stringList(st, a) {
		if !slices.Contains(plan.DeckAspects, v) {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid value",
				fmt.Sprintf("ignore lists %q, which is not one of %s.%s", v, strings.Join(plan.DeckAspects, ", "), didYouMean(v, plan.DeckAspects))))
			continue
		}
		o.DeckIgnore = append(o.DeckIgnore, v)
	}
}
