package specs

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/specs/plan"
)

// TestOperatorPolicyBindsTask: --policy (and $PCFLOW_POLICY) join every
// task's plan, and a task's own "allow everything" cannot lift the
// operator's deny-by-default or its confirm.
func TestOperatorPolicyBindsTask(t *testing.T) {
	task := "testdata/policy/permissive_task.hcl"
	op := "testdata/policy/operator.hcl"
	for _, tt := range []struct {
		name   string
		opts   Options
		source string
	}{
		{"flag", Options{Policy: op}, "--policy " + op},
		{"environment", Options{Environ: []string{"HOME=/x", PolicyEnv + "=" + op}}, "$PCFLOW_POLICY " + op},
		{"flag over environment", Options{Policy: op, Environ: []string{PolicyEnv + "=/nonexistent"}}, "--policy " + op},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, diags := ParseFile(task, tt.opts)
			if diags.HasErrors() {
				t.Fatalf("ParseFile(%q) = %v", task, diags)
			}
			pol := res.Plan.Policy
			if pol == nil || pol.Operator == nil || pol.Operator.Source != tt.source || pol.Source != task {
				t.Fatalf("Plan.Policy = %+v, want the task's with the operator's (%s)", pol, tt.source)
			}
			for _, c := range []struct {
				facts ActionFactsCase
				want  string
			}{
				{ActionFactsCase{Kind: "click", App: "firefox", Target: "OK"}, plan.PolicyDeny},
				{ActionFactsCase{Kind: "click", App: "galculator", Target: "Pay now"}, plan.PolicyConfirm},
				{ActionFactsCase{Kind: "click", App: "galculator", Target: "7"}, plan.PolicyAllow},
				{ActionFactsCase{Kind: "done", App: "firefox"}, plan.PolicyAllow},
			} {
				if got := pol.Decide(plan.ActionFacts(c.facts)); got.Decision != c.want {
					t.Errorf("Decide(%+v) = %+v, want %s", c.facts, got, c.want)
				}
			}
		})
	}
	res, diags := ParseFile(task, Options{})
	if diags.HasErrors() || res.Plan.Policy.Operator != nil {
		t.Errorf("without --policy or $PCFLOW_POLICY: Policy = %+v, %v; want the task's alone", res.Plan.Policy, diags)
	}
}

// ActionFactsCase keeps the table above short.
type ActionFactsCase plan.ActionFacts

func TestPolicyFileErrors(t *testing.T) {
	for _, tt := range []struct {
		file string
		want []string
	}{
		{"testdata/policy/two_blocks.hcl", []string{"two_blocks.hcl:4,1-7", "Not one policy block"}},
		{"testdata/policy/task_in_policy_file.hcl", []string{"task_in_policy_file.hcl:1,1-5", `Blocks of type "task" are not expected here`}},
		{"testdata/policy/missing.hcl", []string{"Cannot read policy file", "--policy testdata/policy/missing.hcl"}},
		{"testdata/policy", []string{"Cannot read policy file", "is a directory"}},
		{"/dev/zero", []string{"too large"}},
		{"testdata/policy/bad_device.hcl", []string{"bad_device.hcl:3,39-40", "devices takes device references"}},
	} {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			pol, files, diags := OperatorPolicy(tt.file, nil)
			var buf bytes.Buffer
			_ = WriteDiagnostics(&buf, files, diags, false)
			if !diags.HasErrors() || pol != nil {
				t.Fatalf("OperatorPolicy(%q) = %+v, %v; want errors", tt.file, pol, diags)
			}
			for _, w := range tt.want {
				if !strings.Contains(diags.Error()+buf.String(), w) {
					t.Errorf("OperatorPolicy(%q) diagnostics:\n%s\nwant them to mention %q", tt.file, buf.String()+diags.Error(), w)
				}
			}
		})
	}
	// A task whose operator policy is broken is not run: the error names
	// the policy file.
	_, diags := ParseFile("testdata/policy/permissive_task.hcl", Options{Policy: "testdata/policy/two_blocks.hcl"})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "two_blocks.hcl") {
		t.Errorf("ParseFile with a broken --policy = %v, want its error", diags)
	}
}

// TestPolicyShadowedRuleWarns: a rule after a catch-all is never reached.
func TestPolicyShadowedRuleWarns(t *testing.T) {
	res, diags := ParseFile("testdata/valid/policy_shadow.hcl", Options{})
	if diags.HasErrors() || res.Plan == nil {
		t.Fatalf("ParseFile = %v", diags)
	}
	if len(diags) != 1 || diags[0].Summary != "Policy rule never used" || !strings.Contains(diags[0].Detail, `"never reached" comes after rule "everything waits"`) {
		t.Errorf("diagnostics = %v, want one warning about rule \"never reached\"", diags)
	}
}

