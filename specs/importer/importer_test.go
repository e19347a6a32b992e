package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/xuri/excelize/v2"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/specs"
	"github.com/pcflow/pcflow/specs/plan"
)

const testFiles = "/srv/pcflow-files/test"

func importDir(t testing.TB, benchmark, src string) (*Coverage, string) {
	t.Helper()
	out := t.TempDir()
	cov, err := Import(context.Background(), Options{Benchmark: benchmark, Src: src, Out: out, Files: testFiles})
	if err != nil {
		t.Fatalf("Import(%s, %s) = %v", benchmark, src, err)
	}
	return cov, out
}

// parseClean parses a written task file and fails on any diagnostic,
// warnings included.
func parseClean(t *testing.T, path string) *plan.Plan {
	t.Helper()
	res, diags := specs.ParseFile(path, specs.Options{})
	if len(diags) > 0 {
		src, _ := os.ReadFile(path)
		t.Fatalf("%s: %v\n%s", path, diags, src)
	}
	return res.Plan
}

func statuses(cov *Coverage) map[string]string {
	m := map[string]string{}
	for _, tc := range cov.Tasks {
		m[tc.ID] = tc.Status
	}
	return m
}

func TestImportOSWorldFixtures(t *testing.T) {
	cov, out := importDir(t, "osworld", "testdata/osworld")
	want := map[string]string{
		"pcf-calc-gold":     Fully,
		"pcf-calc-postgold": Fully,       // its reference downloaded after the run
		"pcf-calc-cells":    Partly,      // check_cell's fill and the chart rule dropped
		"pcf-calc-pivot":    NotImported, // pivot_table
		"pcf-writer-docx":   Fully,
		"pcf-writer-pdf":    Partly, // text extraction approximated
		"pcf-impress-deck":  Fully,  // compare_pptx_files, examine_shape off
		"pcf-os-include":    Fully,
		"pcf-os-exact":      Fully,
		"pcf-os-infeasible": Fully,
		"pcf-os-login":      NotImported, // login setup
		"pcf-os-terminal":   Fully,       // xterm for ctrl+alt+t
		"pcf-os-focus":      Partly,      // a pyautogui click left out
		"pcf-os-typing":     NotImported, // pyautogui types text
		"pcf-os-textfile":   Fully,
		"pcf-multi-and":     Fully,
		"pcf-multi-or":      Partly, // conj or
		"pcf-chrome-tabs":   Fully,  // the active tab's title from Chromium's debugging port
		"pcf-chrome-file":   Fully,
		"pcf-gimp-mirror":   Partly,
		"pcf-vlc-play":      Fully, // VLC's HTTP interface read in python3
	}
	if diff := cmp.Diff(want, statuses(cov)); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	byID := map[string]TaskCoverage{}
	for _, tc := range cov.Tasks {
		byID[tc.ID] = tc
		if tc.Status == NotImported {
			if tc.File != "" || len(tc.Reasons) == 0 {
				t.Errorf("%s: not imported with file %q and reasons %q; want no file and a reason", tc.ID, tc.File, tc.Reasons)
			}
			continue
		}
		pl := parseClean(t, filepath.Join(out, tc.File))
		var src struct {
			Instruction string `json:"instruction"`
		}
		raw, _ := os.ReadFile(filepath.Join("testdata/osworld/examples", tc.Domain, tc.ID+".json"))
		if err := json.Unmarshal(raw, &src); err != nil {
			t.Fatal(err)
		}
		if pl.Instruction != src.Instruction {
			t.Errorf("%s: instruction %q, want the benchmark's %q", tc.ID, pl.Instruction, src.Instruction)
		}
		hcl, _ := os.ReadFile(filepath.Join(out, tc.File))
		for _, w := range []string{"# id:       " + tc.ID, "# domain:   " + tc.Domain, "# evaluator: ", "# imported: " + tc.Status} {
			if !strings.Contains(string(hcl), w) {
				t.Errorf("%s: header lacks %q", tc.ID, w)
			}
		}
		if len(pl.Checks) == 0 && !pl.Infeasible {
			t.Errorf("%s: imported with no check", tc.ID)
		}
		// OSWorld's machine: its tasks name /home/user/... as user.
		if len(pl.Devices) != 1 || pl.Devices[0].Home != "/home/user" || pl.Devices[0].User != "user" {
			t.Errorf("%s: devices %+v, want one with home /home/user and user user", tc.ID, pl.Devices)
		}
	}
	// Named reasons for what is not carried.
	for id, w := range map[string]string{
		"pcf-calc-pivot":  "rule pivot_table is not carried",
		"pcf-os-login":    "(login): pcflow has no such setup step",
		"pcf-os-terminal": "xterm stands in for GNOME Terminal",
		"pcf-os-focus":    "post_run step 1: pyautogui's click at (640,400), a point of the benchmark's 1920×1080 screen, is left out",
		"pcf-os-typing":   "setup step 1 (execute) drives the screen with pyautogui beyond pressing keys",
		"pcf-chrome-tabs": "the address bar's text is the active tab's URL from Chromium's remote debugging port",
		"pcf-calc-cells":  "check_cell D9's fill_type (eq) is not carried",
		"pcf-multi-or":    `conj "or"`,
		"pcf-chrome-file": "Chromium stands in for Google Chrome",
	} {
		if r := strings.Join(byID[id].Reasons, "; "); !strings.Contains(r, w) {
			t.Errorf("%s: reasons %q, want one saying %q", id, r, w)
		}
	}
	if got := byID["pcf-os-exact"].Splits; !cmp.Equal(got, []string{"test_all", "test_small"}) {
		t.Errorf("pcf-os-exact splits = %q, want test_all and test_small", got)
	}

	suite, _, diags := specs.ParseSuiteFile(filepath.Join(out, "suite.hcl"))
	if diags.HasErrors() {
		t.Fatalf("suite: %v", diags)
	}
	tags := map[string][]string{}
	for _, st := range suite.Tasks {
		tags[st.Name] = st.Tags
	}
	if got, want := len(suite.Tasks), cov.Totals.Fully+cov.Totals.Partly; got != want {
		t.Errorf("suite has %d tasks, want the %d imported", got, want)
	}
	if got := tags[byID["pcf-multi-or"].Name]; !cmp.Equal(got, []string{"osworld", "multi_apps", "split:test_all", "imported_partly"}) {
		t.Errorf("pcf-multi-or tags = %q", got)
	}

	// coverage.json reads back; coverage.md has the totals.
	var back Coverage
	raw, _ := os.ReadFile(filepath.Join(out, "coverage.json"))
	if err := json.Unmarshal(raw, &back); err != nil || len(back.Tasks) != len(want) {
		t.Fatalf("coverage.json: %v, %d tasks", err, len(back.Tasks))
	}
	md, _ := os.ReadFile(filepath.Join(out, "coverage.md"))
	for _, w := range []string{"21 tasks: **13 fully** (62%), 5 partly, 3 not imported.", "| compare_table | 4 | 2 | 1 | 1 |", "| download |", "| postconfig activate_window |"} {
		if !strings.Contains(string(md), w) {
			t.Errorf("coverage.md lacks %q:\n%s", w, md)
		}
	}
	var files struct {
		Files []struct{ Name, URL string }
	}
	raw, _ = os.ReadFile(filepath.Join(out, "files.json"))
	if err := json.Unmarshal(raw, &files); err != nil || len(files.Files) == 0 {
		t.Fatalf("files.json: %v, %d files", err, len(files.Files))
	}
}

