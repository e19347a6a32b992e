package profile

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// --- a strict reader of Python call statements ---
//
// OpenCUA answers with Python code: one call a line, such as
// pyautogui.click(x=123, y=456) or computer.terminate(status='success').
// Nothing is executed. pyCalls reads only what such code is made of —
// dotted names called with literal arguments (strings in either quote,
// triple-quoted or not, with Python's escapes; numbers; True, False,
// None; lists and tuples), positional or keyword — and refuses anything
// else (an expression, an assignment, an import, a call inside an
// argument) with the line it is on. known says which names may be
// called; any other name is an "unknown call".

// pyCall is one call statement: fn(args…, name=value…).
type pyCall struct {
	fn   string
	args []any          // positional: string, float64, bool, nil or []any
	kw   map[string]any // keyword
	line int            // 1-based line of the code where the call starts
}

// Limits of what a code block may hold.
const (
	maxPyCalls  = 50 // statements in one block
	maxPyDepth  = 4  // nested lists
	maxPyDigits = 32 // characters of a number
)

type pyReader struct {
	s     string
	i     int
	known func(string) bool
	names string // the known calls, for the "unknown call" error
	// nameArg says which dotted names may stand as an argument (as
	// PyName); nil: none, only literals.
	nameArg func(string) bool
}

// pyCalls reads the call statements of code, in order.
func pyCalls(code string, known func(string) bool, names string) ([]pyCall, error) {
	return (&pyReader{s: code, known: known, names: names}).calls()
}

// calls reads the call statements of r's code, in order.
func (r *pyReader) calls() ([]pyCall, error) {
	var out []pyCall
	for {
		r.skipBlank(true)
		if r.i >= len(r.s) {
			return out, nil
		}
		if len(out) == maxPyCalls {
			return nil, fmt.Errorf("the code has more than %d calls; give at most a few actions a step", maxPyCalls)
		}
		c, err := r.call()
		if err != nil {
			return nil, fmt.Errorf("line %d of the code: %w", r.line(), err)
		}
		out = append(out, c)
		// A statement ends at a newline, a semicolon, a comment or the end.
		r.skipBlank(false)
		if r.i < len(r.s) && !strings.ContainsRune("\n;#", rune(r.s[r.i])) {
			return nil, fmt.Errorf("line %d of the code: unexpected %q after %s(…); write one call a line", r.line(), trunc(r.rest(r.i), 20), c.fn)
		}
	}
}

// line is the 1-based line of the reader's position.
func (r *pyReader) line() int { return strings.Count(r.s[:min(r.i, len(r.s))], "\n") + 1 }

// skipBlank skips spaces and tabs, and with newlines also newlines,
// semicolons and comments.
func (r *pyReader) skipBlank(newlines bool) {
	for r.i < len(r.s) {
		switch c := r.s[r.i]; {
		case c == ' ' || c == '\t' || c == '\r':
			r.i++
		case newlines && (c == '\n' || c == ';'):
			r.i++
		case newlines && c == '#':
			for r.i < len(r.s) && r.s[r.i] != '\n' {
				r.i++
			}
		default:
			return
		}
	}
}

// skipSpace skips white space inside brackets, where newlines do not end
// the statement.
func (r *pyReader) skipSpace() {
	for r.i < len(r.s) && strings.ContainsRune(" \t\r\n", rune(r.s[r.i])) {
		r.i++
	}
}

func isIdentByte(c byte, first bool) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || !first && c >= '0' && c <= '9'
}

// ident reads a Python identifier.
func (r *pyReader) ident() string {
	j := r.i
	for j < len(r.s) && isIdentByte(r.s[j], j == r.i) {
		j++
	}
	id := r.s[r.i:j]
	r.i = j
	return id
}

