package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pcflow/pcflow/specs/plan"
)

// chromeTask writes an OSWorld task file of the test's own into src's
// chrome folder and imports the folder; it returns the plan of the task.
func chromeTask(t *testing.T, evaluator map[string]any) *plan.Plan {
	t.Helper()
	src, out := filepath.Join(t.TempDir(), "bench"), t.TempDir()
	os.MkdirAll(filepath.Join(src, "chrome"), 0o755)
	b, _ := json.Marshal(map[string]any{"id": "t1", "instruction": "Do it in Chrome.", "config": []any{}, "evaluator": evaluator})
	os.WriteFile(filepath.Join(src, "chrome", "t1.json"), b, 0o644)
	cov, err := Import(context.Background(), Options{Benchmark: "osworld", Src: src, Out: out, Files: testFiles})
	if err != nil || cov.Tasks[0].Status != Fully {
		t.Fatalf("Import = %v, %+v; want the task imported fully", err, cov.Tasks)
	}
	return parseClean(t, filepath.Join(out, cov.Tasks[0].File))
}

// chromeChecks runs the plan's checks with Chromium's profile folder and
// port replaced by the test's (the task names the device's: chromeProfile
// and chromePort); it reports whether all passed.
func chromeChecks(t *testing.T, pl *plan.Plan, profile, port string) bool {
	t.Helper()
	got := len(pl.Checks) > 0
	for _, ck := range pl.Checks {
		n := len(ck.Argv)
		if n < 2 || ck.Argv[n-2].Lit != chromeProfile || ck.Argv[n-1].Lit != chromePort {
			t.Fatalf("check %s: argv ends %v, want the profile %s and port %s", ck.Name, ck.Argv[n-2:], chromeProfile, chromePort)
		}
		argv := append(append([]plan.Expr{}, ck.Argv[:n-2]...), plan.Lit(profile), plan.Lit(port))
		ck.Argv = argv
		got = got && evalCheck(t, ck)
	}
	return got
}

