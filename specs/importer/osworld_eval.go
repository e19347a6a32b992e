package importer

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// check is a check block being written.
type check struct {
	name, kind string
	lines      []string
}

func (c check) render(sb *strings.Builder) {
	fmt.Fprintf(sb, "  check %s {\n    %s {\n", quote(c.name), c.kind)
	for _, l := range c.lines {
		sb.WriteString("      " + l + "\n")
	}
	sb.WriteString("    }\n  }\n")
}

// evalConv converts an evaluator's functions into checks.
type evalConv struct {
	checks     []check
	metrics    []Metric
	infeasible bool
	// missing says why a function is not carried; approx what a carried
	// one approximates or drops.
	missing, approx []string
	// notes say how a function fully carried is read (the coverage's
	// reasons; they do not make a task partly).
	notes     []string
	downloads *[]Download
	// stdouts are the cache files the setup and post_run steps write.
	stdouts []string
	// or is set when an "or" of functions is one check (anyOf).
	or bool
}

// fn is one evaluator function with its getters and options.
type fn struct {
	name                  string
	result, expected, opt map[string]any
	// checks and what this function approximates.
	checks []check
	approx []string
	score  bool
	// py is the function's Python check, when it has one (pyCheck).
	py *pyParts
}

func (f *fn) add(kind string, lines ...string) {
	f.checks = append(f.checks, check{kind: kind, lines: lines})
}

func (ec *evalConv) convert(ev oswEvaluator) {
	var fs []*fn
	defer func() { ec.anyOf(ev, fs) }()
	for i, name := range ev.funcs {
		f := &fn{name: name, result: ev.results[i], expected: ev.expecteds[i], opt: ev.options[i]}
		if f.opt == nil {
			f.opt = map[string]any{}
		}
		m := Metric{Func: name, Carried: "no"}
		if name == "infeasible" {
			if len(ev.funcs) == 1 {
				ec.infeasible = true
				m.Carried, m.Infeasible = "yes", true
			} else {
				ec.missing = append(ec.missing, "infeasible beside other functions: pcflow's infeasible tasks have no checks")
			}
			ec.metrics = append(ec.metrics, m)
			continue
		}
		why := ec.carry(f)
		fs = append(fs, f)
		if why != "" {
			ec.missing = append(ec.missing, fmt.Sprintf("%s: %s", name, why))
			ec.metrics = append(ec.metrics, m)
			continue
		}
		m.Carried, m.Score = "yes", f.score
		if len(f.approx) > 0 {
			m.Carried = "part"
			for _, a := range f.approx {
				ec.approx = append(ec.approx, name+": "+a)
			}
		}
		for j, ck := range f.checks {
			ck.name = ident("m_", fmt.Sprintf("m%d_%s", i+1, name))
			if len(f.checks) > 1 {
				ck.name = ident("m_", fmt.Sprintf("m%d_%s_%d", i+1, name, j+1))
			}
			m.Checks = append(m.Checks, ck.name)
			ec.checks = append(ec.checks, ck)
		}
		ec.metrics = append(ec.metrics, m)
	}
}

// anyOf makes an "or" of functions that each run as one Python check
// (pyCheck) one check scoring them all and passing at the best score of
// 1, as the benchmark's "or" does; ec.or says so.
func (ec *evalConv) anyOf(ev oswEvaluator, fs []*fn) {
	if ev.Conj != "or" || len(fs) < 2 || len(fs) != len(ec.metrics) {
		return
	}
	for i, f := range fs {
		if ec.metrics[i].Carried != "yes" || f.py == nil || len(f.checks) != 1 {
			return
		}
	}
	ck := pyAny(fs)
	ck.name = "m_any"
	ec.checks = []check{ck}
	for i := range ec.metrics {
		ec.metrics[i].Checks = []string{ck.name}
	}
	ec.or = true
}