func TestImportOtherPlatforms(t *testing.T) {
	for _, tc := range []struct {
		benchmark, src, platform string
		want                     map[string]string
	}{
		{"waa", "testdata/waa", "windows", map[string]string{"pcf-waa-note-WOS": Fully, "pcf-waa-night-WOS": NotImported}},
		{"macosworld", "testdata/macosworld", "macos", map[string]string{"pcf-mac-rename": Fully, "pcf-mac-lang": Fully, "pcf-mac-half": NotImported, "pcf-mac-popup": NotImported}},
	} {
		cov, out := importDir(t, tc.benchmark, tc.src)
		if diff := cmp.Diff(tc.want, statuses(cov)); diff != "" {
			t.Errorf("%s statuses (-want +got):\n%s", tc.benchmark, diff)
		}
		for _, task := range cov.Tasks {
			if task.Status == NotImported {
				continue
			}
			pl := parseClean(t, filepath.Join(out, task.File))
			if len(pl.Devices) != 1 || pl.Devices[0].Platform != tc.platform {
				t.Errorf("%s: devices %+v, want one %s device", task.ID, pl.Devices, tc.platform)
			}
			if off := pl.OffPlatform(plan.PlatformLinux); len(off) != 1 || !strings.Contains(off[0], "is "+tc.platform) {
				t.Errorf("OffPlatform(%s) = %q, want it to name %s", task.ID, off, tc.platform)
			}
			if task.Runnable {
				t.Errorf("%s: runnable on linux", task.ID)
			}
		}
		if _, _, diags := specs.ParseSuiteFile(filepath.Join(out, "suite.hcl")); diags.HasErrors() {
			t.Errorf("%s suite: %v", tc.benchmark, diags)
		}
	}
}

