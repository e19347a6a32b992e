package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// mdLink is an inline Markdown link or image: [text](target).
var mdLink = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)\)`)

// TestDocLinks: every relative link in README.md, ARCHITECTURE.md and
// docs/*.md names a file that exists and, with #anchor into a Markdown
// file, a heading of that file.
func TestDocLinks(t *testing.T) {
	files, _ := filepath.Glob("../docs/*.md")
	files = append([]string{"../README.md", "../ARCHITECTURE.md"}, files...)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range docLinks(string(src)) {
			if strings.Contains(l.target, "://") || strings.HasPrefix(l.target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(l.target, "#")
			dest := f
			if path != "" {
				dest = filepath.Join(filepath.Dir(f), path)
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s:%d: link to %s: no such file", f, l.line, l.target)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(dest, ".md") {
				t.Errorf("%s:%d: link to %s: an anchor into a file that is not Markdown", f, l.line, l.target)
				continue
			}
			dsrc, err := os.ReadFile(dest)
			if err != nil {
				t.Fatal(err)
			}
			if !headingAnchors(string(dsrc))[anchor] {
				t.Errorf("%s:%d: link to %s: %s has no heading with the anchor #%s", f, l.line, l.target, dest, anchor)
			}
		}
	}
}

type docLink struct {
	target string
	line   int
}

// docLinks returns the links outside code blocks and code spans.
func docLinks(src string) []docLink {
	var links []docLink
	fence := false
	for i, line := range strings.Split(src, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		for _, m := range mdLink.FindAllStringSubmatch(stripCodeSpans(line), -1) {
			links = append(links, docLink{m[1], i + 1})
		}
	}
	return links
}

// stripCodeSpans removes `code` from a line.
func stripCodeSpans(line string) string {
	parts := strings.Split(line, "`")
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 0 {
			b.WriteString(p)
		}
	}
	return b.String()
}

// headingAnchors returns the anchors GitHub gives a Markdown file's
// headings: lower case, punctuation dropped, spaces as hyphens, and -1, -2
// after repeats.
func headingAnchors(src string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	fence := false
	for _, line := range strings.Split(src, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		if fence || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			anchors[a+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[a] = true
		}
		seen[a]++
	}
	return anchors
}
