package importer

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestJSONChecksOnEndStates imports VS Code's check_json_settings and
// check_json_keybindings tasks and Thunderbird's check_thunderbird_prefs,
// and runs the checks written for them on a right and wrong end state
// each: settings with the value and others beside, or another value; a
// keybindings file (VS Code's comment line first) with the binding, or
// with it for another key; a prefs.js with the signature and filter
// preference, or with the unexpected one too.
func TestJSONChecksOnEndStates(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	src := filepath.Join(t.TempDir(), "bench")
	os.MkdirAll(filepath.Join(src, "vs_code"), 0o755)
	settings, keys, prefs := filepath.Join(dir, "settings.json"), filepath.Join(dir, "keybindings.json"), filepath.Join(dir, "prefs.js")
	for id, ev := range map[string]map[string]any{
		"settings": {"func": "check_json_settings", "result": map[string]any{"type": "vm_file", "path": settings, "dest": "settings.json"},
			"expected": map[string]any{"type": "rule", "rules": map[string]any{"expected": map[string]any{"files.autoSave": "afterDelay", "files.autoSaveDelay": 500}}}},
		"keys": {"func": "check_json_keybindings", "result": map[string]any{"type": "vm_file", "path": keys, "dest": "keybindings.json"},
			"expected": map[string]any{"type": "rule", "rules": map[string]any{"expected": map[string]any{"key": "ctrl+f", "command": "-list.find", "when": "listFocus && listSupportsFind"}}}},
		"prefs": {"func": "check_thunderbird_prefs", "result": map[string]any{"type": "vm_file", "path": prefs, "dest": "thunder-prefs.js"},
			"expected": map[string]any{"type": "rule", "rules": map[string]any{
				"expect": map[string]any{"mail.server.default.applyIncomingFilters": map[string]any{"method": "eq", "ref": true},
					"mail.identity.id1.htmlSigText": map[string]any{"method": "re.S", "ref": "Anonym.+XYZ Lab"}},
				"unexpect": map[string]any{"mail.server.default.autosync_offline_stores": map[string]any{"method": "eq", "ref": false}}}}},
	} {
		b, _ := json.Marshal(map[string]any{"id": id, "instruction": "Change the setting.", "config": []any{}, "evaluator": ev})
		os.WriteFile(filepath.Join(src, "vs_code", id+".json"), b, 0o644)
	}
	cov, err := Import(context.Background(), Options{Benchmark: "osworld", Src: src, Out: out, Files: testFiles})
	if err != nil {
		t.Fatal(err)
	}
	if s := statuses(cov); s["settings"] != Fully || s["keys"] != Fully || s["prefs"] != Fully {
		t.Fatalf("statuses %v, want all fully", s)
	}
	passes := func(id string) bool {
		for _, tc := range cov.Tasks {
			if tc.ID == id {
				pl := parseClean(t, filepath.Join(out, tc.File))
				ok := len(pl.Checks) > 0
				for _, ck := range pl.Checks {
					ok = ok && evalCheck(t, ck)
				}
				return ok
			}
		}
		t.Fatalf("no task %s", id)
		return false
	}
	const comment = "// Place your key bindings in this file to override the defaults\n"
	const top = "// Mozilla User Preferences\n\n"
	for _, st := range []struct {
		name, settings, keys, prefs string
		want                        bool
	}{
		{"right", `{"editor.fontSize": 14, "files.autoSave": "afterDelay", "files.autoSaveDelay": 500}`,
			comment + `[{"key": "ctrl+f", "command": "-list.find", "when": "listFocus && listSupportsFind"}]`,
			top + `user_pref("mail.identity.id1.htmlSigText", "Anonym\nXYZ Lab");` + "\n" + `user_pref("mail.server.default.applyIncomingFilters", true);` + "\n", true},
		{"wrong", `{"files.autoSave": "onFocusChange", "files.autoSaveDelay": 500}`,
			comment + `[{"key": "ctrl+g", "command": "-list.find", "when": "listFocus && listSupportsFind"}]`,
			top + `user_pref("mail.identity.id1.htmlSigText", "Anonym\nXYZ Lab");` + "\n" + `user_pref("mail.server.default.applyIncomingFilters", true);` + "\n" +
				`user_pref("mail.server.default.autosync_offline_stores", false);` + "\n", false},
	} {
		os.WriteFile(settings, []byte(st.settings), 0o644)
		os.WriteFile(keys, []byte(st.keys), 0o644)
		os.WriteFile(prefs, []byte(st.prefs), 0o644)
		for _, id := range []string{"settings", "keys", "prefs"} {
			if got := passes(id); got != st.want {
				t.Errorf("%s end state: task %s passes = %v, want %v", st.name, id, got, st.want)
			}
		}
	}
}