func TestImportBadJSON(t *testing.T) {
	src := t.TempDir()
	os.MkdirAll(filepath.Join(src, "os"), 0o755)
	os.WriteFile(filepath.Join(src, "os", "broken.json"), []byte("{\n  \"id\": \"broken\",\n  \"instruction\": \"x\",\n  \"config\": [,]\n}\n"), 0o644)
	_, err := Import(context.Background(), Options{Benchmark: "osworld", Src: src, Out: t.TempDir(), Files: testFiles})
	want := filepath.Join(src, "os", "broken.json") + ":4:14: "
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Import of broken JSON = %v, want an error at %s", err, want)
	}
	if _, err := Import(context.Background(), Options{Benchmark: "osworld", Src: src, Out: t.TempDir(), Files: "relative"}); err == nil {
		t.Errorf("Import with a relative files cache succeeded")
	}
	if _, err := Import(context.Background(), Options{Benchmark: "webarena", Src: src, Out: t.TempDir(), Files: testFiles}); err == nil || !strings.Contains(err.Error(), "osworld, waa, macosworld") {
		t.Errorf("Import of an unknown benchmark = %v", err)
	}
}

// evalCheck runs a check of a plan through the worker's own Check, as a
// device does (commands run here, files are read here).
func evalCheck(t *testing.T, ck plan.Check) bool {
	t.Helper()
	in, err := activities.NewCheckInput(ck, nil)
	if err != nil {
		t.Fatalf("check %s: %v", ck.Name, err)
	}
	r, err := (&activities.Activities{Device: fakedevice.New()}).Check(context.Background(), in)
	if err != nil {
		t.Fatalf("check %s: %v", ck.Name, err)
	}
	return r.Passed
}

