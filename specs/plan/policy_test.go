package plan

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pcflow/pcflow/activities/screen"
)

func ptr[T any](v T) *T { return &v }

func TestPolicyDecide(t *testing.T) {
	calcOnly := &Policy{
		Default: PolicyDeny,
		Source:  "ops.hcl",
		Rules: []PolicyRule{
			{Name: "calculator only", App: "^galculator$", Decision: PolicyAllow},
		},
	}
	neverSend := &Policy{Rules: []PolicyRule{
		{Name: "never send", Kinds: []string{"click"}, Target: "^(Send|Delete)$", Decision: PolicyConfirm, Timeout: Duration(10 * time.Minute), Message: "sending needs a person"},
		{Name: "no secrets outside the browser", Sensitive: ptr(true), App: "^(?:chromium|firefox)$", Decision: PolicyAllow},
		{Name: "secrets", Sensitive: ptr(true), Decision: PolicyDeny, Message: "type secrets only into the browser"},
		{Name: "plain typing", Kinds: []string{"type"}, Sensitive: ptr(false), Text: "rm -rf", Decision: PolicyDeny},
		{Name: "lab only", Devices: []string{"lab"}, Role: "push button", Window: "danger", Decision: PolicyDeny},
	}}
	tests := []struct {
		name   string
		policy *Policy
		facts  ActionFacts
		want   PolicyVerdict
	}{
		{"nil policy allows", nil, ActionFacts{Kind: "click", Target: "Send"}, PolicyVerdict{Decision: PolicyAllow}},
		{"empty default allows", &Policy{}, ActionFacts{Kind: "type"}, PolicyVerdict{Decision: PolicyAllow}},
		{"deny by default: the allowed app", calcOnly, ActionFacts{Kind: "click", App: "Galculator", Target: "7"},
			PolicyVerdict{Decision: PolicyAllow, Rule: "calculator only", Source: "ops.hcl"}},
		{"deny by default: another app", calcOnly, ActionFacts{Kind: "click", App: "mousepad", Target: "Save"},
			PolicyVerdict{Decision: PolicyDeny, Source: "ops.hcl"}},
		{"deny by default: anchored, not a prefix", calcOnly, ActionFacts{Kind: "click", App: "galculator-evil"},
			PolicyVerdict{Decision: PolicyDeny, Source: "ops.hcl"}},
		{"deny by default: done is allowed anywhere", calcOnly, ActionFacts{Kind: "done", App: "xterm"},
			PolicyVerdict{Decision: PolicyAllow, Source: "ops.hcl"}},
		{"deny by default: ask_human too", calcOnly, ActionFacts{Kind: "ask_human", App: "xterm"},
			PolicyVerdict{Decision: PolicyAllow, Source: "ops.hcl"}},
		{"a rule may still deny done", &Policy{Rules: []PolicyRule{{Name: "no done", Kinds: []string{"done"}, Decision: PolicyDeny}}},
			ActionFacts{Kind: "done"}, PolicyVerdict{Decision: PolicyDeny, Rule: "no done"}},
		{"confirm send, case-insensitive", neverSend, ActionFacts{Kind: "click", Target: "SEND"},
			PolicyVerdict{Decision: PolicyConfirm, Rule: "never send", Message: "sending needs a person", Timeout: Duration(10 * time.Minute)}},
		{"kinds are exact: double_click is not click", neverSend, ActionFacts{Kind: "double_click", Target: "Send"},
			PolicyVerdict{Decision: PolicyAllow}},
		{"target anchored: Send later is not Send", neverSend, ActionFacts{Kind: "click", Target: "Send later"},
			PolicyVerdict{Decision: PolicyAllow}},
		{"first match wins", neverSend, ActionFacts{Kind: "click", Target: "Delete", Sensitive: true},
			PolicyVerdict{Decision: PolicyConfirm, Rule: "never send", Message: "sending needs a person", Timeout: Duration(10 * time.Minute)}},
		{"secret in the browser", neverSend, ActionFacts{Kind: "type", App: "Chromium", Text: "[secret password]", Sensitive: true},
			PolicyVerdict{Decision: PolicyAllow, Rule: "no secrets outside the browser"}},
		{"secret elsewhere", neverSend, ActionFacts{Kind: "type", App: "mousepad", Text: "[secret password]", Sensitive: true},
			PolicyVerdict{Decision: PolicyDeny, Rule: "secrets", Message: "type secrets only into the browser"}},
		{"sensitive false matches plain text only", neverSend, ActionFacts{Kind: "type", App: "xterm", Text: "sudo rm -rf /"},
			PolicyVerdict{Decision: PolicyDeny, Rule: "plain typing"}},
		{"devices exact", neverSend, ActionFacts{Kind: "click", Device: "lab", Role: "push button", Window: "Danger zone"},
			PolicyVerdict{Decision: PolicyDeny, Rule: "lab only"}},
		{"devices exact: other device", neverSend, ActionFacts{Kind: "click", Device: "lab2", Role: "push button", Window: "Danger zone"},
			PolicyVerdict{Decision: PolicyAllow}},
		{"a pattern never matches a missing fact", neverSend, ActionFacts{Kind: "click", Device: "lab", Window: "Danger zone"},
			PolicyVerdict{Decision: PolicyAllow}},
		{"a rule without matchers matches every action", &Policy{Default: PolicyDeny, Rules: []PolicyRule{{Name: "all", Decision: PolicyConfirm}}},
			ActionFacts{Kind: "scroll"}, PolicyVerdict{Decision: PolicyConfirm, Rule: "all"}},
		{"a pattern that does not compile never matches", &Policy{Rules: []PolicyRule{{Name: "bad", Target: "(", Decision: PolicyDeny}}},
			ActionFacts{Kind: "click", Target: "("}, PolicyVerdict{Decision: PolicyAllow}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.policy.Decide(tt.facts)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Decide(%+v) mismatch (-want +got):\n%s", tt.facts, diff)
			}
			if c, err := tt.policy.Compile(); err == nil {
				if diff := cmp.Diff(tt.want, c.Decide(tt.facts)); diff != "" {
					t.Errorf("Compile().Decide(%+v) mismatch (-want +got):\n%s", tt.facts, diff)
				}
			}
		})
	}
}