// TestChromeProfileChecksOnEndStates imports tasks whose getters read
// Chrome's profile files (Preferences, Bookmarks) and runs their checks on
// a profile folder with the right and with a wrong end state.
func TestChromeProfileChecksOnEndStates(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Fatalf("python3 is needed on the device for Chrome's checks: %v", err)
	}
	rule := func(r map[string]any) map[string]any { return map[string]any{"type": "rule", "rules": r} }
	for _, tc := range []struct {
		name         string
		evaluator    map[string]any
		file         string
		right, wrong string
	}{{
		name: "search engine",
		evaluator: map[string]any{"func": "exact_match", "result": map[string]any{"type": "default_search_engine"},
			"expected": rule(map[string]any{"expected": "Bing"})},
		file:  "Default/Preferences",
		right: `{"default_search_provider_data": {"template_url_data": {"short_name": "Bing"}}}`,
		wrong: `{"profile": {"name": "Bing"}}`,
	}, {
		// An or of two functions is one check passing at the best score.
		name: "search engine, or",
		evaluator: map[string]any{"func": []string{"exact_match", "exact_match"}, "conj": "or",
			"result":   []any{map[string]any{"type": "default_search_engine"}, map[string]any{"type": "default_search_engine"}},
			"expected": []any{rule(map[string]any{"expected": "Bing"}), rule(map[string]any{"expected": "DuckDuckGo"})}},
		file:  "Default/Preferences",
		right: `{"default_search_provider_data": {"template_url_data": {"short_name": "DuckDuckGo"}}}`,
		wrong: `{"default_search_provider_data": {"template_url_data": {"short_name": "Yahoo"}}}`,
	}, {
		name: "do not track",
		evaluator: map[string]any{"func": "exact_match", "result": map[string]any{"type": "enable_do_not_track"},
			"expected": rule(map[string]any{"expected": "true"})},
		file:  "Default/Preferences",
		right: `{"enable_do_not_track": true}`,
		wrong: `{"enable_do_not_track": false}`,
	}, {
		name: "font size",
		evaluator: map[string]any{"func": "check_font_size", "result": map[string]any{"type": "chrome_font_size"},
			"expected": rule(map[string]any{"type": "range", "min": 16, "max": 99999})},
		file:  "Default/Preferences",
		right: `{"webkit": {"webprefs": {"default_font_size": 20}}}`,
		wrong: `{"webkit": {}}`, // Chrome's default, 16, is not above 16
	}, {
		name: "bookmark folders",
		evaluator: map[string]any{"func": "is_expected_bookmarks", "result": map[string]any{"type": "bookmarks"},
			"expected": rule(map[string]any{"type": "bookmark_bar_folders_names", "names": []string{"Favorites", "Work"}})},
		file:  "Default/Bookmarks",
		right: `{"roots": {"bookmark_bar": {"children": [{"type": "folder", "name": "Work", "children": []}, {"type": "url", "name": "x", "url": "https://x.example/"}, {"type": "folder", "name": "Favorites", "children": []}]}}}`,
		wrong: `{"roots": {"bookmark_bar": {"children": [{"type": "folder", "name": "Favorites", "children": []}]}}}`,
	}, {
		name: "experiments",
		evaluator: map[string]any{"func": "check_enabled_experiments", "result": map[string]any{"type": "enabled_experiments"},
			"expected": rule(map[string]any{"type": "names", "names": []string{"a-flag", "b-flag"}})},
		file:  "Local State",
		right: `{"browser": {"enabled_labs_experiments": ["a-flag@1", "b-flag"]}}`,
		wrong: `{"browser": {"enabled_labs_experiments": ["b-flag", "a-flag@1"]}}`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			pl := chromeTask(t, tc.evaluator)
			for _, st := range []struct {
				name, body string
				want       bool
			}{{"right", tc.right, true}, {"wrong", tc.wrong, false}, {"no file", "", false}} {
				profile := t.TempDir()
				if st.body != "" {
					os.MkdirAll(filepath.Join(profile, filepath.Dir(tc.file)), 0o755)
					os.WriteFile(filepath.Join(profile, tc.file), []byte(st.body), 0o644)
				}
				if got := chromeChecks(t, pl, profile, "9"); got != st.want {
					t.Errorf("%s end state (%s = %s): checks pass = %v, want %v", st.name, tc.file, st.body, got, st.want)
				}
			}
		})
	}
}

// TestChromeTabChecksOnEndStates imports a task whose getters read the
// active tab's URL and runs its checks against a real Chromium (headless,
// with remote debugging) showing the expected page and another page.
func TestChromeTabChecksOnEndStates(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium is needed for this test: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "<title>%s</title><p>%s</p>", r.URL.Path, r.URL.Path)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	site := "http://" + ln.Addr().String()

	rule := func(r map[string]any) map[string]any { return map[string]any{"type": "rule", "rules": r} }
	pl := chromeTask(t, map[string]any{
		"func": []string{"is_expected_active_tab", "is_expected_url_pattern_match", "check_direct_json_object"}, "conj": "and",
		"result": []any{map[string]any{"type": "active_url_from_accessTree", "goto_prefix": "http://"},
			map[string]any{"type": "active_tab_info", "goto_prefix": "http://"},
			map[string]any{"type": "active_tab_info", "goto_prefix": "http://"}},
		"expected": []any{rule(map[string]any{"type": "url", "url": site + "/flights/right"}),
			rule(map[string]any{"expected": []string{"/flights/", "right$"}}),
			rule(map[string]any{"expected": map[string]any{"title": "/flights/right"}})},
	})
	for _, st := range []struct {
		path string
		want bool
	}{{"/flights/right", true}, {"/flights/wrong", false}} {
		profile := t.TempDir()
		cmd := exec.Command(chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
			"--disable-background-networking", "--disable-dev-shm-usage", "--user-data-dir="+profile,
			"--remote-debugging-port=0", site+st.path)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		port := waitDevTools(t, profile, site+st.path)
		got := chromeChecks(t, pl, profile, port)
		cmd.Process.Kill()
		cmd.Wait()
		if got != st.want {
			t.Errorf("Chromium showing %s: checks pass = %v, want %v", st.path, got, st.want)
		}
	}
}

