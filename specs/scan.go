package specs

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
)

// This file holds the scan that runs before HCL's parser sees a file: the
// parser is recursive, and joins a string's lines in time that grows with
// lines × bytes, so the limits on nesting (MaxNesting) and on strings
// (MaxStringBytes, MaxStringLines) are checked first, by one pass over the
// bytes that reads them the way HCL's lexer does but keeps no tokens: only
// the stack of what is open, at most MaxNesting deep. It stops at the
// first limit crossed.

// checkNesting checks the task-language file src against the limits.
func checkNesting(src []byte, filename string) hcl.Diagnostics {
	return scanLimits(src, filename, scanBody)
}

// checkTemplateNesting checks a bare template (ParseTemplate's text).
func checkTemplateNesting(src []byte, filename string) hcl.Diagnostics {
	return scanLimits(src, filename, scanTemplate)
}

// scanKind is what an open frame of the scan is.
type scanKind uint8

const (
	scanBody      scanKind = iota // the file or a { }: a newline ends an expression
	scanParen                     // ( or [
	scanInterp                    // ${ … }
	scanControl                   // %{ … }
	scanQuote                     // "…"
	scanHeredoc                   // <<EOT … EOT
	scanDirective                 // the body of a %{if} or %{for}, up to its %{endif} or %{endfor}
	scanTemplate                  // a bare template
)

// literal reports whether a frame's text is template text, not expression.
func (k scanKind) literal() bool { return k >= scanQuote }

type scanFrame struct {
	kind scanKind
	// ops counts the operators in the frame, which nest as the parser
	// descends into their operands.
	ops int
	// A %{…} sequence: keyword is +1 after if or for (a directive's body
	// follows), -1 after endif or endfor; named once its first word is read.
	keyword int
	named   bool
	// A string: where it starts, its heredoc marker, and its parts (lines
	// and $${ or %%{ escapes: HCL's lexer makes each a token of its own).
	start  int
	marker []byte
	parts  int
}

type limitScan struct {
	src      []byte
	filename string
	i        int
	line     int // the line of i, from 1
	lineAt   int // where that line starts
	frames   []scanFrame
	depth    int // len(frames)-1 plus every frame's ops
}

func scanLimits(src []byte, filename string, base scanKind) hcl.Diagnostics {
	s := &limitScan{src: src, filename: filename, line: 1, frames: []scanFrame{{kind: base}}}
	for s.i < len(s.src) {
		at := s.i
		var d *hcl.Diagnostic
		if s.frames[len(s.frames)-1].kind.literal() {
			d = s.literalStep()
		} else {
			s.exprStep()
		}
		if d == nil && s.depth > MaxNesting {
			d = &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Expression nested too deeply",
				Detail: fmt.Sprintf("Brackets, interpolations, template directives (%%{if}, %%{for}) and operators nest more than %d levels deep here, the most a task file allows. "+
					"Split the expression or the template, or compute the value with fewer nested parts.", MaxNesting),
				Subject: s.rangeAt(at).Ptr(),
			}
		}
		if d != nil {
			return hcl.Diagnostics{d}
		}
	}
	return nil
}

func (s *limitScan) push(f scanFrame) {
	s.frames = append(s.frames, f)
	s.depth++
}

// pop closes the innermost frame; the file's (or template's) never closes.
func (s *limitScan) pop() scanFrame {
	n := len(s.frames) - 1
	f := s.frames[n]
	if n == 0 {
		return f
	}
	s.frames = s.frames[:n]
	s.depth -= 1 + f.ops
	return f
}

func (s *limitScan) peek(k int) byte {
	if s.i+k < len(s.src) {
		return s.src[s.i+k]
	}
	return 0
}

// newline moves past the newline at i.
func (s *limitScan) newline() {
	s.i++
	s.line++
	s.lineAt = s.i
}