// TestPolicyOperatorCannotBeWeakened: a task file written by someone else
// cannot allow what the operator's policy denies or wants confirmed, but it
// can add its own restrictions.
func TestPolicyOperatorCannotBeWeakened(t *testing.T) {
	operator := &Policy{Source: "--policy ops.hcl", Default: PolicyDeny, Rules: []PolicyRule{
		{Name: "pay", Target: "^pay", Decision: PolicyConfirm, Message: "payments need a person"},
		{Name: "calc", App: "^galculator$", Decision: PolicyAllow},
	}}
	task := &Policy{Source: "task.hcl", Rules: []PolicyRule{
		{Name: "anything goes", Decision: PolicyAllow},
		{Name: "unreached", Decision: PolicyDeny},
	}}
	strictTask := &Policy{Source: "task.hcl", Rules: []PolicyRule{{Name: "no clear", Target: "^C$", Decision: PolicyDeny}}}
	tests := []struct {
		name  string
		p     *Policy
		facts ActionFacts
		want  PolicyVerdict
	}{
		{"operator default deny holds", WithOperator(task, operator), ActionFacts{Kind: "click", App: "firefox"},
			PolicyVerdict{Decision: PolicyDeny, Source: "--policy ops.hcl"}},
		{"operator confirm holds", WithOperator(task, operator), ActionFacts{Kind: "click", App: "galculator", Target: "Pay now"},
			PolicyVerdict{Decision: PolicyConfirm, Rule: "pay", Message: "payments need a person", Source: "--policy ops.hcl"}},
		{"both allow: the operator's verdict", WithOperator(task, operator), ActionFacts{Kind: "click", App: "galculator", Target: "7"},
			PolicyVerdict{Decision: PolicyAllow, Rule: "calc", Source: "--policy ops.hcl"}},
		{"task may be stricter", WithOperator(strictTask, operator), ActionFacts{Kind: "click", App: "galculator", Target: "c"},
			PolicyVerdict{Decision: PolicyDeny, Rule: "no clear", Source: "task.hcl"}},
		{"operator alone", WithOperator(nil, operator), ActionFacts{Kind: "click", App: "xterm"},
			PolicyVerdict{Decision: PolicyDeny, Source: "--policy ops.hcl"}},
		{"task alone", WithOperator(strictTask, nil), ActionFacts{Kind: "click", Target: "C"},
			PolicyVerdict{Decision: PolicyDeny, Rule: "no clear", Source: "task.hcl"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.p.Decide(tt.facts)); diff != "" {
				t.Errorf("Decide(%+v) mismatch (-want +got):\n%s", tt.facts, diff)
			}
			c, err := tt.p.Compile()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, c.Decide(tt.facts)); diff != "" {
				t.Errorf("Compile().Decide(%+v) mismatch (-want +got):\n%s", tt.facts, diff)
			}
		})
	}
	if task.Operator != nil {
		t.Errorf("WithOperator changed the task's policy")
	}
}

