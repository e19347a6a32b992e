package specs

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/pcflow/pcflow/specs/plan"
)

// checkKind is one condition block a check may hold (file { ... },
// command { ... }, ...): its schema and how its content becomes the plan's
// check fields. Each kind lives in its own check_KIND.go; the device side
// evaluates it in activities' check_KIND.go.
type checkKind struct {
	name   string
	schema *hcl.BodySchema
	// decode reads the kind's block content kc into ck, reporting problems.
	decode func(p *parser, st *scope, kb *hcl.Block, kc *hcl.BodyContent, ck *plan.Check)
}

// checkKinds is the table of check kinds, in the order messages list them.
type checkKinds []checkKind

// newCheckKinds lists every check kind. Adding a kind is one line here and
// one check_KIND.go file (plus its plan constant and its evaluation in
// activities).
func newCheckKinds() checkKinds {
	return checkKinds{
		fileCheck(),
		commandCheck(),
		windowTitleCheck(),
		screenTextCheck(),
		clipboardCheck(),
		cellCheck(),
		sheetCheck(),
		documentCheck(),
		presentationCheck(),
		directoryCheck(),
		elementCheck(),
		similarityCheck(),
		judgeCheck(),
		jsonCheck(),
	}
}

// Names returns the kinds' names in order.
func (ks checkKinds) names() []string {
	n := make([]string, len(ks))
	for i, k := range ks {
		n[i] = k.name
	}
	return n
}

func (ks checkKinds) get(name string) (checkKind, bool) {
	for _, k := range ks {
		if k.name == name {
			return k, true
		}
	}
	return checkKind{}, false
}

// schema is the check block's schema: after, expect, device, weight and
// one block per kind.
func (ks checkKinds) schema() *hcl.BodySchema {
	s := &hcl.BodySchema{
		Attributes: []hcl.AttributeSchema{{Name: "after"}, {Name: "expect"}, {Name: "device"}, {Name: "weight"}},
	}
	for _, k := range ks {
		s.Blocks = append(s.Blocks, hcl.BlockHeaderSchema{Type: k.name})
	}
	return s
}

// CheckKinds lists the condition blocks a check may hold, in the order the
// language reference gives them (expect is not a block and is not listed).
func CheckKinds() []string { return newCheckKinds().names() }

