package osworldapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/fakedevice"
	"github.com/pcflow/pcflow/activities/screen"
	"github.com/pcflow/pcflow/internal/osworldapi"
)

const token = "test-token-0123456789abcdef"

// start serves dev on a loopback port for the test.
func start(t *testing.T, dev activities.Device, roots ...string) *osworldapi.Server {
	t.Helper()
	s, err := osworldapi.Listen("127.0.0.1:0", osworldapi.Options{Device: dev, Token: token, Roots: roots})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return s
}

// base is the URL an unmodified OSWorld client is given: the token as
// the password of basic credentials.
func base(s *osworldapi.Server) string { return "http://pcflow:" + token + "@" + s.Addr() }

// post sends a JSON body and returns the status and the body.
func post(t *testing.T, u string, body any) (int, string) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(u, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(out)
}

// pyCommand is what OSWorld's client sends for code (its
// execute_python_command with the default pkgs_prefix).
func pyCommand(code string) map[string]any {
	return map[string]any{"command": []string{"python", "-c", "import pyautogui; import time; pyautogui.FAILSAFE = False; " + code}, "shell": false}
}

// TestExecuteRefusesEscapes: code and commands that would run anything
// but pyautogui's input calls are refused with 403 and a reason, and
// the device does nothing.
func TestExecuteRefusesEscapes(t *testing.T) {
	dev := fakedevice.New("OK")
	s := start(t, dev)
	for _, tc := range []struct {
		name string
		body any
		want string // in the reason
	}{
		{"os.system", pyCommand("os.system('id')"), "unknown call os.system"},
		{"import os", pyCommand("import os; os.system('id')"), `"import os`},
		{"a query look-alike", pyCommand("import platform; print(platform.system()); import os"), "is not a call"},
		{"subprocess", pyCommand("subprocess.run(['id'])"), "unknown call subprocess.run"},
		{"import subprocess", pyCommand("import subprocess\nsubprocess.call('id')"), "is not a call"},
		{"__import__", pyCommand("__import__('os').system('id')"), "unknown call __import__"},
		{"exec", pyCommand(`exec("import os")`), "unknown call exec"},
		{"eval", pyCommand(`eval("1+1")`), "unknown call eval"},
		{"open", pyCommand("open('/etc/passwd').read()"), "unknown call open"},
		{"getattr", pyCommand("getattr(pyautogui, 'click')(1, 2)"), "unknown call getattr"},
		{"attribute access in an argument", pyCommand("pyautogui.typewrite(os.environ)"), "is not a literal"},
		{"call in an argument", pyCommand("pyautogui.typewrite(open('/etc/passwd').read())"), "is not a literal"},
		{"chained attribute", pyCommand("pyautogui.click(1, 2).__class__"), "unexpected"},
		{"dunder call", pyCommand("pyautogui.__dict__.get('x')()"), "unknown call"},
		{"pyautogui outside the list", pyCommand("pyautogui.screenshot('/tmp/x.png')"), "unknown call pyautogui.screenshot"},
		{"assignment", pyCommand("x = __import__('os')"), "is not a call"},
		{"lambda", pyCommand("(lambda: 0)()"), "is not a call"},
		{"f-string", pyCommand("pyautogui.typewrite(f'{__import__(\"os\").getcwd()}')"), "is not a literal"},
		{"name as an argument", pyCommand("pyautogui.click(x=os, y=1)"), "is not a literal"},
		{"easing name where a literal belongs", pyCommand("pyautogui.typewrite(pyautogui.easeInQuad)"), "must be a literal"},
		{"import after code", pyCommand("pyautogui.click(1, 2); import os"), "is not a call"},
		{"prefix look-alike", pyCommand("import pyautogui, os; os.system('id')"), "is not a call"},
		{"bare bash argv", map[string]any{"command": []string{"bash", "-c", "id"}}, "is not served: only ["},
		{"python script file", map[string]any{"command": []string{"python", "/tmp/x.py"}}, "is not served: only ["},
		{"python -m", map[string]any{"command": []string{"python", "-m", "http.server"}}, "is not served: only ["},
		{"shell string", map[string]any{"command": "id", "shell": true}, "true is not served"},
		{"command line string", map[string]any{"command": "python -c 'pyautogui.click(1, 2)'"}, "a command line as one string is not served"},
		{"semicolon in the prefix", pyCommand("; import os"), "is not a call"},
		{"triple-quoted break-out", pyCommand("pyautogui.typewrite('''a''') or os.system('id')"), "unexpected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := post(t, base(s)+"/execute", tc.body)
			if code != http.StatusForbidden || !strings.Contains(body, tc.want) {
				t.Errorf("POST /execute %v = %d %s, want 403 with %q", tc.body, code, body, tc.want)
			}
		})
	}
	if got := dev.Actions(); len(got) != 0 {
		t.Errorf("the device acted on refused code: %v", got)
	}
	for _, p := range []string{"/run_python", "/run_bash_script"} {
		if code, body := post(t, base(s)+p, map[string]any{"code": "import os", "script": "id"}); code != http.StatusForbidden || !strings.Contains(body, "not served") {
			t.Errorf("POST %s = %d %s, want 403 not served", p, code, body)
		}
	}
	if code, body := post(t, base(s)+"/setup/upload", nil); code != http.StatusNotFound || !strings.Contains(body, "is not served") {
		t.Errorf("POST /setup/upload = %d %s, want 404 with the reason", code, body)
	}
	if code, body := post(t, base(s)+"/setup/launch", map[string]any{"command": []string{"bash", "-c", "id"}}); code != http.StatusForbidden {
		t.Errorf("POST /setup/launch bash = %d %s, want 403", code, body)
	}
}

