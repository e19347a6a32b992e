package importer

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Metrics run as the benchmark runs them. OSWorld's Chrome getters read
// Google Chrome's profile files and its remote debugging port (9222);
// pcflow's devices run Chromium with the profile in chromeProfile and the
// same port (chromiumFlags). Such a function, and a few metrics of a file
// written in plain Python (check_csv, check_json), become one command
// check: a Python program, run on the device with python3's standard
// library, that gets the value as the benchmark's getter does and scores
// it with the benchmark's metric, printing `value: JSON` and `score: S`.
// The check passes when S is 1.0.

// chromeProfile is Chromium's user data folder on a device, as
// chromiumFlags start it.
const chromeProfile = "/tmp/pcflow-task/chromium"

// chromePort is Chromium's remote debugging port on a device.
const chromePort = "9222"

// chromeScore is the output line of a Chrome check that passes.
const chromeScore = `(?m)^score: 1\.0$`

// chromeGetters are the getters carried, each the Python statements that
// set v as OSWorld's getter returns it. active() is the address bar's text
// after goto_prefix: the active tab's URL (Chromium's remote debugging
// port lists the most recently active tab first) without its scheme and
// www., as Chrome shows it; None on the New Tab page or with no tab.
var chromeGetters = map[string]string{
	"active_url_from_accessTree": `v = active()`,
	// The benchmark opens the URL again in a new tab and reads the page's
	// URL, title and content; pcflow gives the tab's URL and title
	// (chrome refuses a function that reads the content).
	"active_tab_info": `u = active()
v = {"url": u, "title": TITLE} if u is not None else None`,
	"active_tab_url_parse": `u = active()
if u is None:
    v = None
else:
    q = parse_qs(urlparse(u).query)
    v = {k: q.get(k, [''])[0] for k in G["parse_keys"]}
    for k, n in G.get("replace", {}).items():
        v[n] = v.pop(k)`,
	"url_dashPart": `u = active()
if u is None:
    v = None
else:
    part = u.split("/")[G["partIndex"]]
    if G["needDeleteId"]:
        part = part.split("?")[0]
    v = part if G["returnType"] == "string" else ({G["key"]: part} if G["returnType"] == "json" else None)`,
	"open_tabs_info":                  `v = tabs()`,
	"default_search_engine":           prefsGetter(`d.get('default_search_provider_data', {}).get('template_url_data', {}).get('short_name', 'Google')`, `"Google"`),
	"profile_name":                    prefsGetter(`d.get('profile', {}).get('name', None)`, `None`),
	"enable_do_not_track":             prefsGetter(`"true" if d.get('enable_do_not_track', {}) else "false"`, `"false"`),
	"enable_enhanced_safety_browsing": prefsGetter(`"true" if d.get('safebrowsing', {}).get('enhanced', {}) else "false"`, `"Google"`),
	"new_startup_page":                prefsGetter(`"true" if "session" not in d.keys() else ("true" if d.get('session', {}).get('restore_on_startup', {}) == 5 else "false")`, `"Google"`),
	"data_delete_automacally":         prefsGetter(`"true" if d["profile"].get("default_content_setting_values", None) is not None else "false"`, `"Google"`),
	"chrome_font_size": prefsGetter(`d.get('webkit', {}).get('webprefs', {"default_fixed_font_size": 13, "default_font_size": 16, "minimum_font_size": 13})`,
		`{"default_fixed_font_size": 13, "default_font_size": 16}`),
	"enabled_experiments": `try:
    d = json.loads(read("Local State"))
    v = d.get('browser', {}).get('enabled_labs_experiments', [])
except Exception:
    v = []`,
	// A copy of the profile's History, read as the benchmark reads its
	// copy: every visited URL's url, title and last visit time.
	"history": `import shutil, sqlite3, tempfile
try:
    fd, db = tempfile.mkstemp(suffix=".sqlite")
    os.close(fd)
    shutil.copyfile(D + "/Default/History", db)
    v = sqlite3.connect(db).execute("SELECT url, title, last_visit_time FROM urls").fetchall()
except Exception:
    v = None`,
	"bookmarks": `try:
    c = read("Default/Bookmarks")
except Exception:
    c = None
v = json.loads(c).get('roots', {}) if c else []`,
}

// prefsGetter reads Default/Preferences: expr of its object d, or
// fallback when the file is missing or not JSON, as the benchmark's
// getters do.
func prefsGetter(expr, fallback string) string {
	return "try:\n    d = json.loads(read(\"Default/Preferences\"))\n    v = " + expr + "\nexcept Exception:\n    v = " + fallback
}

