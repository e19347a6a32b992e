package specs

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"

	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
)

// PolicyEnv names the environment variable that holds the path of the
// operator's default policy file; --policy wins over it.
const PolicyEnv = "PCFLOW_POLICY"

// Limits of a policy's text.
const (
	// MaxRuleName is the longest rule name, in bytes.
	MaxRuleName = 100
	// MaxPolicyMessage is the longest message a rule may carry, in bytes.
	MaxPolicyMessage = 1024
)

var policySchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "default"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "rule", LabelNames: []string{"name"}}},
}

var ruleSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "kinds"},
		{Name: "target"},
		{Name: "role"},
		{Name: "window"},
		{Name: "app"},
		{Name: "text"},
		{Name: "devices"},
		{Name: "sensitive"},
		{Name: "decision", Required: true},
		{Name: "timeout"},
		{Name: "message"},
	},
}

// ruleMatchers are a rule's regular-expression attributes.
var ruleMatchers = []string{"target", "role", "window", "app", "text"}

// policy decodes a policy { default, rule "NAME" { ... } } block.
// checkDevices says whether devices must name the task's devices (false
// for an operator's policy file, which serves any task).
func (p *parser) policy(st *scope, blk *hcl.Block, checkDevices bool) *plan.Policy {
	c, d := blk.Body.Content(policySchema)
	p.diags = append(p.diags, d...)
	pol := &plan.Policy{}
	if a, ok := c.Attributes["default"]; ok {
		pol.Default = p.decision(st, a)
	}
	names := map[string]hcl.Range{}
	var catchAll *hcl.Block
	for _, rb := range c.Blocks {
		p.within(rb, func() {
			name := rb.Labels[0]
			if !p.ruleName(rb) {
				return
			}
			if prev, dup := names[name]; dup {
				p.diags = append(p.diags, duplicate("policy rule", name, rb.LabelRanges[0], prev))
				return
			}
			names[name] = rb.LabelRanges[0]
			if catchAll != nil {
				p.diags = append(p.diags, &hcl.Diagnostic{
					Severity: hcl.DiagWarning,
					Summary:  "Policy rule never used",
					Detail: fmt.Sprintf("Rule %q comes after rule %q, which matches every action (it has no kinds, target, role, window, app, text, devices or sensitive), and the first matching rule decides. "+
						"Move it before %q, or give %q something to match.", name, catchAll.Labels[0], catchAll.Labels[0], catchAll.Labels[0]),
					Subject: rb.DefRange.Ptr(),
				})
			}
			r, matchesAll := p.rule(st, rb, checkDevices)
			if matchesAll && catchAll == nil {
				catchAll = rb
			}
			pol.Rules = append(pol.Rules, r)
		})
	}
	if len(pol.Rules) > plan.MaxPolicyRules {
		p.diags = append(p.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Too many policy rules",
			Detail: fmt.Sprintf("The policy has %d rules; at most %d are allowed, since every action is checked against them in order. "+
				"Combine rules: one pattern can name many targets (\"^(Send|Delete|Pay)$\") and kinds takes a list.", len(pol.Rules), plan.MaxPolicyRules),
			Subject: blk.DefRange.Ptr(),
		})
	}
	return pol
}

// ruleName checks a rule's label: free text for people (spaces and any
// script), but printable and short, since it appears in messages, history
// and the terminal.
func (p *parser) ruleName(rb *hcl.Block) bool {
	name := rb.Labels[0]
	var why string
	switch {
	case strings.TrimSpace(name) == "":
		why = "The name is empty"
	case len(name) > MaxRuleName:
		why = fmt.Sprintf("The name is %d bytes long; at most %d are allowed", len(name), MaxRuleName)
	case !utf8.ValidString(name):
		why = "The name is not valid UTF-8"
	default:
		for _, r := range name {
			if !unicode.IsPrint(r) {
				why = fmt.Sprintf("The name holds the invisible or control character %U, which would make messages misleading", r)
				break
			}
		}
	}
	if why == "" {
		return true
	}
	p.diags = append(p.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Invalid policy rule name",
		Detail:   fmt.Sprintf("%s cannot name a policy rule. %s. Name rules with words a person reads in approval requests, such as \"never send\".", quoteShort(name), why),
		Subject:  rb.LabelRanges[0].Ptr(),
	})
	return false
}