func TestPolicyValidate(t *testing.T) {
	bad := &Policy{Default: "maybe", Source: "x.json", Rules: []PolicyRule{
		{Name: "a", Decision: "block"},
		{Name: "a", Target: "(", Decision: PolicyDeny},
		{Name: "t", Decision: PolicyConfirm, Timeout: Duration(-time.Second)},
		{Name: "long", App: strings.Repeat("a", MaxPolicyPattern+1), Decision: PolicyDeny},
	}}
	err := bad.Validate()
	for _, want := range []string{`(x.json)`, `default "maybe"`, `rule "a": decision "block"`, `rule "a" is defined twice`, `rule "a": target: error parsing regexp`, `rule "t": timeout -1s is negative`, `rule "long": app: the pattern is 1025 bytes`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to mention %s", err, want)
		}
	}
	if err := (*Policy)(nil).Validate(); err != nil {
		t.Errorf("nil.Validate() = %v", err)
	}
	many := &Policy{Rules: make([]PolicyRule, MaxPolicyRules+1)}
	if err := many.Validate(); err == nil || !strings.Contains(err.Error(), "at most 1000") {
		t.Errorf("Validate(%d rules) = %v, want a limit error", len(many.Rules), err)
	}
}

// BenchmarkPolicyDecide: a policy of n rules deciding an action that only
// its default matches (the worst case: every rule's patterns run), with
// the patterns compiled on each call (Policy.Decide) and once
// (CompiledPolicy.Decide).
func BenchmarkPolicyDecide(b *testing.B) {
	for _, n := range []int{10, 100, MaxPolicyRules} {
		p, f := benchPolicy(n)
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			for b.Loop() {
				if v := p.Decide(f); v.Decision != PolicyDeny {
					b.Fatal(v)
				}
			}
		})
		c, err := p.Compile()
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("compiled/rules=%d", n), func(b *testing.B) {
			for b.Loop() {
				if v := c.Decide(f); v.Decision != PolicyDeny {
					b.Fatal(v)
				}
			}
		})
	}
}

func benchPolicy(n int) (*Policy, ActionFacts) {
	p := &Policy{Default: PolicyDeny}
	for i := range n {
		p.Rules = append(p.Rules, PolicyRule{Name: fmt.Sprintf("r%d", i), Target: "^(Send|Delete|Pay)$", App: "mail", Decision: PolicyConfirm})
	}
	return p, ActionFacts{Kind: "click", Target: "Send", App: "galculator"}
}

// TestTaskPart: a rerun replaces the operator's policy and keeps the
// task's own.
func TestTaskPart(t *testing.T) {
	task := &Policy{Source: "t.hcl", Rules: []PolicyRule{{Name: "a", Decision: PolicyDeny}}}
	old, now := &Policy{Source: "--policy old.hcl"}, &Policy{Source: "--policy new.hcl", Default: PolicyDeny}
	got := WithOperator(WithOperator(task, old).TaskPart(), now)
	if diff := cmp.Diff(&Policy{Source: "t.hcl", Rules: task.Rules, Operator: now}, got); diff != "" {
		t.Errorf("task's policy under a new operator (-want +got):\n%s", diff)
	}
	if got := WithOperator(nil, old).TaskPart(); got != nil {
		t.Errorf("TaskPart of an operator's policy alone = %+v, want nil", got)
	}
	if got := WithOperator(WithOperator(nil, old).TaskPart(), now); got.Operator != now || len(got.Rules) != 0 || got.Default != "" {
		t.Errorf("operator's policy replaced = %+v, want only the new one", got)
	}
}

// TestPolicyInertKindsMatchTheActions: the kinds a policy's default does
// not apply to are the inert ones of the action table, so a new action
// that touches nothing is not denied by default, nor one that touches
// something allowed.
func TestPolicyInertKindsMatchTheActions(t *testing.T) {
	var want []string
	for _, k := range screen.Table() {
		if k.Inert {
			want = append(want, k.Kind)
		}
	}
	slices.Sort(want)
	got := slices.Sorted(slices.Values(PolicyInertKinds))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("PolicyInertKinds differ from the inert kinds of screen.Table (-want +got):\n%s", diff)
	}
}