// carry maps one function; it returns why it cannot be carried, or "".
func (ec *evalConv) carry(f *fn) string {
	rtype, _ := f.result["type"].(string)
	etype, _ := f.expected["type"].(string)
	if rtype == "cache_file" {
		// The harness's cache file, written by a step's stdout, is a file
		// on the device here.
		name, _ := f.result["path"].(string)
		if !contains(ec.stdouts, name) {
			return fmt.Sprintf("the getter cache_file reads %q, which no setup or post_run step writes", name)
		}
		f.result = map[string]any{"type": "vm_file", "path": cacheFilePath(name)}
		rtype = "vm_file"
	}
	if chromeGetter(rtype) {
		return ec.chrome(f, rtype, etype)
	}
	if _, ok := vlcGetters[rtype]; ok {
		return ec.vlc(f, rtype, etype)
	}
	switch f.name {
	case "compare_table":
		return ec.compareTable(f, rtype, etype)
	case "compare_docx_files":
		return ec.compareDocx(f, rtype, etype)
	case "compare_text_file":
		return ec.compareText(f, rtype, etype)
	case "check_include_exclude":
		if rtype == "vm_command_error" {
			return ec.pyGeneral(f, rtype, etype)
		}
		return ec.includeExclude(f, rtype, etype)
	case "exact_match":
		return ec.exactMatch(f, rtype, etype)
	case "check_list":
		g := *f
		if why := ec.checkList(&g, rtype, etype); why != "" || len(g.approx) > 0 {
			// Patterns RE2 does not read, or unexpected patterns: the
			// benchmark's metric in python3.
			return ec.pyGeneral(f, rtype, etype)
		}
		*f = g
		return ""
	case "compare_images":
		return ec.similar(f, rtype, etype, "SSIM over the red, green and blue channels of images of one size; the benchmark compares grey levels after resizing both to the smaller")
	case "compare_pdfs":
		return ec.similar(f, rtype, etype, "the fuzzy ratio of the PDFs' text as pcflow extracts it, white space collapsed; the benchmark compares PyMuPDF's text as it is")
	case "compare_csv":
		return ec.compareCSV(f, rtype, etype)
	case "file_contains":
		return ec.fileContains(f, rtype)
	case "compare_pptx_files":
		return ec.comparePPTX(f, rtype, etype)
	case "check_structure_sim", "check_file_exists_and_structure_sim":
		return ec.structureSim(f, rtype, etype)
	case "check_json_settings", "check_json_keybindings":
		return ec.jsonFile(f, rtype, etype)
	case "check_thunderbird_prefs":
		return ec.prefs(f, rtype, etype)
	case "is_extension_installed":
		return ec.extensionInstalled(f, rtype, etype)
	case "check_csv", "check_json":
		return ec.pyFile(f, rtype, etype)
	case "run_sqlite3", "compare_python_pure_text", "compare_result_files", "check_thunderbird_filter", "is_in_list",
		"compare_config", "is_utc_0", "check_text_enlarged", "check_gnome_favorite_apps", "check_moved_jpgs", "is_shortcut_on_desktop":
		return ec.pyGeneral(f, rtype, etype)
	case "check_direct_json_object":
		return ec.pyGeneral(f, rtype, etype)
	}
	for _, t := range []string{rtype, etype} {
		if t != "" && !knownGetter(t) {
			return "the getter " + t + " has no pcflow equivalent"
		}
	}
	return "pcflow has no check that carries this metric"
}

func knownGetter(t string) bool {
	switch t {
	case "vm_file", "vm_command_line", "cloud_file", "rule":
		return true
	}
	return false
}

// vmFile is the device path a vm_file getter reads.
func vmFile(g map[string]any, rtype string) (string, string) {
	if rtype != "vm_file" {
		if rtype == "" {
			return "", "the evaluator gives no result getter"
		}
		return "", "the getter " + rtype + " has no pcflow equivalent"
	}
	if m, _ := g["multi"].(bool); m {
		return "", "vm_file with multi (several files) is not carried"
	}
	if ts, _ := g["time_suffix"].(bool); ts {
		return "", "vm_file with time_suffix (a file named after the day of the run) is not carried"
	}
	p, _ := g["path"].(string)
	if p == "" {
		return "", "vm_file without a path"
	}
	return p, ""
}

// cloudFile is the cache template of a cloud_file getter's file, or of a
// vm_file the benchmark reads as a reference (a file the setup placed).
func (ec *evalConv) cloudFile(g map[string]any, etype string) (string, string) {
	switch etype {
	case "cloud_file":
		if m, _ := g["multi"].(bool); m {
			return "", "cloud_file with multi (several reference files) is not carried"
		}
		url, _ := g["path"].(string)
		dest, _ := g["dest"].(string)
		if url == "" {
			return "", "cloud_file without a path"
		}
		if dest == "" {
			dest = url
		}
		name := cacheName(url, dest)
		*ec.downloads = append(*ec.downloads, Download{URL: url, Name: name})
		return cached(name), ""
	case "vm_file":
		p, why := vmFile(g, etype)
		return quote(p), why
	case "":
		return "", "the evaluator gives no expected getter"
	}
	return "", "the getter " + etype + " has no pcflow equivalent"
}

