package plan

import (
	"strings"
	"testing"
)

// TestValidateRefusesUnsafeNames: plans built at run time (by the Manager
// agent) obey the same name rule as task files, since names become file
// and queue names.
func TestValidateRefusesUnsafeNames(t *testing.T) {
	p := &Plan{
		Devices:  []Device{{Name: "../../tmp/x"}},
		Subtasks: []Subtask{{Name: "a/b", Device: "../../tmp/x", Instruction: Lit("x")}},
	}
	err := p.Validate()
	for _, want := range []string{`device name "../../tmp/x"`, `subtask name "a/b"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to mention %s", err, want)
		}
	}
	ok := &Plan{Devices: []Device{{Name: "desktop"}}, Subtasks: []Subtask{{Name: "read-total_2", Device: "desktop", Instruction: Lit("x")}}}
	if err := ok.Validate(); err != nil {
		t.Errorf("Validate(plain names) = %v", err)
	}
}

// TestValidateChecksPolicy: a plan read back as JSON gets the parser's
// policy checks.
func TestValidateChecksPolicy(t *testing.T) {
	p := &Plan{Devices: []Device{{Name: "desktop"}}, Subtasks: []Subtask{{Name: "a", Device: "desktop", Instruction: Lit("x")}},
		Policy: &Policy{Rules: []PolicyRule{{Name: "r", Target: "(", Decision: PolicyDeny}}}}
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), `rule "r": target`) {
		t.Errorf("Validate() = %v, want the bad pattern", err)
	}
}