// TestCarriedChecksOnEndStates imports tasks whose evaluators read files
// and command output in a folder of the test's own, and runs the checks
// written for them against a right and a wrong end state each.
func TestCarriedChecksOnEndStates(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(t.TempDir(), "bench")
	os.MkdirAll(filepath.Join(src, "os"), 0o755)
	write := func(name string, v any) {
		b, _ := json.Marshal(v)
		os.WriteFile(filepath.Join(src, "os", name+".json"), b, 0o644)
	}
	host, list := filepath.Join(dir, "host"), filepath.Join(dir, "todo.txt")
	write("exact", map[string]any{"id": "exact", "instruction": "Set the host name to lab-7.", "config": []any{},
		"evaluator": map[string]any{"func": "exact_match", "result": map[string]any{"type": "vm_command_line", "command": []string{"cat", host}},
			"expected": map[string]any{"type": "rule", "rules": map[string]any{"expected": "lab-7\n"}}}})
	write("include", map[string]any{"id": "include", "instruction": "Make the service report ok.", "config": []any{},
		"evaluator": map[string]any{"func": "check_include_exclude", "result": map[string]any{"type": "vm_command_line", "command": "cat " + host + "; exit 3", "shell": true},
			"expected": map[string]any{"type": "rule", "rules": map[string]any{"include": []string{"lab-7"}, "exclude": []string{"lab-8"}}}}})
	write("list", map[string]any{"id": "list", "instruction": "List what is left.", "config": []any{},
		"evaluator": map[string]any{"func": "check_list", "result": map[string]any{"type": "vm_file", "path": list, "dest": "todo.txt"},
			"expected": map[string]any{"type": "rule", "rules": map[string]any{"expect": []string{`^- call \d+ people$`}, "unexpect": []string{"DONE"}}}}})
	report := filepath.Join(dir, "report.txt")
	goldURL := "https://files.example.org/pcflow-fixtures/report_gold.txt"
	for name, opts := range map[string]map[string]any{"text": {}, "textblanks": {"ignore_blanks": true}} {
		write(name, map[string]any{"id": name, "instruction": "Write the report.", "config": []any{},
			"evaluator": map[string]any{"func": "compare_text_file", "result": map[string]any{"type": "vm_file", "path": report, "dest": "report.txt"},
				"expected": map[string]any{"type": "cloud_file", "path": goldURL, "dest": "report_gold.txt"}, "options": opts}})
	}
	cache, out := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(cache, cacheName(goldURL, "report_gold.txt")), []byte("total: 12\nnorth: 7\n"), 0o644)
	cov, err := Import(context.Background(), Options{Benchmark: "osworld", Src: src, Out: out, Files: cache})
	if err != nil {
		t.Fatal(err)
	}
	plans := map[string]*plan.Plan{}
	for _, tc := range cov.Tasks {
		if tc.Status != Fully {
			t.Fatalf("%s: %s %q, want fully", tc.ID, tc.Status, tc.Reasons)
		}
		plans[tc.ID] = parseClean(t, filepath.Join(out, tc.File))
	}
	passes := func(id string) bool {
		for _, ck := range plans[id].Checks {
			if !evalCheck(t, ck) {
				return false
			}
		}
		return true
	}
	for _, st := range []struct {
		name, host, list, report string
		exact, include           bool
		list_, text, blanks      bool
	}{
		{"right", "lab-7\n", "- book room\n- call 12 people\n", "total: 12\nnorth: 7\n", true, true, true, true, true},
		{"no trailing newline", "lab-7", "- call 3 people", "total:  12\n\tnorth: 7", false, true, true, false, true},
		{"wrong host", "lab-8\n", "- call 12 people and more\n", "total: 12\nnorth: 8\n", false, false, false, false, false},
		{"both hosts", "lab-7\nlab-8\n", "- call 12 people\nDONE\n", "Total: 12\nnorth: 7\n", false, false, false, false, false},
		{"missing", "", "", "", false, false, false, false, false},
	} {
		os.Remove(host)
		os.Remove(list)
		os.Remove(report)
		if st.host != "" {
			os.WriteFile(host, []byte(st.host), 0o644)
			os.WriteFile(list, []byte(st.list), 0o644)
			os.WriteFile(report, []byte(st.report), 0o644)
		}
		for id, want := range map[string]bool{"exact": st.exact, "include": st.include, "list": st.list_, "text": st.text, "textblanks": st.blanks} {
			if got := passes(id); got != want {
				t.Errorf("%s end state: task %s passes = %v, want %v", st.name, id, got, want)
			}
		}
	}
}

