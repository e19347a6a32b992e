package importer

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// oswTask is a task file of OSWorld or Windows Agent Arena.
type oswTask struct {
	ID          string          `json:"id"`
	Instruction string          `json:"instruction"`
	Source      any             `json:"source"`
	Config      []step          `json:"config"`
	RelatedApps []string        `json:"related_apps"`
	Evaluator   json.RawMessage `json:"evaluator"`
}

type oswEvaluator struct {
	PostConfig []step           `json:"postconfig"`
	Func       json.RawMessage  `json:"func"`
	Conj       string           `json:"conj"`
	Result     json.RawMessage  `json:"result"`
	Expected   json.RawMessage  `json:"expected"`
	Options    json.RawMessage  `json:"options"`
	funcs      []string         // Func as a list
	results    []map[string]any // per function; nil where none
	expecteds  []map[string]any
	options    []map[string]any
}

// platformOf is the platform a benchmark's tasks run on.
// osworldHome and osworldUser are the home folder and account of
// OSWorld's virtual machine, which its tasks name.
const (
	osworldHome = "/home/user"
	osworldUser = "user"
)

func platformOf(benchmark string) string {
	switch benchmark {
	case "waa":
		return "windows"
	case "macosworld":
		return "macos"
	}
	return "linux"
}

// benchmarkTitle is how the header names the benchmark.
// Title is a benchmark's name as its authors write it ("OSWorld").
func Title(benchmark string) string {
	return benchmarkTitle(benchmark)
}

func benchmarkTitle(benchmark string) string {
	switch benchmark {
	case "waa":
		return "Windows Agent Arena"
	case "macosworld":
		return "macOSWorld"
	}
	return "OSWorld"
}