// checks decodes the check blocks among blocks and orders them: after may
// name only checks of the same owner, without cycles.
func (p *parser) checks(st *scope, blocks hcl.Blocks, device, owner string) []plan.Check {
	names := map[string]hcl.Range{}
	blockOf := map[string]*hcl.Block{}
	var out []plan.Check
	var afterRanges [][]hcl.Range
	// Checks whose value an expect reads (check.NAME.value) capture it and
	// need no condition of their own.
	declared, captured := map[string]bool{}, map[string]bool{}
	for _, blk := range blocks {
		if blk.Type != "check" {
			continue
		}
		declared[blk.Labels[0]] = true
		for _, t := range bodyVariables(blk.Body) {
			name, _, ok := attrStep(t, 1)
			field, _, ok2 := attrStep(t, 2)
			if ok && ok2 && field == "value" && t.RootName() == "check" { // not after = [check.NAME]
				captured[name] = true
			}
		}
	}
	cst := *st
	cst.checks = declared
	for _, blk := range blocks {
		if blk.Type != "check" {
			continue
		}
		p.within(blk, func() {
			name := blk.Labels[0]
			p.label(blk, "check")
			if prev, dup := names[name]; dup {
				p.diags = append(p.diags, duplicate("check", name, blk.LabelRanges[0], prev))
				return
			}
			names[name] = blk.LabelRanges[0]
			blockOf[name] = blk
			cst.checkRefs = map[string]hcl.Range{}
			p.capturing = captured[name]
			ck, ar := p.check(&cst, blk, device)
			p.capturing = false
			ck.Capture = captured[name] && ck.Kind != plan.CheckExpect
			// An expect that reads check.X.value runs after X.
			for _, ref := range keys(cst.checkRefs) {
				if !slices.Contains(ck.After, ref) {
					ck.After = append(ck.After, ref)
					ar = append(ar, cst.checkRefs[ref])
				}
			}
			if captured[name] && valueless[ck.Kind] {
				p.diags = append(p.diags, exprDiag(blk.LabelRanges[0], "Check has no value",
					fmt.Sprintf("check.%s.value is read by another check, but a %s check compares or finds things rather than reading one value. Read the value with a cell, file, command, clipboard, screen_text or document check.", name, ck.Kind)))
			}
			if captured[name] && ck.Kind == plan.CheckExpect {
				p.diags = append(p.diags, exprDiag(blk.LabelRanges[0], "Expect checks have no value",
					fmt.Sprintf("check.%s.value is read by another check, but %q is an expect check, which reads nothing from the device. Read the value from a device check.", name, name)))
			}
			out = append(out, ck)
			afterRanges = append(afterRanges, ar)
		})
	}
	for i, ck := range out {
		for j, a := range ck.After {
			if _, ok := names[a]; !ok {
				p.diags = append(p.diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Reference to unknown check",
					Detail:   fmt.Sprintf("No check %q is defined in %s.%s after may name checks of the same subtask (or of the task).", a, owner, didYouMean(a, keys(names))),
					Subject:  afterRanges[i][j].Ptr(),
					Context:  blockRange(blockOf[ck.Name]).Ptr(),
				})
			}
		}
	}
	if cyc := plan.CheckGraph(out).Cycle(); cyc != nil {
		p.diags = append(p.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Check cycle",
			Detail:   fmt.Sprintf("These checks wait for each other: %s. Remove one of the after entries.", strings.Join(cyc, " → ")),
			Subject:  names[cyc[0]].Ptr(),
			Context:  blockRange(blockOf[cyc[0]]).Ptr(),
		})
	}
	return out
}

// check decodes one check "NAME" { after, device, weight, expect | KIND
// { ... } }.
func (p *parser) check(st *scope, blk *hcl.Block, device string) (plan.Check, []hcl.Range) {
	c, d := blk.Body.Content(p.kinds.schema())
	p.diags = append(p.diags, d...)
	ck := plan.Check{Name: blk.Labels[0]}
	if a, ok := c.Attributes["weight"]; ok {
		ck.Weight = p.weight(st, a)
	}
	var afterRanges []hcl.Range
	if a, ok := c.Attributes["after"]; ok {
		ck.After, afterRanges = p.refList(a, "check")
	}
	var kinds []string
	var kindRanges []hcl.Range
	if a, ok := c.Attributes["expect"]; ok {
		kinds = append(kinds, plan.CheckExpect)
		kindRanges = append(kindRanges, a.NameRange)
		x := p.template(st, a.Expr)
		ck.Expect = &x
		ck.Kind = plan.CheckExpect
		if x.Kind == plan.ExprLit {
			if _, isBool := x.Lit.(bool); !isBool {
				p.diags = append(p.diags, exprDiag(a.Expr.Range(), "expect is not a condition", "expect takes a boolean expression, such as subtask.read.output.time == \"10:30\"."))
			}
		}
	}
	var kb *hcl.Block
	for _, b := range c.Blocks {
		kinds = append(kinds, b.Type)
		kindRanges = append(kindRanges, b.TypeRange)
		kb = b
	}
	if len(kinds) == 0 {
		p.diags = append(p.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Check with no condition",
			Detail:   fmt.Sprintf("Check %q says nothing to verify. Add one of: %s blocks, or expect = <boolean expression>.", ck.Name, strings.Join(p.kinds.names(), ", ")),
			Subject:  blk.DefRange.Ptr(),
		})
		return ck, afterRanges
	}
	if len(kinds) > 1 {
		p.diags = append(p.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Check with more than one condition kind",
			Detail:   fmt.Sprintf("Check %q has %s; a check verifies one kind of thing. Split it into several checks (use after = [check.NAME] to order them).", ck.Name, strings.Join(kinds, " and ")),
			Subject:  kindRanges[1].Ptr(),
		})
		return ck, afterRanges
	}
	if kb == nil {
		return ck, afterRanges
	}
	ck.Kind = kb.Type
	if a, ok := c.Attributes["device"]; ok {
		ck.Device = p.deviceRef(a)
	} else if device != "" {
		ck.Device = device
	} else {
		ck.Device = p.bindDevice(c, "check", ck.Name, blk.DefRange)
	}
	kind, _ := p.kinds.get(kb.Type)
	p.within(kb, func() {
		kc, d := kb.Body.Content(kind.schema)
		p.diags = append(p.diags, d...)
		kind.decode(p, st, kb, kc, &ck)
	})
	return ck, afterRanges
}