// chromeMetrics are the metrics carried, each the Python statements that
// set s from v and the rules R, as OSWorld's metric computes it.
var chromeMetrics = map[string]string{
	"exact_match": `s = 1. if v == R["expected"] else 0.`,
	"is_expected_active_tab": `if not v:
    s = 0.
elif R["type"] == "url":
    s = 1. if same_url(R["url"], v.get("url", None) if isinstance(v, dict) else v) else 0.
else:
    s = 0.`,
	"is_expected_url_pattern_match": `if not v:
    s = 0.
else:
    url = v["url"] if isinstance(v, dict) else v
    s = 1. if all(re.search(p, url) for p in R["expected"]) else 0.`,
	"is_expected_search_query": `s = 1. if re.search(R["expect"]["pattern"], v["url"]) else 0.`,
	"is_expected_tabs": `if R["type"] == "url":
    actual = [t["url"] for t in v]
    s = 1. if len(R["urls"]) == len(actual) and all(any(same_url(e, a) for a in actual) for e in R["urls"]) else 0.
else:
    s = 0.`,
	"is_expected_bookmarks": `if not v:
    s = 0.
elif R["type"] == "bookmark_bar_folders_names":
    s = 1. if set(b["name"] for b in v["bookmark_bar"]["children"] if b["type"] == "folder") == set(R["names"]) else 0.
elif R["type"] == "bookmark_bar_websites_urls":
    s = 1. if set(b["url"] for b in v["bookmark_bar"]["children"] if b["type"] == "url") == set(R["urls"]) else 0.
elif R["type"] == "liked_authors_websites_urls":
    folder = next((b for b in v["bookmark_bar"]["children"] if b["type"] == "folder" and b["name"] == "Liked Authors"), None)
    s = 0.
    if folder:
        got = set(b["url"] for b in folder["children"] if b["type"] == "url")
        urls = [[u] if isinstance(u, str) else u for u in R["urls"]]
        s = 1. if any(set(c) == got for c in itertools.product(*urls)) else 0.
else:
    s = 0.`,
	"check_font_size": `fs = v["default_font_size"]
if R["type"] == "value":
    s = 1. if fs == R["value"] else 0.
elif R["type"] == "range":
    s = 1. if R["min"] < fs < R["max"] else 0.
else:
    s = 0.`,
	"check_history_deleted": `s = 0.
if R['type'] == 'keywords':
    s = 0. if any(k in h[0] for k in R['keywords'] for h in v) else 1.`,
	"check_enabled_experiments": `s = 1. if R["type"] == "names" and [e.split("@")[0] for e in v] == R["names"] else 0.`,
	"check_direct_json_object": `if isinstance(v, str):
    v = json.loads(v.strip().replace("'", '"'))
if v is None:
    s = 0.
elif not R.get("expect_in_result", False):
    s = 1. if all(R["expected"].get(k) == v.get(k) for k in R["expected"]) else 0.
else:
    s = 1.
    for k, e in R["expected"].items():
        if isinstance(e, list):
            if not (isinstance(v.get(k), list) and any(x in v.get(k) for x in e)):
                s = 0.
        elif isinstance(e, str):
            if e not in v.get(k):
                s = 0.`,
}

// fileMetrics are metrics of a file the getter names (vm_file, or a
// step's stdout as cache_file): v is its path on the device, None when it
// is missing, as the benchmark's vm_file getter gives.
var fileMetrics = map[string]string{
	"check_csv": `if v is None:
    s = 0.
else:
    em = [False] * len(R.get("expect", []))
    um = True
    with open(v) as f:
        for rcd in csv.DictReader(f):
            for i, r in enumerate(R.get("expect", [])):
                em[i] = em[i] or match_record(r, rcd)
            um = um and not any(match_record(r, rcd) for r in R.get("unexpect", []))
    s = float(all(em) and um)`,
	"check_json": `if v is None:
    s = 0.
else:
    with open(v) as f:
        if O.get("is_yaml", False):
            import yaml
            doc = yaml.load(f, Loader=yaml.Loader)
        else:
            doc = json.load(f)
    s = 1.
    for r in R.get("expect", {}):
        x = doc
        try:
            for k in r["key"]:
                x = x[k]
        except KeyError:
            s = 0.
            break
        s = s if match_value(x, r) else 0.
    for r in R.get("unexpect", {}):
        x = doc
        for k in r["key"]:
            try:
                x = x[k]
            except KeyError:
                x = None
                break
        s = s if not match_value(x, r) else 0.`,
}

// pyFile carries a metric of fileMetrics: one command check running it in
// python3 on the device.
func (ec *evalConv) pyFile(f *fn, rtype, etype string) string {
	path, r, why := fileRules(f, rtype, etype)
	if why != "" {
		return why
	}
	if f.name == "check_json" {
		if y, _ := f.opt["is_yaml"].(bool); y {
			ec.notes = append(ec.notes, "check_json reads YAML with PyYAML, as the benchmark does: the device's python3 needs it")
		}
	}
	arg, why := jsonText(map[string]any{"getter": map[string]any{"path": path}, "rules": r, "options": f.opt})
	if why != "" {
		return why
	}
	ec.pyCheck(f, `v = G["path"] if os.path.exists(G["path"]) else None`, fileMetrics[f.name], arg)
	return ""
}