// TestExecuteOSWorldForms: what OSWorld's client sends for its
// computer_13 actions and what its pyautogui agents write passes, each
// becoming the device's actions, with the pointer kept across requests.
func TestExecuteOSWorldForms(t *testing.T) {
	dev := fakedevice.New("OK")
	s := start(t, dev)
	steps := []struct {
		code string
		want []screen.Action
	}{
		{"pyautogui.moveTo(300, 200, 0.73, pyautogui.easeInQuad)", []screen.Action{{Kind: "mouse_move", X: 300, Y: 200}}},
		{"pyautogui.click()", []screen.Action{{Kind: "click", X: 300, Y: 200}}},
		{"pyautogui.click(button='right')", []screen.Action{{Kind: "right_click", X: 300, Y: 200}}},
		{"pyautogui.click(button='left', x=10, y=20, clicks=2)", []screen.Action{{Kind: "double_click", X: 10, Y: 20}}},
		{"pyautogui.click(x=11, y=21)", []screen.Action{{Kind: "click", X: 11, Y: 21}}},
		{"pyautogui.rightClick(x=12, y=22)", []screen.Action{{Kind: "right_click", X: 12, Y: 22}}},
		{"pyautogui.doubleClick(x=13, y=23)", []screen.Action{{Kind: "double_click", X: 13, Y: 23}}},
		{"pyautogui.dragTo(40, 50, duration=1.0, button='left', mouseDownUp=True)", []screen.Action{{Kind: "drag", X: 13, Y: 23, X2: 40, Y2: 50}}},
		{"pyautogui.mouseDown(button='left')", []screen.Action{{Kind: "mouse_down", X: 40, Y: 50}}},
		{"pyautogui.mouseUp()", []screen.Action{{Kind: "mouse_up", X: 40, Y: 50}}},
		{"pyautogui.hscroll(-3)", []screen.Action{{Kind: "scroll", Direction: "left", Amount: 3}}},
		{"pyautogui.vscroll(5)", []screen.Action{{Kind: "scroll", Direction: "up", Amount: 5}}},
		{`pyautogui.typewrite('it\'s "ok"\n')`, []screen.Action{{Kind: "type", Text: "it's \"ok\"\n"}}},
		{"pyautogui.press('enter')", []screen.Action{{Kind: "hotkey", Keys: []string{"enter"}}}},
		{"pyautogui.keyDown('shift')", nil},
		{"pyautogui.click(x=5, y=6)", []screen.Action{{Kind: "click", X: 5, Y: 6, Keys: []string{"shift"}}}},
		{"pyautogui.keyUp('shift')", nil},
		{"pyautogui.hotkey('ctrl', 'c')", []screen.Action{{Kind: "hotkey", Keys: []string{"ctrl", "c"}}}},
		{"pyautogui.click(100, 200); time.sleep(0.5); pyautogui.write('hi', interval=0.05)",
			[]screen.Action{{Kind: "click", X: 100, Y: 200}, {Kind: "wait", Seconds: 0.5}, {Kind: "type", Text: "hi"}}},
		{"\npyautogui.scroll(-2, x=7, y=8)\n", []screen.Action{{Kind: "scroll", Direction: "down", Amount: 2, X: 7, Y: 8}}},
	}
	var want []screen.Action
	for _, st := range steps {
		code, body := post(t, base(s)+"/execute", pyCommand(st.code))
		if code != http.StatusOK || !strings.Contains(body, `"returncode":0`) {
			t.Fatalf("POST /execute %q = %d %s, want 200 with returncode 0", st.code, code, body)
		}
		want = append(want, st.want...)
		if diff := cmp.Diff(want, dev.Actions()); diff != "" {
			t.Fatalf("after %q the device's actions (-want +got):\n%s", st.code, diff)
		}
	}
	// The client's questions about the machine get fixed answers.
	if code, body := post(t, base(s)+"/execute", pyCommand("import platform; print(platform.system())")); code != http.StatusOK || !strings.Contains(body, `"output":"Linux\n"`) {
		t.Errorf("get_vm_platform's command = %d %s, want 200 with Linux", code, body)
	}
	// python3 and a bare code block (no prefix) too.
	if code, body := post(t, base(s)+"/execute", map[string]any{"command": []string{"python3", "-c", "pyautogui.press('tab')"}}); code != http.StatusOK {
		t.Errorf("python3 -c = %d %s, want 200", code, body)
	}
}

