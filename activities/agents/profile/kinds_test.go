package profile

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcflow/pcflow/activities/screen"
)

// TestTextFormatsNameEveryAction: the instructions of each text format
// name every action of pcflow's own action space (screen.Offered): the
// tool-call formats in their list of tools; UI-TARS in its action space
// (each line read, its placeholders filled in, as the model would write
// it) or among pcflow's other actions. A new offered kind fails here until
// UI-TARS's prompt says how to write it.
func TestTextFormatsNameEveryAction(t *testing.T) {
	want := slices.Sorted(slices.Values(screen.Offered()))
	list := func(s string) []string {
		return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' })
	}
	for _, f := range []string{FormatHermes, FormatAuto} {
		m := regexp.MustCompile(`(?s)The tools are the actions listed above \((.*?)\)`).FindStringSubmatch(FormatInstructions(f, "pixels"))
		if m == nil {
			t.Fatalf("%s: no list of tools in its instructions", f)
		}
		if diff := cmp.Diff(want, slices.Sorted(slices.Values(list(m[1])))); diff != "" {
			t.Errorf("%s: the tools listed differ from screen.Offered (-want +got):\n%s", f, diff)
		}
	}

	s := FormatInstructions(FormatUITARS, "pixels")
	space, other, ok := strings.Cut(s[strings.Index(s, "## Action Space"):], "pcflow's other actions (")
	if !ok {
		t.Fatalf("uitars: no list of pcflow's other actions in\n%s", s)
	}
	fill := strings.NewReplacer("(x,y)", "(1,2)", "(x1,y1)", "(1,2)", "(x2,y2)", "(3,4)", "down or up or right or left", "down")
	var named []string
	for _, line := range strings.Split(space, "\n")[1:] {
		line, _, _ = strings.Cut(line, " #")
		if strings.TrimSpace(line) == "" {
			continue
		}
		name, kw, _, err := parseFuncCall(fill.Replace(line))
		if err != nil {
			t.Errorf("uitars: action space line %q: %v", line, err)
			continue
		}
		c, err := uitarsCall(name, kw)
		if err != nil {
			t.Errorf("uitars: action space line %q: %v", line, err)
			continue
		}
		named = append(named, c.Name)
	}
	others, _, _ := strings.Cut(other, ")")
	for _, o := range list(others) {
		if slices.Contains(named, o) {
			t.Errorf("uitars: %s is in the action space and among pcflow's other actions", o)
		}
		named = append(named, o)
	}
	if diff := cmp.Diff(want, slices.Sorted(slices.Values(named))); diff != "" {
		t.Errorf("uitars: the actions its instructions name differ from screen.Offered (-want +got):\n%s", diff)
	}
}