// pyCheck adds the command check running getter and metric; extra are
// rendered HCL values the program reads as X (sys.argv[4:]), such as
// files of the cache.
func (ec *evalConv) pyCheck(f *fn, getter, metric, arg string, extra ...string) {
	prog := chromeProgram + "v = None\n" + getter + "\ntry:\n" + indent(metric) + "\nexcept Exception:\n    s = 0.\n" +
		"print(\"value: \" + json.dumps(v))\nprint(\"score: %s\" % float(s))\n"
	argv := append(quoteAll(anyExit([]string{"python3", "-c", prog, arg, chromeProfile, chromePort})), extra...)
	f.add("command", "argv = "+list(argv), "stdout_matches = "+quote(chromeScore))
	if len(extra) == 0 {
		f.py = &pyParts{getter: getter, metric: metric, arg: arg}
	}
}

// pyParts are what a function's Python check runs.
type pyParts struct{ getter, metric, arg string }

// pyAny is one command check scoring each function's Python program, as
// the benchmark's "or" combines them: the best score (each program's own
// value and score printed before it).
func pyAny(fs []*fn) check {
	var args []any
	prog := chromeProgram + "S = []\n"
	for i, f := range fs {
		args = append(args, json.RawMessage(f.py.arg))
		prog += fmt.Sprintf("A = ARGS[%d]\nG, R, O = A[\"getter\"], A[\"rules\"], A.get(\"options\", {})\nv = None\n", i) + f.py.getter +
			"\ntry:\n" + indent(f.py.metric) + "\nexcept Exception:\n    s = 0.\n" +
			fmt.Sprintf("print(\"value %d: \" + json.dumps(v))\nprint(\"score %d: %%s\" %% float(s))\nS.append(float(s))\n", i+1, i+1)
	}
	prog += "print(\"score: %s\" % max(S))\n"
	arg, _ := jsonText(args)
	return check{kind: "command", lines: []string{"argv = " + list(quoteAll(anyExit([]string{"python3", "-c", prog, arg, chromeProfile, chromePort}))), "stdout_matches = " + quote(chromeScore)}}
}

// sheetPrintGetter reads the result's files (G["result"], their names in
// the harness's cache G["result_dests"]) and the reference's (X, named
// G["expected_dests"]); sheet_names is a workbook's sheets in order (None
// when it is not a workbook), sheet_csv the file the benchmark reads for a
// sheet index: BOOK-SHEET.csv beside the book in its cache.
const sheetPrintGetter = `import zipfile, xml.etree.ElementTree as ET
def sheet_names(book):
    try:
        with zipfile.ZipFile(book) as z:
            root = ET.fromstring(z.read("xl/workbook.xml"))
        return [e.get("name") for e in root.iter() if e.tag.split("}")[-1] == "sheet"]
    except Exception:
        return None
def load_sheet(path):
    try:
        with open(path) as f:
            return list(itertools.dropwhile(lambda l: len(l) == 0, map(lambda l: l.strip(), reversed(f.read().splitlines()))))
    except Exception:
        return None
RES = {"paths": G["result"], "dests": G["result_dests"]}
EXP = {"paths": sys.argv[4:], "dests": G["expected_dests"]}
def sheet_csv(i):
    if isinstance(i, int) or i[:2] in ("RI", "EI"):
        book = EXP if not isinstance(i, int) and i[0] == "E" else RES
        names = sheet_names(book["paths"][0]) or []
        n = i if isinstance(i, int) else int(i[2:])
        name = names[n] if n < len(names) else ""
    else:
        book = EXP if i[0] == "E" else RES
        name = i[2:]
    want = "{:}-{:}.csv".format(os.path.splitext(book["dests"][0])[0], name)
    return book["paths"][book["dests"].index(want)] if want in book["dests"] else None
v = G["result"][0] if os.path.exists(G["result"][0]) else None`

// sheetPrintMetric is compare_table with sheet_print rules: the printed
// sheets (CSV lines, stripped, trailing blank lines dropped) are equal.
// The benchmark opens the result with openpyxl first and scores 0 when it
// cannot.
const sheetPrintMetric = `if v is None or sheet_names(v) is None:
    s = 0.
else:
    s = 1.
    for r in O["rules"]:
        p = sheet_csv(r["sheet_idx0"])
        a = load_sheet(p) if p else None
        if a is None:
            s = 0.
            break
        p = sheet_csv(r["sheet_idx1"])
        b = load_sheet(p) if p else None
        if r.get("ignore_case", False):
            a, b = [l.lower() for l in a], [l.lower() for l in b]
        if a != b:
            s = 0.`

