package specs

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"

	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

// jsonCheck: json { path, format, subset, excludes, key_matches, has_item }
// reads a JSON file (or with format = "prefs" a Mozilla prefs.js) on the
// device: subset (a JSON object, as text) holds when the file's object has
// each of its keys with an equal value, excludes when it has none of its
// keys with an equal value, key_matches (keys and RE2 patterns) when each
// key's value is a string the pattern finds; has_item (a JSON value, as
// text) when an item of the file's list equals it. Values compare as
// Python's == does.
func jsonCheck() checkKind {
	return checkKind{
		name: plan.CheckJSON,
		schema: &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
			{Name: "path", Required: true}, {Name: "subset"}, {Name: "has_item"}, {Name: "excludes"}, {Name: "key_matches"}, {Name: "format"},
		}},
		decode: func(p *parser, st *scope, kb *hcl.Block, kc *hcl.BodyContent, ck *plan.Check) {
			ck.Path = p.templatePtr(st, kc, "path")
			j := plan.JSON{}
			for _, d := range []struct {
				name   string
				dst    *string
				object bool
			}{{"subset", &j.Subset, true}, {"has_item", &j.HasItem, false}, {"excludes", &j.Excludes, true}, {"key_matches", &j.KeyMatches, true}} {
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
				if d.name == "key_matches" && !p.patternsOf(a, x.(map[string]any)) {
					continue
				}
				*d.dst = v
			}
			if f := p.stringAttr(st, kc, "format"); f != nil {
				p.oneOf(kc, "format", f, plan.JSONFormats)
				if *f == "prefs" {
					j.Format = *f
				}
			}
			object := j.Subset != "" || j.Excludes != "" || j.KeyMatches != ""
			_, hasAny := kc.Attributes["subset"]
			for _, n := range []string{"has_item", "excludes", "key_matches"} {
				_, has := kc.Attributes[n]
				hasAny = hasAny || has
			}
			switch {
			case !object && j.HasItem == "" && !hasAny:
				p.diags = append(p.diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Check with no condition",
					Detail:   fmt.Sprintf("The json block of check %q needs subset = \"{...}\" (keys the file's object holds), excludes, key_matches, or has_item = \"...\" (an item of the file's list).", ck.Name),
					Subject:  kb.DefRange.Ptr(),
				})
			case object && j.HasItem != "":
				p.diags = append(p.diags, exprDiag(kc.Attributes["has_item"].NameRange, "Conflicting conditions",
					"subset, excludes and key_matches read the file as an object, has_item as a list; keep one kind."))
			case j.Format == "prefs" && j.HasItem != "":
				p.diags = append(p.diags, exprDiag(kc.Attributes["has_item"].NameRange, "has_item of prefs",
					"a prefs.js reads as an object of preferences, not a list: use subset, excludes or key_matches."))
			}
			ck.JSON = &j
		},
	}
}

// patternsOf reports key_matches values that are not RE2 patterns.
func (p *parser) patternsOf(a *hcl.Attribute, m map[string]any) bool {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		pat, ok := m[k].(string)
		if !ok {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid pattern",
				fmt.Sprintf("key_matches maps each key to a pattern (a string); %q's is not one.", k)))
			return false
		}
		if _, err := regexp.Compile(pat); err != nil {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid pattern",
				fmt.Sprintf("key_matches: %q's pattern %q is not a valid RE2 expression: %v.", k, pat, err)))
			return false
		}
	}
	return true
}
