package specs

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// includeSchema is what an included file holds: variables and the blocks
// a task holds, written at the top level.
func includeSchema() *hcl.BodySchema {
	s := &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "variable", LabelNames: []string{"name"}}}}
	s.Blocks = append(s.Blocks, taskSchema.Blocks...)
	return s
}

// include decodes include = ["common/office.hcl", ...] at the top of a task
// file: paths relative to the task file's folder, each file holding
// variable, device, setup, post_run, subtask and check blocks that join
// the task as if written in it (before its own blocks, so shared setup runs
// first). An included file cannot include others. Diagnostics about an
// included block point into the file that holds it.
func (p *parser) include(filename string, a *hcl.Attribute) hcl.Blocks {
	v, d := a.Expr.Value(nil)
	if d.HasErrors() || !(v.Type().IsTupleType() || v.Type().IsListType()) || !v.IsWhollyKnown() {
		p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid include",
			"include takes a list of file paths written as plain strings, relative to this file: include = [\"common/office.hcl\"]."))
		return nil
	}
	items, _ := hcl.ExprList(a.Expr)
	seen := map[string]hcl.Range{}
	var blocks hcl.Blocks
	i := 0
	for it := v.ElementIterator(); it.Next(); i++ {
		_, ev := it.Element()
		r := a.Expr.Range()
		if i < len(items) {
			r = items[i].Range()
		}
		if ev.IsNull() || ev.Type() != cty.String || ev.AsString() == "" {
			p.diags = append(p.diags, exprDiag(r, "Invalid include", "Each entry of include is the path of a file, such as \"common/office.hcl\"."))
			continue
		}
		rel := ev.AsString()
		if filepath.Ext(rel) != ".hcl" {
			p.diags = append(p.diags, exprDiag(r, "Invalid include", fmt.Sprintf("%q is not a task-language file: included files end in .hcl.", rel)))
			continue
		}
		path := rel
		if !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(filename), rel)
		}
		if prev, dup := seen[path]; dup {
			p.diags = append(p.diags, exprDiag(r, "File included twice", fmt.Sprintf("%s is already included at %s; remove one.", rel, prev)))
			continue
		}
		seen[path] = r
		if path == filename {
			p.diags = append(p.diags, exprDiag(r, "File includes itself", "Remove it from include."))
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			p.diags = append(p.diags, exprDiag(r, "Cannot read included file",
				fmt.Sprintf("%s. Paths are relative to the folder of %s.", err, filename)))
			continue
		}
		f, d := p.parseSource(path, src)
		p.diags = append(p.diags, d...)
		if d.HasErrors() {
			continue
		}
		c, d := f.Body.Content(includeSchema())
		p.diags = append(p.diags, d...)
		blocks = append(blocks, c.Blocks...)
	}
	return blocks
}