// rule decodes one rule; matchesAll is true when it has no matcher.
func (p *parser) rule(st *scope, rb *hcl.Block, checkDevices bool) (r plan.PolicyRule, matchesAll bool) {
	c, d := rb.Body.Content(ruleSchema)
	p.diags = append(p.diags, d...)
	r.Name = rb.Labels[0]
	matchesAll = true
	if a, ok := c.Attributes["decision"]; ok {
		r.Decision = p.decision(st, a)
	}
	if a, ok := c.Attributes["kinds"]; ok {
		matchesAll = false
		r.Kinds = p.stringList(st, a)
		valid := screen.Kinds()
		items, _ := hcl.ExprList(a.Expr)
		for i, k := range r.Kinds {
			at := a.Expr.Range()
			if len(items) == len(r.Kinds) {
				at = items[i].Range()
			}
			if !slices.Contains(valid, k) {
				p.diags = append(p.diags, exprDiag(at, "Unknown action kind",
					fmt.Sprintf("%s is not an action the agent can take.%s kinds lists action kinds: %s.", quoteShort(k), didYouMean(strings.ToLower(k), valid), strings.Join(valid, ", "))))
			}
		}
		if len(r.Kinds) == 0 && !p.diags.HasErrors() {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Empty kinds", "kinds = [] matches no action, so the rule never applies. List action kinds, such as [\"click\", \"type\"], or remove kinds to match every kind."))
		}
	}
	for _, name := range ruleMatchers {
		a, ok := c.Attributes[name]
		if !ok {
			continue
		}
		matchesAll = false
		if x, _ := st.convert(a.Expr); secretIn(x) != "" {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Sensitive value in a policy",
				fmt.Sprintf("A policy is part of the plan, which history and the UI show, so it cannot hold var.%s. "+
					"To match actions that type or use a sensitive variable, write sensitive = true instead of %s.", secretIn(x), name)))
			continue
		}
		n := len(p.diags)
		v := p.staticString(st, a)
		if len(p.diags) > n {
			continue
		}
		if v == "" {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Empty pattern",
				fmt.Sprintf("%s = \"\" matches everything. Write a regular expression such as \"^Send$\", or remove %s.", name, name)))
			continue
		}
		if _, err := plan.CompilePolicyPattern(v); err != nil {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid regular expression",
				fmt.Sprintf("%s: %s. Patterns are Go (RE2) regular expressions, matched case-insensitively anywhere in the text; anchor them to match the whole text: \"^(Send|Delete)$\".", name, err)))
			continue
		}
		switch name {
		case "target":
			r.Target = v
		case "role":
			r.Role = v
		case "window":
			r.Window = v
		case "app":
			r.App = v
		case "text":
			r.Text = v
		}
	}
	if a, ok := c.Attributes["devices"]; ok {
		matchesAll = false
		r.Devices = p.policyDevices(st, a, checkDevices)
	}
	if a, ok := c.Attributes["sensitive"]; ok {
		matchesAll = false
		b, isBool := p.static(st, a.Expr).(bool)
		if !isBool {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid value", "sensitive takes true (the action uses a sensitive variable) or false (it does not)."))
		}
		r.Sensitive = &b
	}
	if a, ok := c.Attributes["timeout"]; ok {
		r.Timeout = p.duration(st, a, timeoutRange)
		if r.Decision != "" && r.Decision != plan.PolicyConfirm {
			p.diags = append(p.diags, exprDiag(a.NameRange, "timeout without confirm",
				fmt.Sprintf("timeout is how long a confirm waits for a person before it counts as rejected; this rule's decision is %q. Remove timeout, or make the decision \"confirm\".", r.Decision)))
		}
	}
	if a, ok := c.Attributes["message"]; ok {
		r.Message = p.staticString(st, a)
		if len(r.Message) > MaxPolicyMessage {
			p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Message too long",
				fmt.Sprintf("The message is %d bytes; at most %d are allowed. It is shown to the agent and in approval requests: say in a sentence why.", len(r.Message), MaxPolicyMessage)))
		}
	}
	return r, matchesAll
}

// decision decodes allow, deny or confirm.
func (p *parser) decision(st *scope, a *hcl.Attribute) string {
	n := len(p.diags)
	v := p.staticString(st, a)
	if plan.ValidDecision(v) {
		return v
	}
	if len(p.diags) == n {
		p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Unknown decision",
			fmt.Sprintf("%s is not a decision.%s Write \"allow\", \"deny\" (the agent is told and must choose another action) or \"confirm\" (the step waits for pcflow approve or reject).", quoteShort(v), didYouMean(strings.ToLower(v), plan.PolicyDecisions))))
	}
	return ""
}

