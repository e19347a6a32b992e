package plan

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Expr kinds.
const (
	ExprLit      = "lit"      // Lit
	ExprOutput   = "output"   // Ref: subtask output Ref[0].Ref[1]
	ExprSecret   = "secret"   // Ref[0]: a sensitive variable, rendered as a placeholder
	ExprTemplate = "template" // Args concatenated as strings
	ExprCall     = "call"     // Fn(Args...)
	ExprBinary   = "binary"   // Args[0] Op Args[1]
	ExprUnary    = "unary"    // Op Args[0]
	ExprCond     = "cond"     // Args[0] ? Args[1] : Args[2]
	ExprList     = "list"     // [Args...]
)

// Expr is a pure expression in plain data: literals, subtask outputs,
// sensitive-variable placeholders, templates, operators and a fixed set of
// pure functions. Non-sensitive variables are already substituted.
type Expr struct {
	Kind string   `json:"k"`
	Lit  any      `json:"v,omitempty"`
	Ref  []string `json:"ref,omitempty"`
	Fn   string   `json:"fn,omitempty"`
	Op   string   `json:"op,omitempty"`
	Args []Expr   `json:"args,omitempty"`
}

// Lit returns a literal expression.
func Lit(v any) Expr { return Expr{Kind: ExprLit, Lit: v} }

// IsZero reports whether e is unset or the empty string literal.
func (e Expr) IsZero() bool {
	return e.Kind == "" || (e.Kind == ExprLit && (e.Lit == nil || e.Lit == ""))
}

// OutputRef names one output of one subtask.
type OutputRef struct {
	Subtask string `json:"subtask"`
	Key     string `json:"key"`
}

// OutputRefs lists the subtask outputs e reads, sorted and without repeats.
func (e Expr) OutputRefs() []OutputRef {
	seen := map[OutputRef]bool{}
	var walk func(Expr)
	walk = func(x Expr) {
		if x.Kind == ExprOutput && len(x.Ref) == 2 {
			seen[OutputRef{x.Ref[0], x.Ref[1]}] = true
		}
		for _, a := range x.Args {
			walk(a)
		}
	}
	walk(e)
	refs := make([]OutputRef, 0, len(seen))
	for r := range seen {
		refs = append(refs, r)
	}
	sort.Slice(refs, func(i, j int) bool {
		if refs[i].Subtask != refs[j].Subtask {
			return refs[i].Subtask < refs[j].Subtask
		}
		return refs[i].Key < refs[j].Key
	})
	return refs
}

// Outputs holds the outputs of finished subtasks: subtask → key → value.
type Outputs map[string]map[string]string

// SecretPlaceholder is how a sensitive variable appears in rendered text.
// Only the device worker, which holds the secret values, replaces it.
func SecretPlaceholder(name string) string { return "{{secret." + name + "}}" }

// SecretPattern matches SecretPlaceholder's output for any name the
// language accepts (HCL identifiers hold letters of every script, digits,
// '_' and '-'), and anything else written like a placeholder, so that the
// device can refuse a placeholder it has no value for instead of typing it.
var SecretPattern = regexp.MustCompile(`\{\{secret\.([^{}]*)\}\}`)

// SecretEnv is the environment variable through which setup commands and
// command checks receive a sensitive variable: command lines are visible to
// every user of the machine (ps), so secrets never go there. A '-' in the
// name becomes '_'.
func SecretEnv(name string) string { return "PCFLOW_SECRET_" + strings.ReplaceAll(name, "-", "_") }

