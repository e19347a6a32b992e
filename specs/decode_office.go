package specs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

// Decoders for the static values office checks take: flags, numbers,
// names, tables, formatting.

func (p *parser) boolAttr(st *scope, kc *hcl.BodyContent, name string) *bool {
	a, ok := kc.Attributes[name]
	if !ok {
		return nil
	}
	b, isBool := p.static(st, a.Expr).(bool)
	if !isBool {
		p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid value", fmt.Sprintf("%s takes true or false.", name)))
		return nil
	}
	return &b
}

func (p *parser) numberAttr(st *scope, kc *hcl.BodyContent, name string) *float64 {
	a, ok := kc.Attributes[name]
	if !ok {
		return nil
	}
	f, isNum := p.static(st, a.Expr).(float64)
	if !isNum {
		p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid value", fmt.Sprintf("%s takes a number, such as 12.5.", name)))
		return nil
	}
	return &f
}

func (p *parser) stringAttr(st *scope, kc *hcl.BodyContent, name string) *string {
	a, ok := kc.Attributes[name]
	if !ok {
		return nil
	}
	s := p.staticString(st, a)
	return &s
}

// oneOf reports a value outside allowed, with the closest allowed one.
func (p *parser) oneOf(kc *hcl.BodyContent, name string, v *string, allowed []string) {
	if v == nil || slices.Contains(allowed, *v) {
		return
	}
	p.diags = append(p.diags, exprDiag(kc.Attributes[name].Expr.Range(), "Invalid value",
		fmt.Sprintf("%s = %q is not one of %s.%s", name, *v, strings.Join(allowed, ", "), didYouMean(*v, allowed))))
}

// table decodes a list of rows, each a list of strings or numbers.
func (p *parser) table(st *scope, a *hcl.Attribute) [][]string {
	bad := func() [][]string {
		p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid table",
			fmt.Sprintf("%s takes a list of rows, each a list of values: [[\"Region\", \"Total\"], [\"North\", 1250]].", a.Name)))
		return nil
	}
	rows, ok := p.static(st, a.Expr).([]any)
	if !ok {
		return bad()
	}
	out := make([][]string, 0, len(rows))
	for _, r := range rows {
		cells, ok := r.([]any)
		if !ok {
			return bad()
		}
		row := make([]string, 0, len(cells))
		for _, c := range cells {
			switch c.(type) {
			case string, float64, bool:
				row = append(row, plan.ToString(c))
			default:
				return bad()
			}
		}
		out = append(out, row)
	}
	return out
}

var hexColor = regexp.MustCompile(`^#?[0-9A-Fa-f]{6}$`)

var colorNames = []string{"black", "white", "red", "green", "blue", "yellow", "cyan", "magenta", "darkred", "darkgreen", "darkblue", "darkyellow", "darkcyan", "darkmagenta", "gray", "grey", "lightgray", "lightgrey"}

// format decodes the formatting attributes among names.
func (p *parser) format(st *scope, kc *hcl.BodyContent, names ...string) *plan.Format {
	f := plan.Format{}
	for _, n := range names {
		switch n {
		case "bold":
			f.Bold = p.boolAttr(st, kc, n)
		case "italic":
			f.Italic = p.boolAttr(st, kc, n)
		case "underline":
			f.Underline = p.boolAttr(st, kc, n)
		case "strike":
			f.Strike = p.boolAttr(st, kc, n)
		case "vert_align":
			f.VertAlign = p.stringAttr(st, kc, n)
			p.oneOf(kc, n, f.VertAlign, plan.VertAligns)
		case "font":
			f.Font = p.stringAttr(st, kc, n)
		case "font_size":
			f.Size = p.numberAttr(st, kc, n)
		case "color", "fill", "highlight":
			v := p.stringAttr(st, kc, n)
			noFill := n == "fill" && v != nil && strings.EqualFold(*v, "none")
			if v != nil && !noFill && !hexColor.MatchString(*v) && !slices.Contains(colorNames, strings.ToLower(*v)) {
				also := ""
				if n == "fill" {
					also = ` (or "none" for no fill)`
				}
				p.diags = append(p.diags, exprDiag(kc.Attributes[n].Expr.Range(), "Invalid colour",
					fmt.Sprintf("%s = %q is not a colour: write six hex digits such as \"FF0000\", or one of %s%s.", n, *v, strings.Join(colorNames[:8], ", "), also)))
			}
			switch n {
			case "color":
				f.Color = v
			case "fill":
				f.Fill = v
			default:
				f.Highlight = v
			}
		case "number_format":
			f.NumberFormat = p.stringAttr(st, kc, n)
		}
	}
	if f.IsZero() {
		return nil
	}
	return &f
}

