package specs

import (
	"fmt"
	"math/big"
	"regexp"
	"sort"
	"strings"

	"github.com/agext/levenshtein"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/pcflow/pcflow/specs/plan"
)

// scope is what an expression may refer to.
type scope struct {
	vars     map[string]*variable
	subtasks map[string]*subtaskDecl // nil: outputs may not be referenced here
	// used records output references (for the "never used" warning);
	// refs collects the subtasks referenced by the current expression.
	used map[plan.OutputRef]bool
	refs map[string]hcl.Range
	// checks are the checks an expect may read (check.NAME.value), nil
	// where none may be read; checkRefs collects those read.
	checks    map[string]bool
	checkRefs map[string]hcl.Range
}

type variable struct {
	name      string
	value     any
	sensitive bool
	declRange hcl.Range
	block     hcl.Range // the whole variable block
}

// convert turns an HCL expression into a plan expression, reporting what it
// cannot represent with the exact range of the offending part.
func (s *scope) convert(e hcl.Expression) (plan.Expr, hcl.Diagnostics) {
	switch x := e.(type) {
	case *hclsyntax.LiteralValueExpr:
		v, err := ctyToGo(x.Val)
		if err != nil {
			return plan.Expr{}, hcl.Diagnostics{exprDiag(x.SrcRange, "Unsupported value", err.Error())}
		}
		return plan.Lit(v), nil
	case *hclsyntax.TemplateExpr:
		if len(x.Parts) == 1 {
			if lit, ok := x.Parts[0].(*hclsyntax.LiteralValueExpr); ok {
				return s.convert(lit)
			}
		}
		var diags hcl.Diagnostics
		out := plan.Expr{Kind: plan.ExprTemplate}
		for _, p := range x.Parts {
			c, d := s.convert(p)
			diags = append(diags, d...)
			out.Args = append(out.Args, c)
		}
		return out, diags
	case *hclsyntax.TemplateWrapExpr:
		return s.convert(x.Wrapped)
	case *hclsyntax.ParenthesesExpr:
		return s.convert(x.Expression)
	case *hclsyntax.ScopeTraversalExpr:
		return s.traversal(x.Traversal)
	case *hclsyntax.TupleConsExpr:
		var diags hcl.Diagnostics
		out := plan.Expr{Kind: plan.ExprList}
		for _, it := range x.Exprs {
			c, d := s.convert(it)
			diags = append(diags, d...)
			out.Args = append(out.Args, c)
		}
		return out, diags
	case *hclsyntax.FunctionCallExpr:
		f, ok := plan.Functions[x.Name]
		if !ok {
			return plan.Expr{}, hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Call to unknown function",
				Detail:   fmt.Sprintf("There is no function named %q.%s Only pure functions are available: %s.", x.Name, didYouMean(x.Name, plan.FunctionNames()), strings.Join(plan.FunctionNames(), ", ")),
				Subject:  x.NameRange.Ptr(),
			}}
		}
		if f.Arity >= 0 && len(x.Args) != f.Arity {
			return plan.Expr{}, hcl.Diagnostics{exprDiag(x.Range(), "Wrong number of arguments",
				fmt.Sprintf("%s takes %d argument(s), got %d: %s.", x.Name, f.Arity, len(x.Args), f.Doc))}
		}
		var diags hcl.Diagnostics
		out := plan.Expr{Kind: plan.ExprCall, Fn: x.Name}
		for _, a := range x.Args {
			c, d := s.convert(a)
			diags = append(diags, d...)
			diags = append(diags, secretComputed(c, a.Range(), x.Name+"()")...)
			out.Args = append(out.Args, c)
		}
		if i := plan.PatternArg(x.Name); i >= 0 && i < len(out.Args) && !diags.HasErrors() && isStatic(out.Args[i]) {
			if v, err := out.Args[i].Eval(nil); err == nil {
				if _, err := regexp.Compile(plan.ToString(v)); err != nil {
					diags = append(diags, exprDiag(x.Args[i].Range(), "Invalid regular expression", fmt.Sprintf("%s. Use Go (RE2) syntax.", err)))
				}
			}
		}
		return out, diags
	case *hclsyntax.BinaryOpExpr:
		op, ok := binaryOps[x.Op]
		if !ok {
			return plan.Expr{}, hcl.Diagnostics{exprDiag(x.SrcRange, "Unsupported operator", "This operator cannot be used in pcflow expressions.")}
		}
		l, d1 := s.convert(x.LHS)
		r, d2 := s.convert(x.RHS)
		d := append(d1, d2...)
		d = append(d, secretComputed(l, x.LHS.Range(), "the operator "+op)...)
		d = append(d, secretComputed(r, x.RHS.Range(), "the operator "+op)...)
		return plan.Expr{Kind: plan.ExprBinary, Op: op, Args: []plan.Expr{l, r}}, d
	case *hclsyntax.UnaryOpExpr:
		op := "!"
		if x.Op == hclsyntax.OpNegate {
			op = "-"
		}
		v, d := s.convert(x.Val)
		d = append(d, secretComputed(v, x.Val.Range(), "the operator "+op)...)
		return plan.Expr{Kind: plan.ExprUnary, Op: op, Args: []plan.Expr{v}}, d
	case *hclsyntax.ConditionalExpr:
		c, d1 := s.convert(x.Condition)
		if c.Kind == plan.ExprSecret || c.Kind == plan.ExprTemplate { // operators and calls report themselves
			d1 = append(d1, secretComputed(c, x.Condition.Range(), "a condition")...)
		}
		t, d2 := s.convert(x.TrueResult)
		f, d3 := s.convert(x.FalseResult)
		return plan.Expr{Kind: plan.ExprCond, Args: []plan.Expr{c, t, f}}, append(append(d1, d2...), d3...)
	}
	return plan.Expr{}, hcl.Diagnostics{exprDiag(e.Range(), "Unsupported expression",
		"pcflow expressions may use literals, templates, var.NAME, subtask.NAME.output.KEY, operators, conditionals, lists and the built-in functions.")}
}