// vmCommand is the argv of a vm_command_line getter.
func vmCommand(g map[string]any) ([]string, string) {
	c := &setupConv{}
	argv, ok := c.argv(g["command"], g["shell"])
	if !ok {
		return nil, "vm_command_line without a command"
	}
	return argv, ""
}

// anyExit runs argv and exits 0 whatever it exits with, its standard
// error discarded: the benchmark reads the command's standard output only
// (its vm_command_line getter is the output, vm_command_error the
// errors), and a command check reads both.
func anyExit(argv []string) []string {
	return append([]string{"sh", "-c", `"$@" 2>/dev/null; exit 0`, "sh"}, argv...)
}

// fileRules reads a metric's result, a file of the VM (vmFile), and its
// expected rules (rules): the start of every metric that checks a file
// against rules. why says what cannot be carried.
func fileRules(f *fn, rtype, etype string) (path string, r map[string]any, why string) {
	if path, why = vmFile(f.result, rtype); why != "" {
		return "", nil, why
	}
	r, why = rules(f.expected, etype)
	return path, r, why
}

func rules(g map[string]any, etype string) (map[string]any, string) {
	if etype != "rule" {
		if etype == "" {
			return nil, "the evaluator gives no rules"
		}
		return nil, "the getter " + etype + " has no pcflow equivalent"
	}
	r, _ := g["rules"].(map[string]any)
	if r == nil {
		return nil, "the rule getter has no rules"
	}
	return r, ""
}

func (ec *evalConv) compareTable(f *fn, rtype, etype string) string {
	if m, _ := f.result["multi"].(bool); m {
		return ec.sheetPrint(f, rtype, etype)
	}
	path, why := vmFile(f.result, rtype)
	if why != "" {
		return why
	}
	rs, _ := f.opt["rules"].([]any)
	if len(rs) == 0 {
		return "compare_table without rules"
	}
	gold := ""
	if etype != "" {
		if gold, why = ec.cloudFile(f.expected, etype); why != "" {
			return why
		}
	}
	for _, x := range rs {
		r, _ := x.(map[string]any)
		typ, _ := r["type"].(string)
		switch typ {
		case "sheet_data":
			if gold == "" {
				f.approx = append(f.approx, "rule sheet_data without a reference file is dropped")
				continue
			}
			rs, okR := sheetIndex(r["sheet_idx0"], "R")
			gs, okE := sheetIndex(r["sheet_idx1"], "E")
			if !okR || !okE {
				f.approx = append(f.approx, fmt.Sprintf("rule sheet_data between sheets %v and %v is dropped: pcflow compares the result's sheet with the reference's, by name or first", r["sheet_idx0"], r["sheet_idx1"]))
				continue
			}
			prec := 4.0
			if p, ok := number(r["precision"]); ok {
				prec = p
			}
			lines := []string{"path      = " + quote(path)}
			if rs != "" {
				lines = append(lines, "sheet     = "+quote(rs))
			}
			lines = append(lines, "gold      = "+gold)
			if gs != "" {
				lines = append(lines, "gold_sheet = "+quote(gs))
			}
			lines = append(lines, "tolerance = "+strconv.FormatFloat(0.5*math.Pow(10, -prec), 'f', -1, 64))
			if b, _ := r["ignore_case"].(bool); b {
				f.approx = append(f.approx, "sheet_data's ignore_case: text is compared with its case")
			}
			f.add("sheet", lines...)
		case "check_cell":
			ec.checkCell(f, path, r)
		default:
			f.approx = append(f.approx, "rule "+typ+" is not carried")
		}
	}
	if len(f.checks) == 0 {
		return "none of its rules is carried (" + strings.Join(f.approx, "; ") + ")"
	}
	return ""
}

// argb is a colour as openpyxl reads it: ARGB or RGB hex digits.
var argb = regexp.MustCompile(`^(?:[0-9A-Fa-f]{2})?[0-9A-Fa-f]{6}$`)