// sheetPrint carries compare_table over several files (multi: the
// workbook and its sheets printed as CSV by a post-run step) whose rules
// are all sheet_print.
func (ec *evalConv) sheetPrint(f *fn, rtype, etype string) string {
	if rtype != "vm_file" || etype != "cloud_file" {
		return "vm_file with multi (several files) is not carried beside a " + etype + " reference"
	}
	rs, _ := f.opt["rules"].([]any)
	for _, x := range rs {
		r, _ := x.(map[string]any)
		if typ, _ := r["type"].(string); typ != "sheet_print" {
			return fmt.Sprintf("vm_file with multi (several files) is carried for sheet_print rules only, not %s", typ)
		}
	}
	if len(rs) == 0 {
		return "compare_table without rules"
	}
	paths, dests := strings_(f.result["path"]), strings_(f.result["dest"])
	urls, edests := strings_(f.expected["path"]), strings_(f.expected["dest"])
	if len(paths) == 0 || len(paths) != len(dests) || len(urls) == 0 || len(urls) != len(edests) {
		return "vm_file and cloud_file with multi need as many paths as dests"
	}
	if g, ok := f.result["gives"]; ok && fmt.Sprint(g) != "[0]" {
		return "vm_file's gives is not carried"
	}
	var files []string
	for i, u := range urls {
		name := cacheName(u, edests[i])
		*ec.downloads = append(*ec.downloads, Download{URL: u, Name: name})
		files = append(files, cached(name))
	}
	arg, why := jsonText(map[string]any{"getter": map[string]any{"result": paths, "result_dests": dests, "expected_dests": edests},
		"rules": map[string]any{}, "options": map[string]any{"rules": rs}})
	if why != "" {
		return why
	}
	ec.pyCheck(f, sheetPrintGetter, sheetPrintMetric, arg, files...)
	return ""
}

// chromeProgram is the check's Python program: the helpers, the getter,
// the metric (an error in it scores 0, as the benchmark's harness
// records an evaluator that raises) and the two output lines. argv[1] is
// {"getter": the getter's config, "rules": the rules}, argv[2] the
// profile folder, argv[3] the remote debugging port.
const chromeProgram = `import builtins, csv, functools, itertools, json, operator, os, re, sys, urllib.request
from urllib.parse import urlparse, urlunparse, parse_qs
ARGS = json.loads(sys.argv[1])
A = ARGS if isinstance(ARGS, dict) else ARGS[0]
G, R, O, D, PORT = A["getter"], A["rules"], A.get("options", {}), sys.argv[2], sys.argv[3]
TITLE = None
def read(name):
    with open(D + "/" + name, encoding="utf-8") as f:
        return f.read()
def pages():
    with urllib.request.urlopen("http://127.0.0.1:" + PORT + "/json/list", timeout=10) as r:
        return [t for t in json.load(r) if t.get("type") == "page"]
def active():
    try:
        t = pages()
    except Exception:
        return None
    if not t or t[0]["url"] in ("", "chrome://newtab/"):
        return None
    global TITLE
    TITLE = t[0].get("title", "")
    bar = re.sub(r"^https?://", "", t[0]["url"])
    bar = bar[4:] if bar.startswith("www.") else bar
    return G.get("goto_prefix", "https://") + bar
def tabs():
    try:
        return [{"title": t.get("title", ""), "url": t["url"]} for t in pages()]
    except Exception:
        return []
def norm(u):
    p = urlparse(u)
    return urlunparse(p._replace(scheme=(p.scheme or "http").lower(), netloc=p.netloc.lower().replace("www.", ""), path=p.path if p.path != "/" else ""))
def same_url(a, b):
    if a is None or b is None:
        return a == b
    return norm(a) == norm(b)
def match_record(pattern, item):
    return all(k in item and item[k] == val for k, val in pattern.items())
def match_value(value, rule):
    m = rule["method"]
    if m.startswith("re"):
        flag = functools.reduce(operator.or_, (getattr(re, fl) for fl in m.split(".")[1:]), re.RegexFlag(0))
        return re.search(rule["ref"], value, flag) is not None
    if m in {"eq", "ne", "le", "lt", "ge", "gt"}:
        return getattr(operator, m)(value, rule["ref"])
    if m.startswith("approx"):
        try:
            value = float(value)
        except (ValueError, TypeError):
            return False
        return abs(value - rule["ref"]) <= float(m.split(":")[1])
    if m.startswith("range."):
        return getattr(operator, "l" + m[6])(rule["ref"][0], value) and getattr(operator, "l" + m[7])(value, rule["ref"][1])
    if m in {"str_list_eq", "str_set_eq"}:
        t = getattr(builtins, m[4:-3])
        return t(value.strip("\"'").split(",")) == t(rule["ref"])
    raise NotImplementedError()
`

// chromeGetter tells a getter chromeGetters carries.
func chromeGetter(t string) bool {
	_, ok := chromeGetters[t]
	return ok
}

