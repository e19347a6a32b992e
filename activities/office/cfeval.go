package office

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// A small evaluator for the formulas of conditional formatting rules:
// numbers, "text", TRUE/FALSE, cell references on the rule's sheet
// (relative ones shifted from the rule's top-left cell), + - * / ^ & and
// the comparisons = <> < > <= >=, parentheses, and the functions AND, OR,
// NOT, ABS, LEN, MOD, ISBLANK, ISNUMBER, ISTEXT. Anything else is an error
// that names it.

type valKind int

const (
	vBlank valKind = iota
	vNum
	vStr
	vBool
)

type val struct {
	kind valKind
	n    float64
	s    string
	b    bool
}

func num(f float64) val   { return val{kind: vNum, n: f} }
func boolean(b bool) val  { return val{kind: vBool, b: b} }
func text(s string) val   { return val{kind: vStr, s: s} }
func (v val) isNum() bool { return v.kind == vNum }
func (v val) truth() bool { return (v.kind == vBool && v.b) || (v.kind == vNum && v.n != 0) }
func (v val) number() float64 {
	switch v.kind {
	case vNum:
		return v.n
	case vBool:
		if v.b {
			return 1
		}
	case vStr:
		f, _ := strconv.ParseFloat(strings.TrimSpace(v.s), 64)
		return f
	}
	return 0
}

func (v val) text() string {
	switch v.kind {
	case vNum:
		return fnum(v.n)
	case vStr:
		return v.s
	case vBool:
		return strings.ToUpper(strconv.FormatBool(v.b))
	}
	return ""
}

// cellVal is a cell's value as formulas see it: a number when it reads as
// one, TRUE/FALSE, text, or blank.
func cellVal(c Cell) val {
	s := c.Value
	switch {
	case s == "":
		return val{}
	case s == "TRUE" || s == "FALSE":
		return boolean(s == "TRUE")
	}
	if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
		return num(f)
	}
	return text(s)
}

// compareVals orders values as spreadsheets do: numbers before text before
// booleans; text without case; a blank is 0 beside a number and "" beside
// text.
func compareVals(a, b val) int {
	if a.kind == vBlank {
		a = map[bool]val{true: text(""), false: num(0)}[b.kind == vStr]
	}
	if b.kind == vBlank {
		b = map[bool]val{true: text(""), false: num(0)}[a.kind == vStr]
	}
	if a.kind != b.kind {
		return int(a.kind) - int(b.kind)
	}
	switch a.kind {
	case vNum:
		switch {
		case a.n < b.n:
			return -1
		case a.n > b.n:
			return 1
		}
		return 0
	case vBool:
		return int(a.number()) - int(b.number())
	}
	return strings.Compare(strings.ToLower(a.s), strings.ToLower(b.s))
}

// cfEnv evaluates formulas for one cell of a rule's range.
type cfEnv struct {
	w      *Workbook
	sheet  string
	dc, dr int
	src    string
	toks   []string
	pos    int
}

func (e *cfEnv) eval(formula string) (val, error) {
	e.src = strings.TrimPrefix(strings.TrimSpace(NormalizeFormula(formula)), "=")
	toks, err := lex(e.src)
	if err != nil {
		return val{}, fmt.Errorf("formula =%s: %w", e.src, err)
	}
	e.toks, e.pos = toks, 0
	v, err := e.compare()
	if err == nil && e.pos < len(e.toks) {
		err = fmt.Errorf("unexpected %q", e.toks[e.pos])
	}
	if err != nil {
		return val{}, fmt.Errorf("formula =%s: %w", e.src, err)
	}
	return v, nil
}