// TestPolicyHostile: input a careless or hostile author may write is a
// diagnostic or a bounded cost, never a hang or a crash.
func TestPolicyHostile(t *testing.T) {
	policyTask := func(rules string) []byte {
		return []byte("task \"t\" {\n  policy {\n    default = \"deny\"\n" + rules + "  }\n  subtask \"a\" {\n    instruction = \"x\"\n  }\n}\n")
	}
	t.Run("catastrophic regex", func(t *testing.T) {
		// Exponential in a backtracking engine; RE2 runs it in linear time.
		src := policyTask("    rule \"evil\" {\n      text     = \"^(a+)+$\"\n      decision = \"allow\"\n    }\n")
		res, diags := Parse("evil.hcl", src, Options{})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		c, err := res.Plan.Policy.Compile()
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Repeat("a", 100_000) + "!"
		start := time.Now()
		v := c.Decide(plan.ActionFacts{Kind: "type", Text: text})
		if v.Decision != plan.PolicyDeny {
			t.Errorf("Decide = %+v, want the default deny", v)
		}
		t.Logf("^(a+)+$ over %d bytes: %v", len(text), time.Since(start))
	})
	t.Run("huge repetition", func(t *testing.T) {
		src := policyTask("    rule \"big\" {\n      text     = \"((a{1000}){1000}){1000}\"\n      decision = \"allow\"\n    }\n")
		_, diags := Parse("big.hcl", src, Options{})
		if !diags.HasErrors() || !strings.Contains(diags.Error(), "Invalid regular expression") {
			t.Errorf("Parse = %v, want an invalid regular expression", diags)
		}
	})
	t.Run("long pattern", func(t *testing.T) {
		src := policyTask("    rule \"long\" {\n      text     = \"" + strings.Repeat("a|", 2000) + "a\"\n      decision = \"allow\"\n    }\n")
		_, diags := Parse("long.hcl", src, Options{})
		if !diags.HasErrors() || !strings.Contains(diags.Error(), "at most 1024 are allowed") {
			t.Errorf("Parse = %v, want the pattern limit", diags)
		}
	})
	t.Run("10k rules", func(t *testing.T) {
		var b strings.Builder
		for i := range 10_000 {
			fmt.Fprintf(&b, "    rule \"r%d\" {\n      target   = \"^button %d$\"\n      decision = \"allow\"\n    }\n", i, i)
		}
		start := time.Now()
		_, diags := Parse("many.hcl", policyTask(b.String()), Options{})
		if !diags.HasErrors() || !strings.Contains(diags.Error(), "The policy has 10000 rules; at most 1000 are allowed") {
			t.Errorf("Parse = %v, want the rule limit", diags)
		}
		t.Logf("10,000 rules refused in %v", time.Since(start))
	})
	t.Run("unicode names", func(t *testing.T) {
		for _, tt := range []struct {
			name string
			ok   bool
		}{
			{"ne jamais envoyer ✉", true},
			{"送信禁止", true},
			{"مرسل", true},
			{"zero\u200bwidth", false},
			{"right\u202eto-left", false},
			{"bell\u0007", false},
			{strings.Repeat("é", 51), false},
		} {
			src := policyTask(fmt.Sprintf("    rule %q {\n      kinds    = [\"click\"]\n      decision = \"allow\"\n    }\n", tt.name))
			res, diags := Parse("u.hcl", src, Options{})
			if tt.ok != !diags.HasErrors() {
				t.Errorf("rule %q: Parse = %v, want ok=%v", tt.name, diags, tt.ok)
				continue
			}
			if tt.ok {
				if diff := cmp.Diff(tt.name, res.Plan.Policy.Rules[0].Name); diff != "" {
					t.Errorf("rule name (-want +got):\n%s", diff)
				}
			}
		}
	})
}

// TestReadmeListsEveryKind: the row on a rule's kinds in the language
// reference (docs/language.md, once the README) lists exactly the kinds a
// rule may name (screen.Kinds).
func TestReadmeListsEveryKind(t *testing.T) {
	b, err := os.ReadFile("../docs/language.md")
	if err != nil {
		t.Fatal(err)
	}
	_, row, ok := strings.Cut(string(b), "\n| `kinds` | ")
	if !ok {
		t.Fatal("docs/language.md has no | `kinds` | row")
	}
	row, _, _ = strings.Cut(row, "\n")
	var got []string
	for i, s := range strings.Split(row, "`") {
		if i%2 == 1 { // within a code span
			got = append(got, strings.Fields(s)...)
		}
	}
	slices.Sort(got)
	if diff := cmp.Diff(screen.Kinds(), got); diff != "" {
		t.Errorf("docs/language.md's kinds row differs from screen.Kinds (-want +got):\n%s", diff)
	}
}

