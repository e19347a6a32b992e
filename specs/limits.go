package specs

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/pcflow/pcflow/specs/plan"
)

// Limits on what a task file may hold. They keep hostile or mistaken input
// from crashing pcflow or failing late: each is checked at validate, with a
// message that names the limit.
const (
	// MaxSourceBytes is the largest task file read.
	MaxSourceBytes = 4 << 20
	// MaxPlanBytes is the largest plan (as JSON) a run may start with: the
	// plan travels in the workflow's input, which the Temporal server
	// refuses beyond 2 MB, and every subtask's history repeats part of it.
	MaxPlanBytes = 1 << 20
	// MaxNesting is the deepest an expression may nest brackets, template
	// interpolations and operators. Parsing is recursive; this keeps a file
	// of 100,000 parentheses a diagnostic instead of a stack overflow.
	MaxNesting = 200
	// MaxStringBytes and MaxStringLines bound one string or heredoc: HCL's
	// parser joins a string's lines one at a time, in time that grows with
	// lines × bytes (a 1 MB heredoc of 25,000 lines took 17 s).
	MaxStringBytes = 256 << 10
	MaxStringLines = 2000
)

// Ranges of counts and durations, so absurd values ("1ns", 1e12 steps) are
// refused where they are written.
var (
	stepsRange   = intRange{1, 1000}
	tokensRange  = intRange{1, 100_000_000}
	invalidRange = intRange{1, 100}
	exitRange    = intRange{0, 255}
	timeoutRange = durationRange{time.Second, 7 * 24 * time.Hour}
)

type intRange struct{ min, max int }

type durationRange struct{ min, max time.Duration }

// ParseConfig parses an HCL file that is not a task file (a suite file, a
// variable file, a probe of what a file is) within the limits a task file
// has: its size, nesting and strings are checked before HCL's recursive
// parser sees it, so 50,000 nested brackets give a located diagnostic, not
// a stack overflow. On a limit crossed the file returned has an empty body
// and src, for rendering the diagnostic.
func ParseConfig(src []byte, filename string) (*hcl.File, hcl.Diagnostics) {
	if len(src) > MaxSourceBytes {
		return &hcl.File{Body: hcl.EmptyBody(), Bytes: src}, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "File too large",
			Detail:   fmt.Sprintf("%s holds more than %s, the most a task, suite or variable file may hold.", filename, byteSize(MaxSourceBytes)),
		}}
	}
	if diags := checkNesting(src, filename); diags.HasErrors() {
		return &hcl.File{Body: hcl.EmptyBody(), Bytes: src}, diags
	}
	return hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
}

// label checks a block's name: it becomes a file name, a task queue name
// and prompt text, so only a plain identifier is accepted.
func (p *parser) label(blk *hcl.Block, kind string) bool {
	name := blk.Labels[0]
	if plan.ValidName(name) {
		return true
	}
	why := "Names become file names, task queue names and prompt text"
	switch {
	case name == "":
		why = "The name is empty"
	case len(name) > plan.MaxNameLen:
		why = fmt.Sprintf("The name is %d bytes long", len(name))
	}
	p.diags = append(p.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  fmt.Sprintf("Invalid %s name", kind),
		Detail:   fmt.Sprintf("%s cannot name %s %s. %s: %s, such as \"desktop\" or \"read_total\".", quoteShort(name), article(kind), kind, why, plan.NameRule),
		Subject:  blk.LabelRanges[0].Ptr(),
	})
	return false
}

// checkPlanSize refuses a plan too large to start a run with.
func (p *parser) checkPlanSize(pl *plan.Plan, task *hcl.Block) {
	b, err := json.Marshal(pl)
	if err != nil {
		p.diags = append(p.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Plan cannot be encoded", Detail: err.Error(), Subject: task.DefRange.Ptr()})
		return
	}
	if len(b) > MaxPlanBytes {
		p.diags = append(p.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Task too large",
			Detail: fmt.Sprintf("The task's plan is %s; a run can start with at most %s (it travels in the workflow's input). "+
				"Move long text (knowledge, file contents) into files on the device that setup or the agent reads, or split the task.",
				byteSize(len(b)), byteSize(MaxPlanBytes)),
			Subject: task.DefRange.Ptr(),
			Context: blockRange(task).Ptr(),
		})
	}
}

func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// count decodes a whole number within r.
func (p *parser) count(st *scope, a *hcl.Attribute, r intRange) int {
	v := p.static(st, a.Expr)
	if v == nil {
		return 0
	}
	f, ok := v.(float64)
	if !ok || math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) || f < float64(r.min) || f > float64(r.max) {
		got := quoteShort(plan.ToString(v)) + " (not a number)"
		if ok && math.Abs(f) < 1e15 {
			got = strconv.FormatFloat(f, 'f', -1, 64)
		} else if ok {
			got = fmt.Sprintf("%g", f)
		}
		p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid value",
			fmt.Sprintf("%s must be a whole number from %d to %d; it is %s.", a.Name, r.min, r.max, got)))
		return 0
	}
	return int(f)
}

// durationSyntax is what time.ParseDuration accepts, so that a value it
// refuses only because it is too long is reported as too long.
var durationSyntax = regexp.MustCompile(`^[0-9]*(\.[0-9]*)?(ns|us|µs|ms|s|m|h)([0-9]*(\.[0-9]*)?(ns|us|µs|ms|s|m|h))*$`)

// duration decodes a duration such as "90s" within r.
func (p *parser) duration(st *scope, a *hcl.Attribute, r durationRange) plan.Duration {
	s := p.staticString(st, a)
	if s == "" {
		return 0
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil && durationSyntax.MatchString(s):
		p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid duration",
			fmt.Sprintf("%s = %q is too long: write a duration from %s to %s.", a.Name, s, shortDuration(r.min), shortDuration(r.max))))
		return 0
	case err != nil:
		p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid duration",
			fmt.Sprintf("%q is not a duration. Write a positive number with a unit, such as \"90s\", \"10m\" or \"1h30m\".", s)))
		return 0
	case d < r.min || d > r.max:
		p.diags = append(p.diags, exprDiag(a.Expr.Range(), "Invalid duration",
			fmt.Sprintf("%s = %q is out of range: write a duration from %s to %s.", a.Name, s, shortDuration(r.min), shortDuration(r.max))))
		return 0
	}
	return plan.Duration(d)
}

// shortDuration writes d as "168h" rather than "168h0m0s".
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

func article(noun string) string {
	if strings.ContainsRune("aeiou", rune(noun[0])) {
		return "an"
	}
	return "a"
}

// quoteShort quotes s for a message, cut to its first 64 bytes.
func quoteShort(s string) string {
	if len(s) <= 64 {
		return fmt.Sprintf("%q", s)
	}
	cut := 64
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%q… (%d bytes)", s[:cut], len(s))
}

// budgets reads the limits a task and a subtask both take (max_steps,
// timeout, max_tokens, knowledge) into the fields given; a field whose
// attribute is absent keeps its value.
func (p *parser) budgets(st *scope, attrs hcl.Attributes, steps *int, timeout *plan.Duration, tokens *int, knowledge *[]string) {
	if a, ok := attrs["max_steps"]; ok {
		*steps = p.count(st, a, stepsRange)
	}
	if a, ok := attrs["timeout"]; ok {
		*timeout = p.duration(st, a, timeoutRange)
	}
	if a, ok := attrs["max_tokens"]; ok {
		*tokens = p.count(st, a, tokensRange)
	}
	if a, ok := attrs["knowledge"]; ok {
		*knowledge = p.stringList(st, a)
	}
}
