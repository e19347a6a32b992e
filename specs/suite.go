package specs

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/gohcl"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Suite is a suite file: the task files of a benchmark with per-task
// overrides.
//
//	suite "smoke" {
//	  repeat = 1                 # default repeats per task
//	  task "calc_add" {
//	    file     = "calc_add.hcl" # relative to the suite file
//	    script   = "calc_add.script.json" # default: FILE.script.json
//	    tags     = ["galculator", "math"]
//	    repeat   = 3
//	    requires = ["galculator"] # programs each device must have
//	    vars     = { a = 3 }
//	    max_steps = 10
//	    timeout   = "2m"
//	  }
//	}
type Suite struct {
	Name   string
	File   string
	Repeat int
	Tasks  []SuiteTask
}

// SuiteTask is one task entry of a suite file; paths are absolute.
type SuiteTask struct {
	Name     string
	File     string
	Script   string
	Tags     []string
	Repeat   int
	Requires []string
	Vars     map[string]string
	MaxSteps int
	Timeout  time.Duration
}

type suiteFile struct {
	Suite struct {
		Name   string          `hcl:"name,label"`
		Repeat *int            `hcl:"repeat,optional"`
		Tasks  []suiteTaskBody `hcl:"task,block"`
	} `hcl:"suite,block"`
}

type suiteTaskBody struct {
	Name     string            `hcl:"name,label"`
	File     string            `hcl:"file"`
	Script   *string           `hcl:"script,optional"`
	Tags     []string          `hcl:"tags,optional"`
	Repeat   *int              `hcl:"repeat,optional"`
	Requires []string          `hcl:"requires,optional"`
	Vars     map[string]string `hcl:"vars,optional"`
	MaxSteps *int              `hcl:"max_steps,optional"`
	Timeout  *string           `hcl:"timeout,optional"`
}

// ParseSuiteFile reads a suite file. Problems come back as diagnostics
// with the file's location; files holds the parsed file for rendering them.
func ParseSuiteFile(path string) (*Suite, map[string]*hcl.File, hcl.Diagnostics) {
	files := map[string]*hcl.File{}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, files, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read suite file",
			Detail: fmt.Sprintf("%s. Check the path and permissions.", err)}}
	}
	f, diags := ParseConfig(src, path)
	files[path] = f
	if diags.HasErrors() {
		return nil, files, diags
	}
	var sf suiteFile
	if d := gohcl.DecodeBody(f.Body, nil, &sf); d.HasErrors() {
		hintPolicyPlace(d, "A suite has no policy of its own: give one to every task with pcflow eval --policy FILE (or $PCFLOW_POLICY), or write a policy block in the task files.")
		return nil, files, append(diags, d...)
	}
	dir := filepath.Dir(path)
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	s := &Suite{Name: sf.Suite.Name, File: path, Repeat: 1}
	if sf.Suite.Repeat != nil {
		s.Repeat = *sf.Suite.Repeat
	}
	seen := map[string]bool{}
	body := f.Body.(*hclsyntax.Body)
	var blocks []*hclsyntax.Block // the task blocks, in order
	for _, b := range body.Blocks {
		for _, tb := range b.Body.Blocks {
			if tb.Type == "task" {
				blocks = append(blocks, tb)
			}
		}
	}
	for i, tb := range sf.Suite.Tasks {
		t := SuiteTask{Name: tb.Name, File: abs(tb.File), Tags: tb.Tags, Repeat: s.Repeat, Requires: tb.Requires, Vars: tb.Vars}
		if seen[tb.Name] {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate task",
				Detail: fmt.Sprintf("The suite already has a task %q; give each entry its own name.", tb.Name), Subject: &blocks[i].LabelRanges[0]})
		}
		seen[tb.Name] = true
		if _, err := os.Stat(t.File); err != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Task file not found",
				Detail:  fmt.Sprintf("Task %q names %s, which cannot be read (%v). Paths are relative to the suite file.", tb.Name, t.File, err),
				Subject: attrRange(f, tb.Name, "file")})
		}
		if tb.Script != nil {
			t.Script = abs(*tb.Script)
		}
		if tb.Repeat != nil {
			t.Repeat = *tb.Repeat
		}
		if t.Repeat < 1 {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid repeat",
				Detail: fmt.Sprintf("Task %q: repeat must be at least 1.", tb.Name), Subject: attrRange(f, tb.Name, "repeat")})
		}
		if tb.MaxSteps != nil {
			t.MaxSteps = *tb.MaxSteps
		}
		if tb.Timeout != nil {
			d, err := time.ParseDuration(*tb.Timeout)
			if err != nil || d <= 0 {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid timeout",
					Detail: fmt.Sprintf("Task %q: timeout %q is not a duration; write it like \"90s\" or \"5m\".", tb.Name, *tb.Timeout), Subject: attrRange(f, tb.Name, "timeout")})
			}
			t.Timeout = d
		}
		s.Tasks = append(s.Tasks, t)
	}
	if len(s.Tasks) == 0 {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Empty suite",
			Detail: "The suite names no tasks; add task \"NAME\" { file = \"task.hcl\" } blocks.", Subject: &body.SrcRange})
	}
	return s, files, diags
}

// attrRange finds attribute name of task block task, for diagnostics.
func attrRange(f *hcl.File, task, name string) *hcl.Range {
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return nil
	}
	for _, b := range body.Blocks {
		for _, tb := range b.Body.Blocks {
			if tb.Type != "task" || len(tb.Labels) != 1 || tb.Labels[0] != task {
				continue
			}
			if a, ok := tb.Body.Attributes[name]; ok {
				r := a.Expr.Range()
				return &r
			}
			r := tb.DefRange()
			return &r
		}
	}
	return nil
}
