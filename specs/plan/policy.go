package plan

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Policy decisions (issue 13).
const (
	PolicyAllow   = "allow"
	PolicyDeny    = "deny"    // the agent is told and must choose another action
	PolicyConfirm = "confirm" // the step waits for a person's approve / reject
)

// Policy is the rules over a task's actions: the first rule that matches an
// action decides; no rule matching means Default ("allow" when empty). A
// deny-by-default policy is Default "deny" plus allow rules.
type Policy struct {
	Default string       `json:"default,omitempty"`
	Rules   []PolicyRule `json:"rules,omitempty"`
	// Source says where the policy came from (task file, --policy file,
	// $PCFLOW_POLICY), for messages.
	Source string `json:"source,omitempty"`
	// Operator is the operator's policy (--policy, $PCFLOW_POLICY) that a
	// task's own policy cannot weaken: both decide and the stricter
	// verdict wins (see Decide).
	Operator *Policy `json:"operator,omitempty"`
}

// PolicyRule matches an action; every non-empty matcher must match. Text
// matchers are regular expressions (RE2, case-insensitive), compiled and
// checked when the task is parsed.
type PolicyRule struct {
	Name    string   `json:"name"`
	Kinds   []string `json:"kinds,omitempty"`  // action kinds: click, type, hotkey, ...
	Target  string   `json:"target,omitempty"` // the target element's name
	Role    string   `json:"role,omitempty"`   // the target element's role
	Window  string   `json:"window,omitempty"` // the foreground window's title
	App     string   `json:"app,omitempty"`    // the foreground application
	Text    string   `json:"text,omitempty"`   // text typed, keys pressed, app opened
	Devices []string `json:"devices,omitempty"`
	// Sensitive matches actions that use a sensitive variable (true) or
	// that do not (false); nil matches both.
	Sensitive *bool  `json:"sensitive,omitempty"`
	Decision  string `json:"decision"`
	// Timeout: how long a confirm waits before it counts as rejected
	// (zero: the subtask's own deadline).
	Timeout Duration `json:"timeout,omitempty"`
	Message string   `json:"message,omitempty"` // told to the agent / shown to the person
}

// ActionFacts is what a policy sees of one action: computed on the device
// by Decide from the observation the action was chosen on (the element the
// action targets, by id or by the point it acts at, and the foreground
// window), so the workflow can decide without looking at the screen.
type ActionFacts struct {
	Kind string `json:"kind"`
	// Device is the plan's name of the device: the workflow sets it (the
	// device's worker does not know what a task calls it).
	Device    string `json:"device,omitempty"`
	Target    string `json:"target,omitempty"`
	Role      string `json:"role,omitempty"`
	Window    string `json:"window,omitempty"`
	App       string `json:"app,omitempty"`
	Text      string `json:"text,omitempty"` // redacted: a secret's value never appears here
	Sensitive bool   `json:"sensitive,omitempty"`
	ElementID int    `json:"element_id,omitempty"`
}

// PolicyVerdict is a policy's decision on one action.
type PolicyVerdict struct {
	Decision string   `json:"decision"`
	Rule     string   `json:"rule,omitempty"` // the rule that matched; empty: the default
	Message  string   `json:"message,omitempty"`
	Timeout  Duration `json:"timeout,omitempty"`
	// Source is the Source of the policy that decided.
	Source string `json:"source,omitempty"`
}

// WithOperator combines a task's own policy with the operator's, which
// the task's cannot weaken (see Decide). Either may be nil; the result
// keeps the task's part and the operator's apart (TaskPart undoes it).
func WithOperator(task, operator *Policy) *Policy {
	if operator == nil {
		return task
	}
	p := Policy{}
	if task != nil {
		p = *task
	}
	p.Operator = operator
	return &p
}

// TaskPart is p without its operator's policy; nil when nothing is left.
func (p *Policy) TaskPart() *Policy {
	if p == nil || (p.Operator != nil && p.Default == "" && len(p.Rules) == 0) {
		return nil
	}
	q := *p
	q.Operator = nil
	return &q
}