// chrome carries a function whose result getter is one of Chrome's.
func (ec *evalConv) chrome(f *fn, rtype, etype string) string {
	metric, ok := chromeMetrics[f.name]
	if !ok {
		return "pcflow has no check that carries this metric"
	}
	var r map[string]any
	switch etype {
	case "rule":
		if r, _ = f.expected["rules"].(map[string]any); r == nil {
			return "the rule getter has no rules"
		}
	case "rule_relativeTime":
		if f.name != "check_direct_json_object" {
			return "rule_relativeTime is carried for check_direct_json_object only"
		}
		var why string
		if r, why = relativeRules(f.expected); why != "" {
			return why
		}
		metric = relativeTime + "\n" + metric
	case "":
		return "the evaluator gives no rules"
	default:
		return "the getter " + etype + " has no pcflow equivalent (its rules come from a web page)"
	}
	if rtype == "active_tab_info" && f.name == "check_direct_json_object" {
		e, _ := r["expected"].(map[string]any)
		for k := range e {
			if k != "url" && k != "title" {
				return "active_tab_info's " + k + " (the page as the benchmark loads it again) has no pcflow equivalent"
			}
		}
	}
	if why := chromePatterns(f.name, r); why != "" {
		return why
	}
	arg, why := jsonText(map[string]any{"getter": f.result, "rules": r})
	if why != "" {
		return why
	}
	ec.pyCheck(f, chromeGetters[rtype], metric, arg)
	switch rtype {
	case "active_url_from_accessTree", "active_tab_info", "active_tab_url_parse", "url_dashPart":
		ec.notes = append(ec.notes, "the address bar's text is the active tab's URL from Chromium's remote debugging port without https:// and www., as Chrome shows it")
	}
	if rtype == "active_tab_info" {
		ec.notes = append(ec.notes, "active_tab_info: the benchmark loads the URL again in a new tab and reads where it lands; pcflow reads the tab's URL")
	}
	return ""
}

// chromePatterns refuses a regular expression that is not Python's: the
// metrics run under python3 as the benchmark's do, so any pattern Python
// reads is carried; this only catches rules that are not the expected
// shape.
func chromePatterns(name string, r map[string]any) string {
	switch name {
	case "is_expected_url_pattern_match":
		ps, ok := r["expected"].([]any)
		if !ok || len(ps) == 0 {
			return "rules.expected is not a list of patterns"
		}
		for _, p := range ps {
			if _, ok := p.(string); !ok {
				return fmt.Sprintf("the pattern %v is not a string", p)
			}
		}
	case "is_expected_search_query":
		e, _ := r["expect"].(map[string]any)
		if _, ok := e["pattern"].(string); !ok {
			return "rules.expect.pattern is not a string"
		}
	}
	return ""
}

// indent indents Python statements by four spaces.
func indent(code string) string {
	return "    " + strings.ReplaceAll(code, "\n", "\n    ")
}

// vlcMetrics are VLC's metrics of its configuration file (vlc_config: v is
// vlcrc's path, None when it is missing) and of its HTTP interface's
// status (vlc_playing_info: v is the status XML's path), as the benchmark
// writes them.
var vlcMetrics = map[string]string{
	"is_vlc_playing": `with open(v, 'rb') as file:
    tree = ElementTree.fromstring(file.read().decode('utf-8'))
s = 0.
if tree.find('state').text == 'playing':
    if R['type'] == 'file_name':
        info = tree.find('information/category[@name="meta"]/info[@name="filename"]').text
        s = 1. if info and info.endswith(R['file_name']) else 0.
    elif R['type'] == 'url':
        info = tree.find('information/category[@name="meta"]/info[@name="url"]').text
        s = 1. if info and info.endswith(R['url']) else 0.`,
	"is_vlc_recordings_folder": `config = read_config(v)
s = 0.
for line in config.split("\n"):
    if line.startswith('#') or not line.strip():
        continue
    if 'input-record-path' in line:
        s = 1. if line.split('=')[-1].strip() == R['recording_file_path'] else 0.
        break`,
	"check_qt_bgcone":                           vlcSetting("qt-bgcone=", "expected_qt_bgcone", "1"),
	"check_qt_max_volume":                       vlcSetting("qt-max-volume=", "expected_qt_max_volume", "125"),
	"check_qt_minimal_view":                     vlcSetting("qt-minimal-view=", "expected_qt_minimal_view", "0"),
	"check_one_instance_when_started_from_file": vlcSetting("one-instance-when-started-from-file=", "expected_one_instance_when_started_from_file", "1"),
	"check_global_key_play_pause": `config = read_config(v)
want = R['expected_global_key_play_pause']
want = str(want) if isinstance(want, int) else want
got = "0"
for line in config.split("\n"):
    if 'global-key-play-pause=' in line:
        got = "0" if line.split('=')[-1].strip() == "" else "1"
s = 1. if got == want else 0.`,
	"check_qt_slider_colours": `config = read_config(v)
got = "153;210;153;20;210;20;255;199;15;245;39;29"
for line in config.split("\n"):
    if 'qt-slider-colours' in line:
        got = line.split('=')[-1].strip()
s = 0.
if R['type'] == 'match':
    s = 1. if got == R['expected_qt_slider_colours'] else 0.
elif R['type'] == 'blackish':
    values = [int(x) for x in got.split(';')]
    s = 1. if all(all(c < 100 for c in rgb) for rgb in zip(values[0::3], values[1::3], values[2::3])) else 0.`,
}