var binaryOps = map[*hclsyntax.Operation]string{
	hclsyntax.OpLogicalOr: "||", hclsyntax.OpLogicalAnd: "&&",
	hclsyntax.OpEqual: "==", hclsyntax.OpNotEqual: "!=",
	hclsyntax.OpGreaterThan: ">", hclsyntax.OpGreaterThanOrEqual: ">=",
	hclsyntax.OpLessThan: "<", hclsyntax.OpLessThanOrEqual: "<=",
	hclsyntax.OpAdd: "+", hclsyntax.OpSubtract: "-", hclsyntax.OpMultiply: "*",
	hclsyntax.OpDivide: "/", hclsyntax.OpModulo: "%",
}

func (s *scope) traversal(t hcl.Traversal) (plan.Expr, hcl.Diagnostics) {
	root := t.RootName()
	switch root {
	case "var":
		name, r, ok := attrStep(t, 1)
		if !ok {
			return plan.Expr{}, hcl.Diagnostics{exprDiag(t.SourceRange(), "Invalid variable reference", "Write var.NAME.")}
		}
		v, ok := s.vars[name]
		if !ok {
			return plan.Expr{}, hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Reference to undeclared variable",
				Detail:   fmt.Sprintf("No variable %q is declared.%s Declare it with a variable %q block.", name, didYouMean(name, keys(s.vars)), name),
				Subject:  r.Ptr(),
			}}
		}
		if len(t) > 2 {
			return plan.Expr{}, hcl.Diagnostics{exprDiag(t[2].SourceRange(), "Invalid variable reference", "Variables are plain values: write var.NAME.")}
		}
		if v.sensitive {
			return plan.Expr{Kind: plan.ExprSecret, Ref: []string{name}}, nil
		}
		return plan.Lit(v.value), nil
	case "check":
		name, r, ok := attrStep(t, 1)
		field, _, ok2 := attrStep(t, 2)
		if !ok || !ok2 || field != "value" || len(t) != 3 {
			return plan.Expr{}, hcl.Diagnostics{exprDiag(t.SourceRange(), "Invalid check reference",
				"Refer to the value another check read as check.NAME.value.")}
		}
		if s.checks == nil {
			return plan.Expr{}, hcl.Diagnostics{exprDiag(t.SourceRange(), "Check values are not available here",
				"check.NAME.value may be read only by expect in a check of the same subtask (or of the task).")}
		}
		if !s.checks[name] {
			return plan.Expr{}, hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Reference to unknown check",
				Detail:   fmt.Sprintf("No check %q is defined beside this one.%s", name, didYouMean(name, keys(s.checks))),
				Subject:  r.Ptr(),
			}}
		}
		if s.checkRefs != nil {
			if _, seen := s.checkRefs[name]; !seen {
				s.checkRefs[name] = r
			}
		}
		return plan.Expr{Kind: plan.ExprOutput, Ref: []string{plan.CheckValueKey(name), "value"}}, nil
	case "subtask":
		if s.subtasks == nil {
			return plan.Expr{}, hcl.Diagnostics{exprDiag(t.SourceRange(), "Subtask outputs are not available here",
				"Outputs exist only once a subtask has finished: use them in subtask instructions and checks, not in devices, setup or variables.")}
		}
		name, r, ok := attrStep(t, 1)
		out, _, ok2 := attrStep(t, 2)
		key, kr, ok3 := attrStep(t, 3)
		if !ok || !ok2 || out != "output" || !ok3 || len(t) != 4 {
			return plan.Expr{}, hcl.Diagnostics{exprDiag(t.SourceRange(), "Invalid subtask reference",
				"Refer to a subtask's output as subtask.NAME.output.KEY; to order subtasks without passing data use depends_on = [subtask.NAME].")}
		}
		st, ok := s.subtasks[name]
		if !ok {
			return plan.Expr{}, hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Reference to unknown subtask",
				Detail:   fmt.Sprintf("No subtask %q is defined in this task.%s", name, didYouMean(name, keys(s.subtasks))),
				Subject:  r.Ptr(),
			}}
		}
		if _, ok := st.outputs[key]; !ok {
			d := fmt.Sprintf("Subtask %q declares no output %q.%s Add `output %q { description = \"...\" }` to subtask %q so the agent reports it.", name, key, didYouMean(key, keys(st.outputs)), key, name)
			return plan.Expr{}, hcl.Diagnostics{{
				Severity: hcl.DiagError,
				Summary:  "Output used but never declared",
				Detail:   d,
				Subject:  kr.Ptr(),
			}}
		}
		if s.used != nil {
			s.used[plan.OutputRef{Subtask: name, Key: key}] = true
		}
		if s.refs != nil {
			if _, seen := s.refs[name]; !seen {
				s.refs[name] = t.SourceRange()
			}
		}
		return plan.Expr{Kind: plan.ExprOutput, Ref: []string{name, key}}, nil
	}
	return plan.Expr{}, hcl.Diagnostics{{
		Severity: hcl.DiagError,
		Summary:  "Unsupported reference",
		Detail:   fmt.Sprintf("%q is not something an expression can read.%s Expressions can read var.NAME, subtask.NAME.output.KEY and (in expect) check.NAME.value.", root, didYouMean(root, []string{"var", "subtask", "check"})),
		Subject:  t.SourceRange().Ptr(),
	}}
}