// MaxPolicyRules is the most rules one policy may hold. Decide tries the
// rules in order for every action; a few hundred is already more than a
// person can review.
const MaxPolicyRules = 1000

// MaxPolicyPattern is the longest regular expression a rule may hold.
const MaxPolicyPattern = 1024

// PolicyInertKinds are the actions that do not touch the computer: the
// agent finishing, giving up, waiting, asking a person or looking closer. The default does
// not apply to them (they are allowed unless a rule names them), so a
// deny-by-default policy still lets the agent end its subtask. They are
// the kinds activities/screen's table marks Inert (a test keeps them so).
var PolicyInertKinds = []string{"done", "fail", "wait", "ask_human", "zoom"}

// PolicyDecisions lists the decisions a rule or a default may take.
var PolicyDecisions = []string{PolicyAllow, PolicyDeny, PolicyConfirm}

// ValidDecision reports whether d is allow, deny or confirm.
func ValidDecision(d string) bool {
	return d == PolicyAllow || d == PolicyDeny || d == PolicyConfirm
}

// CompilePolicyPattern compiles a rule's text matcher as Decide does: RE2,
// case-insensitive, matching anywhere unless anchored ("^Send$").
func CompilePolicyPattern(pattern string) (*regexp.Regexp, error) {
	if len(pattern) > MaxPolicyPattern {
		return nil, fmt.Errorf("the pattern is %d bytes; at most %d are allowed", len(pattern), MaxPolicyPattern)
	}
	return regexp.Compile("(?i)" + pattern)
}

// patterns returns the rule's regular-expression matchers with the fact
// each one tests, in a fixed order.
func (r *PolicyRule) patterns(f *ActionFacts) [5]struct {
	field, pattern, value string
} {
	return [5]struct{ field, pattern, value string }{
		{"target", r.Target, f.Target},
		{"role", r.Role, f.Role},
		{"window", r.Window, f.Window},
		{"app", r.App, f.App},
		{"text", r.Text, f.Text},
	}
}

// Validate checks what the parser checks, for policies that did not come
// from a task file (a plan built in code or read back as JSON): the
// decisions, the patterns, the timeouts, unique rule names and the number
// of rules. It does not know the action kinds; the task language checks
// those.
func (p *Policy) Validate() error {
	if p == nil {
		return nil
	}
	var errs []string
	if p.Default != "" && !ValidDecision(p.Default) {
		errs = append(errs, fmt.Sprintf("default %q: use allow, deny or confirm", p.Default))
	}
	if len(p.Rules) > MaxPolicyRules {
		errs = append(errs, fmt.Sprintf("%d rules: at most %d are allowed", len(p.Rules), MaxPolicyRules))
	}
	seen := map[string]bool{}
	var none ActionFacts
	for i := range p.Rules {
		r := &p.Rules[i]
		at := fmt.Sprintf("rule %q", r.Name)
		if r.Name == "" {
			at = fmt.Sprintf("rule %d", i+1)
		} else if seen[r.Name] {
			errs = append(errs, at+" is defined twice")
		}
		seen[r.Name] = true
		if !ValidDecision(r.Decision) {
			errs = append(errs, fmt.Sprintf("%s: decision %q: use allow, deny or confirm", at, r.Decision))
		}
		if r.Timeout < 0 {
			errs = append(errs, fmt.Sprintf("%s: timeout %s is negative", at, time.Duration(r.Timeout)))
		}
		for _, m := range r.patterns(&none) {
			if m.pattern == "" {
				continue
			}
			if _, err := CompilePolicyPattern(m.pattern); err != nil {
				errs = append(errs, fmt.Sprintf("%s: %s: %v", at, m.field, err))
			}
		}
	}
	if err := p.Operator.Validate(); err != nil {
		errs = append(errs, "operator "+err.Error())
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid policy%s: %s", p.from(), strings.Join(errs, "; "))
	}
	return nil
}

