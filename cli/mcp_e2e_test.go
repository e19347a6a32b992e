package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/internal/mcpserver"
	"github.com/pcflow/pcflow/internal/testdisplay"
	"github.com/pcflow/pcflow/internal/tserver"
	"github.com/pcflow/pcflow/workflows"
)

// mcpDevice starts a Temporal server and a worker for device "desk" on
// a desktop of its own, and returns the world and the server's address.
func mcpDevice(t *testing.T) (*world, string) {
	return mcpDeviceNamed(t, "desk", "cli/testdata/person.script.json")
}

// mcpDeviceNamed is mcpDevice for a device of another name, its worker's
// model playing script.
func mcpDeviceNamed(t *testing.T, name, script string) (*world, string) {
	t.Helper()
	w := newWorldOn(t, testdisplay.Reserve(t))
	var srvOut, wOut syncBuffer
	w.startBG(&srvOut, "server", "--state", w.state, "--port", fmt.Sprint(w.port), "--ui-port", "0")
	waitPort(t, w.port)
	addr := fmt.Sprintf("127.0.0.1:%d", w.port)
	w.startBG(&wOut, "worker", "--device", name, "--display", w.display, "--script", script,
		"--temporal", addr, "--state", w.state, "--no-view")
	waitFor(t, "the worker of device "+name+" to serve it", func() bool { return strings.Contains(wOut.String(), "worker for device "+name+" on display") })
	return w, addr
}

// mcpStdio starts `pcflow mcp` for the test's MCP client, over its
// standard input and output (the SDK's CommandTransport).
func (w *world) mcpStdio(addr string, extra ...string) (*mcp.ClientSession, *exec.Cmd, *syncBuffer) {
	w.t.Helper()
	cmd := w.cmd(append([]string{"mcp", "--temporal", addr, "--state", w.state}, extra...)...)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "pcflow-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		w.t.Fatalf("connect an MCP client to pcflow mcp: %v\n%s", err, stderr.String())
	}
	w.t.Cleanup(func() { cs.Close() })
	return cs, cmd, &stderr
}

// callTool calls a tool; it returns the tool's error text ("" when it
// succeeded) and decodes its structured result into out.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, out any) (*mcp.CallToolResult, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s %v: %v", name, args, err)
	}
	if res.IsError {
		var msg []string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				msg = append(msg, tc.Text)
			}
		}
		return res, strings.Join(msg, " ")
	}
	if out != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s's result %s: %v", name, b, err)
		}
	}
	return res, ""
}

// mustAct acts and fails the test unless the action was done.
func mustAct(t *testing.T, cs *mcp.ClientSession, args map[string]any) mcpserver.ActResult {
	t.Helper()
	args["device"] = "desk"
	var r mcpserver.ActResult
	if _, e := callTool(t, cs, "act", args, &r); e != "" || r.Outcome != activities.OutcomeDone {
		t.Fatalf("act %v = %+v, error %q; want done", args, r, e)
	}
	return r
}

// observeUntil observes desk until cond holds on what it shows.
func observeUntil(t *testing.T, cs *mcp.ClientSession, what string, cond func(mcpserver.ObserveResult) bool) (mcpserver.ObserveResult, *mcp.CallToolResult) {
	t.Helper()
	var o mcpserver.ObserveResult
	var res *mcp.CallToolResult
	waitFor(t, what, func() bool {
		var e string
		o = mcpserver.ObserveResult{}
		if res, e = callTool(t, cs, "observe", map[string]any{"device": "desk"}, &o); e != "" {
			t.Fatalf("observe desk: %s", e)
		}
		return cond(o)
	})
	return o, res
}

// element finds an element of o by role and a part of its name.
func element(o mcpserver.ObserveResult, role, name string) (mcpserver.Element, bool) {
	for _, e := range o.Elements {
		if e.Role == role && strings.Contains(e.Name, name) {
			return e, true
		}
	}
	return mcpserver.Element{}, false
}