// sheetIndex reads OSWorld's sheet index (0, "RI0", "RNSheet1", "EI0",
// "ENSheet1") for book ("R" result, "E" expected): a sheet name, "" for
// the first sheet; ok is false for an index pcflow cannot name.
func sheetIndex(v any, book string) (string, bool) {
	switch x := v.(type) {
	case float64:
		return "", book == "R" && x == 0
	case string:
		switch {
		case x == book+"I0":
			return "", true
		case strings.HasPrefix(x, book+"N"):
			return x[2:], x[2:] != ""
		}
	}
	return "", false
}

func (ec *evalConv) checkCell(f *fn, path string, r map[string]any) {
	sheet, ok := sheetIndex(r["sheet_idx"], "R")
	coord, _ := r["coordinate"].(string)
	props, _ := r["props"].(map[string]any)
	if !ok || coord == "" || len(props) == 0 {
		f.approx = append(f.approx, fmt.Sprintf("rule check_cell on %v %q is dropped", r["sheet_idx"], coord))
		return
	}
	lines := []string{"path = " + quote(path), "cell = " + quote(coord)}
	if sheet != "" {
		lines = append(lines, "sheet = "+quote(sheet))
	}
	base := len(lines)
	n := base
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, prop := range keys {
		rule, _ := props[prop].(map[string]any)
		method, _ := rule["method"].(string)
		ref := rule["ref"]
		switch {
		case prop == "value" && method == "eq":
			switch v := ref.(type) {
			case string:
				lines = append(lines, "equals = "+quote(v))
			case float64:
				lines = append(lines, "approx = "+strconv.FormatFloat(v, 'f', -1, 64), "tolerance = 1e-9")
			}
		case prop == "value" && strings.HasPrefix(method, "approx:"):
			tol, err := strconv.ParseFloat(strings.TrimPrefix(method, "approx:"), 64)
			if v, ok := ref.(float64); ok && err == nil {
				lines = append(lines, "approx = "+strconv.FormatFloat(v, 'f', -1, 64), "tolerance = "+strconv.FormatFloat(tol, 'f', -1, 64))
			}
		case (prop == "font_bold" || prop == "font_italic") && method == "eq":
			if v, ok := ref.(bool); ok {
				lines = append(lines, strings.TrimPrefix(prop, "font_")+" = "+strconv.FormatBool(v))
			}
		case (prop == "font_color" || prop == "bgcolor") && method == "eq":
			if v, ok := ref.(string); ok && argb.MatchString(v) {
				attr := map[string]string{"font_color": "color", "bgcolor": "fill"}[prop]
				lines = append(lines, attr+" = "+quote(strings.ToUpper(v[len(v)-6:])))
			}
		case prop == "font_name" && method == "eq":
			if v, ok := ref.(string); ok {
				lines = append(lines, "font = "+quote(v))
			}
		case prop == "font_size" && method == "eq":
			if v, ok := ref.(float64); ok {
				lines = append(lines, "font_size = "+strconv.FormatFloat(v, 'f', -1, 64))
			}
		}
		if len(lines) == n {
			f.approx = append(f.approx, fmt.Sprintf("check_cell %s's %s (%s) is not carried", coord, prop, method))
		}
		n = len(lines)
	}
	if n > base {
		f.add("cell", lines...)
	}
}

func (ec *evalConv) compareDocx(f *fn, rtype, etype string) string {
	path, why := vmFile(f.result, rtype)
	if why != "" {
		return why
	}
	gold, why := ec.cloudFile(f.expected, etype)
	if why != "" {
		return why
	}
	lines := []string{"path      = " + quote(path), "same_as   = " + gold, "threshold = 1"}
	if b, _ := f.opt["ignore_case"].(bool); b {
		lines = append(lines, "ignore_case = true")
	}
	if b, ok := f.opt["ignore_blanks"].(bool); ok && !b {
		f.approx = append(f.approx, "ignore_blanks = false: paragraphs are compared with white space collapsed, not one by one")
	}
	if b, _ := f.opt["ignore_order"].(bool); b {
		f.approx = append(f.approx, "ignore_order: paragraphs are compared in order")
	}
	if b, _ := f.opt["content_only"].(bool); b {
		f.score = true
	}
	f.add("similarity", lines...)
	return ""
}

