package workflows_test

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestImportDirection keeps the spine one-way: the workflows, the activities
// and the plan they consume never depend on the task language's parser (hcl,
// cty) or on a model client (go-openai); those stay in specs and
// activities/agents, injected by the worker.
func TestImportDirection(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	forbidden := []string{"github.com/hashicorp/hcl", "github.com/zclconf/go-cty", "github.com/sashabaranov/go-openai"}
	for _, pkg := range []string{
		"github.com/pcflow/pcflow/workflows",
		"github.com/pcflow/pcflow/activities",
		"github.com/pcflow/pcflow/activities/agent",
		"github.com/pcflow/pcflow/activities/fakedevice",
		"github.com/pcflow/pcflow/specs/plan",
	} {
		out, err := exec.Command(goBin, "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, f := range forbidden {
				if strings.HasPrefix(dep, f) {
					t.Errorf("%s depends on %s; keep it out (inject what needs it from worker or cli)", pkg, dep)
				}
			}
		}
	}
}
