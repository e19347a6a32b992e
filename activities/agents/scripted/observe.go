package scripted

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/pcflow/pcflow/internal/text"
)

// Probe finds text on the screen the agent was shown: Pattern (a Go regular
// expression) is matched against the name and the value of every element
// in the element list (OCR boxes included), only those of Role when given,
// and, without a Role, against the window titles too.
type Probe struct {
	Role    string `json:"role,omitempty"`
	Pattern string `json:"pattern"`
}

// seen is an element as the element list shows it.
type seen struct {
	role, name, value string
}

// observation is the screen as one section of a prompt shows it.
type observation struct {
	elements []seen
	windows  []string
}

// reElementLine reads one element-list line: `[id] role "name" value="…" at (…)`.
var reElementLine = regexp.MustCompile(`^\[(\d+)\] (.+?) ("(?:[^"\\]|\\.)*")(?: value=("(?:[^"\\]|\\.)*"))?`)

// reWindow reads the window lines of the Decision and Reflection prompts.
var reWindow = regexp.MustCompile(`^(?:Active window(?: after)?|Windows): (.*)$`)

// observe reads the screen from a prompt: the element lines under the
// heading named section ("Elements" in a Decision prompt, "Elements after"
// in a Reflection prompt) and the windows listed for that screen.
func observe(prompt, section string) observation {
	var o observation
	in := false
	for _, line := range strings.Split(prompt, "\n") {
		if strings.HasSuffix(line, ":") && !strings.HasPrefix(line, "[") {
			in = line == section+":"
			continue
		}
		if m := reWindow.FindStringSubmatch(line); m != nil {
			if after := strings.HasPrefix(line, "Active window after:"); after == (section == "Elements after") {
				for _, w := range strings.Split(m[1], " | ") {
					if w = strings.TrimSpace(w); w != "" {
						o.windows = append(o.windows, w)
					}
				}
			}
			continue
		}
		if !in {
			continue
		}
		m := reElementLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		e := seen{role: m[2]}
		e.name, _ = strconv.Unquote(m[3])
		if m[4] != "" {
			e.value, _ = strconv.Unquote(m[4])
		}
		o.elements = append(o.elements, e)
	}
	return o
}

// find returns the first match of p on the screen: the whole match and its
// first group ("" when p has none), or ok false.
func (o observation) find(p Probe) (match, group string, ok bool, err error) {
	re, err := regexp.Compile(p.Pattern)
	if err != nil {
		return "", "", false, fmt.Errorf("pattern %q: %w", p.Pattern, err)
	}
	try := func(s string) bool {
		if s == "" {
			return false
		}
		m := re.FindStringSubmatch(s)
		if m == nil {
			return false
		}
		match = m[0]
		if len(m) > 1 {
			group = m[1]
		}
		return true
	}
	for _, e := range o.elements {
		if p.Role != "" && !strings.EqualFold(e.role, p.Role) {
			continue
		}
		if try(e.name) || try(e.value) {
			return match, group, true, nil
		}
	}
	if p.Role == "" {
		for _, w := range o.windows {
			if try(w) {
				return match, group, true, nil
			}
		}
	}
	return "", "", false, nil
}

// describe says what a probe looked for, in how much, and the first texts
// it saw there.
func (o observation) describe(p Probe) string {
	var texts []string
	n := 0
	for _, e := range o.elements {
		if p.Role != "" && !strings.EqualFold(e.role, p.Role) {
			continue
		}
		n++
		for _, t := range []string{e.name, e.value} {
			if t != "" && len(texts) < 5 {
				texts = append(texts, strconv.Quote(text.Trunc(t, 40)))
			}
		}
	}
	where := fmt.Sprintf("%d elements and %d windows", n, len(o.windows))
	if p.Role != "" {
		where = fmt.Sprintf("%d %q elements", n, p.Role)
	}
	if len(texts) > 0 {
		where += " (" + strings.Join(texts, ", ") + ")"
	}
	return fmt.Sprintf("/%s/ in %s", p.Pattern, where)
}

// Markers the scripted agents leave in their own answers, to find their
// place in the script again from what a later prompt carries (the thought
// and the progress summary are in the workflow's state, so the place
// survives a crash of the process serving the script).
var (
	reStepMarker = regexp.MustCompile(`\[script step (\d+)\]`)
	reNextMarker = regexp.MustCompile(`\[next: script step (\d+)\]`)
)

func stepMarker(k int) string { return fmt.Sprintf("[script step %d]", k) }
func nextMarker(k int) string { return fmt.Sprintf("[next: script step %d]", k) }

// marked reads the number a marker carries in text, or def.
func marked(re *regexp.Regexp, text string, def int) int {
	if m := re.FindStringSubmatch(text); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			return n
		}
	}
	return def
}