// policyDevices decodes devices = [device.lab, "office"]: references or
// names; in a task file each must be one of its devices.
func (p *parser) policyDevices(st *scope, a *hcl.Attribute, check bool) []string {
	items, d := hcl.ExprList(a.Expr)
	if d.HasErrors() {
		p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid list", "devices takes a list of devices: [device.office] or [\"office\"]."))
		return nil
	}
	var out []string
	for _, it := range items {
		name, r := "", it.Range()
		if t, d := hcl.AbsTraversalForExpr(it); !d.HasErrors() && t.RootName() == "device" {
			n, nr, ok := p.ref(it, "device")
			if !ok {
				continue
			}
			name, r = n, nr
		} else {
			v, isStr := p.static(st, it).(string)
			if !isStr {
				p.diags = append(p.diags, exprDiag(it.Range(), "Invalid device", "devices takes device references (device.office) or names (\"office\")."))
				continue
			}
			name = v
		}
		if _, known := p.devices[name]; check && !known {
			p.diags = append(p.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Reference to unknown device",
				Detail:   fmt.Sprintf("No device %q is declared in this task.%s Devices: %s.", name, didYouMean(name, keys(p.devices)), strings.Join(keys(p.devices), ", ")),
				Subject:  r.Ptr(),
			})
			continue
		}
		out = append(out, name)
	}
	return out
}

var policyFileSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{{Type: "policy"}},
}

// ParsePolicyFile reads an operator's policy file: one policy block, as a
// task's, whose rules combine with every task's own (plan.WithOperator).
// source names it in messages, such as "--policy /etc/pcflow/policy.hcl".
func ParsePolicyFile(path, source string) (*plan.Policy, map[string]*hcl.File, hcl.Diagnostics) {
	p := &parser{files: map[string]*hcl.File{}, vars: map[string]*variable{}, devices: map[string]hcl.Range{}}
	src, err := readLimited(path)
	if err != nil {
		return nil, p.files, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Cannot read policy file",
			Detail:   fmt.Sprintf("%s (%s). Check the path and permissions.", err, source),
		}}
	}
	f, diags := p.parseSource(path, src)
	if diags.HasErrors() {
		return nil, p.files, diags
	}
	c, diags := f.Body.Content(policyFileSchema)
	p.diags = append(p.diags, diags...)
	if p.diags.HasErrors() {
		return nil, p.files, p.diags
	}
	if len(c.Blocks) != 1 {
		d := &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Not one policy block",
			Detail:   "A policy file holds exactly one policy { ... } block, with default and rule \"NAME\" { ... } blocks inside, as in a task.",
			Subject:  &hcl.Range{Filename: path, Start: hcl.InitialPos, End: hcl.InitialPos},
		}
		if len(c.Blocks) > 1 {
			d.Subject = c.Blocks[1].DefRange.Ptr()
		}
		return nil, p.files, append(p.diags, d)
	}
	var pol *plan.Policy
	p.within(c.Blocks[0], func() { pol = p.policy(&scope{vars: p.vars}, c.Blocks[0], false) })
	if p.diags.HasErrors() {
		return nil, p.files, p.diags
	}
	pol.Source = source
	return pol, p.files, p.diags
}

// readLimited reads at most one byte more than MaxSourceBytes, so that a
// path such as /dev/zero is refused as too large instead of filling memory.
func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxSourceBytes+1))
}

// OperatorPolicy returns the operator's policy: the file given with
// --policy (flag), else the one $PCFLOW_POLICY names in environ, else nil.
func OperatorPolicy(flag string, environ []string) (*plan.Policy, map[string]*hcl.File, hcl.Diagnostics) {
	if flag != "" {
		return ParsePolicyFile(flag, "--policy "+flag)
	}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == PolicyEnv && v != "" {
			return ParsePolicyFile(v, "$"+PolicyEnv+" "+v)
		}
	}
	return nil, map[string]*hcl.File{}, nil
}

// hintPolicyPlace adds to an "Unsupported block type" diagnostic about a
// policy block written where none belongs (the top of a task file, a
// suite) where it goes instead.
func hintPolicyPlace(diags hcl.Diagnostics, hint string) {
	for _, d := range diags {
		if d.Summary == "Unsupported block type" && strings.Contains(d.Detail, `"policy"`) {
			d.Detail += " " + hint
		}
	}
}

// taskPolicy decodes the task's policy block (at most one) and combines
// it with the operator's.
func (p *parser) taskPolicy(st *scope, blocks hcl.Blocks) *plan.Policy {
	var own *plan.Policy
	blk, dups := p.single(blocks, "policy", "Put every rule in one policy block: the first matching rule decides, so their order matters.")
	if blk != nil {
		p.within(blk, func() { own = p.policy(st, blk, true) })
		own.Source = blk.DefRange.Filename
	}
	p.diags = append(p.diags, dups...)
	op, files, diags := OperatorPolicy(p.opts.Policy, p.opts.Environ)
	for name, f := range files {
		p.files[name] = f
	}
	p.diags = append(p.diags, diags...)
	return plan.WithOperator(own, op)
}