// vlcSetting is the benchmark's metric of one vlcrc setting: the last
// line holding key gives its value (def when none does), compared as text.
func vlcSetting(key, rule, def string) string {
	return fmt.Sprintf(`config = read_config(v)
want = R[%q]
want = str(want) if isinstance(want, int) else want
got = %q
for line in config.split("\n"):
    if %q in line:
        got = line.split('=')[-1].strip()
s = 1. if got == want else 0.`, rule, def, key)
}

// vlcGetters read VLC's configuration file in the task's home, and the
// status of VLC's HTTP interface on port 8080 (password "password", as
// the benchmark's machine runs it).
var vlcGetters = map[string]string{
	"vlc_config": `def read_config(p):
    with open(p, 'rb') as file:
        return file.read().decode('utf-8')
v = G["path"] if os.path.exists(G["path"]) else None`,
	"vlc_playing_info": `import base64, tempfile
from xml.etree import ElementTree
try:
    req = urllib.request.Request("http://127.0.0.1:%d/requests/status.xml" % G["port"], headers={"Authorization": "Basic " + base64.b64encode(b":password").decode()})
    with urllib.request.urlopen(req, timeout=10) as r:
        body = r.read()
    fd, v = tempfile.mkstemp(suffix=".xml")
    os.write(fd, body)
    os.close(fd)
except Exception:
    v = None`,
}

// vlc carries a function over VLC's getters.
func (ec *evalConv) vlc(f *fn, rtype, etype string) string {
	metric, ok := vlcMetrics[f.name]
	if !ok || (rtype == "vlc_playing_info") != (f.name == "is_vlc_playing") {
		return "pcflow has no check that carries this metric over " + rtype
	}
	r, why := rules(f.expected, etype)
	if why != "" {
		return why
	}
	arg, why := jsonText(map[string]any{"getter": map[string]any{"path": osworldHome + "/.config/vlc/vlcrc", "port": 8080}, "rules": r})
	if why != "" {
		return why
	}
	ec.pyCheck(f, vlcGetters[rtype], metric, arg)
	return ""
}

// pyResults are the result getters a general Python check reads: a file
// of the device (v its path, None when missing) or a command's standard
// output or error, run as the benchmark's machine runs it (a string
// under a shell when shell is set).
var pyResults = map[string]string{
	"vm_file": `v = G["path"] if os.path.exists(G["path"]) else None`,
	// The benchmark's directory tree: the folder's entries by name.
	"list_directory": `v = {"name": os.path.basename(G["path"]), "children": [{"name": n} for n in os.listdir(G["path"])]} if os.path.isdir(G["path"]) else None`,
	// The .desktop files on the desktop of the task's home, by name.
	"shortcuts_on_desktop": `v = {}
desk = G["home"] + "/Desktop"
for n in (os.listdir(desk) if os.path.isdir(desk) else []):
    if n.endswith(".desktop"):
        with open(os.path.join(desk, n)) as f:
            v[n] = f.read()`,
	"vm_command_line": `import shlex, subprocess
cmd, sh = G["command"], bool(G.get("shell", False))
if sh and not isinstance(cmd, str):
    cmd = " ".join(cmd)
if not sh and isinstance(cmd, str):
    cmd = shlex.split(cmd)
try:
    v = subprocess.run(cmd, shell=sh, capture_output=True, text=True, timeout=120).stdout
except Exception:
    v = None`,
}

