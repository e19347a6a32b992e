package plan

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
)

// Function is a pure function available in expressions.
type Function struct {
	Arity int // -1: variadic
	Doc   string
	Call  func(args []any) (any, error)
}

// PatternArg returns the index of function fn's argument that is a regular
// expression, or -1, so that literal patterns can be checked before a run.
func PatternArg(fn string) int {
	switch fn {
	case "regex", "regexmatch":
		return 0
	}
	return -1
}

// FunctionNames lists the available functions, sorted.
func FunctionNames() []string {
	n := make([]string, 0, len(Functions))
	for k := range Functions {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

func str1(f func(string) any) func([]any) (any, error) {
	return func(a []any) (any, error) { return f(ToString(a[0])), nil }
}

func num1(f func(float64) float64) func([]any) (any, error) {
	return func(a []any) (any, error) {
		n, err := ToNumber(a[0])
		if err != nil {
			return nil, err
		}
		return f(n), nil
	}
}

func list(v any) ([]any, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("expected a list, got %s", ToString(v))
	}
	return l, nil
}

// Functions are the only functions expressions may call. None reads files,
// time or randomness: templates are rendered inside deterministic workflows.
var Functions = map[string]Function{
	"upper":     {1, "upper(s): s in upper case", str1(func(s string) any { return strings.ToUpper(s) })},
	"lower":     {1, "lower(s): s in lower case", str1(func(s string) any { return strings.ToLower(s) })},
	"trimspace": {1, "trimspace(s): s without leading and trailing white space", str1(func(s string) any { return strings.TrimSpace(s) })},
	"length": {1, "length(x): characters in a string, items in a list", func(a []any) (any, error) {
		if l, ok := a[0].([]any); ok {
			return float64(len(l)), nil
		}
		return float64(len([]rune(ToString(a[0])))), nil
	}},
	"tostring": {1, "tostring(x): x as text", func(a []any) (any, error) { return ToString(a[0]), nil }},
	"tonumber": {1, "tonumber(s): s as a number", func(a []any) (any, error) { return ToNumber(a[0]) }},
	"abs":      {1, "abs(n)", num1(math.Abs)},
	"floor":    {1, "floor(n)", num1(math.Floor)},
	"ceil":     {1, "ceil(n)", num1(math.Ceil)},
	"round":    {1, "round(n): nearest integer", num1(math.Round)},
	"contains": {2, "contains(s, sub): whether s contains sub", func(a []any) (any, error) {
		if l, ok := a[0].([]any); ok {
			for _, x := range l {
				if equal(x, a[1]) {
					return true, nil
				}
			}
			return false, nil
		}
		return strings.Contains(ToString(a[0]), ToString(a[1])), nil
	}},
	"startswith": {2, "startswith(s, prefix)", func(a []any) (any, error) { return strings.HasPrefix(ToString(a[0]), ToString(a[1])), nil }},
	"endswith":   {2, "endswith(s, suffix)", func(a []any) (any, error) { return strings.HasSuffix(ToString(a[0]), ToString(a[1])), nil }},
	"replace": {3, "replace(s, old, new): every old replaced by new", func(a []any) (any, error) {
		return strings.ReplaceAll(ToString(a[0]), ToString(a[1]), ToString(a[2])), nil
	}},
	"split": {2, "split(sep, s): list of the parts of s", func(a []any) (any, error) {
		parts := strings.Split(ToString(a[1]), ToString(a[0]))
		l := make([]any, len(parts))
		for i, p := range parts {
			l[i] = p
		}
		return l, nil
	}},
	"join": {2, "join(sep, list)", func(a []any) (any, error) {
		l, err := list(a[1])
		if err != nil {
			return nil, err
		}
		parts := make([]string, len(l))
		for i, p := range l {
			parts[i] = ToString(p)
		}
		return strings.Join(parts, ToString(a[0])), nil
	}},
	"regex": {2, "regex(pattern, s): the first match (or its first group) of pattern in s", func(a []any) (any, error) {
		re, err := regexp.Compile(ToString(a[0]))
		if err != nil {
			return nil, fmt.Errorf("regex: %w", err)
		}
		m := re.FindStringSubmatch(ToString(a[1]))
		if m == nil {
			return nil, fmt.Errorf("regex: %q does not match %q", ToString(a[0]), ToString(a[1]))
		}
		if len(m) > 1 {
			return m[1], nil
		}
		return m[0], nil
	}},
	"regexmatch": {2, "regexmatch(pattern, s): whether pattern matches s", func(a []any) (any, error) {
		re, err := regexp.Compile(ToString(a[0]))
		if err != nil {
			return nil, fmt.Errorf("regexmatch: %w", err)
		}
		return re.MatchString(ToString(a[1])), nil
	}},
	"format": {-1, "format(spec, args...): printf-style (%s %d %f %v %q)", func(a []any) (any, error) {
		if len(a) == 0 {
			return nil, fmt.Errorf("format needs a spec")
		}
		args := make([]any, 0, len(a)-1)
		for _, x := range a[1:] {
			if n, ok := x.(float64); ok && n == math.Trunc(n) {
				args = append(args, int64(n))
				continue
			}
			args = append(args, x)
		}
		s := fmt.Sprintf(ToString(a[0]), args...)
		if strings.Contains(s, "%!") {
			return nil, fmt.Errorf("format %q does not fit its arguments: %s", ToString(a[0]), s)
		}
		return s, nil
	}},
	"min": {-1, "min(n...)", func(a []any) (any, error) { return fold(a, math.Min) }},
	"max": {-1, "max(n...)", func(a []any) (any, error) { return fold(a, math.Max) }},
}

func fold(a []any, f func(x, y float64) float64) (any, error) {
	if len(a) == 0 {
		return nil, fmt.Errorf("needs at least one number")
	}
	acc, err := ToNumber(a[0])
	if err != nil {
		return nil, err
	}
	for _, x := range a[1:] {
		n, err := ToNumber(x)
		if err != nil {
			return nil, err
		}
		acc = f(acc, n)
	}
	return acc, nil
}