// call reads name.name(args).
func (r *pyReader) call() (pyCall, error) {
	c := pyCall{kw: map[string]any{}, line: r.line()}
	start := r.i
	for {
		id := r.ident()
		if id == "" {
			return c, fmt.Errorf("%q is not a call such as pyautogui.click(x=100, y=200)", trunc(r.rest(start), 40))
		}
		c.fn += id
		if r.i < len(r.s) && r.s[r.i] == '.' {
			c.fn += "."
			r.i++
			continue
		}
		break
	}
	r.skipBlank(false)
	if r.i >= len(r.s) || r.s[r.i] != '(' {
		return c, fmt.Errorf("%q is not a call such as pyautogui.click(x=100, y=200)", trunc(r.rest(start), 40))
	}
	if !r.known(c.fn) {
		return c, fmt.Errorf("unknown call %s(…); use %s", c.fn, r.names)
	}
	r.i++
	for {
		r.skipSpace()
		if r.i >= len(r.s) {
			return c, fmt.Errorf("%s( is not closed with )", c.fn)
		}
		if r.s[r.i] == ')' {
			r.i++
			return c, nil
		}
		// A keyword argument is name=value (not name==value).
		save := r.i
		if name := r.ident(); name != "" {
			r.skipSpace()
			if r.i < len(r.s) && r.s[r.i] == '=' && (r.i+1 >= len(r.s) || r.s[r.i+1] != '=') {
				r.i++
				r.skipSpace()
				v, err := r.value(c.fn, 0)
				if err != nil {
					return c, err
				}
				if _, dup := c.kw[name]; dup {
					return c, fmt.Errorf("%s gives %s twice", c.fn, name)
				}
				c.kw[name] = v
				if err := r.argEnd(c.fn); err != nil {
					return c, err
				}
				continue
			}
			r.i = save
		}
		if len(c.kw) > 0 {
			return c, fmt.Errorf("%s has a positional argument after a keyword argument", c.fn)
		}
		v, err := r.value(c.fn, 0)
		if err != nil {
			return c, err
		}
		c.args = append(c.args, v)
		if err := r.argEnd(c.fn); err != nil {
			return c, err
		}
	}
}