// pyMetrics are metrics of one result (v) and rules (R) or a reference
// file (E, a file of the cache), as the benchmark writes them.
var pyMetrics = map[string]string{
	"check_list": `with open(v) as f:
    ex = [re.compile(p) for p in R.get("expect", [])]
    un = [re.compile(p) for p in R.get("unexpect", [])]
    em = [False] * len(ex)
    um = True
    for l in f:
        for i, r in enumerate(ex):
            em[i] = em[i] or (r.search(l) is not None)
        um = um and all(r.search(l) is None for r in un)
s = float(all(em) and um)`,
	"run_sqlite3": `import sqlite3
s = float(sqlite3.connect(v).execute(R["sql"]).fetchone()[0] or 0)`,
	"compare_python_pure_text": `if not v:
    s = 0.
else:
    with open(v) as f1, open(E) as f2:
        s = 1. if "".join(f1.read().split()) == "".join(f2.read().split()) else 0.`,
	"compare_result_files": `if not v:
    s = 0.
else:
    with open(v) as f:
        a = f.read().strip()
    with open(E) as f:
        b = f.read().strip()
    s = 0.
    try:
        bn = float(b)
        if b in a:
            s = 1.
        elif abs(float(a) - bn) < 1e-4:
            s = 1.
    except Exception:
        s = 1. if a == b else 0.`,
	"check_thunderbird_filter": `def val(x):
    return x.replace("\\\"", "\"").replace("\\\\", "\\")
cond = re.compile(r'\b(?:AND|OR) \((?:[\w ]+),(?:[\w ' + '\'' + r']+),(?:"(?:(?:[^"]|\")+)"|(?:[^)]+))\)|\bALL\b')
filters = []
with open(v) as f:
    for l in f:
        if l.startswith("name="):
            flt = {"name": val(l[6:-2])}
        elif l.startswith("enabled="):
            flt["enabled"] = val(l[9:-2])
        elif l.startswith("type="):
            flt["type"] = val(l[6:-2])
        elif l.startswith("action="):
            flt["action"] = val(l[8:-2])
        elif l.startswith("actionValue="):
            flt["actionValue"] = val(l[13:-2])
        elif l.startswith("condition="):
            flt["condition"] = cond.findall(val(l[11:-2]))
            filters.append(flt)
em = [False] * len(R.get("expect", []))
um = True
for flt in filters:
    for i, r in enumerate(R.get("expect", [])):
        em[i] = em[i] or match_record(r, flt)
    um = um and not any(match_record(r, flt) for r in R.get("unexpect", []))
s = float(all(em) and um)`,
	"check_include_exclude": `s = 1. if v is not None and all(r in v for r in R.get("include", [])) and all(r not in v for r in R.get("exclude", [])) else 0.`,
	"is_in_list":            `s = 1. if R["expected"] in v else 0.`,
	"compare_config": `if not v:
    s = 0.
else:
    with open(v) as f:
        s = 1. if f.read() == R['expected'] else 0.`,
	"is_utc_0":            `s = 1. if v.split("\n")[3].endswith("+0000)") else 0.`,
	"check_text_enlarged": `s = 1. if float(v) > 1.0 else 0.`,
	"check_gnome_favorite_apps": `import ast
apps = ast.literal_eval(v)
s = 1. if len(apps) == len(R["expected"]) and set(apps) == set(R["expected"]) else 0.`,
	"check_moved_jpgs": `moved = [node['name'] for node in v['children']]
s = 1. if len(moved) == len(R["expected"]) and set(moved) == set(R["expected"]) else 0.`,
	"is_shortcut_on_desktop": `s = 0.
if R['type'] == 'name':
    for path, content in v.items():
        if "Name=" + R['name'] + "\n" in content:
            s = 1.`,
	"check_direct_json_object": chromeMetrics["check_direct_json_object"],
}

// pyGeneral carries a metric of pyMetrics over a result getter of
// pyResults (vm_command_error: the output's error) and rules or a
// reference file; why says what it cannot carry.
func (ec *evalConv) pyGeneral(f *fn, rtype, etype string) string {
	metric, ok := pyMetrics[f.name]
	if !ok {
		return "pcflow has no check that carries this metric"
	}
	getter := pyResults[rtype]
	if rtype == "vm_command_error" {
		getter = strings.Replace(pyResults["vm_command_line"], ").stdout", ").stderr", 1)
	}
	if getter == "" {
		return "the getter " + rtype + " has no pcflow equivalent"
	}
	if rtype == "vm_file" {
		if _, why := vmFile(f.result, rtype); why != "" {
			return why
		}
	}
	var r map[string]any
	var extra []string
	if rtype == "shortcuts_on_desktop" {
		f.result = map[string]any{"type": rtype, "home": osworldHome}
	}
	if rtype == "list_directory" {
		if p, _ := f.result["path"].(string); p == "" {
			return "list_directory without a path"
		}
	}
	switch etype {
	case "":
		// A metric of the result alone (is_utc_0, check_text_enlarged).
		if f.name != "is_utc_0" && f.name != "check_text_enlarged" {
			return "the evaluator gives no expected getter"
		}
		r = map[string]any{}
	case "rule":
		var why string
		if r, why = rules(f.expected, etype); why != "" {
			return why
		}
	case "rule_relativeTime":
		var why string
		if f.name != "check_direct_json_object" {
			return "rule_relativeTime is carried for check_direct_json_object only"
		}
		if r, why = relativeRules(f.expected); why != "" {
			return why
		}
		metric = relativeTime + "\n" + metric
	case "cloud_file":
		gold, why := ec.cloudFile(f.expected, etype)
		if why != "" {
			return why
		}
		extra, r = []string{gold}, map[string]any{}
		getter += "\nE = sys.argv[4]"
	default:
		return "the getter " + etype + " has no pcflow equivalent"
	}
	arg, why := jsonText(map[string]any{"getter": f.result, "rules": r, "options": f.opt})
	if why != "" {
		return why
	}
	ec.pyCheck(f, getter, metric, arg, extra...)
	return ""
}