func lex(s string) ([]string, error) {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ':
			i++
		case c == '"':
			j := i + 1
			for ; j < len(s); j++ {
				if s[j] == '"' {
					if j+1 < len(s) && s[j+1] == '"' {
						j++
						continue
					}
					break
				}
			}
			if j >= len(s) {
				return nil, fmt.Errorf("a text without its closing quote")
			}
			out = append(out, s[i:j+1])
			i = j + 1
		case strings.HasPrefix(s[i:], "<=") || strings.HasPrefix(s[i:], ">=") || strings.HasPrefix(s[i:], "<>"):
			out = append(out, s[i:i+2])
			i += 2
		case strings.ContainsRune("+-*/^&=<>(),%", rune(c)):
			out = append(out, string(c))
			i++
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \"+-*/^&=<>(),%", rune(s[j])) {
				j++
			}
			// 1E+3: the sign belongs to the number.
			if j < len(s) && (s[j] == '+' || s[j] == '-') && j > i && (s[j-1] == 'E' || s[j-1] == 'e') {
				if _, err := strconv.ParseFloat(s[i:j-1], 64); err == nil {
					j++
					for j < len(s) && s[j] >= '0' && s[j] <= '9' {
						j++
					}
				}
			}
			out = append(out, s[i:j])
			i = j
		}
	}
	return out, nil
}

func (e *cfEnv) peek() string {
	if e.pos < len(e.toks) {
		return e.toks[e.pos]
	}
	return ""
}

func (e *cfEnv) compare() (val, error) {
	l, err := e.concat()
	if err != nil {
		return l, err
	}
	for {
		op := e.peek()
		switch op {
		case "=", "<>", "<", ">", "<=", ">=":
		default:
			return l, nil
		}
		e.pos++
		r, err := e.concat()
		if err != nil {
			return r, err
		}
		c := compareVals(l, r)
		l = boolean(map[string]bool{"=": c == 0, "<>": c != 0, "<": c < 0, ">": c > 0, "<=": c <= 0, ">=": c >= 0}[op])
	}
}

func (e *cfEnv) concat() (val, error) {
	l, err := e.additive()
	for err == nil && e.peek() == "&" {
		e.pos++
		var r val
		if r, err = e.additive(); err == nil {
			l = text(l.text() + r.text())
		}
	}
	return l, err
}

func (e *cfEnv) additive() (val, error) {
	l, err := e.term()
	for err == nil && (e.peek() == "+" || e.peek() == "-") {
		op := e.toks[e.pos]
		e.pos++
		var r val
		if r, err = e.term(); err == nil {
			l = num(map[bool]float64{true: l.number() + r.number(), false: l.number() - r.number()}[op == "+"])
		}
	}
	return l, err
}

func (e *cfEnv) term() (val, error) {
	l, err := e.power()
	for err == nil && (e.peek() == "*" || e.peek() == "/") {
		op := e.toks[e.pos]
		e.pos++
		var r val
		if r, err = e.power(); err != nil {
			break
		}
		if op == "*" {
			l = num(l.number() * r.number())
		} else if r.number() == 0 {
			return val{}, fmt.Errorf("division by zero")
		} else {
			l = num(l.number() / r.number())
		}
	}
	return l, err
}

func (e *cfEnv) power() (val, error) {
	l, err := e.unary()
	for err == nil && e.peek() == "^" {
		e.pos++
		var r val
		if r, err = e.unary(); err == nil {
			l = num(math.Pow(l.number(), r.number()))
		}
	}
	return l, err
}

func (e *cfEnv) unary() (val, error) {
	if e.peek() == "-" || e.peek() == "+" {
		neg := e.toks[e.pos] == "-"
		e.pos++
		v, err := e.unary()
		if neg {
			v = num(-v.number())
		}
		return v, err
	}
	v, err := e.primary()
	if err == nil && e.peek() == "%" {
		e.pos++
		v = num(v.number() / 100)
	}
	return v, err
}

