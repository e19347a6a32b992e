package specs

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

// Helpers every block uses to decode its attributes; each reports its
// problems on the attribute's exact range.

func duplicate(kind, name string, at, first hcl.Range) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  fmt.Sprintf("Duplicate %s %q", kind, name),
		Detail:   fmt.Sprintf("A %s named %q is already defined at %s. Names must be unique: rename one of them.", kind, name, first),
		Subject:  at.Ptr(),
	}
}

// static evaluates an expression that may read variables but no outputs.
func (p *parser) static(st *scope, e hcl.Expression) any {
	x, d := st.convert(e)
	p.diags = append(p.diags, d...)
	if d.HasErrors() {
		return nil
	}
	if x.Kind == plan.ExprSecret {
		p.diags = append(p.diags, exprDiag(e.Range(), "Sensitive value not allowed here", "Sensitive variables may be used only in instructions, setup file contents and checks, where pcflow can keep them out of logs; commands read them from the environment as PCFLOW_SECRET_NAME."))
		return nil
	}
	x, d = fold(x, e.Range())
	p.diags = append(p.diags, d...)
	if x.Kind != plan.ExprLit {
		return nil
	}
	return x.Lit
}

func (p *parser) staticString(st *scope, a *hcl.Attribute) string {
	v := p.static(st, a.Expr)
	if _, ok := v.(string); !ok && v != nil {
		if _, isNum := v.(float64); !isNum {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid value", fmt.Sprintf("%s must be a string.", a.Name)))
			return ""
		}
	}
	return plan.ToString(v)
}

func (p *parser) stringList(st *scope, a *hcl.Attribute) []string {
	v := p.static(st, a.Expr)
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		out := make([]string, len(x))
		for i, e := range x {
			out[i] = plan.ToString(e)
		}
		return out
	case nil:
		return nil
	}
	p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid value", fmt.Sprintf("%s must be a string or a list of strings.", a.Name)))
	return nil
}

// regex reports a literal pattern that does not compile.
func (p *parser) regex(pattern string, r hcl.Range) {
	if _, err := regexp.Compile(pattern); err != nil {
		p.diags = append(p.diags, exprDiag(r, "Invalid regular expression", fmt.Sprintf("%s. Use Go (RE2) syntax.", err)))
	}
}

// argv converts a list expression of templates (argv may use secrets).
func (p *parser) argv(st *scope, a *hcl.Attribute) []plan.Expr {
	items, d := hcl.ExprList(a.Expr)
	if d.HasErrors() || len(items) == 0 {
		p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid command", fmt.Sprintf("%s takes a non-empty list of strings, the program first: [\"mousepad\", \"/tmp/memo.txt\"].", a.Name)))
		return nil
	}
	out := make([]plan.Expr, 0, len(items))
	for _, it := range items {
		x := p.template(st, it)
		if name := secretIn(x); name != "" {
			env := plan.SecretEnv(name)
			p.diags = append(p.diags, exprDiag(it.Range(), "Sensitive value in a command line",
				fmt.Sprintf("Command lines are visible to every user of the machine (ps), so var.%s cannot be an argument of %s. "+
					"Setup commands and command checks receive every sensitive variable in the environment: read $%s, "+
					"for example [\"sh\", \"-c\", \"printf %%s \\\"$%s\\\" | login --password-stdin\"].", name, a.Name, env, env)))
		}
		out = append(out, x)
	}
	return out
}

// secretIn returns the name of a sensitive variable e reads, or "".
func secretIn(e plan.Expr) string {
	if e.Kind == plan.ExprSecret {
		return e.Ref[0]
	}
	for _, a := range e.Args {
		if n := secretIn(a); n != "" {
			return n
		}
	}
	return ""
}

// template converts an expression that is rendered at run time.
func (p *parser) template(st *scope, e hcl.Expression) plan.Expr {
	x, d := st.convert(e)
	p.diags = append(p.diags, d...)
	if d.HasErrors() {
		return plan.Expr{}
	}
	x, d = fold(x, e.Range())
	p.diags = append(p.diags, d...)
	return x
}

func (p *parser) templatePtr(st *scope, c *hcl.BodyContent, name string) *plan.Expr {
	a, ok := c.Attributes[name]
	if !ok {
		return nil
	}
	x := p.template(st, a.Expr)
	return &x
}

// ref decodes a static reference such as device.NAME into NAME.
func (p *parser) ref(e hcl.Expression, root string) (string, hcl.Range, bool) {
	t, d := hcl.AbsTraversalForExpr(e)
	if d.HasErrors() || len(t) != 2 || t.RootName() != root {
		p.diags = append(p.diags, exprDiag(e.Range(), "Invalid reference", fmt.Sprintf("Expected a reference of the form %s.NAME.", root)))
		return "", e.Range(), false
	}
	name, r, ok := attrStep(t, 1)
	return name, r, ok
}

func (p *parser) refList(a *hcl.Attribute, root string) ([]string, []hcl.Range) {
	items, d := hcl.ExprList(a.Expr)
	if d.HasErrors() {
		p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid list", fmt.Sprintf("%s takes a list of references: [%s.NAME, ...].", a.Name, root)))
		return nil, nil
	}
	var names []string
	var ranges []hcl.Range
	for _, it := range items {
		if n, r, ok := p.ref(it, root); ok {
			names = append(names, n)
			ranges = append(ranges, r)
		}
	}
	return names, ranges
}

func (p *parser) deviceRef(a *hcl.Attribute) string {
	name, r, ok := p.ref(a.Expr, "device")
	if !ok {
		return ""
	}
	if _, known := p.devices[name]; !known {
		p.diags = append(p.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Reference to unknown device",
			Detail:   fmt.Sprintf("No device %q is declared in this task.%s Declare it with a device %q block.", name, didYouMean(name, keys(p.devices)), name),
			Subject:  r.Ptr(),
		})
		return ""
	}
	return name
}

// bindDevice resolves a block's device attribute, or the single device.
func (p *parser) bindDevice(c *hcl.BodyContent, kind, name string, def hcl.Range) string {
	if a, ok := c.Attributes["device"]; ok {
		return p.deviceRef(a)
	}
	if len(p.devices) == 1 {
		return keys(p.devices)[0]
	}
	p.diags = append(p.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "No device for " + kind,
		Detail:   fmt.Sprintf("The task has %d devices (%s), so %s %q must say which one it acts on: add device = device.NAME.", len(p.devices), strings.Join(keys(p.devices), ", "), kind, name),
		Subject:  def.Ptr(),
	})
	return ""
}