// exprStep reads one token of an expression.
func (s *limitScan) exprStep() {
	top := &s.frames[len(s.frames)-1]
	c, next := s.src[s.i], s.peek(1)
	switch {
	case c == '\n':
		if top.kind == scanBody {
			s.depth -= top.ops
			top.ops = 0
		}
		s.newline()
	case c == '#' || c == '/' && next == '/':
		// A line comment ends at its newline, which ends the expression.
		if j := bytes.IndexByte(s.src[s.i:], '\n'); j >= 0 {
			s.i += j
		} else {
			s.i = len(s.src)
		}
	case c == '/' && next == '*':
		end := bytes.Index(s.src[s.i+2:], []byte("*/"))
		stop := len(s.src)
		if end >= 0 {
			stop = s.i + 2 + end + 2
		}
		for s.i < stop {
			if s.src[s.i] == '\n' {
				s.newline()
			} else {
				s.i++
			}
		}
	case c == '"':
		s.push(scanFrame{kind: scanQuote, start: s.i})
		s.i++
	case c == '<' && next == '<' && s.heredoc():
	case c == '{':
		s.push(scanFrame{kind: scanBody})
		s.i++
	case c == '(' || c == '[':
		s.push(scanFrame{kind: scanParen})
		s.i++
	case c == '}' && (top.kind == scanInterp || top.kind == scanControl):
		f := s.pop()
		s.i++
		if f.kind == scanControl {
			switch {
			case f.keyword > 0:
				s.push(scanFrame{kind: scanDirective})
			case f.keyword < 0 && s.frames[len(s.frames)-1].kind == scanDirective:
				s.pop()
			}
		}
	case c == '}' || c == ')' || c == ']':
		s.pop()
		s.i++
	case c >= '0' && c <= '9':
		s.number()
	case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= utf8.RuneSelf:
		start := s.i
		for s.i < len(s.src) && identByte(s.src[s.i]) {
			s.i++
		}
		if top.kind == scanControl && !top.named {
			switch string(s.src[start:s.i]) {
			case "if", "for":
				top.keyword = 1
			case "endif", "endfor":
				top.keyword = -1
			}
		}
		top.named = true
	case c == '+' || c == '-' || c == '*' || c == '/' || c == '%' || c == '?' ||
		c == '!' || c == '<' || c == '>' ||
		c == '=' && next == '=' || c == '&' && next == '&' || c == '|' && next == '|':
		top.ops++
		s.depth++
		s.i++
		if next == '=' || c == '&' || c == '|' {
			s.i++ // ==, !=, <=, >=, &&, ||
		}
	case c == '=' && next == '>':
		s.i += 2
	default:
		s.i++
	}
}

// heredoc starts a heredoc at i (<<EOT or <<-EOT, then a newline) and
// reports whether there was one.
func (s *limitScan) heredoc() bool {
	j := s.i + 2
	if j < len(s.src) && s.src[j] == '-' {
		j++
	}
	m := j
	if j >= len(s.src) || !(s.src[j] == '_' || s.src[j] >= 'a' && s.src[j] <= 'z' || s.src[j] >= 'A' && s.src[j] <= 'Z' || s.src[j] >= utf8.RuneSelf) {
		return false
	}
	for j < len(s.src) && identByte(s.src[j]) {
		j++
	}
	marker := s.src[m:j]
	if j < len(s.src) && s.src[j] == '\r' {
		j++
	}
	if j >= len(s.src) || s.src[j] != '\n' {
		return false
	}
	s.push(scanFrame{kind: scanHeredoc, start: s.i, marker: marker})
	s.i = j
	s.newline()
	return true
}

// number moves past a number: digits, a fraction, an exponent (1e-5 is
// one number, not a subtraction).
func (s *limitScan) number() {
	digits := func() {
		for s.i < len(s.src) && s.src[s.i] >= '0' && s.src[s.i] <= '9' {
			s.i++
		}
	}
	digits()
	if s.peek(0) == '.' && s.peek(1) >= '0' && s.peek(1) <= '9' {
		s.i++
		digits()
	}
	if c := s.peek(0); c == 'e' || c == 'E' {
		k := 1
		if c := s.peek(1); c == '+' || c == '-' {
			k = 2
		}
		if c := s.peek(k); c >= '0' && c <= '9' {
			s.i += k
			digits()
		}
	}
}

