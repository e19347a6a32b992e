package screen

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestKindsListsEveryAction: every Act* constant of this package has its
// row in the table of kinds, so a policy can name a new action, and the
// agents are offered it, as soon as it exists.
func TestKindsListsEveryAction(t *testing.T) {
	pkgs, err := parser.ParseDir(token.NewFileSet(), ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.CONST {
					continue
				}
				for _, s := range g.Specs {
					vs := s.(*ast.ValueSpec)
					for i, n := range vs.Names {
						if !strings.HasPrefix(n.Name, "Act") || i >= len(vs.Values) {
							continue
						}
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							v, _ := strconv.Unquote(lit.Value)
							want = append(want, v)
						}
					}
				}
			}
		}
	}
	sort.Strings(want)
	if diff := cmp.Diff(want, Kinds()); diff != "" {
		t.Errorf("Kinds() mismatch with the Act* constants (-want +got):\n%s", diff)
	}
}

// TestKindTable: each kind has one row; what the tool schema offers is
// described and its arguments are Action's fields; an action that must
// come alone never reaches the device.
func TestKindTable(t *testing.T) {
	fields := map[string]bool{}
	at := reflect.TypeOf(Action{})
	for i := range at.NumField() {
		name, _, _ := strings.Cut(at.Field(i).Tag.Get("json"), ",")
		fields[name] = true
	}
	seen := map[string]bool{}
	for _, k := range Table() {
		if seen[k.Kind] {
			t.Errorf("kind %s has two rows", k.Kind)
		}
		seen[k.Kind] = true
		if k.Offered && k.Doc == "" {
			t.Errorf("kind %s is offered to the model with no Doc", k.Kind)
		}
		if !k.Offered && (k.Doc != "" || len(k.Params) > 0) {
			t.Errorf("kind %s is not offered, yet has a Doc or Params for the tool schema", k.Kind)
		}
		for _, p := range k.Params {
			if !fields[p.Name] {
				t.Errorf("kind %s: parameter %q is no JSON field of Action", k.Kind, p.Name)
			}
		}
		if k.Alone && (k.Device || !k.Inert) {
			t.Errorf("kind %s must come alone, so it is inert and never reaches the device", k.Kind)
		}
		if !k.Device && !k.Inert {
			t.Errorf("kind %s neither reaches the device nor is inert: what carries it out?", k.Kind)
		}
	}
}

func TestSummary(t *testing.T) {
	for _, c := range []struct {
		a    Action
		want string
	}{
		{Action{Kind: ActClick, Element: 12, Target: "Save"}, `click #12 "Save"`},
		{Action{Kind: ActClick, X: 5, Y: 6, Keys: []string{"shift"}}, `shift+click (5,6)`},
		{Action{Kind: ActMouseMove, X: 5, Y: 6}, `mouse_move (5,6)`},
		{Action{Kind: ActType, Text: "hi", Enter: true, Element: 2}, `type "hi" #2 ⏎`},
		{Action{Kind: ActHotkey, Keys: []string{"ctrl", "s"}}, `hotkey ctrl+s`},
		{Action{Kind: ActScroll, Direction: "down", Amount: 3, Keys: []string{"ctrl"}}, `ctrl+scroll down 3`},
		{Action{Kind: ActDone, Outputs: map[string]string{"b": "1", "a": "2"}}, `done a,b`},
		{Action{Kind: ActAskHuman, Text: "which file?"}, `ask_human "which file?"`},
		{Action{Kind: ActZoom, X: 1, Y: 2, X2: 3, Y2: 4}, `zoom (1,2)–(3,4)`},
		{Action{Kind: ActCopy}, `copy`},
		{Action{Kind: "unknown", X: 1}, `unknown`},
	} {
		if got := c.a.Summary(); got != c.want {
			t.Errorf("%+v.Summary() = %q, want %q", c.a, got, c.want)
		}
	}
}
