package importer

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// step is one of OSWorld's config or postconfig steps.
type step struct {
	Type       string         `json:"type"`
	Parameters map[string]any `json:"parameters"`
}

// block is a setup or post_run block being written: its attribute and
// nested-block lines.
type block struct {
	kind, name string
	lines      []string
}

func (b block) render(sb *strings.Builder) {
	fmt.Fprintf(sb, "  %s %s {\n", b.kind, quote(b.name))
	for _, l := range b.lines {
		sb.WriteString("    " + l + "\n")
	}
	sb.WriteString("  }\n")
}

// setupConv converts a task's steps; downloads and gold files gather the
// cache's files the task needs.
type setupConv struct {
	platform  string
	kind      string // "setup" or "post_run"
	prefix    string // "c" or "p"
	blocks    []block
	reasons   []string // notes: what stands in for what
	approx    []string // what was approximated: the task is partly
	missing   []string // steps that cannot be carried
	downloads *[]Download
	// window is the window the last activate_window step named, for the
	// keys a following pyautogui step presses.
	window string
	// stdouts are the names of the harness's cache files that execute and
	// command steps write their output into (their stdout parameter).
	stdouts []string
}

// osworldCache is the folder on the device holding the output of the
// execute and command steps that name a stdout file: the harness's cache
// folder, which its cache_file getter reads.
const osworldCache = "/tmp/pcflow-task/osworld-cache"

// cacheFilePath is the device path of the harness's cache file name.
func cacheFilePath(name string) string {
	return osworldCache + "/" + strings.TrimLeft(notFileName.ReplaceAllString(path.Base(name), "_"), ".")
}

// chromiumFlags start Chromium as pcflow's devices run it, with OSWorld's
// remote debugging port (its getters and chrome_open_tabs use 9222).
var chromiumFlags = []string{"chromium", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
	"--disable-component-update", "--disable-sync", "--disable-quic", "--force-renderer-accessibility",
	"--disable-dev-shm-usage", "--user-data-dir=/tmp/pcflow-task/chromium", "--remote-debugging-port=9222"}

// vlcFlags turn VLC's HTTP interface on as OSWorld's machine has it.
var vlcFlags = []string{"--extraintf", "http", "--http-host", "127.0.0.1", "--http-port", "8080", "--http-password", "password"}

