package specs

import (
	"encoding/json"
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

// jsonCheck: json { path, subset, has_item } reads a JSON file on the
// device: subset (a JSON object, as text) holds when the file's object has
// each of its keys with an equal value; has_item (a JSON value, as text)
// when an item of the file's list equals it. Values compare as Python's
// == does.
func jsonCheck() checkKind {
	return checkKind{
		name: plan.CheckJSON,
		schema: &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
			{Name: "path", Required: true}, {Name: "subset"}, {Name: "has_item"},
		}},
		decode: func(p *parser, st *scope, kb *hcl.Block, kc *hcl.BodyContent, ck *plan.Check) {
			ck.Path = p.templatePtr(st, kc, "path")
			j := plan.JSON{}
			for _, d := range []struct {
				name   string
				dst    *string
				object bool
			}{{"subset", &j.Subset, true}, {"has_item", &j.HasItem, false}} {
				a, ok := kc.Attributes[d.name]
				if !ok {
					continue
				}
				v := p.staticString(st, a)
				var x any
				if err := json.Unmarshal([]byte(v), &x); err != nil {
					p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid JSON",
						fmt.Sprintf("%s is JSON text (%s = \"{\\\"editor.tabSize\\\": 2}\"); this is not: %v.", d.name, d.name, err)))
					continue
				}
				if _, isObj := x.(map[string]any); d.object && !isObj {
					p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Subset is not an object",
						"subset is a JSON object whose keys the file's object must hold with equal values: {\"files.autoSave\": \"afterDelay\"}."))
					continue
				}
				*d.dst = v
			}
			switch {
			case j.Subset == "" && j.HasItem == "":
				if _, bad := kc.Attributes["subset"]; !bad {
					if _, bad := kc.Attributes["has_item"]; !bad {
						p.diags = append(p.diags, &hcl.Diagnostic{
							Severity: hcl.DiagError,
							Summary:  "Check with no condition",
							Detail:   fmt.Sprintf("The json block of check %q needs subset = \"{...}\" (keys the file's object holds) or has_item = \"...\" (an item of the file's list).", ck.Name),
							Subject:  kb.DefRange.Ptr(),
						})
					}
				}
			case j.Subset != "" && j.HasItem != "":
				p.diags = append(p.diags, exprDiag(kc.Attributes["has_item"].NameRange, "Conflicting conditions",
					"subset reads the file as an object and has_item as a list; keep one."))
			}
			ck.JSON = &j
		},
	}
}