func (ec *evalConv) compareText(f *fn, rtype, etype string) string {
	path, why := vmFile(f.result, rtype)
	if why != "" {
		return why
	}
	gold, why := ec.cloudFile(f.expected, etype)
	if why != "" {
		return why
	}
	blanks, _ := f.opt["ignore_blanks"].(bool)
	fold, _ := f.opt["ignore_case"].(bool)
	if !blanks && !fold {
		f.add("file", "path    = "+quote(path), "same_as = "+gold)
		return ""
	}
	lines := []string{"path      = " + quote(path), "same_as   = " + gold, "threshold = 1"}
	if fold {
		lines = append(lines, "ignore_case = true")
	}
	if !blanks {
		f.approx = append(f.approx, "ignore_case alone: white space is collapsed too")
	}
	f.add("similarity", lines...)
	return ""
}

func (ec *evalConv) includeExclude(f *fn, rtype, etype string) string {
	r, why := rules(f.expected, etype)
	if why != "" {
		return why
	}
	inc, exc := strings_(r["include"]), strings_(r["exclude"])
	if len(inc)+len(exc) == 0 {
		return "no include or exclude strings"
	}
	switch rtype {
	case "vm_command_line":
		argv, why := vmCommand(f.result)
		if why != "" {
			return why
		}
		for _, s := range inc {
			f.add("command", "argv = "+list(quoteAll(anyExit(argv))), "stdout_contains = "+quote(s))
		}
		for _, s := range exc {
			f.add("command", "argv = "+list(quoteAll(anyExit(argv))), "stdout_not_contains = "+quote(s))
		}
	case "vm_file":
		path, why := vmFile(f.result, rtype)
		if why != "" {
			return why
		}
		for _, s := range inc {
			f.add("file", "path = "+quote(path), "contains = "+quote(s))
		}
		for _, s := range exc {
			f.add("file", "path = "+quote(path), "not_contains = "+quote(s))
		}
	default:
		return "the getter " + rtype + " has no pcflow equivalent"
	}
	return ""
}

func (ec *evalConv) exactMatch(f *fn, rtype, etype string) string {
	r, why := rules(f.expected, etype)
	if why != "" {
		return why
	}
	want, ok := r["expected"].(string)
	if !ok {
		return "rules.expected is not a string"
	}
	if rtype != "vm_command_line" {
		return "the getter " + rtype + " has no pcflow equivalent"
	}
	argv, why := vmCommand(f.result)
	if why != "" {
		return why
	}
	// The whole output, trailing newline and all, as the benchmark
	// compares it.
	f.add("command", "argv = "+list(quoteAll(anyExit(argv))), "stdout_matches = "+quote(`\A`+regexp.QuoteMeta(want)+`\z`))
	return ""
}

func (ec *evalConv) checkList(f *fn, rtype, etype string) string {
	path, r, why := fileRules(f, rtype, etype)
	if why != "" {
		return why
	}
	for _, p := range strings_(r["expect"]) {
		if _, err := regexp.Compile(p); err != nil {
			return fmt.Sprintf("the pattern %q is Python's, not RE2's (%v)", p, err)
		}
		// Each pattern is searched line by line, as the benchmark does.
		f.add("file", "path    = "+quote(path), "matches = "+quote(`(?m)^.*?(?:`+p+`)`))
	}
	for _, p := range strings_(r["unexpect"]) {
		if regexp.QuoteMeta(p) != p {
			f.approx = append(f.approx, fmt.Sprintf("the unexpected pattern %q is dropped: pcflow's file check cannot refuse a pattern, only a text", p))
			continue
		}
		f.add("file", "path = "+quote(path), "not_contains = "+quote(p))
	}
	if len(f.checks) == 0 {
		return "no expected pattern is carried"
	}
	return ""
}

func (ec *evalConv) similar(f *fn, rtype, etype, approx string) string {
	path, why := vmFile(f.result, rtype)
	if why != "" {
		return why
	}
	gold, why := ec.cloudFile(f.expected, etype)
	if why != "" {
		return why
	}
	f.approx = append(f.approx, approx)
	f.score = true
	f.add("similarity", "path      = "+quote(path), "same_as   = "+gold, "threshold = 1")
	return ""
}

func (ec *evalConv) fileContains(f *fn, rtype string) string {
	path, why := vmFile(f.result, rtype)
	if why != "" {
		return why
	}
	want := strings_(f.expected["expected"])
	if len(want) == 0 {
		return "no expected texts"
	}
	for _, s := range want {
		f.add("file", "path = "+quote(path), "contains = "+quote(s))
	}
	return ""
}