// TestGuard: a request without the token, with a wrong one, with a
// foreign Host (DNS rebinding) or a foreign Origin is refused before any
// route; the token is taken as bearer and as basic credentials.
func TestGuard(t *testing.T) {
	dev := fakedevice.New("OK")
	s := start(t, dev)
	get := func(u string, hdr map[string]string) int {
		t.Helper()
		req, _ := http.NewRequest("GET", u, nil)
		for k, v := range hdr {
			if k == "Host" {
				req.Host = v
			} else {
				req.Header.Set(k, v)
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	plain := "http://" + s.Addr() + "/platform"
	for _, tc := range []struct {
		name string
		url  string
		hdr  map[string]string
		want int
	}{
		{"no token", plain, nil, 401},
		{"wrong bearer", plain, map[string]string{"Authorization": "Bearer " + token + "x"}, 401},
		{"wrong basic", "http://pcflow:nope@" + s.Addr() + "/platform", nil, 401},
		{"token as the user", "http://" + token + ":x@" + s.Addr() + "/platform", nil, 401},
		{"bearer", plain, map[string]string{"Authorization": "Bearer " + token}, 200},
		{"basic in the URL", base(s) + "/platform", nil, 200},
		{"rebinding host", base(s) + "/platform", map[string]string{"Host": "attacker.example:5000"}, 421},
		{"rebinding host without the token", plain, map[string]string{"Host": "attacker.example"}, 421},
		{"localhost host", base(s) + "/platform", map[string]string{"Host": "localhost"}, 200},
		{"an address as the host", base(s) + "/platform", map[string]string{"Host": "[::1]:5000"}, 200},
		{"a name resolving to loopback", base(s) + "/platform", map[string]string{"Host": "127.0.0.1.nip.io"}, 421},
		{"foreign origin", base(s) + "/platform", map[string]string{"Origin": "http://attacker.example"}, 403},
		{"null origin", base(s) + "/platform", map[string]string{"Origin": "null"}, 403},
	} {
		if got := get(tc.url, tc.hdr); got != tc.want {
			t.Errorf("%s: GET /platform = %d, want %d", tc.name, got, tc.want)
		}
	}
	code, _ := post(t, "http://"+s.Addr()+"/execute", pyCommand("pyautogui.click(1, 2)"))
	if code != 401 || len(dev.Actions()) != 0 {
		t.Errorf("POST /execute without the token = %d, acted %v; want 401 and no action", code, dev.Actions())
	}
}

// TestFilesConfined: /file and /list_directory serve the roots and
// nothing else: not through "..", a link out, an absolute path
// elsewhere or an encoded "..".
func TestFilesConfined(t *testing.T) {
	home, scratch, outside := t.TempDir(), t.TempDir(), t.TempDir()
	for p, data := range map[string]string{
		filepath.Join(home, "doc.txt"):       "home doc",
		filepath.Join(home, "sub", "a.txt"):  "a",
		filepath.Join(scratch, "s.txt"):      "scratch",
		filepath.Join(outside, "secret.txt"): "SECRET",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(home, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(home, "linkdir")); err != nil {
		t.Fatal(err)
	}
	s := start(t, fakedevice.New("OK"), home, scratch)
	file := func(raw string) (int, string) {
		t.Helper()
		resp, err := http.Post(base(s)+"/file", "application/x-www-form-urlencoded", strings.NewReader("file_path="+raw))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	q := url.QueryEscape
	for _, tc := range []struct {
		name, raw string
		code      int
		body      string
	}{
		{"home file", q(filepath.Join(home, "doc.txt")), 200, "home doc"},
		{"tilde", q("~/sub/a.txt"), 200, "a"},
		{"scratch file", q(filepath.Join(scratch, "s.txt")), 200, "scratch"},
		{"dot-dot", q(home + "/../" + filepath.Base(outside) + "/secret.txt"), 403, "escapes"},
		{"dot-dot from tilde", q("~/../" + filepath.Base(outside) + "/secret.txt"), 403, ""},
		{"encoded dot-dot", q(home+"/") + "%2e%2e%2f" + q(filepath.Base(outside)+"/secret.txt"), 403, ""},
		{"double-encoded dot-dot", q(home + "/%2e%2e/" + filepath.Base(outside) + "/secret.txt"), 404, ""},
		{"link out", q(filepath.Join(home, "link.txt")), 403, ""},
		{"through a linked folder", q(filepath.Join(home, "linkdir", "secret.txt")), 403, ""},
		{"absolute elsewhere", q(filepath.Join(outside, "secret.txt")), 403, "outside the folders"},
		{"etc passwd", q("/etc/passwd"), 403, "outside the folders"},
		{"root prefix look-alike", q(home + "x/secret.txt"), 403, "outside the folders"},
		{"relative", q("doc.txt"), 403, "not absolute"},
		{"variable", q("$HOME/doc.txt"), 403, "variables"},
	} {
		code, body := file(tc.raw)
		if code != tc.code || !strings.Contains(body, tc.body) || code != 200 && strings.Contains(body, "SECRET") {
			t.Errorf("%s: POST /file %s = %d %q, want %d with %q", tc.name, tc.raw, code, body, tc.code, tc.body)
		}
	}
	code, body := post(t, base(s)+"/list_directory", map[string]string{"path": home})
	if code != 200 || !strings.Contains(body, `"name":"a.txt"`) || strings.Contains(body, "secret.txt") {
		t.Errorf("POST /list_directory home = %d %s, want the tree without the linked folder's files", code, body)
	}
	for _, p := range []string{outside, home + "/..", home + "/linkdir"} {
		if code, body := post(t, base(s)+"/list_directory", map[string]string{"path": p}); code == 200 || strings.Contains(body, "secret.txt") {
			t.Errorf("POST /list_directory %s = %d %s, want refused", p, code, body)
		}
	}
}

// TestScreenAndTree: the screenshot is a PNG of the screen's size, the
// screen size says so, and the tree is OSWorld's XML with the elements.
func TestScreenAndTree(t *testing.T) {
	s := start(t, fakedevice.New("Save", "Cancel"))
	resp, err := http.Get(base(s) + "/screenshot")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(resp.Body)
	resp.Body.Close()
	if err != nil || img.Bounds().Dx() != 800 || img.Bounds().Dy() != 600 {
		t.Fatalf("GET /screenshot: %v, %v; want an 800x600 PNG", err, img)
	}
	if code, body := post(t, base(s)+"/screen_size", nil); code != 200 || !strings.Contains(body, `"width":800`) {
		t.Errorf("POST /screen_size = %d %s", code, body)
	}
	resp, err = http.Get(base(s) + "/accessibility")
	if err != nil {
		t.Fatal(err)
	}
	var at struct{ AT string }
	err = json.NewDecoder(resp.Body).Decode(&at)
	resp.Body.Close()
	if err != nil || !strings.HasPrefix(at.AT, "<desktop-frame") ||
		!strings.Contains(at.AT, `<push-button name="Save" st:showing="true"`) || !strings.Contains(at.AT, `cp:screencoord="(20, 40)" cp:size="(80, 40)"`) {
		t.Errorf("GET /accessibility = %v %q", err, at.AT)
	}
}

// TestToken: the token comes from the environment, else from the state
// folder's file, made 0600 the first time and the same the next; a file
// others may read is refused.
func TestToken(t *testing.T) {
	dir := t.TempDir()
	tok, from, err := osworldapi.Token(dir, []string{"PCFLOW_OSWORLD_TOKEN=from-the-environment-123"})
	if err != nil || tok != "from-the-environment-123" || from != "$PCFLOW_OSWORLD_TOKEN" {
		t.Errorf("Token with the variable = %q, %q, %v", tok, from, err)
	}
	tok, from, err = osworldapi.Token(dir, nil)
	if err != nil || len(tok) != 64 || from != filepath.Join(dir, "osworld-token") {
		t.Fatalf("Token = %q, %q, %v; want a new 64-digit token in the state folder", tok, from, err)
	}
	if fi, err := os.Stat(from); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("token file: %v, want mode 0600", err)
	}
	if again, _, err := osworldapi.Token(dir, nil); err != nil || again != tok {
		t.Errorf("Token the second time = %q, %v; want the same token", again, err)
	}
	if err := os.Chmod(from, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := osworldapi.Token(dir, nil); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("Token with a readable file: err = %v, want a refusal saying chmod 600", err)
	}
}

// BenchmarkExecuteRoundTrip: one /execute of OSWorld's client (a click)
// over loopback HTTP with basic credentials, read, mapped and acted on a
// fake device: the endpoint's own overhead.
func BenchmarkExecuteRoundTrip(b *testing.B) {
	dev := fakedevice.New("OK")
	s, err := osworldapi.Listen("127.0.0.1:0", osworldapi.Options{Device: dev, Token: token})
	if err != nil {
		b.Fatal(err)
	}
	go s.Serve(context.Background())
	defer s.Close()
	body, _ := json.Marshal(pyCommand("pyautogui.click(button='left', x=100, y=200)"))
	u := base(s) + "/execute"
	b.ResetTimer()
	for b.Loop() {
		resp, err := http.Post(u, "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
}