// waitDevTools waits for Chromium to write its remote debugging port into
// the profile and to list a tab showing url; it returns the port.
func waitDevTools(t *testing.T, profile, url string) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	port, last := "", ""
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort")); err == nil && port == "" {
			port = strings.SplitN(string(b), "\n", 2)[0]
		}
		if port != "" {
			resp, err := http.Get("http://127.0.0.1:" + port + "/json/list")
			if err == nil {
				var tabs []struct{ Type, URL string }
				json.NewDecoder(resp.Body).Decode(&tabs)
				resp.Body.Close()
				last = fmt.Sprint(tabs)
				for _, tab := range tabs {
					if tab.Type == "page" && tab.URL == url {
						return port
					}
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("waited 60s for Chromium (profile %s) to list a tab showing %s; port %q, tabs %s", profile, url, port, last)
	return ""
}

// TestChromeCloseTabsAndHistory imports Chrome tasks whose setup closes a
// tab (chrome_close_tabs, against a real headless Chromium) or writes the
// browsing history (update_browse_history, into a profile folder of the
// test's), runs those steps, and runs the checks (is_expected_tabs,
// check_history_deleted) on right and wrong end states.
func TestChromeCloseTabsAndHistory(t *testing.T) {
	rule := func(r map[string]any) map[string]any { return map[string]any{"type": "rule", "rules": r} }
	setupArgv := func(t *testing.T, pl *plan.Plan, step string) []string {
		t.Helper()
		for _, s := range pl.Setup {
			if strings.HasSuffix(s.Name, step) {
				return lits(s.Command)
			}
		}
		t.Fatalf("no setup step %s in %+v", step, pl.Setup)
		return nil
	}

	t.Run("close tabs", func(t *testing.T) {
		chromium, err := exec.LookPath("chromium")
		if err != nil {
			t.Fatalf("chromium is needed for this test: %v", err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprintf(w, "<title>%s</title>", r.URL.Path) })}
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
		site := "http://" + ln.Addr().String()
		pl := importTask(t, "chrome", map[string]any{
			"config": []any{map[string]any{"type": "chrome_close_tabs", "parameters": map[string]any{"urls_to_close": []string{site + "/b"}}}},
			"evaluator": map[string]any{"func": "is_expected_tabs", "result": map[string]any{"type": "open_tabs_info"},
				"expected": rule(map[string]any{"type": "url", "urls": []string{site + "/a"}})}})
		closeTabs := setupArgv(t, pl, "chrome_close_tabs")
		for _, st := range []struct {
			name  string
			close bool
			want  bool
		}{{"closed", true, true}, {"left open", false, false}} {
			profile := t.TempDir()
			cmd := exec.Command(chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
				"--disable-background-networking", "--disable-dev-shm-usage", "--user-data-dir="+profile,
				"--remote-debugging-port=0", site+"/a")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			port := waitDevTools(t, profile, site+"/a")
			// Headless Chromium opens one URL: the second tab through the
			// debugging port.
			req, _ := http.NewRequest(http.MethodPut, "http://127.0.0.1:"+port+"/json/new?"+site+"/b", nil)
			if resp, err := http.DefaultClient.Do(req); err != nil {
				t.Fatalf("open a second tab: %v", err)
			} else {
				resp.Body.Close()
			}
			waitDevTools(t, profile, site+"/b")
			if st.close {
				argv := append(append([]string{}, closeTabs[:len(closeTabs)-1]...), port)
				if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
					t.Fatalf("chrome_close_tabs %q: %v\n%s", argv, err, out)
				}
			}
			got := chromeChecks(t, pl, profile, port)
			cmd.Process.Kill()
			cmd.Wait()
			if got != st.want {
				t.Errorf("tab %s: checks pass = %v, want %v", st.name, got, st.want)
			}
		}
	})

	t.Run("history", func(t *testing.T) {
		cache := t.TempDir()
		template := filepath.Join(cache, cacheName(historyTemplate, "history_new.sqlite"))
		schema := "import sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\n" +
			"c.execute('create table urls (id integer primary key, url text, title text, visit_count int, typed_count int, last_visit_time int, hidden int)')\n" +
			"c.execute('create table visits (id integer primary key, url int, visit_time int, from_visit int, transition int, segment_id int, visit_duration int)')\nc.commit()\n"
		if out, err := exec.Command("python3", "-c", schema, template).CombinedOutput(); err != nil {
			t.Fatalf("make the template: %v\n%s", err, out)
		}
		src, out := filepath.Join(t.TempDir(), "bench"), t.TempDir()
		os.MkdirAll(filepath.Join(src, "chrome"), 0o755)
		b, _ := json.Marshal(map[string]any{"id": "t1", "instruction": "Delete what I watched on YouTube.",
			"config": []any{map[string]any{"type": "update_browse_history", "parameters": map[string]any{"history": []any{
				map[string]any{"url": "https://www.youtube.com/watch?v=1", "title": "A video", "visit_time_from_now_in_seconds": 3600},
				map[string]any{"url": "https://news.example.org/", "title": "News", "visit_time_from_now_in_seconds": 60}}}}},
			"evaluator": map[string]any{"func": "check_history_deleted", "result": map[string]any{"type": "history", "dest": "history.sqlite"},
				"expected": rule(map[string]any{"type": "keywords", "keywords": []string{"youtube"}})}})
		os.WriteFile(filepath.Join(src, "chrome", "t1.json"), b, 0o644)
		cov, err := Import(context.Background(), Options{Benchmark: "osworld", Src: src, Out: out, Files: cache})
		if err != nil || cov.Tasks[0].Status != Fully {
			t.Fatalf("Import = %v, %+v; want the task imported fully", err, cov.Tasks)
		}
		pl := parseClean(t, filepath.Join(out, cov.Tasks[0].File))
		argv := setupArgv(t, pl, "update_browse_history")
		for _, st := range []struct {
			name, sql string
			want      bool
		}{{"deleted", "delete from urls where url like '%youtube%'", true}, {"kept", "select 1", false}} {
			profile := t.TempDir()
			history := filepath.Join(profile, "Default", "History")
			run := append([]string{}, argv...)
			run[len(run)-2] = history // the device's profile: the test's
			if out, err := exec.Command(run[0], run[1:]...).CombinedOutput(); err != nil {
				t.Fatalf("update_browse_history: %v\n%s", err, out)
			}
			if out, err := exec.Command("python3", "-c", "import sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\nc.execute(sys.argv[2])\nc.commit()\n", history, st.sql).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", st.sql, err, out)
			}
			if got := chromeChecks(t, pl, profile, "9"); got != st.want {
				t.Errorf("history %s: checks pass = %v, want %v", st.name, got, st.want)
			}
		}
	})

	t.Run("shortcut", func(t *testing.T) {
		pl := importTask(t, "chrome", map[string]any{"evaluator": map[string]any{"func": "is_shortcut_on_desktop",
			"result": map[string]any{"type": "shortcuts_on_desktop"}, "expected": rule(map[string]any{"type": "name", "name": "Play 2048"})}})
		home := t.TempDir()
		ck := retarget(t, pl.Checks[0], `"home":"`+osworldHome+`"`, `"home":"`+home+`"`)
		for _, st := range []struct {
			name, body string
			want       bool
		}{{"right", "[Desktop Entry]\nName=Play 2048\nExec=chromium\n", true}, {"wrong", "[Desktop Entry]\nName=Play 2048 now\n", false}} {
			os.MkdirAll(filepath.Join(home, "Desktop"), 0o755)
			os.WriteFile(filepath.Join(home, "Desktop", "game.desktop"), []byte(st.body), 0o644)
			if got := evalCheck(t, ck); got != st.want {
				t.Errorf("%s shortcut: check passes = %v, want %v", st.name, got, st.want)
			}
		}
	})
}