func (ec *evalConv) compareCSV(f *fn, rtype, etype string) string {
	path, why := vmFile(f.result, rtype)
	if why != "" {
		return why
	}
	gold, why := ec.cloudFile(f.expected, etype)
	if why != "" {
		return why
	}
	if b, _ := f.opt["ignore_case"].(bool); b {
		return "ignore_case: pcflow's file comparison keeps case"
	}
	if b, ok := f.opt["strict"].(bool); ok && !b {
		// Each line stripped: normalize trims the ends of lines only.
		f.approx = append(f.approx, "strict = false: lines compared ignoring trailing spaces and trailing blank lines (file same_as with normalize); the benchmark strips both ends of each line")
		f.add("file", "path      = "+quote(path), "same_as   = "+gold, "normalize = true")
		return ""
	}
	// The benchmark compares the files' splitlines().
	f.add("file", "path    = "+quote(path), "same_as = "+gold, "lines   = true")
	return ""
}

// pptxAspects maps compare_pptx_files's options that are on by default to
// the aspects a presentation check's ignore leaves out.
// examine_background_color is left out of it: the benchmark reads a
// background through fill.background(), which makes it none on both
// sides, so it never differs.
var pptxAspects = map[string]string{
	"examine_number_of_slides": "slide_count", "examine_shape": "positions", "examine_text": "text",
	"examine_indent": "indent", "examine_font_name": "font_name", "examine_font_size": "font_size",
	"examine_font_bold": "bold", "examine_font_italic": "italic", "examine_color_rgb": "color",
	"examine_font_underline": "underline", "examine_strike_through": "strike", "examine_alignment": "alignment",
	"examine_bullets": "bullets", "examine_note": "notes",
}

// pptxSpecial are compare_pptx_files's options, off by default, that
// compare one shape of one task's deck in a way of its own.
var pptxSpecial = []string{"examine_title_bottom_position", "examine_table_bottom_position", "examine_right_position",
	"examine_top_position", "examine_shape_for_shift_size", "examine_image_size", "examine_modify_height"}

func (ec *evalConv) comparePPTX(f *fn, rtype, etype string) string {
	path, why := vmFile(f.result, rtype)
	if why != "" {
		return why
	}
	if !strings.EqualFold(filepath.Ext(path), ".pptx") {
		return fmt.Sprintf("the result %s is not a .pptx file", path)
	}
	for _, o := range pptxSpecial {
		if b, _ := f.opt[o].(bool); b {
			return o + " (a comparison written for one task's shapes) is not carried"
		}
	}
	gold, why := ec.cloudFile(f.expected, etype)
	if why != "" {
		return why
	}
	var ignore []string
	keys := make([]string, 0, len(pptxAspects))
	for k := range pptxAspects {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if b, ok := f.opt[k].(bool); ok && !b {
			ignore = append(ignore, pptxAspects[k])
		}
	}
	lines := []string{"path    = " + quote(path), "same_as = " + gold}
	if len(ignore) > 0 {
		lines = append(lines, "ignore  = "+list(quoteAll(ignore)))
	}
	f.add("presentation", lines...)
	return ""
}

// structureSim carries gimp's check_structure_sim: SSIM of the two
// images at least 0.9 scores 1, else 0.
func (ec *evalConv) structureSim(f *fn, rtype, etype string) string {
	path, why := vmFile(f.result, rtype)
	if why != "" {
		return why
	}
	gold, why := ec.cloudFile(f.expected, etype)
	if why != "" {
		return why
	}
	f.approx = append(f.approx, "SSIM over the red, green and blue channels; the benchmark's over the images' own channels, alpha included (a background made transparent counts there, not here)")
	f.add("similarity", "path      = "+quote(path), "same_as   = "+gold, "threshold = 0.9", `credit    = "pass_fail"`)
	return ""
}