// cacheName is a downloaded file's name in the local cache: a digest of
// its URL (one URL, one file, whatever task needs it) and the name the
// task gives it.
func cacheName(url, dest string) string {
	sum := sha256.Sum256([]byte(url))
	base := path.Base(strings.ReplaceAll(dest, `\`, "/"))
	base = notFileName.ReplaceAllString(base, "_")
	return hex.EncodeToString(sum[:6]) + "-" + strings.TrimLeft(base, ".")
}

var notFileName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

func (c *setupConv) add(typ string, lines ...string) {
	c.blocks = append(c.blocks, block{kind: c.kind, name: fmt.Sprintf("%s%02d_%s", c.prefix, len(c.blocks)+1, ident("s_", typ)), lines: lines})
}

// convert carries each step; a step it cannot carry is named in missing.
func (c *setupConv) convert(steps []step) {
	for i, s := range steps {
		p := s.Parameters
		switch s.Type {
		case "download":
			c.download(p)
		case "launch":
			argv, ok := c.argv(p["command"], p["shell"])
			if !ok {
				c.missing = append(c.missing, fmt.Sprintf("%s step %d (launch): its command is not a list of strings or a string", c.kind, i+1))
				continue
			}
			if isChromeForward(argv) {
				c.reasons = append(c.reasons, "the socat forward of port 9222 to Chrome's is dropped: Chromium listens on 9222 itself")
				continue
			}
			argv = c.chrome(argv)
			if path.Base(argv[0]) == "vlc" {
				// The benchmark's machine has VLC's HTTP interface on (its
				// vlc_playing_info getter reads it); pcflow's devices
				// start VLC with it.
				argv = append(append([]string{argv[0]}, vlcFlags...), argv[1:]...)
				c.reasons = append(c.reasons, "VLC starts with its HTTP interface on 127.0.0.1:8080 (password \"password\"), as the benchmark's machine has it")
			}
			c.add("launch", "launch = "+list(quoteAll(argv)))
		case "open":
			file, _ := p["path"].(string)
			if file == "" {
				c.missing = append(c.missing, fmt.Sprintf("%s step %d (open): no path", c.kind, i+1))
				continue
			}
			c.add("open", "launch = "+list(quoteAll(openArgv(c.platform, file))), "wait_for_window = "+quote(regexp.QuoteMeta(stem(file))))
		case "execute", "command":
			argv, ok := c.argv(p["command"], p["shell"])
			if !ok {
				c.missing = append(c.missing, fmt.Sprintf("%s step %d (%s): its command is not a list of strings or a string", c.kind, i+1, s.Type))
				continue
			}
			if presses, ok := pyautoguiKeys(argv); ok {
				opensTerminal := false
				for _, pr := range presses {
					opensTerminal = opensTerminal || pr.terminal
				}
				for _, pr := range presses {
					lines := []string{}
					if pr.click != "" && opensTerminal {
						// The click focuses the desktop for GNOME's shortcut;
						// xterm's launch needs none.
						c.reasons = append(c.reasons, fmt.Sprintf("%s step %d: the click at (%s) that focuses the desktop before ctrl+alt+t is left out with it", c.kind, i+1, pr.click))
					} else if pr.click != "" {
						c.approx = append(c.approx, fmt.Sprintf("%s step %d: pyautogui's click at (%s), a point of the benchmark's 1920×1080 screen, is left out (pcflow's setup focuses the windows it opens and names)", c.kind, i+1, pr.click))
					}
					if pr.terminal {
						c.reasons = append(c.reasons, "xterm stands in for GNOME Terminal, which the benchmark opens with ctrl+alt+t")
						lines = append(lines, `launch = ["xterm"]`, `wait_for_window = "xterm"`)
					}
					if len(pr.keys) > 0 {
						w := ""
						if c.window != "" {
							w = "window = " + quote(c.window) + "\n      "
						}
						lines = append(lines, "press {", "  "+w+"keys = "+list(quoteAll(pr.keys)), "}")
					}
					if pr.sleep > 0 {
						lines = append(lines, "sleep = "+quote(seconds(pr.sleep)))
					}
					if len(lines) > 0 {
						c.add("keys", lines...)
					}
				}
				continue
			}
			if strings.Contains(strings.Join(argv, " "), "pyautogui") {
				c.missing = append(c.missing, fmt.Sprintf("%s step %d (%s) drives the screen with pyautogui beyond pressing keys (clicks at the benchmark's screen coordinates, typed text, GNOME shortcuts): pcflow's setup presses keys into named windows only", c.kind, i+1, s.Type))
				continue
			}
			if out, _ := p["stdout"].(string); out != "" {
				// The harness keeps the command's standard output in its
				// cache folder, whatever the command exits with.
				c.stdouts = append(c.stdouts, out)
				dest := cacheFilePath(out)
				argv = append([]string{"sh", "-c", `mkdir -p "$(dirname "$0")" && "$@" >"$0"; exit 0`, dest}, argv...)
			}
			c.add(s.Type, "command = "+list(quoteAll(argv)))
		case "sleep":
			secs, ok := number(p["seconds"])
			if !ok {
				c.missing = append(c.missing, fmt.Sprintf("%s step %d (sleep): seconds is not a number", c.kind, i+1))
				continue
			}
			c.add("sleep", "sleep = "+quote(seconds(secs)))
		case "activate_window":
			re, ok := c.windowRegex(p, i, s.Type)
			if !ok {
				continue
			}
			c.window = re
			// Shift alone types nothing: the press brings the window to
			// the front, as activate_window does.
			lines := []string{"press {", "  window = " + quote(re), "  keys   = [\"shift\"]", "}"}
			if c.kind == "setup" {
				// The benchmark's harness activates a window its launch
				// just opened: wait for it first (a first start of
				// LibreOffice's profile shows a splash for a minute on a
				// loaded machine). After the agent a window it closed is
				// skipped instead.
				lines = append([]string{"wait_for_window = " + quote(re), "wait_timeout    = \"3m\""}, lines...)
			}
			c.add("activate_window", lines...)
		case "close_window":
			re, ok := c.windowRegex(p, i, s.Type)
			if !ok {
				continue
			}
			c.add("close_window", "close_window = "+quote(re))
		case "chrome_open_tabs":
			urls := strings_(p["urls_to_open"])
			if len(urls) == 0 {
				c.missing = append(c.missing, fmt.Sprintf("%s step %d (chrome_open_tabs): no urls_to_open", c.kind, i+1))
				continue
			}
			c.reasons = append(c.reasons, "Chromium stands in for Google Chrome")
			c.add("chrome_open_tabs", "launch = "+list(quoteAll(append(append([]string{}, chromiumFlags...), urls...))))
		case "chrome_close_tabs":
			urls := strings_(p["urls_to_close"])
			if len(urls) == 0 {
				c.missing = append(c.missing, fmt.Sprintf("%s step %d (chrome_close_tabs): no urls_to_close", c.kind, i+1))
				continue
			}
			b, _ := json.Marshal(urls)
			c.add("chrome_close_tabs", "command = "+list(quoteAll([]string{"python3", "-c", closeTabsProgram, string(b), chromePort})))
		case "update_browse_history":
			items, _ := p["history"].([]any)
			b, err := json.Marshal(items)
			if len(items) == 0 || err != nil {
				c.missing = append(c.missing, fmt.Sprintf("%s step %d (update_browse_history): no history", c.kind, i+1))
				continue
			}
			name := cacheName(historyTemplate, "history_new.sqlite")
			*c.downloads = append(*c.downloads, Download{URL: historyTemplate, Name: name})
			c.add("update_browse_history", "command = "+list(append(quoteAll([]string{"python3", "-c", historyProgram, string(b), chromeProfile + "/Default/History"}), cached(name))))
		default:
			c.missing = append(c.missing, fmt.Sprintf("%s step %d (%s): pcflow has no such setup step", c.kind, i+1, s.Type))
		}
	}
}

// closeTabsProgram is OSWorld's chrome_close_tabs: after 5 s, with the
// remote debugging port tried 15 times 5 s apart, each URL closes the
// first tab whose URL is the same (compare_urls: scheme and host in lower
// case, www. and a lone / path dropped). argv[1] is the URLs, argv[2] the
// port.
const closeTabsProgram = `import json, sys, time, urllib.request
from urllib.parse import urlparse, urlunparse
def norm(u):
    p = urlparse(u)
    return urlunparse(p._replace(scheme=(p.scheme or "http").lower(), netloc=p.netloc.lower().replace("www.", ""), path=p.path if p.path != "/" else ""))
base = "http://127.0.0.1:" + sys.argv[2]
time.sleep(5)
for attempt in range(15):
    try:
        urllib.request.urlopen(base + "/json/version", timeout=10).read()
        break
    except Exception as e:
        if attempt == 14:
            sys.exit("chrome_close_tabs: no browser on %s: %s" % (base, e))
        time.sleep(5)
for url in json.loads(sys.argv[1]):
    with urllib.request.urlopen(base + "/json/list", timeout=10) as r:
        pages = [t for t in json.load(r) if t.get("type") == "page"]
    for t in pages:
        if norm(t["url"]) == norm(url):
            urllib.request.urlopen(base + "/json/close/" + t["id"], timeout=10).read()
            break
`

// historyTemplate is the empty Chrome history database OSWorld's
// update_browse_history fills.
const historyTemplate = "https://drive.usercontent.google.com/u/0/uc?id=1Lv74QkJYDWVX0RIgg0Co-DUcoYpVL0oX&export=download"

// historyProgram is OSWorld's update_browse_history: a copy of the
// template (argv[3]) with each visit added (its time that many seconds
// ago, in Chrome's microseconds since 1601) becomes the profile's History
// (argv[2]).
const historyProgram = `import json, os, shutil, sqlite3, sys, tempfile
from datetime import datetime, timedelta
fd, db = tempfile.mkstemp(suffix=".sqlite")
os.close(fd)
shutil.copyfile(sys.argv[3], db)
conn = sqlite3.connect(db)
for item in json.loads(sys.argv[1]):
    t = int(((datetime.now() - timedelta(seconds=item["visit_time_from_now_in_seconds"])) - datetime(1601, 1, 1)).total_seconds() * 1000000)
    cur = conn.execute("INSERT INTO urls (url, title, visit_count, typed_count, last_visit_time, hidden) VALUES (?, ?, ?, ?, ?, ?)", (item["url"], item["title"], 1, 0, t, 0))
    conn.execute("INSERT INTO visits (url, visit_time, from_visit, transition, segment_id, visit_duration) VALUES (?, ?, ?, ?, ?, ?)", (cur.lastrowid, t, 0, 805306368, 0, 0))
conn.commit()
conn.close()
os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True)
shutil.move(db, sys.argv[2])
`

// download copies each file from the local cache to its place; the
// cache's name for it is derived from its URL.
func (c *setupConv) download(p map[string]any) {
	files, _ := p["files"].([]any)
	var cmds []string
	for _, f := range files {
		m, _ := f.(map[string]any)
		url, _ := m["url"].(string)
		dest, _ := m["path"].(string)
		if url == "" || dest == "" {
			c.missing = append(c.missing, c.kind+" download: a file without url or path")
			continue
		}
		name := cacheName(url, dest)
		*c.downloads = append(*c.downloads, Download{URL: url, Name: name})
		cmds = append(cmds, list([]string{`"sh"`, `"-c"`, quote(`mkdir -p "$(dirname "$2")" && cp "$1" "$2"`), `"sh"`, cached(name), quote(dest)}))
	}
	if len(cmds) == 0 {
		c.missing = append(c.missing, c.kind+" download: no files")
		return
	}
	c.add("download", "commands = ["+strings.Join(cmds, ", ")+"]")
}

func (c *setupConv) windowRegex(p map[string]any, i int, typ string) (string, bool) {
	name, _ := p["window_name"].(string)
	if name == "" {
		c.missing = append(c.missing, fmt.Sprintf("%s step %d (%s): no window_name", c.kind, i+1, typ))
		return "", false
	}
	if strings.Contains(name, "Google Chrome") {
		name = strings.ReplaceAll(name, "Google Chrome", "Chromium")
		c.reasons = append(c.reasons, "Chromium stands in for Google Chrome")
	}
	re := regexp.QuoteMeta(name)
	if b, _ := p["strict"].(bool); b {
		re = "^" + re + "$"
	}
	if b, _ := p["by_class"].(bool); b {
		c.reasons = append(c.reasons, fmt.Sprintf("%s by window class %q is matched against window titles", typ, name))
	}
	return re, true
}

// argv reads a step's command: a list of strings, or a string (run by sh
// -c, as OSWorld's server runs it with shell=True or splits it).
func (c *setupConv) argv(cmd, shell any) ([]string, bool) {
	switch v := cmd.(type) {
	case string:
		if v == "" {
			return nil, false
		}
		if b, _ := shell.(bool); b || strings.ContainsAny(v, "|&;<>()$`\\\"'*?[]#~=%") {
			return []string{"sh", "-c", v}, true
		}
		return strings.Fields(v), true
	case []any:
		out := strings_(v)
		if len(out) != len(v) || len(out) == 0 {
			return nil, false
		}
		if b, _ := shell.(bool); b {
			return []string{"sh", "-c", strings.Join(out, " ")}, true
		}
		return out, true
	}
	return nil, false
}

