package activities

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/text"
	"github.com/pcflow/pcflow/specs/plan"
)

// CheckInput is one device check with its templates rendered.
type CheckInput struct {
	Name     string   `json:"name"`
	Kind     string   `json:"kind"`
	Path     string   `json:"path,omitempty"`
	Argv     []string `json:"argv,omitempty"`
	Cell     string   `json:"cell,omitempty"`
	Sheet    string   `json:"sheet,omitempty"`
	Exists   *bool    `json:"exists,omitempty"`
	Contains *string  `json:"contains,omitempty"`
	Matches  *string  `json:"matches,omitempty"`
	Equals   *string  `json:"equals,omitempty"`
	ExitCode *int     `json:"exit_code,omitempty"`

	NotContains *string `json:"not_contains,omitempty"`
	// Office holds the conditions of cell, sheet and document checks; Gold
	// is its reference file's rendered path.
	Office *plan.Office `json:"office,omitempty"`
	Gold   string       `json:"gold,omitempty"`

	SameAs    string   `json:"same_as,omitempty"`
	Normalize bool     `json:"normalize,omitempty"`
	Lines     bool     `json:"lines,omitempty"`
	Entries   []string `json:"entries,omitempty"`
	Role      string   `json:"role,omitempty"`
	States    []string `json:"states,omitempty"`
	// Capture asks for the value read (CheckResult.Value).
	Capture bool `json:"capture,omitempty"`
	// Window is a part of the title of the window a screen_text check
	// reads, instead of the whole screen.
	Window string `json:"window,omitempty"`
	// Expected, Threshold and IgnoreCase are a similarity check's (its
	// reference file is SameAs).
	Expected   *string `json:"expected,omitempty"`
	Threshold  float64 `json:"threshold,omitempty"`
	IgnoreCase bool    `json:"ignore_case,omitempty"`
	// JSON is a json check's expected values.
	JSON *plan.JSON `json:"json,omitempty"`
	// Judge is a judge check's rubric and evidence (its threshold is
	// Threshold); Profiles the task's profiles block, for the judge's.
	Judge    *JudgeCheck       `json:"judge,omitempty"`
	Profiles map[string]string `json:"profiles,omitempty"`
}

// CheckResult is the outcome of one check.
type CheckResult struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Passed  bool   `json:"passed"`
	Skipped bool   `json:"skipped,omitempty"`
	Detail  string `json:"detail"`
	// Value is what the check read (a cell, a file's text, a command's
	// output), when it was asked to capture it; secrets redacted, at most
	// MaxCaptured bytes.
	Value string `json:"value,omitempty"`
	// Score is how close a similarity check found its file, from 0 to 1;
	// it is the check's share of its weight in the task's partial credit.
	Score *float64 `json:"score,omitempty"`
	// Usage, Exchanges and Prompt are a judge check's model calls: what
	// they cost, the recorded exchanges and the judge prompt's version.
	Usage     *screen.Usage `json:"usage,omitempty"`
	Exchanges []string      `json:"exchanges,omitempty"`
	Prompt    string        `json:"prompt,omitempty"`
}

// MaxCaptured bounds a captured value, to keep history small.
const MaxCaptured = 4096

