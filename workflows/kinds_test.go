package workflows_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcflow/pcflow/activities/screen"
)

// TestSubtaskKeepsNonDeviceKindsOffTheDevice: the kinds the subtask
// carries out itself (its switch on act.Kind before the device step in
// subtask.go) are exactly those screen's table says never reach the
// device. A new kind that does not reach the device fails here until the
// subtask handles it.
func TestSubtaskKeepsNonDeviceKindsOffTheDevice(t *testing.T) {
	fset := token.NewFileSet()
	consts := map[string]string{}
	kf, err := parser.ParseFile(fset, "../activities/screen/kinds.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ast.Inspect(kf, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok {
			for i, name := range vs.Names {
				if i < len(vs.Values) {
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						consts[name.Name], _ = strconv.Unquote(lit.Value)
					}
				}
			}
		}
		return true
	})
	f, err := parser.ParseFile(fset, "subtask.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	ast.Inspect(f, func(n ast.Node) bool {
		cc, ok := n.(*ast.CaseClause)
		if !ok || got != nil || len(cc.List) < 2 {
			return got == nil
		}
		var kinds []string
		for _, e := range cc.List {
			if sel, ok := e.(*ast.SelectorExpr); ok {
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "screen" {
					kinds = append(kinds, consts[sel.Sel.Name])
				}
			}
		}
		if slices.Contains(kinds, screen.ActDone) {
			got = kinds
		}
		return got == nil
	})
	var want []string
	for _, k := range screen.Table() {
		if !k.Device {
			want = append(want, k.Kind)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("subtask.go's case of the kinds it carries out itself differs from screen.Table's non-device kinds (-want +got):\n%s", diff)
	}
}