// TestMCPEditsAndSavesInMousepad (issue 41): an MCP client (the official
// Go SDK's, over pcflow mcp's standard input and output) starts Mousepad,
// types a line, opens its File menu, picks Save As… and types a path in a
// temporary folder; the file holds the line. Each act is a workflow whose
// Act ran once on the device's worker (its action log).
func TestMCPEditsAndSavesInMousepad(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports
	w, addr := mcpDevice(t)
	cs, _, stderr := w.mcpStdio(addr)
	defer func() {
		if t.Failed() {
			t.Logf("pcflow mcp:\n%s", stderr.String())
		}
	}()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if got := strings.Join(names, ","); got != "act,devices,observe" {
		t.Errorf("tools = %s, want act,devices,observe", got)
	}
	var devs mcpserver.DevicesResult
	if _, e := callTool(t, cs, "devices", map[string]any{}, &devs); e != "" || len(devs.Devices) != 1 || devs.Devices[0].Name != "desk" || !devs.Devices[0].Online || devs.Devices[0].Platform != "linux" {
		t.Fatalf("devices = %+v, %q; want desk, online, linux", devs, e)
	}

	mustAct(t, cs, map[string]any{"request_id": "open-mousepad", "kind": "open_app", "app": "mousepad"})
	o, res := observeUntil(t, cs, "Mousepad's window with its File menu", func(o mcpserver.ObserveResult) bool {
		_, ok := element(o, "menu", "File")
		return strings.Contains(o.ActiveWindow, "Mousepad") && ok
	})
	var png bool
	for _, c := range res.Content {
		if ic, ok := c.(*mcp.ImageContent); ok && ic.MIMEType == "image/png" && bytes.HasPrefix(ic.Data, []byte("\x89PNG")) {
			png = true
		}
	}
	if !png || o.Width == 0 {
		t.Errorf("observe gave no PNG screenshot (%d×%d)", o.Width, o.Height)
	}
	const line = "written by an MCP client"
	mustAct(t, cs, map[string]any{"request_id": "type-line", "kind": "type", "text": line})
	o, _ = observeUntil(t, cs, "the typed line in Mousepad", func(o mcpserver.ObserveResult) bool {
		for _, e := range o.Elements {
			if strings.Contains(e.Value, line) || strings.Contains(e.Name, line) {
				return true
			}
		}
		return false
	})
	file, _ := element(o, "menu", "File")
	mustAct(t, cs, map[string]any{"request_id": "open-file-menu", "kind": "click", "element": file.ID})
	o, _ = observeUntil(t, cs, "the File menu's Save As item", func(o mcpserver.ObserveResult) bool {
		_, ok := element(o, "menu item", "Save As")
		return ok
	})
	saveAs, _ := element(o, "menu item", "Save As")
	mustAct(t, cs, map[string]any{"request_id": "pick-save-as", "kind": "click", "element": saveAs.ID})
	observeUntil(t, cs, "the Save As dialog", func(o mcpserver.ObserveResult) bool { return strings.Contains(o.ActiveWindow, "Save As") })
	path := filepath.Join(t.TempDir(), "mcp-note.txt")
	mustAct(t, cs, map[string]any{"request_id": "type-path", "kind": "type", "text": path})
	var save mcpserver.Element
	observeUntil(t, cs, "the dialog's Save button", func(o mcpserver.ObserveResult) bool {
		for _, e := range o.Elements {
			if e.Role == "push button" && strings.Trim(e.Name, "_") == "Save" {
				save = e
				return true
			}
		}
		return false
	})
	mustAct(t, cs, map[string]any{"request_id": "press-save", "kind": "click", "element": save.ID})
	var got []byte
	waitFor(t, path+" to be saved with the line", func() bool {
		got, _ = os.ReadFile(path)
		return strings.Contains(string(got), line)
	})

	entries, err := activities.ReadActionLog(filepath.Join(w.state, "actions", "desk.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	started := map[string]int{}
	for _, e := range entries {
		if e.Phase == activities.PhaseStarted {
			started[e.ID]++
		}
	}
	for _, id := range []string{"open-mousepad", "type-line", "open-file-menu", "pick-save-as", "type-path", "press-save"} {
		if n := started[workflows.MCPActionID(id)]; n != 1 {
			t.Errorf("the action log shows request %s started %d times, want once", id, n)
		}
	}
}

// TestMCPActOnceAcrossRestart (issue 41): an act's request_id makes it
// exactly once. A click acted, then pcflow mcp killed and started again:
// the same call returns the recorded result and the device's action log
// shows the click started once. The same with pcflow mcp killed while the
// act runs on the device. An act the operator's policy makes wait for a
// person runs once pcflow approve approves its workflow. The same
// request_id for another action is refused.
func TestMCPActOnceAcrossRestart(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports
	w, addr := mcpDevice(t)
	cs, cmd, _ := w.mcpStdio(addr)
	click := map[string]any{"device": "desk", "request_id": "click-once", "kind": "click", "x": 700, "y": 450}
	var first mcpserver.ActResult
	if _, e := callTool(t, cs, "act", click, &first); e != "" || first.Outcome != activities.OutcomeDone || first.Recorded {
		t.Fatalf("act = %+v, %q; want done, not recorded", first, e)
	}

	// Killed while a wait runs on the device.
	c, err := client.Dial(client.Options{HostPort: addr, Namespace: tserver.Namespace,
		Logger: sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	wait := map[string]any{"device": "desk", "request_id": "wait-once", "kind": "wait", "seconds": 3}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "act", Arguments: wait}) // its answer is lost
	}()
	logPath := filepath.Join(w.state, "actions", "desk.jsonl")
	startedOf := func(id string) (started, finished int) {
		entries, _ := activities.ReadActionLog(logPath)
		for _, e := range entries {
			if e.ID == workflows.MCPActionID(id) {
				switch e.Phase {
				case activities.PhaseStarted:
					started++
				case activities.PhaseFinished:
					finished++
				}
			}
		}
		return started, finished
	}
	waitFor(t, "the wait to start on the device", func() bool { s, _ := startedOf("wait-once"); return s == 1 })
	cmd.Process.Kill()
	cs.Close()

	policy := filepath.Join(t.TempDir(), "policy.hcl")
	if err := os.WriteFile(policy, []byte(`policy {
  rule "double clicks need a person" {
    kinds    = ["double_click"]
    decision = "confirm"
  }
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	cs2, _, stderr := w.mcpStdio(addr, "--policy", policy)
	var again mcpserver.ActResult
	if _, e := callTool(t, cs2, "act", click, &again); e != "" || !again.Recorded || again.Outcome != activities.OutcomeDone || again.ActionID != first.ActionID {
		t.Fatalf("the same act after a restart = %+v, %q; want the recorded result of %+v\n%s", again, e, first, stderr.String())
	}
	var waited mcpserver.ActResult
	if _, e := callTool(t, cs2, "act", wait, &waited); e != "" || !waited.Recorded || waited.Outcome != activities.OutcomeDone {
		t.Fatalf("the wait retried after pcflow mcp was killed during it = %+v, %q; want its recorded result, done", waited, e)
	}
	for _, id := range []string{"click-once", "wait-once"} {
		if s, f := startedOf(id); s != 1 || f != 1 {
			t.Errorf("the action log shows request %s started %d and finished %d times, want once each", id, s, f)
		}
	}

	// A confirm rule holds an act until a person approves its workflow.
	dbl := map[string]any{"device": "desk", "request_id": "dbl-1", "kind": "double_click", "x": 700, "y": 450}
	var held mcpserver.ActResult
	wid := workflows.MCPActWorkflowID("desk", "dbl-1")
	if _, e := callTool(t, cs2, "act", dbl, &held); e != "" || held.Outcome != mcpserver.OutcomeWaitingApproval || !strings.Contains(held.Error, "pcflow approve "+wid) {
		t.Fatalf("a double click under a confirm rule = %+v, %q; want it waiting for pcflow approve %s", held, e, wid)
	}
	if s, _ := startedOf("dbl-1"); s != 0 {
		t.Errorf("the double click started %d times before its approval, want none", s)
	}
	if code, out := w.pcflow("approve", wid, "--temporal", addr, "--state", w.state); code != 0 {
		t.Fatalf("pcflow approve %s = %d:\n%s", wid, code, out)
	}
	var approved mcpserver.ActResult
	if _, e := callTool(t, cs2, "act", dbl, &approved); e != "" || approved.Outcome != activities.OutcomeDone || !strings.Contains(approved.Person, "approved") {
		t.Errorf("the double click asked again after its approval = %+v, %q; want done, approved by a person", approved, e)
	}
	if s, f := startedOf("dbl-1"); s != 1 || f != 1 {
		t.Errorf("the approved double click started %d and finished %d times, want once each", s, f)
	}

	other := map[string]any{"device": "desk", "request_id": "click-once", "kind": "click", "x": 10, "y": 10}
	if _, e := callTool(t, cs2, "act", other, nil); !strings.Contains(e, "request_id click-once was used on device desk for another action") {
		t.Errorf("the request id of the click for another click: error %q, want it refused as used for another action", e)
	}
	if s, _ := startedOf("click-once"); s != 1 {
		t.Errorf("after a refused reuse of its request id the click started %d times, want once", s)
	}
}

// bearer adds a bearer token to every request.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// TestMCPHTTPRefusesStrangers (issue 41): pcflow mcp over streamable
// HTTP answers only a client with the token, no foreign Origin and its own
// Host; one session at a time holds a device, and a second is refused
// naming the first until the first ends. A non-loopback address needs
// --allow-remote.
func TestMCPHTTPRefusesStrangers(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports
	state := t.TempDir()
	w := &world{t: t, state: state, port: freePort(t)}
	if code, out := w.pcflow("mcp", "--http", "0.0.0.0:0", "--state", state, "--port", fmt.Sprint(w.port)); code != 1 || !strings.Contains(out, "--allow-remote") {
		t.Errorf("pcflow mcp --http 0.0.0.0:0 = %d, want 1 saying --allow-remote:\n%s", code, out)
	}
	policy := filepath.Join(t.TempDir(), "policy.hcl")
	if err := os.WriteFile(policy, []byte(`policy {
  rule "no terminals" {
    kinds    = ["open_app"]
    text     = "term"
    decision = "deny"
    message  = "no terminal for MCP clients"
  }
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	var out syncBuffer
	w.startBG(&out, "mcp", "--http", fmt.Sprintf("127.0.0.1:%d", port), "--state", state, "--port", fmt.Sprint(w.port), "--policy", policy)
	tokenPath := filepath.Join(state, "mcp-token")
	waitFor(t, "pcflow mcp to say where its token is ("+tokenPath+")", func() bool { return strings.Contains(out.String(), "the bearer token in "+tokenPath) })
	waitPort(t, port)
	tok, err := os.ReadFile(tokenPath)
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(string(tok))
	if strings.Contains(out.String(), token) {
		t.Errorf("pcflow mcp printed its token")
	}
	url := fmt.Sprintf("http://127.0.0.1:%d/", port)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`
	for _, tc := range []struct {
		name    string
		headers map[string]string
		want    int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"a wrong token", map[string]string{"Authorization": "Bearer " + strings.Repeat("0", 64)}, http.StatusUnauthorized},
		{"the token as basic credentials", map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte("pcflow:"+token))}, http.StatusUnauthorized},
		{"a web page's Origin", map[string]string{"Authorization": "Bearer " + token, "Origin": "http://evil.example"}, http.StatusForbidden},
		{"a rebinding Host", map[string]string{"Authorization": "Bearer " + token, "Host": fmt.Sprintf("evil.example:%d", port)}, http.StatusMisdirectedRequest},
		{"the token", map[string]string{"Authorization": "Bearer " + token}, http.StatusOK},
	} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range tc.headers {
			if k == "Host" {
				req.Host = v
			} else {
				req.Header.Set(k, v)
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("initialize with %s = %d %s, want %d", tc.name, resp.StatusCode, body, tc.want)
		}
	}

	connect := func(name string) *mcp.ClientSession {
		c := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url,
			HTTPClient: &http.Client{Transport: bearer{token: token, base: http.DefaultTransport}}}, nil)
		if err != nil {
			t.Fatalf("connect %s over HTTP: %v\n%s", name, err, out.String())
		}
		return cs
	}
	a := connect("client-a")
	// No free text: a kind outside the action set is refused by the tool's schema.
	if _, e := callTool(t, a, "act", map[string]any{"device": "desk", "request_id": "r0", "kind": "rm -rf /"}, nil); !strings.Contains(e, "does not equal any of") {
		t.Errorf("act of kind \"rm -rf /\": error %q, want it refused by the kinds' enum", e)
	}
	// An act the server refuses still leases the device to the session.
	unseen := map[string]any{"device": "desk", "request_id": "r1", "kind": "click", "element": 1}
	if _, e := callTool(t, a, "act", unseen, nil); !strings.Contains(e, "this session has not observed desk yet") {
		t.Fatalf("act on element 1 before any observation: error %q, want it refused until an observe", e)
	}
	// The operator's policy decides before any device is asked.
	var denied mcpserver.ActResult
	if _, e := callTool(t, a, "act", map[string]any{"device": "desk", "request_id": "term-1", "kind": "open_app", "app": "xterm"}, &denied); e != "" ||
		denied.Outcome != workflows.MCPOutcomeDenied || !strings.Contains(denied.Error, `"no terminals"`) || !strings.Contains(denied.Error, "no terminal for MCP clients") {
		t.Errorf("act open_app xterm under a policy denying terminals = %+v, %q; want denied by rule \"no terminals\"", denied, e)
	}
	b := connect("client-b")
	defer b.Close()
	if _, e := callTool(t, b, "act", unseen, nil); !strings.Contains(e, "device desk is leased to another MCP session") || !strings.Contains(e, `of the MCP client "client-a"`) {
		t.Errorf("a second session's act on desk: error %q, want it refused naming client-a's session", e)
	}
	var devs mcpserver.DevicesResult
	if _, e := callTool(t, b, "devices", map[string]any{}, &devs); e != "" || len(devs.Devices) != 1 || !strings.Contains(devs.Devices[0].LeasedBy, "client-a") {
		t.Errorf("devices = %+v, %q; want desk leased by client-a", devs, e)
	}
	a.Close()
	waitFor(t, "the second session to lease desk once the first ended", func() bool {
		_, e := callTool(t, b, "act", unseen, nil)
		return strings.Contains(e, "this session has not observed desk yet")
	})
}

// TestMCPRunsATask (issue 41): an MCP client starts a pcflow run of a
// task file from the folder pcflow mcp offers (--tasks), follows it with
// status, approves the action its policy makes wait for a person
// (--allow-approve), and reads its history; the run succeeds with the
// product. A task file outside the folder is refused.
func TestMCPRunsATask(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports
	// The person task's script, and the Manager's answer for an
	// instruction: one subtask that waits and is done.
	b, err := os.ReadFile("testdata/person.script.json")
	if err != nil {
		t.Fatal(err)
	}
	var script map[string]map[string]any
	if err := json.Unmarshal(b, &script); err != nil {
		t.Fatal(err)
	}
	script["manager"] = map[string]any{"subtasks": []map[string]any{{"name": "pause", "instruction": "Wait a second, then finish."}}}
	script["subtasks"]["pause"] = map[string]any{"steps": []map[string]any{{"action": "wait", "args": map[string]any{"seconds": 1}}, {"action": "done"}}}
	scriptPath := filepath.Join(t.TempDir(), "mcp.script.json")
	b, _ = json.Marshal(script)
	if err := os.WriteFile(scriptPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	w, addr := mcpDeviceNamed(t, "desktop", scriptPath)
	tasks := t.TempDir()
	if err := copyFile("testdata/person.hcl", filepath.Join(tasks, "person.hcl")); err != nil {
		t.Fatal(err)
	}
	cs, _, stderr := w.mcpStdio(addr, "--tasks", tasks, "--allow-approve")
	defer func() {
		if t.Failed() {
			t.Logf("pcflow mcp:\n%s", stderr.String())
		}
	}()
	if _, e := callTool(t, cs, "run", map[string]any{"task_file": "../person.hcl"}, nil); !strings.Contains(e, "without a folder") {
		t.Errorf("run of ../person.hcl: error %q, want it refused as outside the folder", e)
	}
	var st mcpserver.RunStarted
	if _, e := callTool(t, cs, "run", map[string]any{"task_file": "person.hcl", "run_id": "mcp-person"}, &st); e != "" || st.ID != "mcp-person" || strings.Join(st.Devices, ",") != "desktop" {
		t.Fatalf("run person.hcl = %+v, %q; want run mcp-person on desktop", st, e)
	}
	status := func() string {
		var r mcpserver.TextResult
		if _, e := callTool(t, cs, "status", map[string]any{"run_id": "mcp-person"}, &r); e != "" {
			t.Fatalf("status: %s", e)
		}
		return r.Text
	}
	var s string
	waitFor(t, "the run to wait for the approval of =", func() bool { s = status(); return strings.Contains(s, "pcflow approve mcp-person") })
	var ap mcpserver.TextResult
	if _, e := callTool(t, cs, "approve", map[string]any{"run_id": "mcp-person"}, &ap); e != "" || !strings.Contains(ap.Text, "approved") {
		t.Fatalf("approve = %+v, %q; want approved\nstatus:\n%s", ap, e, s)
	}
	waitFor(t, "the run to succeed", func() bool { s = status(); return strings.Contains(s, "SUCCEEDED") })
	if !strings.Contains(s, "84") {
		t.Errorf("status of the ended run = %q, want the product 84", s)
	}
	var h mcpserver.TextResult
	if _, e := callTool(t, cs, "history", map[string]any{"run_id": "mcp-person"}, &h); e != "" || !strings.Contains(h.Text, "approved") {
		t.Errorf("history = %q, %q; want the steps with the approval", h.Text, e)
	}

	// An instruction in words: a task of its own, which the Manager
	// decomposes; its text is never read as an expression.
	instr := `Wait a second, then finish. Keep "${var.nothing}" and %{ if true }this%{ endif } as written.`
	if _, e := callTool(t, cs, "run", map[string]any{"instruction": instr, "device": "desktop", "run_id": "mcp-words"}, &st); e != "" || st.Task != "mcp_instruction" {
		t.Fatalf("run of an instruction = %+v, %q; want run mcp-words of task mcp_instruction", st, e)
	}
	waitFor(t, "the instruction's run to succeed", func() bool {
		var r mcpserver.TextResult
		if _, e := callTool(t, cs, "status", map[string]any{"run_id": "mcp-words"}, &r); e != "" {
			t.Fatalf("status: %s", e)
		}
		s = r.Text
		return strings.Contains(s, "SUCCEEDED") || strings.Contains(s, "FAILED")
	})
	if !strings.Contains(s, "SUCCEEDED") {
		t.Errorf("the instruction's run = %q, want it succeeded", s)
	}
}