// identByte reports whether c continues an identifier (HCL's may hold
// dashes; any byte of a multi-byte character is taken as a letter).
func identByte(c byte) bool {
	return c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= utf8.RuneSelf
}

// literalStep reads template text: a quoted string's, a heredoc's or a
// bare template's, or a directive's body within one.
func (s *limitScan) literalStep() *hcl.Diagnostic {
	str := len(s.frames) - 1
	for s.frames[str].kind == scanDirective && str > 0 {
		str--
	}
	sf := &s.frames[str]
	c, next := s.src[s.i], s.peek(1)
	if sf.kind == scanHeredoc && s.i == s.lineAt {
		if n := s.heredocEnd(sf.marker); n > 0 {
			for len(s.frames)-1 > str {
				s.pop()
			}
			s.pop()
			s.i += n // the newline after the marker ends the expression
			return nil
		}
	}
	switch {
	case c == '"' && sf.kind == scanQuote:
		for len(s.frames)-1 > str {
			s.pop()
		}
		s.pop()
		s.i++
		return nil
	case c == '\\' && sf.kind == scanQuote:
		s.i++ // the escaped character is read below
		if s.i < len(s.src) && s.src[s.i] != '\n' {
			s.i++
		}
	case (c == '$' || c == '%') && next == c && s.peek(2) == '{':
		s.i += 3
		sf.parts += 2
	case (c == '$' || c == '%') && next == '{':
		k := scanInterp
		if c == '%' {
			k = scanControl
		}
		s.push(scanFrame{kind: k})
		s.i += 2
	case c == '\n':
		s.newline()
		if sf.kind == scanQuote {
			sf.parts += 2 // an invalid newline in a quoted string: a token of its own
		} else {
			sf.parts++
		}
	default:
		s.i++
	}
	return s.stringLimits(sf)
}

// heredocEnd returns the length of the heredoc's closing marker line
// (spaces, the marker, without its newline) at i, or 0.
func (s *limitScan) heredocEnd(marker []byte) int {
	j := s.i
	for j < len(s.src) && (s.src[j] == ' ' || s.src[j] == '\t') {
		j++
	}
	if !bytes.HasPrefix(s.src[j:], marker) {
		return 0
	}
	j += len(marker)
	if j == len(s.src) || s.src[j] == '\n' || s.src[j] == '\r' && j+1 < len(s.src) && s.src[j+1] == '\n' {
		return j - s.i
	}
	return 0
}

// stringLimits reports a string (or heredoc) that has grown, at i, past
// MaxStringLines parts or MaxStringBytes bytes.
func (s *limitScan) stringLimits(sf *scanFrame) *hcl.Diagnostic {
	var what string
	switch {
	case sf.parts > MaxStringLines:
		what = fmt.Sprintf("more than %d lines", MaxStringLines)
	case s.i-sf.start > MaxStringBytes:
		what = "more than " + byteSize(MaxStringBytes)
	default:
		return nil
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "String too long",
		Detail: fmt.Sprintf("This string holds %s by here; one string or heredoc may hold at most %d lines (each $${ or %%%%{ counts as one) and %s. "+
			"Move long text into files on the device (that a setup command fetches or makes), or split it.", what, MaxStringLines, byteSize(MaxStringBytes)),
		Subject: s.rangeAt(s.i - 1).Ptr(),
	}
}

// rangeAt is the range of the character at byte offset at, on the line
// being read.
func (s *limitScan) rangeAt(at int) hcl.Range {
	lineAt := s.lineAt
	line := s.line
	if at < lineAt { // the step that crossed the limit moved past a newline
		line--
		lineAt = bytes.LastIndexByte(s.src[:at], '\n') + 1
	}
	col := utf8.RuneCount(s.src[lineAt:at]) + 1
	start := hcl.Pos{Line: line, Column: col, Byte: at}
	end := start
	if at < len(s.src) && s.src[at] != '\n' {
		_, n := utf8.DecodeRune(s.src[at:])
		end = hcl.Pos{Line: line, Column: col + 1, Byte: at + n}
	}
	return hcl.Range{Filename: s.filename, Start: start, End: end}
}