// condNames name the attributes of a kind that hold its text conditions;
// an empty name means the kind has no such condition.
type condNames struct{ contains, matches, equals, notContains string }

var textConds = condNames{contains: "contains", matches: "matches", equals: "equals", notContains: "not_contains"}

// conditions reads a kind's text conditions into ck and checks a literal
// pattern compiles.
func (p *parser) conditions(st *scope, kc *hcl.BodyContent, ck *plan.Check, n condNames) {
	get := func(name string) *plan.Expr {
		if name == "" {
			return nil
		}
		return p.templatePtr(st, kc, name)
	}
	ck.Contains, ck.Matches, ck.Equals, ck.NotContains = get(n.contains), get(n.matches), get(n.equals), get(n.notContains)
	if ck.Matches != nil && ck.Matches.Kind == plan.ExprLit {
		p.regex(plan.ToString(ck.Matches.Lit), kc.Attributes[n.matches].Expr.Range())
	}
}

// settleConditions reports conditions that cannot hold together and, when
// required, a kind block with none at all.
func (p *parser) settleConditions(kb *hcl.Block, kc *hcl.BodyContent, ck *plan.Check, required bool) {
	conds := 0
	for _, x := range []*plan.Expr{ck.Contains, ck.Matches, ck.Equals, ck.NotContains} {
		if x != nil {
			conds++
		}
	}
	if ck.Office != nil {
		conds++ // office conditions count as conditions
	}
	switch {
	case ck.Exists != nil && !*ck.Exists && conds > 0:
		p.diags = append(p.diags, exprDiag(kc.Attributes["exists"].Expr.Range(), "Conflicting conditions",
			"exists = false cannot hold together with contains, matches or equals: a missing file has no content. Keep one."))
	case ck.Equals != nil && (ck.Contains != nil || ck.Matches != nil):
		p.diags = append(p.diags, exprDiag(kc.Attributes["equals"].NameRange, "Conflicting conditions",
			"equals already fixes the whole value; drop contains/matches, or drop equals."))
	case required && conds == 0 && ck.Exists == nil && !p.capturing:
		p.diags = append(p.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Check with no condition",
			Detail:   fmt.Sprintf("The %s block of check %q needs a condition: contains, not_contains, matches or equals, or one of the kind's own.", kb.Type, ck.Name),
			Subject:  kb.DefRange.Ptr(),
		})
	}
}

// valueless are the kinds that decide without reading one value to capture.
var valueless = map[string]bool{plan.CheckSheet: true, plan.CheckDirectory: true, plan.CheckElement: true, plan.CheckWindowTitle: true, plan.CheckSimilarity: true, plan.CheckJudge: true, plan.CheckJSON: true}

// bodyVariables lists the traversals a block's attributes (and those of
// its nested blocks) read.
func bodyVariables(b hcl.Body) []hcl.Traversal {
	sb, ok := b.(*hclsyntax.Body)
	if !ok {
		return nil
	}
	var out []hcl.Traversal
	for _, a := range sb.Attributes {
		out = append(out, a.Expr.Variables()...)
	}
	for _, nb := range sb.Blocks {
		out = append(out, bodyVariables(nb.Body)...)
	}
	return out
}