// attrStep returns the name of step i of t when it is an attribute access.
func attrStep(t hcl.Traversal, i int) (string, hcl.Range, bool) {
	if i >= len(t) {
		return "", t.SourceRange(), false
	}
	switch s := t[i].(type) {
	case hcl.TraverseRoot:
		return s.Name, s.SrcRange, true
	case hcl.TraverseAttr:
		r := s.SrcRange
		if r.End.Byte-r.Start.Byte == len(s.Name)+1 {
			// skip the leading dot, so carets mark the name alone
			r.Start.Byte++
			r.Start.Column++
		}
		return s.Name, r, true
	}
	return "", t[i].SourceRange(), false
}

func ctyToGo(v cty.Value) (any, error) {
	if v.IsNull() {
		return nil, nil
	}
	if !v.IsKnown() {
		return nil, fmt.Errorf("value is not known")
	}
	switch {
	case v.Type() == cty.String:
		return v.AsString(), nil
	case v.Type() == cty.Number:
		f, _ := v.AsBigFloat().Float64()
		return f, nil
	case v.Type() == cty.Bool:
		return v.True(), nil
	case v.Type().IsTupleType() || v.Type().IsListType():
		var l []any
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			g, err := ctyToGo(e)
			if err != nil {
				return nil, err
			}
			l = append(l, g)
		}
		return l, nil
	}
	return nil, fmt.Errorf("values of type %s are not supported", v.Type().FriendlyName())
}