// convertOSWorld converts one OSWorld or Windows Agent Arena task.
func convertOSWorld(benchmark string, t task) (converted, error) {
	var ot oswTask
	if err := decodeJSON(t.path, t.raw, &ot); err != nil {
		return converted{}, err
	}
	id := ot.ID
	if id == "" {
		id = t.id
	}
	platform := platformOf(benchmark)
	cov := TaskCoverage{ID: id, Domain: t.domain, Platform: platform, Runnable: platform == "linux", Applications: ot.RelatedApps}
	for _, s := range ot.Config {
		cov.Setup = append(cov.Setup, s.Type)
	}
	if ot.Instruction == "" {
		cov.Status = NotImported
		cov.Reasons = []string{"the task has no instruction"}
		return converted{cov: cov}, nil
	}
	var ev oswEvaluator
	if err := json.Unmarshal(ot.Evaluator, &ev); err != nil {
		cov.Status = NotImported
		cov.Reasons = []string{"the evaluator is not an object with func, result and expected"}
		return converted{cov: cov}, nil
	}
	for _, s := range ev.PostConfig {
		cov.PostConfig = append(cov.PostConfig, s.Type)
	}
	if err := ev.normalize(); err != nil {
		cov.Status = NotImported
		cov.Reasons = []string{err.Error()}
		return converted{cov: cov}, nil
	}
	cov.Evaluators, cov.Conj = ev.funcs, ev.Conj
	if len(ev.funcs) > 1 && cov.Conj == "" {
		cov.Conj = "and"
	}
	for i := range ev.funcs {
		for _, g := range []map[string]any{ev.results[i], ev.expecteds[i]} {
			if typ, _ := g["type"].(string); typ != "" && !contains(cov.Getters, typ) {
				cov.Getters = append(cov.Getters, typ)
			}
		}
	}
	sort.Strings(cov.Getters)

	setup := &setupConv{platform: platform, kind: "setup", prefix: "c", downloads: &cov.Downloads}
	setup.convert(ot.Config)
	post := &setupConv{platform: platform, kind: "post_run", prefix: "p", downloads: &cov.Downloads}
	post.convert(ev.PostConfig)
	if len(setup.missing)+len(post.missing) > 0 {
		cov.Status = NotImported
		cov.Reasons = append(append([]string{}, setup.missing...), post.missing...)
		return converted{cov: cov}, nil
	}

	ec := evalConv{downloads: &cov.Downloads, stdouts: append(append([]string{}, setup.stdouts...), post.stdouts...)}
	ec.convert(ev)
	cov.Metrics = ec.metrics
	reasons := dedupe(append(append(append([]string{}, setup.reasons...), post.reasons...), ec.notes...))
	carried, whole := 0, 0
	for _, m := range ec.metrics {
		if m.Carried != "no" {
			carried++
		}
		if m.Carried == "yes" {
			whole++
		}
	}
	switch {
	case carried == 0:
		cov.Status = NotImported
		cov.Reasons = dedupe(ec.missing)
		return converted{cov: cov}, nil
	case whole == len(ec.metrics) && len(ec.approx)+len(setup.approx)+len(post.approx) == 0:
		cov.Status = Fully
	default:
		cov.Status = Partly
		reasons = append(dedupe(append(append(append(ec.missing, ec.approx...), setup.approx...), post.approx...)), reasons...)
	}
	if len(ev.funcs) > 1 && cov.Conj == "or" && !ec.or {
		cov.Status = Partly
		reasons = append([]string{"conj \"or\": pcflow passes a task only when every check passes, so it is stricter than the benchmark's any-of (the benchmark's score takes the best function)"}, reasons...)
	}
	cov.Reasons = reasons
	if !cov.Runnable {
		cov.Reasons = append(cov.Reasons, fmt.Sprintf("the task is for %s: pcflow has no %s device, so it validates but cannot run on linux", platform, platform))
	}

	var b strings.Builder
	header(&b, benchmark, cov, ot.Instruction, evaluatorSummary(ev), describeSource(ot.Source))
	fmt.Fprintf(&b, "variable \"files\" {\n  default     = %s\n  description = \"the local cache of the files the task downloads (files.json lists them)\"\n}\n\n", quote(t.files))
	fmt.Fprintf(&b, "task \"%s\" {\n  instruction = %s\n", t.name, quote(ot.Instruction))
	if ec.infeasible {
		b.WriteString("  infeasible  = true\n")
	}
	if platform != "linux" {
		fmt.Fprintf(&b, "\n  device \"desktop\" {\n    platform    = %s\n    description = %s\n  }\n", quote(platform), quote(benchmarkTitle(benchmark)+"'s "+platform+" machine"))
	} else {
		// OSWorld's machine: its tasks name /home/user/... and run git,
		// LibreOffice and VLC as that user (a sandbox gives the device
		// this home folder).
		fmt.Fprintf(&b, "\n  device \"desktop\" {\n    description = %s\n    home        = %s\n    user        = %s\n  }\n", quote(benchmarkTitle(benchmark)+"'s "+platform+" machine"), quote(osworldHome), quote(osworldUser))
	}
	for i := range cov.Downloads {
		cov.Downloads[i].SHA256 = t.sums[cov.Downloads[i].Name]
	}
	blocks := append([]block{}, cacheCheck(cov.Downloads)...)
	blocks = append(blocks, setup.blocks...)
	blocks = append(blocks, post.blocks...)
	for _, bl := range blocks {
		b.WriteByte('\n')
		bl.render(&b)
	}
	for _, ck := range ec.checks {
		b.WriteByte('\n')
		ck.render(&b)
	}
	b.WriteString("}\n")
	return converted{cov: cov, hcl: b.String()}, nil
}

// cacheCheck is the first setup step: every cached file the task needs
// is there — and is the file it was imported with, when its digest is
// known — or the task fails before anything else is set up, naming the
// file, its URL and how to get it.
func cacheCheck(ds []Download) []block {
	if len(ds) == 0 {
		return nil
	}
	script := `while [ $# -gt 0 ]; do ` +
		`[ -f "$1" ] || { echo "pcflow: the cached file $1 is missing: download $2 into it (pcflow import --fetch does; files.json lists every file)" >&2; exit 1; }; ` +
		`[ -z "$3" ] || echo "$3  $1" | sha256sum -c --status - || { echo "pcflow: the cached file $1 is not the one the task was imported with (its SHA-256 is not $3): download $2 into it again" >&2; exit 1; }; ` +
		`shift 3; done`
	args := []string{`"sh"`, `"-c"`, quote(script), `"sh"`}
	seen := map[string]bool{}
	for _, d := range ds {
		if seen[d.Name] {
			continue
		}
		seen[d.Name] = true
		args = append(args, cached(d.Name), quote(d.URL), quote(d.SHA256))
	}
	return []block{{kind: "setup", name: "c00_cached_files", lines: []string{"command = " + list(args)}}}
}