// TestTableChecksOnEndStates imports compare_table tasks whose result
// and reference workbooks the test writes (the reference in the files
// cache, under the name the import gives it), and runs their checks on a
// right and a wrong end state each.
func TestTableChecksOnEndStates(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	src := filepath.Join(t.TempDir(), "bench")
	os.MkdirAll(filepath.Join(src, "calc"), 0o755)
	result := filepath.Join(dir, "sales.xlsx")
	goldURL := "https://files.example.org/pcflow-fixtures/sales_gold.xlsx"
	rules := []any{
		map[string]any{"type": "sheet_data", "sheet_idx0": "RI0", "sheet_idx1": "EI0"},
		map[string]any{"type": "check_cell", "sheet_idx": "RNSales", "coordinate": "C2", "props": map[string]any{
			"value": map[string]any{"method": "approx:0.01", "ref": 30.0}, "font_bold": map[string]any{"method": "eq", "ref": true}}},
	}
	b, _ := json.Marshal(map[string]any{"id": "table", "instruction": "Total each row in column C, in bold.", "config": []any{},
		"evaluator": map[string]any{"func": "compare_table", "result": map[string]any{"type": "vm_file", "path": result, "dest": "sales.xlsx"},
			"expected": map[string]any{"type": "cloud_file", "path": goldURL, "dest": "sales_gold.xlsx"}, "options": map[string]any{"rules": rules}}})
	os.WriteFile(filepath.Join(src, "calc", "table.json"), b, 0o644)
	book := func(path string, c2 float64, bold bool) {
		t.Helper()
		f := excelize.NewFile()
		f.SetSheetName("Sheet1", "Sales")
		for i, row := range [][]any{{"A", "B", "Total"}, {10, 20, c2}, {1, 2, 3}} {
			cell, _ := excelize.CoordinatesToCellName(1, i+1)
			f.SetSheetRow("Sales", cell, &row)
		}
		if bold {
			st, _ := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
			f.SetCellStyle("Sales", "C2", "C2", st)
		}
		if err := f.SaveAs(path); err != nil {
			t.Fatal(err)
		}
	}
	book(filepath.Join(cache, cacheName(goldURL, "sales_gold.xlsx")), 30, true)
	out := t.TempDir()
	cov, err := Import(context.Background(), Options{Benchmark: "osworld", Src: src, Out: out, Files: cache})
	if err != nil || cov.Tasks[0].Status != Fully {
		t.Fatalf("Import = %v, %+v; want the task imported fully", err, cov.Tasks)
	}
	pl := parseClean(t, filepath.Join(out, cov.Tasks[0].File))
	for _, st := range []struct {
		name string
		c2   float64
		bold bool
		want bool
	}{
		{"right", 30, true, true},
		{"within precision", 30.00001, true, true},
		{"wrong total", 31, true, false},
		{"not bold", 30, false, false},
	} {
		book(result, st.c2, st.bold)
		got := true
		for _, ck := range pl.Checks {
			got = got && evalCheck(t, ck)
		}
		if got != st.want {
			t.Errorf("%s end state: checks pass = %v, want %v", st.name, got, st.want)
		}
	}
}

