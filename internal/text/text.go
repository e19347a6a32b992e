// Package text holds small string helpers shared across pcflow.
package text

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Trunc shortens s to at most n runes, marking a cut with "…". It never
// splits a UTF-8 sequence.
func Trunc(s string, n int) string {
	if len(s) <= n {
		return s // n bytes hold at most n runes
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}

// Uniq returns xs without repeats, in the order each first appears.
func Uniq(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// Printable returns s safe to print on a terminal: control characters
// other than newline and tab (escape sequences, carriage returns,
// backspaces, C1 controls), Unicode's bidirectional overrides and bytes
// that are not UTF-8 are shown escaped, as \x1b or \u202e. Text a model or
// a person wrote passes through it before pcflow prints it.
func Printable(s string) string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if needsEscape(r, n) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x80 && needsEscape(r, n):
			fmt.Fprintf(&b, `\x%02x`, r)
		case needsEscape(r, n):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// needsEscape reports whether the rune r (n bytes long) must not reach a
// terminal as it is.
func needsEscape(r rune, n int) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f:
		return true
	case r == utf8.RuneError && n == 1:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
