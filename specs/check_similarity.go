package specs

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

// maxWeight bounds a check's weight: weights are relative, so a larger one
// is a mistake (a percentage typed as a weight of 1e9, say).
const maxWeight = 1000

// similarityCheck: similarity { path, expected, same_as, threshold,
// ignore_case, credit } scores from 0 to 1 how close a file on the device
// is to an expected text or a reference file: text files and documents
// (.docx, .odt, .pdf) by their text, images by structural similarity. It
// passes at threshold (default 1: identical); the score is the check's
// partial credit either way, unless credit = "pass_fail": then the check
// earns its whole weight when it passes and nothing when it fails.
func similarityCheck() checkKind {
	return checkKind{
		name: plan.CheckSimilarity,
		schema: &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
			{Name: "path", Required: true}, {Name: "expected"}, {Name: "same_as"}, {Name: "threshold"}, {Name: "ignore_case"}, {Name: "credit"},
		}},
		decode: func(p *parser, st *scope, kb *hcl.Block, kc *hcl.BodyContent, ck *plan.Check) {
			ck.Path = p.templatePtr(st, kc, "path")
			s := plan.Similarity{Threshold: plan.DefaultThreshold, Expected: p.templatePtr(st, kc, "expected")}
			ck.SameAs = p.referenceFile(st, kc, "same_as", nil)
			if a, ok := kc.Attributes["threshold"]; ok {
				if f, ok := p.score(st, a); ok {
					s.Threshold = f
				}
			}
			if b := p.boolAttr(st, kc, "ignore_case"); b != nil {
				s.IgnoreCase = *b
			}
			if c := p.stringAttr(st, kc, "credit"); c != nil {
				p.oneOf(kc, "credit", c, similarityCredits)
				s.PassFail = *c == "pass_fail"
			}
			ck.Similarity = &s
			switch {
			case s.Expected == nil && ck.SameAs == nil:
				p.diags = append(p.diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Similarity with nothing to compare",
					Detail:   fmt.Sprintf("The similarity block of check %q needs expected = \"the text\" or same_as = \"a reference file\".", ck.Name),
					Subject:  kb.DefRange.Ptr(),
				})
				return
			case s.Expected != nil && ck.SameAs != nil:
				p.diags = append(p.diags, exprDiag(kc.Attributes["same_as"].NameRange, "Conflicting conditions",
					"expected and same_as both say what path is compared with; keep one."))
				return
			}
			p.similarPair(kc, ck)
		},
	}
}

// similarityCredits are what a similarity check's credit may be: "score"
// (the default: weight × score) or "pass_fail" (the whole weight when it
// passes, nothing otherwise).
var similarityCredits = []string{"score", "pass_fail"}

// similarPair reports, for a literal path, what cannot be compared with
// it: an image with text, or text with an image.
func (p *parser) similarPair(kc *hcl.BodyContent, ck *plan.Check) {
	if ck.Path == nil || ck.Path.Kind != plan.ExprLit {
		return
	}
	path := plan.ToString(ck.Path.Lit)
	if !plan.IsImage(path) {
		if ck.SameAs != nil && ck.SameAs.Kind == plan.ExprLit && plan.IsImage(plan.ToString(ck.SameAs.Lit)) {
			p.diags = append(p.diags, exprDiag(kc.Attributes["same_as"].Expr.Range(), "Reference is an image",
				fmt.Sprintf("%s is compared as text, but the reference is an image. Compare an image (%s) with an image, or text with text.", path, strings.Join(plan.ImageFormats, " "))))
		}
		return
	}
	switch {
	case ck.Similarity.Expected != nil:
		p.diags = append(p.diags, exprDiag(kc.Attributes["expected"].NameRange, "Text expected of an image",
			fmt.Sprintf("%s is an image: compare it with a reference image, same_as = \"reference.png\".", path)))
	case ck.SameAs.Kind == plan.ExprLit && !plan.IsImage(plan.ToString(ck.SameAs.Lit)):
		p.diags = append(p.diags, exprDiag(kc.Attributes["same_as"].Expr.Range(), "Reference is not an image",
			fmt.Sprintf("%s is an image, so its reference must be one too (%s).", path, strings.Join(plan.ImageFormats, " "))))
	case ck.Similarity.IgnoreCase:
		p.diags = append(p.diags, exprDiag(kc.Attributes["ignore_case"].NameRange, "ignore_case on an image",
			fmt.Sprintf("ignore_case applies to text; %s is an image. Remove it.", path)))
	}
}

// score decodes a number from 0 to 1.
func (p *parser) score(st *scope, a *hcl.Attribute) (float64, bool) {
	v := p.static(st, a.Expr)
	if v == nil {
		return 0, false
	}
	f, isNum := v.(float64)
	if !isNum || math.IsNaN(f) || f < 0 || f > 1 {
		p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid threshold",
			fmt.Sprintf("threshold is a score from 0 to 1 (0.9 passes what is nine tenths alike); it is %s.", shown(v, isNum, f))))
		return 0, false
	}
	return f, true
}

// weight decodes a check's weight: a positive number up to maxWeight.
func (p *parser) weight(st *scope, a *hcl.Attribute) float64 {
	v := p.static(st, a.Expr)
	if v == nil {
		return 0
	}
	f, isNum := v.(float64)
	if !isNum || math.IsNaN(f) || f <= 0 || f > maxWeight {
		p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid weight",
			fmt.Sprintf("weight is a positive number up to %d, what the check counts for in the task's partial credit (default 1); it is %s.", maxWeight, shown(v, isNum, f))))
		return 0
	}
	return f
}

func shown(v any, isNum bool, f float64) string {
	switch {
	case !isNum:
		return quoteShort(plan.ToString(v)) + " (not a number)"
	case math.Abs(f) < 1e15:
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprintf("%g", f)
}