func (e *cfEnv) primary() (val, error) {
	t := e.peek()
	if t == "" {
		return val{}, fmt.Errorf("the formula ends too early")
	}
	e.pos++
	switch {
	case t == "(":
		v, err := e.compare()
		if err != nil {
			return v, err
		}
		if e.peek() != ")" {
			return v, fmt.Errorf("a ( without its )")
		}
		e.pos++
		return v, nil
	case strings.HasPrefix(t, `"`):
		return text(strings.ReplaceAll(t[1:len(t)-1], `""`, `"`)), nil
	case t == "TRUE" || t == "FALSE":
		return boolean(t == "TRUE"), nil
	case e.peek() == "(":
		return e.call(t)
	}
	if f, err := strconv.ParseFloat(t, 64); err == nil {
		return num(f), nil
	}
	if strings.Contains(t, "!") || strings.Contains(t, ":") {
		return val{}, fmt.Errorf("the reference %s is not evaluated: pcflow evaluates references to single cells of the rule's own sheet", t)
	}
	return e.ref(t)
}

// ref reads a cell reference, shifting its relative parts.
func (e *cfEnv) ref(t string) (val, error) {
	i := 0
	colAbs := strings.HasPrefix(t, "$")
	if colAbs {
		i++
	}
	j := i
	for j < len(t) && t[j] >= 'A' && t[j] <= 'Z' {
		j++
	}
	rowAbs := j < len(t) && t[j] == '$'
	col, row, err := ParseCellRef(t)
	if err != nil || j == i || j-i > 3 {
		return val{}, fmt.Errorf("%q is not evaluated (a name, or a function without its parentheses?)", t)
	}
	if !colAbs {
		col += e.dc
	}
	if !rowAbs {
		row += e.dr
	}
	if col < 0 || row < 0 {
		return val{}, fmt.Errorf("the reference %s falls off the sheet", t)
	}
	c, err := e.w.Cell(e.sheet, CellName(col, row))
	if err != nil {
		return val{}, err
	}
	return cellVal(c), nil
}

// cfFunctions are the functions formulas may call.
var cfFunctions = []string{"AND", "OR", "NOT", "ABS", "LEN", "MOD", "ISBLANK", "ISNUMBER", "ISTEXT"}

func (e *cfEnv) call(name string) (val, error) {
	if !slices.Contains(cfFunctions, name) {
		return val{}, fmt.Errorf("the function %s is not evaluated (pcflow knows %s)", name, strings.Join(cfFunctions, ", "))
	}
	e.pos++ // (
	var args []val
	for e.peek() != ")" {
		v, err := e.compare()
		if err != nil {
			return v, err
		}
		args = append(args, v)
		if e.peek() == "," {
			e.pos++
		} else if e.peek() != ")" {
			return val{}, fmt.Errorf("%s( without its )", name)
		}
	}
	e.pos++
	arity := func(n int) error {
		if len(args) != n {
			return fmt.Errorf("%s takes %d argument(s), got %d", name, n, len(args))
		}
		return nil
	}
	switch name {
	case "AND", "OR":
		all, any := true, false
		for _, a := range args {
			all, any = all && a.truth(), any || a.truth()
		}
		return boolean(map[bool]bool{true: all, false: any}[name == "AND"]), nil
	case "NOT":
		if err := arity(1); err != nil {
			return val{}, err
		}
		return boolean(!args[0].truth()), nil
	case "ABS":
		if err := arity(1); err != nil {
			return val{}, err
		}
		return num(math.Abs(args[0].number())), nil
	case "LEN":
		if err := arity(1); err != nil {
			return val{}, err
		}
		return num(float64(len([]rune(args[0].text())))), nil
	case "MOD":
		if err := arity(2); err != nil {
			return val{}, err
		}
		d := args[1].number()
		if d == 0 {
			return val{}, fmt.Errorf("MOD by zero")
		}
		m := math.Mod(args[0].number(), d)
		if m != 0 && (m < 0) != (d < 0) {
			m += d
		}
		return num(m), nil
	case "ISBLANK", "ISNUMBER", "ISTEXT":
		if err := arity(1); err != nil {
			return val{}, err
		}
		k := map[string]valKind{"ISBLANK": vBlank, "ISNUMBER": vNum, "ISTEXT": vStr}[name]
		return boolean(args[0].kind == k), nil
	}
	return val{}, fmt.Errorf("the function %s is not evaluated (pcflow knows %s)", name, strings.Join(cfFunctions, ", "))
}