// jsonFile carries VS Code's JSON metrics: check_json_settings (the file's
// object holds the expected keys with equal values: json subset) and
// check_json_keybindings (the file's list, read without its first line
// when it is not one otherwise, holds the expected item: json has_item).
func (ec *evalConv) jsonFile(f *fn, rtype, etype string) string {
	path, r, why := fileRules(f, rtype, etype)
	if why != "" {
		return why
	}
	want, ok := r["expected"]
	if !ok {
		return "rules.expected is missing"
	}
	b, why := jsonText(want)
	if why != "" {
		return "rules.expected: " + why
	}
	if f.name == "check_json_settings" {
		if _, ok := want.(map[string]any); !ok {
			return "rules.expected is not an object"
		}
		f.add("json", "path   = "+quote(path), "subset = "+quote(b))
		return ""
	}
	f.add("json", "path     = "+quote(path), "has_item = "+quote(b))
	return ""
}

// prefs carries check_thunderbird_prefs: the prefs.js's user_pref lines,
// expected values (eq) as json subset, unexpected ones as excludes,
// patterns (re, with flags S, I, M) as key_matches.
func (ec *evalConv) prefs(f *fn, rtype, etype string) string {
	path, r, why := fileRules(f, rtype, etype)
	if why != "" {
		return why
	}
	expect, _ := r["expect"].(map[string]any)
	unexpect, _ := r["unexpect"].(map[string]any)
	subset, excludes, patterns := map[string]any{}, map[string]any{}, map[string]any{}
	for _, side := range []struct {
		rules map[string]any
		want  bool
	}{{expect, true}, {unexpect, false}} {
		for k, v := range side.rules {
			rule, _ := v.(map[string]any)
			method, _ := rule["method"].(string)
			if !side.want {
				if _, both := expect[k]; both {
					return fmt.Sprintf("the key %s is both expected and unexpected", k)
				}
			}
			switch {
			case method == "eq" && side.want:
				subset[k] = rule["ref"]
			case method == "eq":
				excludes[k] = rule["ref"]
			case (method == "re" || strings.HasPrefix(method, "re.")) && side.want:
				pat, ok := rule["ref"].(string)
				if !ok {
					return fmt.Sprintf("the pattern for %s is not a string", k)
				}
				flags := ""
				for _, fl := range strings.Split(method, ".")[1:] {
					switch fl {
					case "S", "DOTALL":
						flags += "s"
					case "I", "IGNORECASE":
						flags += "i"
					case "M", "MULTILINE":
						flags += "m"
					default:
						return fmt.Sprintf("the regular expression flag %s is not carried", fl)
					}
				}
				if flags != "" {
					pat = "(?" + flags + ")" + pat
				}
				if _, err := regexp.Compile(pat); err != nil {
					return fmt.Sprintf("the pattern %q is Python's, not RE2's (%v)", pat, err)
				}
				patterns[k] = pat
			default:
				return fmt.Sprintf("the method %s for %s is not carried", method, k)
			}
		}
	}
	if len(subset)+len(excludes)+len(patterns) == 0 {
		return "no expected or unexpected preference"
	}
	lines := []string{"path   = " + quote(path), `format = "prefs"`}
	for _, x := range []struct {
		name string
		m    map[string]any
	}{{"subset", subset}, {"excludes", excludes}, {"key_matches", patterns}} {
		if len(x.m) == 0 {
			continue
		}
		b, why := jsonText(x.m)
		if why != "" {
			return why
		}
		lines = append(lines, x.name+" = "+quote(b))
	}
	f.add("json", lines...)
	return ""
}

// jsonText is v as compact JSON, with <, > and & as they are.
func jsonText(v any) (string, string) {
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err.Error()
	}
	return strings.TrimSuffix(buf.String(), "\n"), ""
}

// extensionInstalled carries is_extension_installed: the command's output
// holds (type contain) or does not hold (not_contain) the text.
func (ec *evalConv) extensionInstalled(f *fn, rtype, etype string) string {
	r, why := rules(f.expected, etype)
	if why != "" {
		return why
	}
	if rtype != "vm_command_line" {
		return "the getter " + rtype + " has no pcflow equivalent"
	}
	argv, why := vmCommand(f.result)
	if why != "" {
		return why
	}
	want, ok := r["expected"].(string)
	if !ok {
		return "rules.expected is not a string"
	}
	switch typ, _ := r["type"].(string); typ {
	case "contain":
		f.add("command", "argv = "+list(quoteAll(anyExit(argv))), "stdout_contains = "+quote(want))
	case "not_contain":
		f.add("command", "argv = "+list(quoteAll(anyExit(argv))), "stdout_not_contains = "+quote(want))
	default:
		return fmt.Sprintf("rules.type %q is not contain or not_contain", typ)
	}
	return ""
}
