package importer

import (
	"fmt"
	"sort"
	"strings"
)

// coverageMarkdown renders coverage.md: the totals, then by domain, by
// setup step type and by evaluator function, then every task.
func coverageMarkdown(cov *Coverage) string {
	var b strings.Builder
	t := cov.Totals
	fmt.Fprintf(&b, "# %s: import coverage\n\n", benchmarkTitle(cov.Benchmark))
	fmt.Fprintf(&b, "Source `%s`, files cache `%s`.\n\n", cov.Source, cov.Files)
	fmt.Fprintf(&b, "%d tasks: **%d fully** (%s), %d partly, %d not imported.\n\n", t.Tasks, t.Fully, pct(t.Fully, t.Tasks), t.Partly, t.NotImported)

	type row struct{ fully, partly, not int }
	count := func(m map[string]*row, key, status string) {
		r := m[key]
		if r == nil {
			r = &row{}
			m[key] = r
		}
		switch status {
		case Fully:
			r.fully++
		case Partly:
			r.partly++
		default:
			r.not++
		}
	}
	table := func(title, col string, m map[string]*row) {
		fmt.Fprintf(&b, "## By %s\n\n| %s | tasks | fully | partly | not imported |\n|---|---|---|---|---|\n", title, col)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			r := m[k]
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %d |\n", cell(k), r.fully+r.partly+r.not, r.fully, r.partly, r.not)
		}
		b.WriteByte('\n')
	}
	domains, setups, funcs := map[string]*row{}, map[string]*row{}, map[string]*row{}
	for _, tc := range cov.Tasks {
		count(domains, tc.Domain, tc.Status)
		seen := map[string]bool{}
		for _, s := range append(append([]string{}, tc.Setup...), prefixed("postconfig ", tc.PostConfig)...) {
			if !seen[s] {
				seen[s] = true
				count(setups, s, tc.Status)
			}
		}
		fs := tc.Evaluators
		if len(fs) == 0 {
			fs = []string{"(none)"}
		}
		seen = map[string]bool{}
		for _, f := range fs {
			if !seen[f] {
				seen[f] = true
				count(funcs, f, tc.Status)
			}
		}
	}
	table("domain", "domain", domains)
	table("setup step type (tasks with at least one such step)", "step", setups)
	table("evaluator function (tasks that use it)", "function", funcs)

	b.WriteString("## Tasks\n\n| domain | id | status | file | reasons |\n|---|---|---|---|---|\n")
	for _, tc := range cov.Tasks {
		file := "—"
		if tc.File != "" {
			file = "`" + tc.File + "`"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", cell(tc.Domain), cell(tc.ID), tc.Status, file, cell(strings.Join(tc.Reasons, "; ")))
	}
	return b.String()
}

func prefixed(p string, ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = p + s
	}
	return out
}

// cell makes text safe in a Markdown table cell.
func cell(s string) string {
	s = strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
	if s == "" {
		return "—"
	}
	return s
}

func pct(n, of int) string {
	if of == 0 {
		return "0%"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(n)/float64(of))
}