// chrome makes a launch of Google Chrome one of Chromium, with its
// remote debugging on port 9222.
func (c *setupConv) chrome(argv []string) []string {
	if len(argv) == 0 || !strings.Contains(path.Base(argv[0]), "google-chrome") && path.Base(argv[0]) != "chromium" {
		return argv
	}
	c.reasons = append(c.reasons, "Chromium stands in for Google Chrome")
	out := append([]string{}, chromiumFlags...)
	for _, a := range argv[1:] {
		if strings.HasPrefix(a, "--remote-debugging-port") {
			continue
		}
		out = append(out, a)
	}
	return out
}

// isChromeForward tells OSWorld's socat forward of 9222 to Chrome's port.
func isChromeForward(argv []string) bool {
	return len(argv) > 1 && path.Base(argv[0]) == "socat" && strings.Contains(strings.Join(argv, " "), "9222")
}

func openArgv(platform, file string) []string {
	switch platform {
	case "windows":
		return []string{"cmd", "/c", "start", "", file}
	case "macos":
		return []string{"open", file}
	}
	switch strings.ToLower(path.Ext(file)) {
	case ".xlsx", ".xls", ".ods", ".csv", ".docx", ".doc", ".odt", ".rtf", ".pptx", ".ppt", ".odp":
		// What xdg-open opens them with on the benchmark's Ubuntu, started
		// directly: a desktop without a session's file associations opens
		// them the same.
		return []string{"soffice", file}
	}
	return []string{"xdg-open", file}
}