// Eval evaluates e against the outputs of finished subtasks.
func (e Expr) Eval(out Outputs) (any, error) {
	switch e.Kind {
	case "":
		return "", nil
	case ExprLit:
		if f, ok := e.Lit.(int); ok {
			return float64(f), nil
		}
		return e.Lit, nil
	case ExprOutput:
		if len(e.Ref) != 2 {
			return nil, fmt.Errorf("malformed output reference %v", e.Ref)
		}
		v, ok := out[e.Ref[0]][e.Ref[1]]
		if !ok {
			return nil, fmt.Errorf("subtask.%s.output.%s is not available (has %s finished?)", e.Ref[0], e.Ref[1], e.Ref[0])
		}
		return v, nil
	case ExprSecret:
		return SecretPlaceholder(e.Ref[0]), nil
	case ExprTemplate:
		var b strings.Builder
		for _, a := range e.Args {
			v, err := a.Eval(out)
			if err != nil {
				return nil, err
			}
			b.WriteString(ToString(v))
		}
		return b.String(), nil
	case ExprList:
		l := make([]any, len(e.Args))
		for i, a := range e.Args {
			v, err := a.Eval(out)
			if err != nil {
				return nil, err
			}
			l[i] = v
		}
		return l, nil
	case ExprUnary:
		v, err := e.Args[0].Eval(out)
		if err != nil {
			return nil, err
		}
		switch e.Op {
		case "!":
			b, ok := v.(bool)
			if !ok {
				return nil, fmt.Errorf("! needs a bool, got %s", ToString(v))
			}
			return !b, nil
		case "-":
			n, err := ToNumber(v)
			return -n, err
		}
	case ExprCond:
		c, err := e.Args[0].Eval(out)
		if err != nil {
			return nil, err
		}
		b, ok := c.(bool)
		if !ok {
			return nil, fmt.Errorf("condition must be a bool, got %s", ToString(c))
		}
		if b {
			return e.Args[1].Eval(out)
		}
		return e.Args[2].Eval(out)
	case ExprBinary:
		return e.evalBinary(out)
	case ExprCall:
		f, ok := Functions[e.Fn]
		if !ok {
			return nil, fmt.Errorf("unknown function %q", e.Fn)
		}
		args := make([]any, len(e.Args))
		for i, a := range e.Args {
			v, err := a.Eval(out)
			if err != nil {
				return nil, err
			}
			args[i] = v
		}
		if f.Arity >= 0 && len(args) != f.Arity {
			return nil, fmt.Errorf("%s takes %d arguments, got %d", e.Fn, f.Arity, len(args))
		}
		return f.Call(args)
	}
	return nil, fmt.Errorf("unknown expression kind %q", e.Kind)
}

// EvalString evaluates e and renders the result as text.
func (e Expr) EvalString(out Outputs) (string, error) {
	v, err := e.Eval(out)
	if err != nil {
		return "", err
	}
	return ToString(v), nil
}

func (e Expr) evalBinary(out Outputs) (any, error) {
	if e.Op == "&&" || e.Op == "||" {
		l, err := e.Args[0].Eval(out)
		if err != nil {
			return nil, err
		}
		lb, ok := l.(bool)
		if !ok {
			return nil, fmt.Errorf("%s needs bools, got %s", e.Op, ToString(l))
		}
		if (e.Op == "&&" && !lb) || (e.Op == "||" && lb) {
			return lb, nil
		}
		r, err := e.Args[1].Eval(out)
		if err != nil {
			return nil, err
		}
		rb, ok := r.(bool)
		if !ok {
			return nil, fmt.Errorf("%s needs bools, got %s", e.Op, ToString(r))
		}
		return rb, nil
	}
	l, err := e.Args[0].Eval(out)
	if err != nil {
		return nil, err
	}
	r, err := e.Args[1].Eval(out)
	if err != nil {
		return nil, err
	}
	switch e.Op {
	case "==", "!=":
		eq := equal(l, r)
		if e.Op == "!=" {
			return !eq, nil
		}
		return eq, nil
	}
	a, err := ToNumber(l)
	if err != nil {
		return nil, err
	}
	b, err := ToNumber(r)
	if err != nil {
		return nil, err
	}
	switch e.Op {
	case "+":
		return a + b, nil
	case "-":
		return a - b, nil
	case "*":
		return a * b, nil
	case "/":
		if b == 0 {
			return nil, fmt.Errorf("division by zero")
		}
		return a / b, nil
	case "%":
		if b == 0 {
			return nil, fmt.Errorf("modulo by zero")
		}
		return math.Mod(a, b), nil
	case "<":
		return a < b, nil
	case "<=":
		return a <= b, nil
	case ">":
		return a > b, nil
	case ">=":
		return a >= b, nil
	}
	return nil, fmt.Errorf("unknown operator %q", e.Op)
}

// equal compares loosely the way a person reading a check would: outputs are
// text, so "84" equals 84 and " 84 " does not.
func equal(a, b any) bool {
	an, aerr := toNumberStrict(a)
	bn, berr := toNumberStrict(b)
	if aerr == nil && berr == nil {
		return an == bn
	}
	return ToString(a) == ToString(b)
}

// ToString renders a value as text: numbers without a trailing ".0".
func ToString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'f', -1, 64)
	case int:
		return strconv.Itoa(x)
	case []any:
		parts := make([]string, len(x))
		for i, p := range x {
			parts[i] = ToString(p)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// ToNumber converts a number or numeric text to a float64.
func ToNumber(v any) (float64, error) {
	n, err := toNumberStrict(v)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", ToString(v))
	}
	return n, nil
}

func toNumberStrict(v any) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case int:
		return float64(x), nil
	case string:
		return strconv.ParseFloat(x, 64)
	}
	return 0, fmt.Errorf("not a number")
}