// relativeTime is OSWorld's rule_relativeTime getter: the rules' expected
// times ("{DoW}, {Month} {DayD}, {Year}") filled with the day the relative
// time names ("tomorrow", "next Monday", "10th next month", …), counted
// from the check's run as the harness counts from its evaluation.
const relativeTime = `from datetime import datetime, timedelta
def relative_rules(rules):
    dow = {0: 'Mon', 1: 'Tue', 2: 'Wed', 3: 'Thu', 4: 'Fri', 5: 'Sat', 6: 'Sun'}
    mon = {i + 1: m for i, m in enumerate(['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'])}
    full = {i + 1: m for i, m in enumerate(['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'])}
    days = {"tomorrow": 1}
    def fmt(t, d):
        t = t.replace("{DoW}", dow[d.weekday()], 1)
        t = t.replace("{Month}", mon[d.month], 1)
        t = t.replace("{DayD}", str(d.day), 1)
        t = t.replace("{Year}", str(d.year), 1)
        t = t.replace("{Month0D}", "0" + str(d.month) if d.month < 10 else str(d.month), 1)
        t = t.replace("{month}", full[d.month].lower(), 1)
        t = t.replace("{MonthFull}", full[d.month], 1)
        t = t.replace("{Day0D}", "0" + str(d.day) if d.day < 10 else str(d.day), 1)
        return t
    def nth_next_month(now, n):
        return datetime(now.year + 1 if now.month == 12 else now.year, now.month + 1 if now.month < 12 else 1, n)
    now = datetime.now()
    rel = rules["relativeTime"]
    if "to" not in rel:
        f = rel["from"]
        if f in days:
            d = now + timedelta(days=days[f])
        elif f in ("5th next month", "10th next month"):
            d = nth_next_month(now, int(f.split("th")[0]))
        elif f == "this month":
            d = now
        elif f == "next Monday":
            d = now + timedelta(days=((6 - now.weekday()) + 1))
        elif f == "first monday four months later":
            t = datetime(now.year + 1 if now.month >= 9 else now.year, (now.month + 4) % 12, 1)
            d = t + timedelta(days=((6 - t.weekday()) + 1) % 7)
        rules["expected"]["time"] = fmt(rules["expected"]["time"], d)
    else:
        f, t = rel["from"], rel["to"]
        if f in days:
            d = now + timedelta(days=days[f])
        elif f == "this Saturday":
            d = now + timedelta(days=(5 - now.weekday()))
        elif f == "10th next month":
            d = nth_next_month(now, 10)
        elif f == "next Monday":
            d = now + timedelta(days=((6 - now.weekday()) + 1))
        rules["expected"]["from"] = fmt(rules["expected"]["from"], d)
        if t in days:
            d = now + timedelta(days=days[t])
        elif t == "this Sunday":
            d = now + timedelta(days=(6 - now.weekday()))
        elif t == "11th next month":
            d = nth_next_month(now, 11)
        elif t == "next Friday":
            if now.weekday() < 4 and f in ["next Monday"]:
                d = now + timedelta(days=((4 - now.weekday()) + 7))
            else:
                d = now + timedelta(days=((4 - now.weekday()) if now.weekday() < 4 else (6 - now.weekday()) + 5))
        rules["expected"]["to"] = fmt(rules["expected"]["to"], d)
    return rules
R = relative_rules(R)`

// relativeTimes are the relative times relativeTime reads.
var relativeTimes = map[string]bool{"tomorrow": true, "5th next month": true, "10th next month": true, "11th next month": true, "this month": true,
	"this Saturday": true, "this Sunday": true, "next Monday": true, "next Friday": true, "first monday four months later": true}

// relativeRules checks a rule_relativeTime getter's rules: the relative
// times the benchmark reads, and the expected keys it fills.
func relativeRules(g map[string]any) (map[string]any, string) {
	r, _ := g["rules"].(map[string]any)
	rel, _ := r["relativeTime"].(map[string]any)
	exp, _ := r["expected"].(map[string]any)
	if rel == nil || exp == nil {
		return nil, "rule_relativeTime without relativeTime and expected"
	}
	keys := []string{"time"}
	if _, ok := rel["to"]; ok {
		keys = []string{"from", "to"}
	}
	for i, k := range keys {
		side := "from"
		if i == 1 {
			side = "to"
		}
		when, _ := rel[side].(string)
		if !relativeTimes[when] {
			return nil, fmt.Sprintf("the relative time %q is not one the benchmark reads", when)
		}
		if _, ok := exp[k].(string); !ok {
			return nil, fmt.Sprintf("rule_relativeTime's expected %s is not a string", k)
		}
	}
	return r, ""
}