func (p *Policy) from() string {
	if p.Source == "" {
		return ""
	}
	return " (" + p.Source + ")"
}

// Decide returns the policy's verdict on one action: the first rule whose
// every matcher matches decides; no rule matching means Default ("allow"
// when empty; always allow for PolicyInertKinds). A nil policy allows everything. With an Operator policy,
// both decide and the stricter verdict wins (deny over confirm over allow;
// the operator's when they agree), so a task file cannot weaken what the
// operator denies or wants confirmed.
//
// Decide is pure and deterministic (workflows call it); a pattern that
// does not compile (Validate refuses it) never matches. It compiles the
// patterns of the rules it tries on every call; Compile once for a policy
// consulted often.
func (p *Policy) Decide(f ActionFacts) PolicyVerdict {
	return p.decide(&f, func(pattern string) *regexp.Regexp {
		re, _ := CompilePolicyPattern(pattern)
		return re
	})
}

// CompiledPolicy is a Policy with its patterns compiled once.
type CompiledPolicy struct {
	policy *Policy
	re     map[string]*regexp.Regexp
}

// Compile validates p and compiles its patterns. A nil policy compiles to
// a CompiledPolicy that allows everything.
func (p *Policy) Compile() (*CompiledPolicy, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	c := &CompiledPolicy{policy: p, re: map[string]*regexp.Regexp{}}
	var none ActionFacts
	for q := p; q != nil; q = q.Operator {
		for i := range q.Rules {
			for _, m := range q.Rules[i].patterns(&none) {
				if _, done := c.re[m.pattern]; m.pattern != "" && !done {
					c.re[m.pattern], _ = CompilePolicyPattern(m.pattern)
				}
			}
		}
	}
	return c, nil
}

// Decide is Policy.Decide with the patterns compiled already.
func (c *CompiledPolicy) Decide(f ActionFacts) PolicyVerdict {
	if c == nil {
		return PolicyVerdict{Decision: PolicyAllow}
	}
	return c.policy.decide(&f, func(pattern string) *regexp.Regexp { return c.re[pattern] })
}

func (p *Policy) decide(f *ActionFacts, re func(string) *regexp.Regexp) PolicyVerdict {
	if p == nil {
		return PolicyVerdict{Decision: PolicyAllow}
	}
	v := p.decideOwn(f, re)
	if p.Operator != nil {
		if o := p.Operator.decide(f, re); strictness(o.Decision) >= strictness(v.Decision) {
			return o
		}
	}
	return v
}

func (p *Policy) decideOwn(f *ActionFacts, re func(string) *regexp.Regexp) PolicyVerdict {
	for i := range p.Rules {
		r := &p.Rules[i]
		if r.matches(f, re) {
			return PolicyVerdict{Decision: r.Decision, Rule: r.Name, Message: r.Message, Timeout: r.Timeout, Source: p.Source}
		}
	}
	d := p.Default
	if d == "" || slices.Contains(PolicyInertKinds, f.Kind) {
		d = PolicyAllow
	}
	return PolicyVerdict{Decision: d, Source: p.Source}
}

// strictness orders decisions: an unknown one counts as deny.
func strictness(d string) int {
	switch d {
	case PolicyAllow:
		return 0
	case PolicyConfirm:
		return 1
	}
	return 2
}

// matches reports whether every matcher of r that is set matches f. The
// cheap matchers go first, so patterns are compiled only for rules that
// may apply.
func (r *PolicyRule) matches(f *ActionFacts, compiled func(string) *regexp.Regexp) bool {
	if len(r.Kinds) > 0 && !slices.Contains(r.Kinds, f.Kind) {
		return false
	}
	if len(r.Devices) > 0 && !slices.Contains(r.Devices, f.Device) {
		return false
	}
	if r.Sensitive != nil && *r.Sensitive != f.Sensitive {
		return false
	}
	for _, m := range r.patterns(f) {
		if m.pattern == "" {
			continue
		}
		if re := compiled(m.pattern); re == nil || !re.MatchString(m.value) {
			return false
		}
	}
	return true
}