func goToCty(v any) cty.Value {
	switch x := v.(type) {
	case string:
		return cty.StringVal(x)
	case float64:
		return cty.NumberVal(big.NewFloat(x))
	case bool:
		return cty.BoolVal(x)
	case []any:
		if len(x) == 0 {
			return cty.EmptyTupleVal
		}
		vals := make([]cty.Value, len(x))
		for i, e := range x {
			vals[i] = goToCty(e)
		}
		return cty.TupleVal(vals)
	}
	return cty.NullVal(cty.DynamicPseudoType)
}

func exprDiag(r hcl.Range, summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: r.Ptr()}
}

func keys[V any](m map[string]V) []string {
	k := make([]string, 0, len(m))
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}

// didYouMean suggests the closest candidate, as " Did you mean "x"?".
func didYouMean(given string, candidates []string) string {
	best, bestD := "", 4
	for _, c := range candidates {
		if d := levenshtein.Distance(given, c, nil); d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" Did you mean %q?", best)
}

// secretComputed refuses a sensitive variable as the operand of a
// function, an operator or a condition: workflows hold only its
// placeholder, so the computation would silently work on "{{secret.NAME}}"
// instead of the value.
func secretComputed(x plan.Expr, r hcl.Range, what string) hcl.Diagnostics {
	name := secretIn(x)
	if name == "" {
		return nil
	}
	return hcl.Diagnostics{exprDiag(r, "Sensitive value in a computation",
		fmt.Sprintf("var.%s is sensitive: the engine holds only its placeholder {{secret.%s}}, never the value, so %s cannot compute on it. "+
			"Use it as it is, in text: \"${var.%s}\", or give the computed value as another sensitive variable.", name, name, what, name))}
}

// isStatic reports whether e reads no outputs and no secrets.
func isStatic(e plan.Expr) bool {
	if e.Kind == plan.ExprOutput || e.Kind == plan.ExprSecret {
		return false
	}
	for _, a := range e.Args {
		if !isStatic(a) {
			return false
		}
	}
	return true
}

// fold evaluates static expressions at parse time, so the plan holds plain
// literals and errors (a regex that never matches, a bad format) are found
// by `pcflow validate`, not by the run.
func fold(e plan.Expr, r hcl.Range) (plan.Expr, hcl.Diagnostics) {
	if e.Kind == plan.ExprLit || !isStatic(e) {
		return e, nil
	}
	v, err := e.Eval(nil)
	if err != nil {
		return e, hcl.Diagnostics{exprDiag(r, "Invalid expression", fmt.Sprintf("Evaluating this expression failed: %s.", err))}
	}
	return plan.Lit(v), nil
}