// stem is a path's file name without its extension: what the window
// that shows it has in its title.
func stem(p string) string {
	b := path.Base(strings.ReplaceAll(p, `\`, "/"))
	if i := strings.LastIndex(b, "."); i > 0 {
		b = b[:i]
	}
	return b
}

// keyPress is one thing a pyautogui setup script does: keys pressed
// together, a click at a point, or GNOME's ctrl+alt+t (open a terminal),
// then a sleep.
type keyPress struct {
	keys     []string
	click    string
	terminal bool
	sleep    float64
}

var (
	pyStmt   = regexp.MustCompile(`^(?:pyautogui\.(hotkey|press)\((.*)\)|time\.sleep\(([0-9.]+)\)|pyautogui\.click\((\s*\d+\s*,\s*\d+\s*)\)|import [a-z, ]+|from [a-z]+ import [a-z, ]+)$`)
	pyString = regexp.MustCompile(`^\s*(?:'([^'\\]*)'|"([^"\\]*)")\s*$`)
)

// pyautoguiKeys reads a `python -c "import pyautogui; …"` command that
// only presses keys and sleeps (OSWorld saves documents this way) as key
// presses, which pcflow's setup makes itself; ok is false for any other
// command.
func pyautoguiKeys(argv []string) ([]keyPress, bool) {
	if len(argv) != 3 || !strings.HasPrefix(path.Base(argv[0]), "python") || argv[1] != "-c" || !strings.Contains(argv[2], "pyautogui") {
		return nil, false
	}
	var out []keyPress
	for _, st := range regexp.MustCompile(`[;\n]`).Split(argv[2], -1) {
		st = strings.TrimSpace(st)
		if st == "" {
			continue
		}
		m := pyStmt.FindStringSubmatch(st)
		if m == nil {
			return nil, false
		}
		switch {
		case m[1] != "":
			var keys []string
			for _, a := range strings.Split(m[2], ",") {
				sm := pyString.FindStringSubmatch(a)
				if sm == nil {
					return nil, false
				}
				keys = append(keys, sm[1]+sm[2])
			}
			if m[1] == "press" && len(keys) != 1 {
				return nil, false
			}
			if strings.Join(keys, "+") == "ctrl+alt+t" {
				out = append(out, keyPress{terminal: true})
				continue
			}
			out = append(out, keyPress{keys: keys})
		case m[4] != "":
			out = append(out, keyPress{click: strings.ReplaceAll(m[4], " ", "")})
		case m[3] != "":
			f, err := strconv.ParseFloat(m[3], 64)
			if err != nil {
				return nil, false
			}
			if len(out) == 0 {
				out = append(out, keyPress{})
			}
			out[len(out)-1].sleep += f
		}
	}
	return out, len(out) > 0
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case string:
		f, err := strconv.ParseFloat(n, 64)
		return f, err == nil
	}
	return 0, false
}

// strings_ keeps the strings of a JSON list.
func strings_(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