// TestExtensionInstalledOnEndStates imports an is_extension_installed task
// whose command is OSWorld's own (a list with "|" and "grep" passed to ls
// as arguments, as the benchmark runs it without a shell) and runs its
// check with the file there and without it.
func TestExtensionInstalledOnEndStates(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	src := filepath.Join(t.TempDir(), "bench")
	os.MkdirAll(filepath.Join(src, "vs_code"), 0o755)
	b, _ := json.Marshal(map[string]any{"id": "ext", "instruction": "Save the file as test.py.", "config": []any{},
		"evaluator": map[string]any{"func": "is_extension_installed",
			"result":   map[string]any{"type": "vm_command_line", "command": []string{"ls", dir, "|", "grep", "test.py"}},
			"expected": map[string]any{"type": "rule", "rules": map[string]any{"type": "contain", "expected": "test.py"}}}})
	os.WriteFile(filepath.Join(src, "vs_code", "ext.json"), b, 0o644)
	cov, err := Import(context.Background(), Options{Benchmark: "osworld", Src: src, Out: out, Files: testFiles})
	if err != nil || cov.Tasks[0].Status != Fully {
		t.Fatalf("Import = %v, %+v; want the task imported fully", err, cov.Tasks)
	}
	pl := parseClean(t, filepath.Join(out, cov.Tasks[0].File))
	for _, st := range []struct {
		name string
		file bool
		want bool
	}{{"saved", true, true}, {"not saved", false, false}} {
		os.Remove(filepath.Join(dir, "test.py"))
		if st.file {
			os.WriteFile(filepath.Join(dir, "test.py"), []byte("print(1)\n"), 0o644)
		}
		got := len(pl.Checks) > 0
		for _, ck := range pl.Checks {
			got = got && evalCheck(t, ck)
		}
		if got != st.want {
			t.Errorf("%s end state: checks pass = %v, want %v", st.name, got, st.want)
		}
	}
}

// TestCSVOnEndStates imports a compare_csv task (strict, the default) and
// runs its check on end states: the reference's lines with Windows line
// ends, and a file with a trailing space in one line (the benchmark
// compares the lines as they are).
func TestCSVOnEndStates(t *testing.T) {
	dir, cache, out := t.TempDir(), t.TempDir(), t.TempDir()
	src := filepath.Join(t.TempDir(), "bench")
	os.MkdirAll(filepath.Join(src, "calc"), 0o755)
	result, goldURL := filepath.Join(dir, "out.csv"), "https://files.example.org/pcflow-fixtures/out_gold.csv"
	b, _ := json.Marshal(map[string]any{"id": "csv", "instruction": "Export the sheet as CSV.", "config": []any{},
		"evaluator": map[string]any{"func": "compare_csv", "result": map[string]any{"type": "vm_file", "path": result, "dest": "out.csv"},
			"expected": map[string]any{"type": "cloud_file", "path": goldURL, "dest": "out_gold.csv"}}})
	os.WriteFile(filepath.Join(src, "calc", "csv.json"), b, 0o644)
	os.WriteFile(filepath.Join(cache, cacheName(goldURL, "out_gold.csv")), []byte("name,total\nNorth,12\n"), 0o644)
	cov, err := Import(context.Background(), Options{Benchmark: "osworld", Src: src, Out: out, Files: cache})
	if err != nil || cov.Tasks[0].Status != Fully {
		t.Fatalf("Import = %v, %+v; want the task imported fully", err, cov.Tasks)
	}
	pl := parseClean(t, filepath.Join(out, cov.Tasks[0].File))
	for _, st := range []struct {
		name, body string
		want       bool
	}{{"CRLF", "name,total\r\nNorth,12\r\n", true}, {"trailing space", "name,total \nNorth,12\n", false}} {
		os.WriteFile(result, []byte(st.body), 0o644)
		got := len(pl.Checks) > 0
		for _, ck := range pl.Checks {
			got = got && evalCheck(t, ck)
		}
		if got != st.want {
			t.Errorf("%s end state: checks pass = %v, want %v", st.name, got, st.want)
		}
	}
}