// number decodes approx, tolerance, less_than and greater_than.
func (p *parser) number(st *scope, kc *hcl.BodyContent) *plan.Number {
	n := plan.Number{Approx: p.numberAttr(st, kc, "approx"), Less: p.numberAttr(st, kc, "less_than"), Greater: p.numberAttr(st, kc, "greater_than")}
	if t := p.numberAttr(st, kc, "tolerance"); t != nil {
		if n.Approx == nil {
			p.diags = append(p.diags, exprDiag(kc.Attributes["tolerance"].NameRange, "Tolerance without approx",
				"tolerance says how far the value may be from approx; add approx = <number>, or drop tolerance."))
		}
		if *t < 0 {
			p.diags = append(p.diags, exprDiag(kc.Attributes["tolerance"].Expr.Range(), "Invalid value", "tolerance must be zero or more."))
		}
		n.Tolerance = *t
	}
	if n.Less != nil && n.Greater != nil && *n.Greater >= *n.Less {
		p.diags = append(p.diags, exprDiag(kc.Attributes["less_than"].NameRange, "Conflicting conditions",
			fmt.Sprintf("no number is greater than %s and less than %s; swap them or drop one.", plan.ToString(*n.Greater), plan.ToString(*n.Less))))
	}
	if n.Approx == nil && n.Less == nil && n.Greater == nil {
		return nil
	}
	return &n
}

// officePath decodes path and, when it is known at validate time, checks
// that its extension is one the kind reads.
func (p *parser) officePath(st *scope, kc *hcl.BodyContent, ck *plan.Check, formats []string) {
	ck.Path = p.templatePtr(st, kc, "path")
	p.knownFormat(kc.Attributes["path"], ck.Path, formats)
}

func (p *parser) knownFormat(a *hcl.Attribute, x *plan.Expr, formats []string) {
	if a == nil || x == nil || x.Kind != plan.ExprLit {
		return
	}
	ext := strings.ToLower(filepath.Ext(plan.ToString(x.Lit)))
	if !slices.Contains(formats, ext) {
		what := "no extension"
		if ext != "" {
			what = "the extension " + ext
		}
		p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Unknown file format",
			fmt.Sprintf("%s has %s; this check reads %s files. Save the file in one of those formats, or check it with a file or command check.", plan.ToString(x.Lit), what, strings.Join(formats, ", "))))
	}
}

// referenceFile decodes a reference file's path: a literal path that does
// not exist here is a warning, since it may exist on the device.
func (p *parser) referenceFile(st *scope, kc *hcl.BodyContent, name string, formats []string) *plan.Expr {
	x := p.templatePtr(st, kc, name)
	a := kc.Attributes[name]
	if x == nil {
		return nil
	}
	if formats != nil {
		p.knownFormat(a, x, formats)
	}
	if x.Kind == plan.ExprLit {
		path := plan.ToString(x.Lit)
		if _, err := os.Stat(path); err != nil {
			d := &hcl.Diagnostic{
				Severity: hcl.DiagWarning,
				Summary:  "Reference file not found here",
				Detail:   fmt.Sprintf("%s does not exist on this machine. That is fine if it exists on the device when the check runs; otherwise the check will fail. (No setup or post_run step names it: one that writes it, in a command or write_file, silences this warning.)", path),
				Subject:  a.Expr.Range().Ptr(),
			}
			p.diags = append(p.diags, d)
			if p.missingRefs == nil {
				p.missingRefs = map[*hcl.Diagnostic]string{}
			}
			p.missingRefs[d] = path
		}
	}
	return x
}
