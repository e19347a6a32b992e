package scripted

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/pcflow/pcflow/activities/agent"
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

// observation is a screen as a request's turn shows it: the element list
// and the window titles.
type observation struct {
	elements []agent.Mark
	windows  []string
}

// screenOf is the screen a turn shows (the one to decide on for Decision,
// the one after the action for Reflection): its elements, the active
// window and the windows listed.
func screenOf(t agent.TurnFacts) observation {
	var o observation
	if t.Screen == nil {
		return o
	}
	o.elements = t.Screen.Elements
	for _, w := range append([]string{t.Screen.ActiveWindow}, t.Screen.Windows...) {
		if w = strings.TrimSpace(w); w != "" {
			o.windows = append(o.windows, w)
		}
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
		if p.Role != "" && !strings.EqualFold(e.Role, p.Role) {
			continue
		}
		if try(e.Name) || try(e.Value) {
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
		if p.Role != "" && !strings.EqualFold(e.Role, p.Role) {
			continue
		}
		n++
		for _, t := range []string{e.Name, e.Value} {
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
