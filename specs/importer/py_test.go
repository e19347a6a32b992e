package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/pcflow/pcflow/specs/plan"
)

// importTask writes one OSWorld task file of the test's own into a
// benchmark folder, imports it and returns its plan; it fails unless the
// task is imported fully.
func importTask(t *testing.T, domain string, task map[string]any) *plan.Plan {
	t.Helper()
	src, out := filepath.Join(t.TempDir(), "bench"), t.TempDir()
	os.MkdirAll(filepath.Join(src, domain), 0o755)
	task["id"], task["instruction"] = "t1", "Do the task."
	if task["config"] == nil {
		task["config"] = []any{}
	}
	b, _ := json.Marshal(task)
	os.WriteFile(filepath.Join(src, domain, "t1.json"), b, 0o644)
	cov, err := Import(context.Background(), Options{Benchmark: "osworld", Src: src, Out: out, Files: testFiles})
	if err != nil || cov.Tasks[0].Status != Fully {
		t.Fatalf("Import = %v, %+v; want the task imported fully", err, cov.Tasks)
	}
	return parseClean(t, filepath.Join(out, cov.Tasks[0].File))
}

func lits(es []plan.Expr) []string {
	var ss []string
	for _, e := range es {
		s, _ := e.Lit.(string)
		ss = append(ss, s)
	}
	return ss
}

// TestStdoutCacheFileOnEndStates imports a task whose post-run command
// keeps its output in the harness's cache (stdout) and whose check_list
// reads it back (cache_file); it runs the command and the check (the
// cache folder moved into the test's) on a right end state, a wrong one,
// and one where the command fails (the harness keeps its output all the
// same, and the post-run goes on).
func TestStdoutCacheFileOnEndStates(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "docs")
	pl := importTask(t, "os", map[string]any{
		"evaluator": map[string]any{
			"postconfig": []any{map[string]any{"type": "command", "parameters": map[string]any{"command": []string{"ls", dir}, "stdout": "ls.out"}}},
			"func":       "check_list",
			"result":     map[string]any{"type": "cache_file", "path": "ls.out"},
			"expected":   map[string]any{"type": "rule", "rules": map[string]any{"expect": []string{`^report\.txt$`}}},
		}})
	if len(pl.PostRun) != 1 || len(pl.Checks) != 1 {
		t.Fatalf("post_run %+v, checks %+v; want one each", pl.PostRun, pl.Checks)
	}
	argv := lits(pl.PostRun[0].Command)
	if len(argv) < 4 || argv[3] != osworldCache+"/ls.out" {
		t.Fatalf("post_run command %q; want its output kept in %s/ls.out", argv, osworldCache)
	}
	for _, st := range []struct {
		name string
		file string
		want bool
	}{{"right", "report.txt", true}, {"wrong", "report.txt.bak", false}, {"no folder", "", false}} {
		cache := filepath.Join(t.TempDir(), "cache")
		os.RemoveAll(dir)
		if st.file != "" {
			os.MkdirAll(dir, 0o755)
			os.WriteFile(filepath.Join(dir, st.file), nil, 0o644)
		}
		argv[3] = filepath.Join(cache, "ls.out")
		if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s end state: post_run %q: %v\n%s", st.name, argv, err, out)
		}
		ck := pl.Checks[0]
		ck.Path = &plan.Expr{Kind: plan.ExprLit, Lit: argv[3]}
		if got := evalCheck(t, ck); got != st.want {
			t.Errorf("%s end state: check passes = %v, want %v", st.name, got, st.want)
		}
	}
}

