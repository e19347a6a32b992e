package importer

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// quote renders s as an HCL quoted string that reads back as s exactly:
// escapes for quotes, backslashes and control characters, and template
// sequences (${, %{) doubled so nothing in a benchmark's text is
// interpolated.
func quote(s string) string {
	return `"` + escape(s) + `"`
}

// escape is quote without the surrounding quotes, for the literal parts
// of a template.
func escape(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case (r == '$' || r == '%') && i+1 < len(rs) && rs[i+1] == '{':
			b.WriteRune(r)
			b.WriteRune(r)
		case r == unicode.ReplacementChar || !unicode.IsPrint(r) && r != ' ':
			if r > 0xFFFF {
				fmt.Fprintf(&b, `\U%08x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// cached is the HCL template naming a file of the local cache: the
// variable files joined with the file's name.
func cached(name string) string {
	return `"${var.files}/` + escape(name) + `"`
}

// list renders already-rendered HCL values as a list.
func list(items []string) string {
	return "[" + strings.Join(items, ", ") + "]"
}

// quoteAll quotes every string of ss.
func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = quote(s)
	}
	return out
}

// comment renders text as comment lines, each starting with prefix.
func comment(b *strings.Builder, prefix, text string) {
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		line = strings.Map(func(r rune) rune {
			if r == '\r' || !unicode.IsPrint(r) && r != ' ' && r != '\t' {
				return ' '
			}
			return r
		}, line)
		b.WriteString(strings.TrimRight("# "+prefix+line, " "))
		b.WriteByte('\n')
	}
}

var notIdent = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// ident makes a pcflow name (a letter, then letters, digits, _ or -, at
// most 64 characters) from s.
func ident(prefix, s string) string {
	s = notIdent.ReplaceAllString(s, "_")
	if s == "" || !unicode.IsLetter(rune(s[0])) {
		s = prefix + s
	}
	if len(s) > 64 {
		s = s[:64]
	}
	return s
}

// seconds renders a number of seconds as a pcflow duration.
func seconds(f float64) string {
	if f <= 0 {
		f = 0.001
	}
	return strconv.FormatFloat(f, 'f', -1, 64) + "s"
}
