package specs

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

var variableSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "default"},
		{Name: "description"},
		{Name: "sensitive"},
	},
}

// variable decodes a variable "NAME" { default, description, sensitive }
// block.
func (p *parser) variable(b *hcl.Block) {
	name := b.Labels[0]
	if prev, dup := p.vars[name]; dup {
		p.diags = append(p.diags, duplicate("variable", name, b.LabelRanges[0], prev.declRange))
		return
	}
	c, d := b.Body.Content(variableSchema)
	p.diags = append(p.diags, d...)
	v := &variable{name: name, declRange: b.LabelRanges[0], block: blockRange(b)}
	p.vars[name] = v
	st := &scope{vars: map[string]*variable{}}
	if a, ok := c.Attributes["default"]; ok {
		v.value = p.static(st, a.Expr)
	}
	if a, ok := c.Attributes["sensitive"]; ok {
		b, ok := p.static(st, a.Expr).(bool)
		if !ok {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid value for sensitive", "sensitive takes true or false."))
		}
		v.sensitive = b
	}
}

// applyVarValues sets variables from var files, the environment and --var,
// in increasing precedence, and reports variables that end up with no value.
func (p *parser) applyVarValues() {
	set := func(name, raw string, where string, r *hcl.Range) {
		v, ok := p.vars[name]
		if !ok && r == nil && p.opts.Optional[name] {
			return
		}
		if !ok {
			p.diags = append(p.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Value for undeclared variable",
				Detail:   fmt.Sprintf("%s sets %q, but the task declares no such variable.%s", where, name, didYouMean(name, keys(p.vars))),
				Subject:  r,
			})
			return
		}
		v.value = coerceLike(v.value, raw)
	}
	for _, vf := range p.opts.VarFiles {
		src, err := os.ReadFile(vf)
		if err != nil {
			p.diags = append(p.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Cannot read var file", Detail: err.Error()})
			continue
		}
		f, d := p.parseSource(vf, src)
		p.diags = append(p.diags, d...)
		if d.HasErrors() {
			continue
		}
		attrs, d := f.Body.JustAttributes()
		p.diags = append(p.diags, d...)
		for _, name := range sortedAttrNames(attrs) {
			a := attrs[name]
			val, d := a.Expr.Value(nil)
			p.diags = append(p.diags, d...)
			g, err := ctyToGo(val)
			if err != nil {
				p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Unsupported value", err.Error()))
				continue
			}
			if _, ok := p.vars[name]; !ok {
				set(name, "", "The var file", a.NameRange.Ptr())
				continue
			}
			p.vars[name].value = g
		}
	}
	for _, kv := range p.opts.Environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(k, "PCFLOW_VAR_") {
			continue
		}
		name := strings.TrimPrefix(k, "PCFLOW_VAR_")
		if _, ok := p.vars[name]; ok {
			p.vars[name].value = coerceLike(p.vars[name].value, v)
		}
	}
	for _, name := range keys(p.opts.Vars) {
		set(name, p.opts.Vars[name], "--var", nil)
	}
	for _, name := range keys(p.vars) {
		v := p.vars[name]
		if v.value == nil {
			p.diags = append(p.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "No value for variable",
				Detail:   fmt.Sprintf("Variable %q has no default and no value was given. Pass --var %s=VALUE, set PCFLOW_VAR_%s, or add a default.", name, name, name),
				Subject:  v.declRange.Ptr(),
				Context:  v.block.Ptr(),
			})
		}
		if v.sensitive {
			p.secrets[name] = plan.ToString(v.value)
		}
	}
}

func sortedAttrNames(a hcl.Attributes) []string {
	n := make([]string, 0, len(a))
	for k := range a {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// coerceLike converts a raw string to the type of the default, so that
// --var steps=5 stays a number.
func coerceLike(def any, raw string) any {
	switch def.(type) {
	case float64:
		if f, err := strconv.ParseFloat(raw, 64); err == nil {
			return f
		}
	case bool:
		if b, err := strconv.ParseBool(raw); err == nil {
			return b
		}
	}
	return raw
}