// TestMacOSWorldGrading runs the grading check written for a macOSWorld
// task: the first command giving 100 whose output holds true (any case)
// gives 100, as the harness grades by default; the check passes at 100
// only.
func TestMacOSWorldGrading(t *testing.T) {
	cov, out := importDir(t, "macosworld", "testdata/macosworld")
	var pl *plan.Plan
	for _, tc := range cov.Tasks {
		if tc.ID == "pcf-mac-rename" {
			pl = parseClean(t, filepath.Join(out, tc.File))
		}
	}
	ck := pl.Checks[0]
	for _, st := range []struct {
		name  string
		files []string
		score string
	}{
		{"renamed", []string{"final report.txt"}, "100"},
		{"copied", []string{"final report.txt", "report.txt"}, "0"}, // the 50-point command counts only in non-binary grading
		{"untouched", []string{"report.txt"}, "0"},
	} {
		home := t.TempDir()
		os.MkdirAll(filepath.Join(home, "Desktop"), 0o755)
		for _, f := range st.files {
			os.WriteFile(filepath.Join(home, "Desktop", f), []byte("x"), 0o644)
		}
		var argv []string
		for _, x := range ck.Argv {
			argv = append(argv, plan.ToString(x.Lit))
		}
		t.Setenv("HOME", home)
		cmd := exec.Command(argv[0], argv[1:]...)
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got := strings.TrimSpace(string(b)); got != st.score {
			t.Errorf("%s: score %s, want %s", st.name, got, st.score)
		}
		if pass := evalCheck(t, ck); pass != (st.score == "100") {
			t.Errorf("%s: check passes = %v at score %s", st.name, pass, st.score)
		}
	}
}

// TestHostileTaskFile: text from a task file (its id, its folder's name,
// its instruction, its window names) never becomes HCL of its own.
func TestHostileTaskFile(t *testing.T) {
	src := t.TempDir()
	domain := "os\ntask \"evil\" {"
	os.MkdirAll(filepath.Join(src, domain), 0o755)
	task := map[string]any{
		"id":          "x\n}\ntask \"evil\" {\n  instruction = \"pwn\"",
		"instruction": "Say ${var.files} and %{ if true }x%{ endif } \"\\\n# not a comment\x00",
		"config":      []any{map[string]any{"type": "activate_window", "parameters": map[string]any{"window_name": "a\"]\n(.*"}}},
		"evaluator": map[string]any{"func": "check_include_exclude", "result": map[string]any{"type": "vm_command_line", "command": "echo ${HOME}", "shell": true},
			"expected": map[string]any{"type": "rule", "rules": map[string]any{"include": []string{"${x}\""}}}},
	}
	b, _ := json.Marshal(task)
	os.WriteFile(filepath.Join(src, domain, "t.json"), b, 0o644)
	cov, out := importDir(t, "osworld", src)
	if len(cov.Tasks) != 1 || cov.Tasks[0].Status != Fully {
		t.Fatalf("tasks = %+v, want the one task imported fully", cov.Tasks)
	}
	pl := parseClean(t, filepath.Join(out, cov.Tasks[0].File))
	if pl.Instruction != task["instruction"] || pl.Task == "evil" {
		t.Errorf("plan %q with instruction %q, want the benchmark's instruction verbatim", pl.Task, pl.Instruction)
	}
	if strings.Contains(cov.Tasks[0].File, "..") {
		t.Errorf("file %q leaves the output folder", cov.Tasks[0].File)
	}
}

// TestMacOSWorldPrep: the pre_command is tried three times, and its
// failure fails the setup only with force_error_free_prep; the uppercase
// TRUE of a grading command counts.
func TestMacOSWorldPrep(t *testing.T) {
	cov, out := importDir(t, "macosworld", "testdata/macosworld")
	var pl *plan.Plan
	for _, tc := range cov.Tasks {
		if tc.ID == "pcf-mac-lang" {
			pl = parseClean(t, filepath.Join(out, tc.File))
		}
	}
	var argv []string
	for _, x := range pl.Setup[0].Command {
		argv = append(argv, plan.ToString(x.Lit))
	}
	if got := argv[len(argv)-2:]; !cmp.Equal(got, []string{"rm -rf ~/Desktop/Archive", "1"}) {
		t.Fatalf("setup command ends %q, want the English pre_command and force_error_free_prep", got)
	}
	dir := t.TempDir()
	counter := filepath.Join(dir, "tries")
	for _, tc := range []struct {
		cmd, strict string
		ok          bool
		tries       int
	}{
		{"echo x >> " + counter + "; false", "0", true, 3},
		{"echo x >> " + counter + "; false", "1", false, 3},
		{"echo x >> " + counter, "1", true, 1},
	} {
		os.Remove(counter)
		cmd := exec.Command(argv[0], append(append([]string{}, argv[1:len(argv)-2]...), tc.cmd, tc.strict)...)
		err := cmd.Run()
		b, _ := os.ReadFile(counter)
		if (err == nil) != tc.ok || strings.Count(string(b), "x") != tc.tries {
			t.Errorf("prep %q strict=%s: err %v after %d tries, want ok=%v after %d", tc.cmd, tc.strict, err, strings.Count(string(b), "x"), tc.ok, tc.tries)
		}
	}
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, "Desktop", "Archive"), 0o755)
	t.Setenv("HOME", home)
	if !evalCheck(t, pl.Checks[0]) {
		t.Errorf("grading of a right end state (a command printing TRUE) failed")
	}
	os.Remove(filepath.Join(home, "Desktop", "Archive"))
	if evalCheck(t, pl.Checks[0]) {
		t.Errorf("grading of a wrong end state passed")
	}
}