func (r *pyReader) rest(from int) string {
	s := r.s[from:]
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// argEnd reads what may follow an argument: a comma or the closing bracket.
func (r *pyReader) argEnd(fn string) error {
	r.skipSpace()
	if r.i < len(r.s) && r.s[r.i] == ',' {
		r.i++
		return nil
	}
	if r.i < len(r.s) && r.s[r.i] == ')' {
		return nil
	}
	if r.i >= len(r.s) {
		return fmt.Errorf("%s( is not closed with )", fn)
	}
	return fmt.Errorf("argument of %s is not a literal (a string, a number, True, False, None or a list): %q", fn, trunc(r.rest(r.i), 30))
}

// value reads one literal argument.
func (r *pyReader) value(fn string, depth int) (any, error) {
	if r.i >= len(r.s) {
		return nil, fmt.Errorf("%s( is not closed with )", fn)
	}
	c := r.s[r.i]
	switch {
	case c == '[' || c == '(':
		if depth >= maxPyDepth {
			return nil, fmt.Errorf("argument of %s nests lists more than %d deep", fn, maxPyDepth)
		}
		closing := map[byte]byte{'[': ']', '(': ')'}[c]
		r.i++
		list := []any{}
		for {
			r.skipSpace()
			if r.i >= len(r.s) {
				return nil, fmt.Errorf("a list in the arguments of %s is not closed with %c", fn, closing)
			}
			if r.s[r.i] == closing {
				r.i++
				return list, nil
			}
			v, err := r.value(fn, depth+1)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
			r.skipSpace()
			if r.i < len(r.s) && r.s[r.i] == ',' {
				r.i++
			} else if r.i < len(r.s) && r.s[r.i] != closing {
				return nil, fmt.Errorf("a list in the arguments of %s has %q where a comma or %c belongs", fn, trunc(r.rest(r.i), 20), closing)
			}
		}
	case c == '\'' || c == '"':
		return r.str(fn)
	case c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9':
		return r.number(fn)
	case isIdentByte(c, true):
		start := r.i
		id := r.ident()
		// A string prefix: r'…', u'…' (not f-strings, which compute).
		if r.i < len(r.s) && (r.s[r.i] == '\'' || r.s[r.i] == '"') && (id == "r" || id == "R" || id == "u" || id == "U") {
			if id == "r" || id == "R" {
				return r.rawStr(fn)
			}
			return r.str(fn)
		}
		switch id {
		case "True":
			return true, nil
		case "False":
			return false, nil
		case "None":
			return nil, nil
		}
		if r.nameArg != nil {
			name := id
			for r.i < len(r.s) && r.s[r.i] == '.' {
				r.i++
				next := r.ident()
				if next == "" {
					break
				}
				name += "." + next
			}
			if r.nameArg(name) {
				return PyName(name), nil
			}
		}
		r.i = start
	}
	return nil, fmt.Errorf("argument of %s is not a literal (a string, a number, True, False, None or a list): %q", fn, trunc(r.rest(r.i), 30))
}

// number reads an integer or decimal number, which must be finite.
func (r *pyReader) number(fn string) (any, error) {
	j := r.i
	if r.s[j] == '-' || r.s[j] == '+' {
		j++
	}
	for j < len(r.s) && (r.s[j] >= '0' && r.s[j] <= '9' || r.s[j] == '.' || r.s[j] == 'e' || r.s[j] == 'E' ||
		(r.s[j] == '-' || r.s[j] == '+') && (r.s[j-1] == 'e' || r.s[j-1] == 'E')) {
		j++
	}
	lit := r.s[r.i:j]
	if len(lit) > maxPyDigits {
		return nil, fmt.Errorf("number %s… in the arguments of %s is too long", lit[:12], fn)
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, fmt.Errorf("%q in the arguments of %s is not a number", trunc(r.rest(r.i), 20), fn)
	}
	r.i = j
	return f, nil
}

// str reads a quoted string ('…' or "…", or either tripled), with
// Python's escapes.
func (r *pyReader) str(fn string) (any, error) {
	q, end, triple := r.quote()
	var b strings.Builder
	for r.i < len(r.s) {
		if strings.HasPrefix(r.s[r.i:], end) {
			r.i += len(end)
			return b.String(), nil
		}
		c := r.s[r.i]
		if c == '\n' && !triple {
			break
		}
		if c != '\\' {
			ru, n := utf8.DecodeRuneInString(r.s[r.i:])
			b.WriteRune(ru)
			r.i += n
			continue
		}
		if r.i+1 >= len(r.s) {
			break
		}
		e := r.s[r.i+1]
		r.i += 2
		switch e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '\\', '\'', '"':
			b.WriteByte(e)
		case '\n': // a line continued
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if r.i+n > len(r.s) {
				return nil, fmt.Errorf("a string in the arguments of %s has a bad \\%c escape", fn, e)
			}
			v, err := strconv.ParseUint(r.s[r.i:r.i+n], 16, 32)
			if err != nil || v > utf8.MaxRune {
				return nil, fmt.Errorf("a string in the arguments of %s has a bad \\%c escape", fn, e)
			}
			b.WriteRune(rune(v))
			r.i += n
		default: // Python keeps an unknown escape as written
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return nil, fmt.Errorf("a string in the arguments of %s is not closed with %s", fn, string(q))
}

// rawStr reads r'…': backslashes are kept.
func (r *pyReader) rawStr(fn string) (any, error) {
	q, end, triple := r.quote()
	for j := r.i; j < len(r.s); j++ {
		if strings.HasPrefix(r.s[j:], end) {
			s := r.s[r.i:j]
			r.i = j + len(end)
			return s, nil
		}
		if r.s[j] == '\\' {
			j++
		} else if r.s[j] == '\n' && !triple {
			break
		}
	}
	return nil, fmt.Errorf("a string in the arguments of %s is not closed with %s", fn, string(q))
}

// quote reads the opening quote at r.i and returns it and the quote that
// closes it.
func (r *pyReader) quote() (byte, string, bool) {
	q := r.s[r.i]
	if strings.HasPrefix(r.s[r.i:], strings.Repeat(string(q), 3)) {
		r.i += 3
		return q, strings.Repeat(string(q), 3), true
	}
	r.i++
	return q, string(q), false
}