// NewCheckInput renders a plan check's templates over the outputs known so
// far. It is pure and deterministic: workflows call it.
func NewCheckInput(ck plan.Check, outs plan.Outputs) (CheckInput, error) {
	in := CheckInput{Name: ck.Name, Kind: ck.Kind, Cell: ck.Cell, Sheet: ck.Sheet, Exists: ck.Exists, ExitCode: ck.ExitCode,
		Normalize: ck.Normalize, Lines: ck.Lines, Entries: ck.Entries, Role: ck.Role, States: ck.States, Capture: ck.Capture, Window: ck.Window}
	str := func(e *plan.Expr) (*string, error) {
		if e == nil {
			return nil, nil
		}
		v, err := e.EvalString(outs)
		if err != nil {
			return nil, fmt.Errorf("check %s: %w", ck.Name, err)
		}
		return &v, nil
	}
	path, err := str(ck.Path)
	if err != nil {
		return in, err
	}
	if path != nil {
		in.Path = *path
	}
	for _, x := range ck.Argv {
		v, err := x.EvalString(outs)
		if err != nil {
			return in, fmt.Errorf("check %s: %w", ck.Name, err)
		}
		in.Argv = append(in.Argv, v)
	}
	if in.Contains, err = str(ck.Contains); err != nil {
		return in, err
	}
	if in.Matches, err = str(ck.Matches); err != nil {
		return in, err
	}
	if in.Equals, err = str(ck.Equals); err != nil {
		return in, err
	}
	if in.NotContains, err = str(ck.NotContains); err != nil {
		return in, err
	}
	if same, err := str(ck.SameAs); err != nil {
		return in, err
	} else if same != nil {
		in.SameAs = *same
	}
	if ck.Office != nil {
		o := *ck.Office
		gold, err := str(o.Gold)
		if err != nil {
			return in, err
		}
		if gold != nil {
			in.Gold = *gold
		}
		o.Gold = nil
		in.Office = &o
	}
	if j := ck.Judge; j != nil {
		rubric, err := j.Rubric.EvalString(outs)
		if err != nil {
			return in, fmt.Errorf("check %s: %w", ck.Name, err)
		}
		in.Judge = &JudgeCheck{Rubric: rubric, Score: j.Score}
		in.Threshold = j.Threshold
		for _, d := range j.Devices {
			in.Judge.Screens = append(in.Judge.Screens, JudgeScreen{Device: d, Self: d == ck.Device})
		}
		for _, f := range j.Files {
			v, err := f.EvalString(outs)
			if err != nil {
				return in, fmt.Errorf("check %s: %w", ck.Name, err)
			}
			in.Judge.Files = append(in.Judge.Files, v)
		}
	}
	in.JSON = ck.JSON
	if s := ck.Similarity; s != nil {
		in.Threshold, in.IgnoreCase = s.Threshold, s.IgnoreCase
		if in.Expected, err = str(s.Expected); err != nil {
			return in, err
		}
	}
	return in, nil
}

// conditions are a check's path and text conditions with secrets filled
// in; the conditions that are set must all hold. red shows what the device
// returned without the secrets it may hold.
type conditions struct {
	path                                   string
	contains, matches, equals, notContains *string
	// expected is a similarity check's expected text.
	expected *string
	red      *Redactor
}

// checkKind evaluates one kind of device check. It returns the text the
// conditions are tested against, or a result when the kind decides by
// itself (a file that must not exist, a list of windows). An error is an
// infrastructure problem, not a failed check.
type checkKind func(a *Activities, ctx context.Context, in CheckInput, c conditions) (subject string, decided *CheckResult, err error)

// checkKinds is the table of device check kinds, one check_KIND.go each
// (their schema and validation are in specs' check_KIND.go). Adding a kind
// is one line here and one file.
func checkKinds() map[string]checkKind {
	return map[string]checkKind{
		plan.CheckFile:         (*Activities).checkFile,
		plan.CheckCommand:      (*Activities).checkCommand,
		plan.CheckWindowTitle:  (*Activities).checkWindowTitle,
		plan.CheckScreenText:   (*Activities).checkScreenText,
		plan.CheckClipboard:    (*Activities).checkClipboard,
		plan.CheckCell:         (*Activities).checkCell,
		plan.CheckSheet:        (*Activities).checkSheet,
		plan.CheckDocument:     (*Activities).checkDocument,
		plan.CheckPresentation: (*Activities).checkPresentation,
		plan.CheckDirectory:    (*Activities).checkDirectory,
		plan.CheckElement:      (*Activities).checkElement,
		plan.CheckSimilarity:   (*Activities).checkSimilarity,
		plan.CheckJudge:        (*Activities).checkJudge,
		plan.CheckJSON:         (*Activities).checkJSON,
	}
}

