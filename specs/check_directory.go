package specs

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

// directoryCheck: directory { path, exists, entries, same_as }
// checks a directory on the device: that it exists (or not), holds the
// given entries (relative paths; a trailing / names a directory), or has
// the same tree and file contents as a reference directory.
func directoryCheck() checkKind {
	return checkKind{
		name: plan.CheckDirectory,
		schema: &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
			{Name: "path", Required: true}, {Name: "exists"}, {Name: "entries"}, {Name: "same_as"},
		}},
		decode: func(p *parser, st *scope, kb *hcl.Block, kc *hcl.BodyContent, ck *plan.Check) {
			ck.Path = p.templatePtr(st, kc, "path")
			ck.Exists = p.boolAttr(st, kc, "exists")
			if a, ok := kc.Attributes["entries"]; ok {
				ck.Entries = p.stringList(st, a)
			}
			ck.SameAs = p.referenceFile(st, kc, "same_as", nil)
			if ck.Exists != nil && !*ck.Exists && (ck.Entries != nil || ck.SameAs != nil) {
				p.diags = append(p.diags, exprDiag(kc.Attributes["exists"].Expr.Range(), "Conflicting conditions",
					"exists = false cannot hold together with entries or same_as: a missing directory holds nothing. Keep one."))
			}
			if ck.Exists == nil && ck.Entries == nil && ck.SameAs == nil {
				t := true
				ck.Exists = &t
			}
		},
	}
}