// TestPythonFileMetricsOnEndStates imports check_csv and check_json
// (JSON and YAML) tasks and runs their checks, the benchmark's metric in
// python3, on right and wrong files.
func TestPythonFileMetricsOnEndStates(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, file   string
		evaluator    map[string]any
		right, wrong string
	}{{
		name: "check_csv",
		file: "accounts.csv",
		evaluator: map[string]any{"func": "check_csv", "expected": map[string]any{"type": "rule", "rules": map[string]any{
			"expect":   []any{map[string]any{"url": "imap://mail.example.org", "user": "ann"}},
			"unexpect": []any{map[string]any{"user": "bob"}}}}},
		right: "url,user,password\nimap://mail.example.org,ann,x\nsmtp://mail.example.org,ann,x\n",
		wrong: "url,user,password\nimap://mail.example.org,ann,x\nimap://mail.example.org,bob,y\n",
	}, {
		name: "check_json",
		file: "store.json",
		evaluator: map[string]any{"func": "check_json", "expected": map[string]any{"type": "rule", "rules": map[string]any{
			"expect":   []any{map[string]any{"key": []string{"tree", "mode"}, "method": "re.I", "ref": `\bsmart\b`}, map[string]any{"key": []string{"size"}, "method": "ge", "ref": 14}},
			"unexpect": []any{map[string]any{"key": []string{"hidden"}, "method": "eq", "ref": true}}}}},
		right: `{"tree": {"mode": "Smart folders"}, "size": 14}`,
		wrong: `{"tree": {"mode": "Smart folders"}, "size": 14, "hidden": true}`,
	}, {
		name: "check_json yaml",
		file: "_config.yml",
		evaluator: map[string]any{"func": "check_json", "options": map[string]any{"is_yaml": true}, "expected": map[string]any{"type": "rule", "rules": map[string]any{
			"expect": []any{map[string]any{"key": []string{"author", "name"}, "method": "eq", "ref": "Test Account"}}}}},
		right: "title: Site\nauthor:\n  name: Test Account\n",
		wrong: "title: Site\nauthor:\n  name: Someone\n",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.file)
			tc.evaluator["result"] = map[string]any{"type": "vm_file", "path": path, "dest": tc.file}
			pl := importTask(t, "multi_apps", map[string]any{"evaluator": tc.evaluator})
			for _, st := range []struct {
				name, body string
				want       bool
			}{{"right", tc.right, true}, {"wrong", tc.wrong, false}, {"missing", "", false}} {
				os.Remove(path)
				if st.body != "" {
					os.WriteFile(path, []byte(st.body), 0o644)
				}
				got := len(pl.Checks) > 0
				for _, ck := range pl.Checks {
					got = got && evalCheck(t, ck)
				}
				if got != st.want {
					t.Errorf("%s end state (%s):\n%s\nchecks pass = %v, want %v", st.name, tc.file, st.body, got, st.want)
				}
			}
		})
	}
}