func TestPyautoguiKeys(t *testing.T) {
	for _, tc := range []struct {
		code string
		want []keyPress
		ok   bool
	}{
		{`import pyautogui; pyautogui.hotkey('ctrl', 's')`, []keyPress{{keys: []string{"ctrl", "s"}}}, true},
		{"import pyautogui\nimport time\npyautogui.hotkey(\"ctrl\", \"s\")\ntime.sleep(0.5)\npyautogui.press('enter')", []keyPress{{keys: []string{"ctrl", "s"}, sleep: 0.5}, {keys: []string{"enter"}}}, true},
		{`import pyautogui; pyautogui.typewrite('hello')`, nil, false},
		{`import pyautogui; import time; pyautogui.click(960, 540); time.sleep(0.5); pyautogui.hotkey('ctrl', 'alt', 't')`, []keyPress{{click: "960,540", sleep: 0.5}, {terminal: true}}, true},
		{`import pyautogui, os; os.system('rm -rf /'); pyautogui.press('enter')`, nil, false},
	} {
		got, ok := pyautoguiKeys([]string{"python", "-c", tc.code})
		if ok != tc.ok || !cmp.Equal(got, tc.want, cmp.AllowUnexported(keyPress{})) {
			t.Errorf("pyautoguiKeys(%q) = %+v, %v; want %+v, %v", tc.code, got, ok, tc.want, tc.ok)
		}
	}
}

func TestQuoteReadsBack(t *testing.T) {
	for _, s := range []string{`plain`, `a "quoted" \ path\n`, "tab\tline\nnext", "${HOME} and %{if x}", "$${x}", "ünïcode ✓ \x01\x7f"} {
		src := fmt.Sprintf("task \"t\" {\n  instruction = %s\n}\n", quote(s))
		res, diags := specs.Parse("q.hcl", []byte(src), specs.Options{})
		if diags.HasErrors() {
			t.Fatalf("quote(%q) = %s: %v", s, quote(s), diags)
		}
		if res.Plan.Instruction != s {
			t.Errorf("quote(%q) reads back as %q", s, res.Plan.Instruction)
		}
	}
}

// BenchmarkImport imports 340 tasks: the OSWorld fixtures copied 20 times
// under new ids.
func BenchmarkImport(b *testing.B) {
	src := b.TempDir()
	n := 0
	err := filepath.Walk("testdata/osworld/examples", func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		domain := filepath.Base(filepath.Dir(p))
		for i := 0; i < 20; i++ {
			id := fmt.Sprintf("%s-%02d", strings.TrimSuffix(filepath.Base(p), ".json"), i)
			os.MkdirAll(filepath.Join(src, domain), 0o755)
			if err := os.WriteFile(filepath.Join(src, domain, id+".json"), raw, 0o644); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Import(context.Background(), Options{Benchmark: "osworld", Src: src, Out: b.TempDir(), Files: testFiles}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n), "tasks/op")
}