// CheckKinds lists the device check kinds this worker evaluates.
func CheckKinds() []string { return keysSorted(checkKinds()) }

func keysSorted[V any](m map[string]V) []string {
	k := make([]string, 0, len(m))
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}

// Check runs one check on the device. A check that cannot be evaluated (a
// missing file) fails with a detail that says why; only infrastructure
// problems are activity errors. The subject (a file, a command's output,
// the screen) may show a secret: the detail never does.
func (a *Activities) Check(ctx context.Context, in CheckInput) (*CheckResult, error) {
	defer heartbeat(ctx)()
	kind, ok := checkKinds()[in.Kind]
	if !ok {
		return nil, fmt.Errorf("check %s: unknown kind %q (this worker knows %s)", in.Name, in.Kind, strings.Join(CheckKinds(), ", "))
	}
	red := a.Redactor()
	var rerr error
	sec := func(p *string) *string {
		if p == nil {
			return nil
		}
		v, err := red.Resolve(*p, a.Secrets)
		if err != nil {
			rerr = err
		}
		return &v
	}
	// What a check shows masks the operator's keys too: a command's
	// output may hold one.
	shown := a.OutputRedactor()
	c := conditions{contains: sec(in.Contains), matches: sec(in.Matches), equals: sec(in.Equals), notContains: sec(in.NotContains), expected: sec(in.Expected), path: *sec(&in.Path), red: shown}
	if rerr != nil {
		return nil, rerr
	}
	subject, r, err := kind(a, ctx, in, c)
	if err != nil {
		return nil, err
	}
	if r == nil {
		r = &CheckResult{}
		r.Passed, r.Detail = c.hold(subject)
		if r.Passed && r.Detail == "" {
			r.Detail = "ok"
		}
		if in.Capture {
			r.Value = text.Trunc(shown.String(strings.TrimRight(subject, "\r\n")), MaxCaptured)
		}
	}
	r.Name, r.Kind, r.Detail = in.Name, in.Kind, shown.String(r.Detail)
	return r, nil
}

// hold tests every given condition against s. The detail shows s
// redacted before it is shortened, so no part of a secret is shown.
func (c conditions) hold(s string) (bool, string) {
	shown := text.Trunc(c.red.String(s), 200)
	if c.contains != nil && !strings.Contains(s, *c.contains) {
		return false, fmt.Sprintf("does not contain %q (got %q)", *c.contains, shown)
	}
	if c.notContains != nil && strings.Contains(s, *c.notContains) {
		return false, fmt.Sprintf("contains %q, which it must not (got %q)", *c.notContains, shown)
	}
	if c.matches != nil {
		re, err := regexp.Compile(*c.matches)
		if err != nil {
			return false, fmt.Sprintf("bad pattern %q: %v", *c.matches, err)
		}
		if !re.MatchString(s) {
			return false, fmt.Sprintf("does not match %q (got %q)", *c.matches, shown)
		}
	}
	if c.equals != nil && strings.TrimRight(s, "\r\n") != *c.equals {
		return false, fmt.Sprintf("is %q, want %q", shown, *c.equals)
	}
	return true, ""
}

// FindText locates text among OCR words: every run of consecutive words
// (in reading order, on one line) whose joined text contains it.
func FindText(words []screen.Word, text string) []screen.Rect {
	want := strings.Fields(strings.ToLower(text))
	if len(want) == 0 {
		return nil
	}
	var hits []screen.Rect
	for i := range words {
		if !strings.Contains(strings.ToLower(words[i].Text), want[0]) {
			continue
		}
		box := words[i].Box
		ok := true
		for k := 1; k < len(want); k++ {
			j := i + k
			if j >= len(words) || !strings.Contains(strings.ToLower(words[j].Text), want[k]) {
				ok = false
				break
			}
			box = box.Union(words[j].Box)
		}
		if ok {
			hits = append(hits, box)
		}
	}
	return hits
}