// TestSheetPrintOnEndStates imports compare_table tasks over a workbook
// and its sheet printed as CSV (vm_file and cloud_file with multi, rules
// sheet_print by sheet name, and by index with ignore_case) and runs the
// check on right and wrong end states: the printed lines compared as the
// benchmark does, stripped and without trailing blank lines.
func TestSheetPrintOnEndStates(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	base := "https://files.example.org/pcflow-fixtures/"
	book := func(path string) {
		t.Helper()
		f := excelize.NewFile()
		f.SetSheetName("Sheet1", "Rates")
		f.SetSheetRow("Rates", "A1", &[]any{"Name", "Rate"})
		if err := f.SaveAs(path); err != nil {
			t.Fatal(err)
		}
	}
	book(filepath.Join(cache, cacheName(base+"rates_gold.xlsx", "rates_gold.xlsx")))
	os.WriteFile(filepath.Join(cache, cacheName(base+"rates_gold-Rates.csv", "rates_gold-Rates.csv")), []byte("Name,Rate\nNorth,12.50%\n"), 0o644)
	result, printed := filepath.Join(dir, "rates.xlsx"), filepath.Join(dir, "rates-Rates.csv")
	for _, tc := range []struct {
		name string
		rule map[string]any
	}{
		{"by name", map[string]any{"type": "sheet_print", "sheet_idx0": "RNRates", "sheet_idx1": "ENRates"}},
		{"by index", map[string]any{"type": "sheet_print", "sheet_idx0": 0, "sheet_idx1": "EI0", "ignore_case": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, out := filepath.Join(t.TempDir(), "bench"), t.TempDir()
			os.MkdirAll(filepath.Join(src, "calc"), 0o755)
			b, _ := json.Marshal(map[string]any{"id": "print", "instruction": "Show the rates as percentages.", "config": []any{},
				"evaluator": map[string]any{"func": "compare_table",
					"result":   map[string]any{"type": "vm_file", "multi": true, "path": []string{result, printed}, "dest": []string{"rates.xlsx", "rates-Rates.csv"}},
					"expected": map[string]any{"type": "cloud_file", "multi": true, "path": []string{base + "rates_gold.xlsx", base + "rates_gold-Rates.csv"}, "dest": []string{"rates_gold.xlsx", "rates_gold-Rates.csv"}},
					"options":  map[string]any{"rules": []any{tc.rule}}}})
			os.WriteFile(filepath.Join(src, "calc", "print.json"), b, 0o644)
			cov, err := Import(context.Background(), Options{Benchmark: "osworld", Src: src, Out: out, Files: cache})
			if err != nil || cov.Tasks[0].Status != Fully {
				t.Fatalf("Import = %v, %+v; want the task imported fully", err, cov.Tasks)
			}
			pl := parseClean(t, filepath.Join(out, cov.Tasks[0].File))
			for _, st := range []struct {
				name, csv  string
				book, want bool
			}{
				{"same lines, spaces and a blank line at the end", " Name,Rate\nNorth,12.50% \n\n", true, true},
				{"a value printed otherwise", "Name,Rate\nNorth,0.125\n", true, false},
				{"no workbook", "Name,Rate\nNorth,12.50%\n", false, false},
			} {
				os.Remove(result)
				if st.book {
					book(result)
				}
				os.WriteFile(printed, []byte(st.csv), 0o644)
				got := len(pl.Checks) > 0
				for _, ck := range pl.Checks {
					got = got && evalCheck(t, ck)
				}
				if got != st.want {
					t.Errorf("%s: checks pass = %v, want %v", st.name, got, st.want)
				}
			}
		})
	}
}

// retarget rewrites a Python check's argument: the paths and port the
// device has (the task's home, VLC's port) become the test's.
func retarget(t *testing.T, ck plan.Check, from, to string) plan.Check {
	t.Helper()
	argv := append([]plan.Expr{}, ck.Argv...)
	n := 0
	for i, a := range argv {
		if s, ok := a.Lit.(string); ok && strings.Contains(s, from) && strings.HasPrefix(s, "{") {
			argv[i] = plan.Lit(strings.ReplaceAll(s, from, to))
			n++
		}
	}
	if n != 1 {
		t.Fatalf("check %s: %d arguments name %s, want one", ck.Name, n, from)
	}
	ck.Argv = argv
	return ck
}