// header writes the comment block that opens an imported task.
func header(b *strings.Builder, benchmark string, cov TaskCoverage, instruction, evaluator, source string) {
	fmt.Fprintf(b, "# Imported from %s by pcflow import %s.\n", benchmarkTitle(benchmark), benchmark)
	comment(b, "id:       ", cov.ID)
	comment(b, "domain:   ", cov.Domain)
	if source != "" {
		comment(b, "source:   ", source)
	}
	comment(b, "instruction: ", instruction)
	comment(b, "evaluator: ", evaluator)
	fmt.Fprintf(b, "# imported: %s\n", cov.Status)
	for _, r := range cov.Reasons {
		comment(b, "  - ", r)
	}
	for _, m := range cov.Metrics {
		switch {
		case m.Infeasible:
			fmt.Fprintf(b, "# carried:  %s as infeasible = true (the run succeeds exactly when the agent calls fail)\n", m.Func)
		case m.Carried != "no":
			fmt.Fprintf(b, "# carried:  %s by check(s) %s (%s)\n", m.Func, strings.Join(m.Checks, ", "), map[string]string{"yes": "fully", "part": "partly"}[m.Carried])
		default:
			fmt.Fprintf(b, "# carried:  %s not carried\n", m.Func)
		}
	}
	b.WriteByte('\n')
}

func describeSource(s any) string {
	if str, ok := s.(string); ok {
		return str
	}
	return ""
}

// evaluatorSummary is the evaluator as the header shows it.
func evaluatorSummary(ev oswEvaluator) string {
	var parts []string
	for i, f := range ev.funcs {
		p := f
		var gs []string
		for _, g := range []map[string]any{ev.results[i], ev.expecteds[i]} {
			if typ, _ := g["type"].(string); typ != "" {
				gs = append(gs, typ)
			}
		}
		if len(gs) > 0 {
			p += "(" + strings.Join(gs, ", ") + ")"
		}
		parts = append(parts, p)
	}
	s := strings.Join(parts, " "+ev.Conj+" ")
	if len(ev.funcs) > 1 && ev.Conj == "" {
		s = strings.Join(parts, " and ")
	}
	return s
}

// normalize reads func, result, expected and options as lists of the
// same length, one item per function.
func (ev *oswEvaluator) normalize() error {
	var one string
	if err := json.Unmarshal(ev.Func, &one); err == nil {
		ev.funcs = []string{one}
	} else if err := json.Unmarshal(ev.Func, &ev.funcs); err != nil {
		return fmt.Errorf("the evaluator's func is neither a name nor a list of names")
	}
	if len(ev.funcs) == 0 || len(ev.funcs) == 1 && ev.funcs[0] == "" {
		return fmt.Errorf("the evaluator names no function")
	}
	n := len(ev.funcs)
	var err error
	if ev.results, err = perFunc(ev.Result, n); err != nil {
		return fmt.Errorf("the evaluator's result: %v", err)
	}
	if ev.expecteds, err = perFunc(ev.Expected, n); err != nil {
		return fmt.Errorf("the evaluator's expected: %v", err)
	}
	if ev.options, err = perFunc(ev.Options, n); err != nil {
		return fmt.Errorf("the evaluator's options: %v", err)
	}
	return nil
}

// perFunc reads an object or a list of objects (null items allowed) as
// one per function.
func perFunc(raw json.RawMessage, n int) ([]map[string]any, error) {
	out := make([]map[string]any, n)
	if len(raw) == 0 || string(raw) == "null" {
		return out, nil
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err == nil {
		for i := range out {
			out[i] = obj
		}
		return out, nil
	}
	var l []map[string]any
	if err := json.Unmarshal(raw, &l); err != nil {
		return nil, fmt.Errorf("neither an object nor a list of objects")
	}
	if len(l) != n {
		return nil, fmt.Errorf("%d items for %d functions", len(l), n)
	}
	return l, nil
}

func dedupe(ss []string) []string {
	var out []string
	for _, s := range ss {
		if !contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
