package workflows

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTemplatedTakesWholeValues(t *testing.T) {
	vars := map[string]string{"a": "12", "dir": "/tmp/notes", "one": "1", "note": "Lunch at noon"}
	for _, tc := range []struct {
		in   string
		want Template
	}{
		{in: "12", want: Template{{Var: "a"}}},
		{in: "1212", want: Template{{Text: "1212"}}},
		{in: "10:30", want: Template{{Text: "10:30"}}},
		{in: "1 + 12", want: Template{{Var: "one"}, {Text: " + "}, {Var: "a"}}},
		{in: "/tmp/notes/note.txt", want: Template{{Var: "dir"}, {Text: "/note.txt"}}},
		{in: "Lunch at noon!", want: Template{{Var: "note"}, {Text: "!"}}},
		{in: "", want: Template{{Text: ""}}},
	} {
		got := Templated(tc.in, vars)
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("Templated(%q) differs (-want +got):\n%s", tc.in, d)
		}
		if s, err := got.Render(vars); err != nil || s != tc.in {
			t.Errorf("Templated(%q).Render = %q, %v; want the text back", tc.in, s, err)
		}
	}
	if _, err := (Template{{Var: "gone"}}).Render(vars); err == nil {
		t.Error("Render of a variable the run lacks: no error")
	}
}