// TestVLCChecksOnEndStates imports VLC tasks (settings read from vlcrc,
// and the playing file read from VLC's HTTP interface, served here by a
// server that asks for VLC's password) and runs their checks on right
// and wrong end states.
func TestVLCChecksOnEndStates(t *testing.T) {
	rule := func(r map[string]any) map[string]any { return map[string]any{"type": "rule", "rules": r} }
	vlcrc := func(lines ...string) string { return "[qt]\n" + strings.Join(lines, "\n") + "\n" }
	for _, tc := range []struct {
		name         string
		evaluator    map[string]any
		right, wrong string
	}{
		{"max volume", map[string]any{"func": "check_qt_max_volume", "expected": rule(map[string]any{"expected_qt_max_volume": 200})},
			vlcrc("#qt-max-volume=125", "qt-max-volume=200"), vlcrc("#qt-max-volume=125", "qt-max-volume=150")},
		{"recordings", map[string]any{"func": "is_vlc_recordings_folder", "expected": rule(map[string]any{"recording_file_path": "/home/user/Desktop"})},
			vlcrc("#input-record-path=", "input-record-path=/home/user/Desktop"), vlcrc("input-record-path=/home/user/Videos")},
		{"global play/pause", map[string]any{"func": "check_global_key_play_pause", "expected": rule(map[string]any{"expected_global_key_play_pause": 1})},
			vlcrc("global-key-play-pause=Media Play Pause"), vlcrc("global-key-play-pause=")},
		{"blackish slider", map[string]any{"func": "check_qt_slider_colours", "expected": rule(map[string]any{"type": "blackish"})},
			vlcrc("qt-slider-colours=0;0;0;20;20;20;30;30;30;40;40;40"), vlcrc("qt-slider-colours=0;0;0;20;20;20;30;30;30;140;40;40")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			tc.evaluator["result"] = map[string]any{"type": "vlc_config", "dest": "vlcrc"}
			pl := importTask(t, "vlc", map[string]any{"evaluator": tc.evaluator})
			ck := retarget(t, pl.Checks[0], osworldHome+"/.config", home+"/.config")
			for _, st := range []struct {
				name, body string
				want       bool
			}{{"right", tc.right, true}, {"wrong", tc.wrong, false}, {"no vlcrc", "", false}} {
				os.RemoveAll(filepath.Join(home, ".config"))
				if st.body != "" {
					os.MkdirAll(filepath.Join(home, ".config", "vlc"), 0o755)
					os.WriteFile(filepath.Join(home, ".config", "vlc", "vlcrc"), []byte(st.body), 0o644)
				}
				if got := evalCheck(t, ck); got != st.want {
					t.Errorf("%s vlcrc:\n%s\ncheck passes = %v, want %v", st.name, st.body, got, st.want)
				}
			}
		})
	}

	t.Run("playing", func(t *testing.T) {
		pl := importTask(t, "vlc", map[string]any{"evaluator": map[string]any{"func": "is_vlc_playing",
			"result":   map[string]any{"type": "vlc_playing_info", "dest": "status.xml"},
			"expected": rule(map[string]any{"type": "file_name", "file_name": "song.mp3"})}})
		status := ""
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if _, pw, ok := r.BasicAuth(); !ok || pw != "password" || r.URL.Path != "/requests/status.xml" {
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			fmt.Fprint(w, status)
		}))
		defer srv.Close()
		port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
		ck := retarget(t, pl.Checks[0], `"port":8080`, `"port":`+port)
		xml := func(state, file string) string {
			return `<?xml version="1.0" encoding="utf-8"?><root><state>` + state + `</state><information><category name="meta"><info name="filename">` + file + `</info></category></information></root>`
		}
		for _, st := range []struct {
			name, status string
			want         bool
		}{{"playing it", xml("playing", "/home/user/Music/song.mp3"), true}, {"paused", xml("paused", "/home/user/Music/song.mp3"), false},
			{"playing another", xml("playing", "/home/user/Music/other.mp3"), false}} {
			status = st.status
			if got := evalCheck(t, ck); got != st.want {
				t.Errorf("%s: check passes = %v, want %v", st.name, got, st.want)
			}
		}
	})
}

