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