// TestReadmePolicyExamples: the policy examples of the language reference
// (docs/language.md, once the README) parse, and the operator's example and
// the task's behave as it says.
func TestReadmePolicyExamples(t *testing.T) {
	b, err := os.ReadFile("../docs/language.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## Policy\n")
	if !ok {
		t.Fatal("docs/language.md has no ## Policy section")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	var task *plan.Policy
	var op *plan.Policy
	blocks := strings.Split(sec, "```hcl\n")[1:]
	for _, blk := range blocks {
		src, _, _ := strings.Cut(blk, "```")
		f := filepath.Join(t.TempDir(), "example.hcl")
		if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(src, "\ntask ") || strings.HasPrefix(src, "task ") {
			res, diags := ParseFile(f, Options{})
			if diags.HasErrors() {
				t.Fatalf("docs/language.md task example:\n%s\n%v", src, diags)
			}
			task = res.Plan.Policy
			continue
		}
		pol, _, diags := ParsePolicyFile(f, "--policy "+f)
		if diags.HasErrors() {
			t.Fatalf("docs/language.md policy example:\n%s\n%v", src, diags)
		}
		op = pol
	}
	if task == nil || op == nil {
		t.Fatalf("docs/language.md Policy section: want a task example and an operator example, found %d hcl blocks", len(blocks))
	}
	for _, tt := range []struct {
		p     *plan.Policy
		facts plan.ActionFacts
		want  string
	}{
		{task, plan.ActionFacts{Kind: "click", App: "Chromium", Target: "Pay now"}, plan.PolicyConfirm},
		{task, plan.ActionFacts{Kind: "type", App: "Chromium", Text: "{{secret.pw}}", Sensitive: true}, plan.PolicyAllow},
		{task, plan.ActionFacts{Kind: "type", App: "Mousepad", Text: "{{secret.pw}}", Sensitive: true}, plan.PolicyDeny},
		{task, plan.ActionFacts{Kind: "open_app", App: "XTerm", Text: "xterm"}, plan.PolicyDeny},
		{task, plan.ActionFacts{Kind: "done", App: "XTerm"}, plan.PolicyAllow},
		{op, plan.ActionFacts{Kind: "click", App: "Galculator", Target: "7"}, plan.PolicyAllow},
		{op, plan.ActionFacts{Kind: "click", App: "Mousepad", Target: "Delete"}, plan.PolicyConfirm},
		{op, plan.ActionFacts{Kind: "click", App: "Chromium", Target: "OK"}, plan.PolicyDeny},
		// The task allows the browser; the operator does not.
		{plan.WithOperator(task, op), plan.ActionFacts{Kind: "click", App: "Chromium", Target: "OK"}, plan.PolicyDeny},
	} {
		if v := tt.p.Decide(tt.facts); v.Decision != tt.want {
			t.Errorf("Decide(%+v) = %+v, want %s", tt.facts, v, tt.want)
		}
	}
}

// TestPolicyMisplaced: a policy block at the top of a task file or in a
// suite says where it goes.
func TestPolicyMisplaced(t *testing.T) {
	dir := t.TempDir()
	task := filepath.Join(dir, "t.hcl")
	os.WriteFile(task, []byte("policy {\n  default = \"deny\"\n}\ntask \"t\" {\n  subtask \"a\" {\n    instruction = \"x\"\n  }\n}\n"), 0o644)
	_, diags := ParseFile(task, Options{})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "t.hcl:1,1-7") || !strings.Contains(diags.Error(), `goes inside its task block`) {
		t.Errorf("top-level policy: %v", diags)
	}
	suite := filepath.Join(dir, "suite.hcl")
	os.WriteFile(suite, []byte("suite \"s\" {\n  policy {\n    default = \"deny\"\n  }\n  task \"t\" {\n    file = \"t.hcl\"\n  }\n}\n"), 0o644)
	_, _, diags = ParseSuiteFile(suite)
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "suite.hcl:2,3-9") || !strings.Contains(diags.Error(), "pcflow eval --policy FILE") {
		t.Errorf("policy in a suite: %v", diags)
	}
}