// TestPythonMetricsOnEndStates imports tasks whose metrics run as the
// benchmark's Python on the device (a SQL query of a database, Thunderbird's
// filters, check_list with a pattern RE2 does not read, a result compared
// with a reference of the cache, a command's errors, a command's JSON
// output) and runs each check on a right and a wrong end state.
func TestPythonMetricsOnEndStates(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	data := filepath.Join(dir, "data")
	rule := func(r map[string]any) map[string]any { return map[string]any{"type": "rule", "rules": r} }
	file := map[string]any{"type": "vm_file", "path": data, "dest": "data"}
	goldURL := "https://files.example.org/pcflow-fixtures/answer_gold.txt"
	os.WriteFile(filepath.Join(cache, cacheName(goldURL, "answer_gold.txt")), []byte("42.0\n"), 0o644)
	sqlite := func(rows ...string) func(t *testing.T) {
		return func(t *testing.T) {
			script := "import sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\nc.execute('create table messages (id int, folder int)')\n" +
				"for r in sys.argv[2:]:\n    c.execute('insert into messages values (?, ?)', (int(r), 13))\nc.commit()\n"
			if out, err := exec.Command("python3", append([]string{"-c", script, data}, rows...)...).CombinedOutput(); err != nil {
				t.Fatalf("make the database: %v\n%s", err, out)
			}
		}
	}
	text := func(s string) func(t *testing.T) {
		return func(t *testing.T) { os.WriteFile(data, []byte(s), 0o644) }
	}
	// With no file, cat's error holds no "Error:": the benchmark's metric
	// passes it.
	missingPasses := map[string]bool{"check_include_exclude of errors": true}
	filters := func(action string) string {
		return "version=\"9\"\nlogging=\"no\"\nname=\"Promotions\"\nenabled=\"yes\"\ntype=\"17\"\naction=\"" + action +
			"\"\nactionValue=\"mailbox://nobody@Local%20Folders/Promotions\"\ncondition=\"AND (subject,contains,discount)\"\n"
	}
	for _, tc := range []struct {
		name         string
		evaluator    map[string]any
		right, wrong func(t *testing.T)
	}{
		{"run_sqlite3", map[string]any{"func": "run_sqlite3", "result": file,
			"expected": rule(map[string]any{"sql": "select sum(1) > 0 from messages where folder = 13"})}, sqlite("1", "2"), sqlite()},
		{"check_thunderbird_filter", map[string]any{"func": "check_thunderbird_filter", "result": file,
			"expected": rule(map[string]any{"expect": []any{map[string]any{"enabled": "yes", "action": "Move to folder",
				"actionValue": "mailbox://nobody@Local%20Folders/Promotions", "condition": []string{"AND (subject,contains,discount)"}}}})},
			text(filters("Move to folder")), text(filters("Copy to folder"))},
		{"check_list, Python's pattern", map[string]any{"func": "check_list", "result": file,
			"expected": rule(map[string]any{"expect": []string{`\bCOMPANY\.msf\b`, `\bCOMPANY/?(?!\.msf)`}})},
			text("COMPANY\nCOMPANY.msf\n"), text("COMPANY.msf\n")},
		{"compare_result_files", map[string]any{"func": "compare_result_files", "result": file,
			"expected": map[string]any{"type": "cloud_file", "path": goldURL, "dest": "answer_gold.txt"}},
			text("The answer is 42.0\n"), text("41\n")},
		{"check_include_exclude of errors", map[string]any{"func": "check_include_exclude",
			"result":   map[string]any{"type": "vm_command_error", "command": []string{"sh", "-c", "cat " + data + " >&2; echo Error: on stdout"}},
			"expected": rule(map[string]any{"include": []string{}, "exclude": []string{"Error:"}})},
			text("imported\n"), text("Error: no module\n")},
		{"check_direct_json_object of a command", map[string]any{"func": "check_direct_json_object",
			"result":   map[string]any{"type": "vm_command_line", "command": "cat " + data, "shell": "true"},
			"expected": rule(map[string]any{"expected": map[string]any{"peak": []string{"Everest"}}})},
			text("{'peak': ['Everest'], 'other': 1}\n"), text("{'peak': ['K2']}\n")},
		{"compare_config", map[string]any{"func": "compare_config", "result": file,
			"expected": rule(map[string]any{"expected": "{\"workbench.colorTheme\": \"Visual Studio Dark\"}\n"})},
			text("{\"workbench.colorTheme\": \"Visual Studio Dark\"}\n"), text("{\"workbench.colorTheme\": \"Visual Studio Dark\"}")},
		{"check_moved_jpgs", map[string]any{"func": "check_moved_jpgs", "result": map[string]any{"type": "list_directory", "path": data},
			"expected": rule(map[string]any{"expected": []string{"a.jpg", "b.jpg"}})},
			func(t *testing.T) {
				os.MkdirAll(data, 0o755)
				os.WriteFile(filepath.Join(data, "b.jpg"), nil, 0o644)
				os.WriteFile(filepath.Join(data, "a.jpg"), nil, 0o644)
			},
			func(t *testing.T) {
				os.MkdirAll(data, 0o755)
				os.WriteFile(filepath.Join(data, "a.jpg"), nil, 0o644)
			}},
		{"is_utc_0", map[string]any{"func": "is_utc_0", "result": map[string]any{"type": "vm_command_line", "command": "cat " + data, "shell": true}},
			text("      Local time: Thu 2024-01-25 12:56:06 UTC\n  Universal time: Thu 2024-01-25 12:56:06 UTC\n        RTC time: Thu 2024-01-25 12:56:05\n       Time zone: Etc/UTC (UTC, +0000)\n"),
			text("      Local time: Thu 2024-01-25 13:56:06 CET\n  Universal time: Thu 2024-01-25 12:56:06 UTC\n        RTC time: Thu 2024-01-25 12:56:05\n       Time zone: Europe/Paris (CET, +0100)\n")},
		{"check_text_enlarged", map[string]any{"func": "check_text_enlarged", "result": map[string]any{"type": "vm_command_line", "command": []string{"cat", data}}},
			text("1.25\n"), text("1.0\n")},
		{"check_gnome_favorite_apps", map[string]any{"func": "check_gnome_favorite_apps", "result": map[string]any{"type": "vm_command_line", "command": []string{"cat", data}},
			"expected": rule(map[string]any{"expected": []string{"thunderbird.desktop", "vim.desktop"}})},
			text("['vim.desktop', 'thunderbird.desktop']\n"), text("['vim.desktop', 'thunderbird.desktop', 'gimp.desktop']\n")},
		{"check_direct_json_object, tomorrow", map[string]any{"func": "check_direct_json_object",
			"result": map[string]any{"type": "vm_command_line", "command": []string{"cat", data}},
			"expected": map[string]any{"type": "rule_relativeTime", "rules": map[string]any{"relativeTime": map[string]any{"from": "tomorrow"},
				"expected": map[string]any{"to": "VIE", "time": "{Year}-{Month0D}-{Day0D}"}}}},
			text(`{"to": "VIE", "time": "` + time.Now().AddDate(0, 0, 1).Format("2006-01-02") + `"}`),
			text(`{"to": "VIE", "time": "` + time.Now().Format("2006-01-02") + `"}`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, out := filepath.Join(t.TempDir(), "bench"), t.TempDir()
			os.MkdirAll(filepath.Join(src, "multi_apps"), 0o755)
			b, _ := json.Marshal(map[string]any{"id": "t1", "instruction": "Do the task.", "config": []any{}, "evaluator": tc.evaluator})
			os.WriteFile(filepath.Join(src, "multi_apps", "t1.json"), b, 0o644)
			cov, err := Import(context.Background(), Options{Benchmark: "osworld", Src: src, Out: out, Files: cache})
			if err != nil || cov.Tasks[0].Status != Fully {
				t.Fatalf("Import = %v, %+v; want the task imported fully", err, cov.Tasks)
			}
			pl := parseClean(t, filepath.Join(out, cov.Tasks[0].File))
			for _, st := range []struct {
				name  string
				state func(t *testing.T)
				want  bool
			}{{"right", tc.right, true}, {"wrong", tc.wrong, false}, {"missing", func(*testing.T) {}, missingPasses[tc.name]}} {
				os.RemoveAll(data)
				st.state(t)
				got := len(pl.Checks) == 1 && evalCheck(t, pl.Checks[0])
				if got != st.want {
					t.Errorf("%s end state: check passes = %v, want %v", st.name, got, st.want)
				}
			}
		})
	}
}
