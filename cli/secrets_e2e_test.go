package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities/agents/scripted"
)

// Secret values planted by TestSecretsNeverLeave. The first OCRs well, so
// a screenshot that shows it is caught by reading the stored pixels.
const (
	leakKey = "zebra-4711-quartz"
	leakPW  = "ключ-Вишня-5"
)

const secretsTask = `variable "dir" {}
variable "api-key" {
  sensitive = true
}
variable "пароль" {
  sensitive = true
}

task "secrets" {
  max_steps = 6
  device "desktop" {}

  setup "prepare" {
    command = ["sh", "-c", "mkdir -p ${var.dir} && printf %s \"$PCFLOW_SECRET_api_key\" > ${var.dir}/token.txt && sleep 1"]
    launch  = ["mousepad"]

    wait_for_window = "Mousepad"
  }

  subtask "type_it" {
    instruction = "Type the token ${var.api-key} and the password ${var.пароль} into the editor."
    output "echo" {}

    check "printed" {
      command {
        argv      = ["sh", "-c", "cat ${var.dir}/token.txt; echo; printenv PCFLOW_SECRET_пароль; exit 1"]
        exit_code = 0
      }
    }
  }
}
`

// TestSecretsNeverLeave plants two secrets (named with '-' and with
// Cyrillic letters) in every path by which a value can leave the device
// worker, in one run on a real desktop with the real embedded Temporal and
// a scripted model over HTTP: a setup command that needs one (given
// through the environment, never the command line), text typed into a
// visible editor (so later screenshots, element text and prompts show it),
// a model that repeats it in its thought, memory and outputs, and a
// failing command check that prints both. Then it looks for the values
// (and their base64 forms) in the whole state folder (SQLite database,
// logs, action log, artifacts, recorded exchanges), the text the stored
// screenshots show to OCR, the prompts the model received, the terminal,
// `pcflow history` (text and --json), the Web UI's HTTP API, and the
// command lines of every process while the run went on.
func TestSecretsNeverLeave(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	w := newWorld(t)
	dir := t.TempDir()
	spec := filepath.Join(dir, "secrets.hcl")
	if err := os.WriteFile(spec, []byte(secretsTask), 0o644); err != nil {
		t.Fatal(err)
	}
	// A model that types the secrets by placeholder, then repeats one in
	// everything it says.
	model := scripted.New(scripted.Script{Subtasks: map[string]scripted.SubtaskScript{"type_it": {Steps: []scripted.Step{
		{Thought: "Type both values into the editor.", Action: "type", Role: "text",
			Args: map[string]any{"text": "token {{secret.api-key}} password {{secret.пароль}}"}},
		{Thought: "The editor now shows " + leakKey + " and " + leakPW + ".", Memory: "typed " + leakKey,
			Action: "wait", Args: map[string]any{"seconds": 0.5}},
		{Thought: "Done; the token was " + leakKey + ".", Action: "done", Args: map[string]any{"outputs": map[string]any{"echo": leakKey}}},
	}}}})
	if err := model.Start("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	defer model.Close()

	ps := watchProcesses(t, 0, "")
	c := w.cmd(w.flags("run", spec, "--display", w.display, "--id", "leaky", "--record",
		"--var", "dir="+filepath.Join(dir, "out"))...)
	// Secrets come in through the environment: pcflow's own command line
	// is as visible as any other.
	c.Env = append(c.Env, "OPENAI_BASE_URL="+model.URL, "OPENAI_API_KEY=test", "PCFLOW_MODEL=scripted", "PCFLOW_MODEL_SCRIPTED=1",
		"PCFLOW_VAR_api-key="+leakKey, "PCFLOW_VAR_пароль="+leakPW)
	out, _ := c.CombinedOutput()
	seen := ps().cmdlines
	code := c.ProcessState.ExitCode()
	if code != 1 || !strings.Contains(string(out), "check_failed") || !strings.Contains(string(out), "{{secret.api-key}}") {
		t.Fatalf("run = %d, want 1 (check_failed) with the check's output redacted:\n%s", code, out)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "out", "token.txt"))
	if string(b) != leakKey {
		t.Errorf("the setup command wrote %q, want the secret it read from $PCFLOW_SECRET_api_key", b)
	}

	check := func(where string, data []byte) {
		t.Helper()
		for _, s := range []string{leakKey, leakPW} {
			for _, f := range leakForms(s) {
				if bytes.Contains(data, []byte(f)) {
					t.Errorf("%s holds %q (a form of a secret)", where, f)
					break
				}
			}
		}
	}
	check("the terminal", out)
	check("the command lines of running processes", []byte(strings.Join(seen, "\n")))

	prompts := 0
	for _, r := range model.Requests() {
		check(fmt.Sprintf("a %s prompt (step %d)", r.Role, r.Step), []byte(r.Text))
		turn, _ := json.Marshal(r.Turn)
		check(fmt.Sprintf("the turn of a %s request (step %d)", r.Role, r.Step), turn)
		if r.Role == "decision" && r.Step >= 2 && strings.Contains(r.Text, "{{secret.api-key}}") && strings.Contains(r.Text, "{{secret.пароль}}") {
			prompts++
		}
	}
	if prompts == 0 {
		t.Error("no later decision prompt shows the placeholders where the editor shows the typed secrets")
	}

	// The state folder: database, logs, action log, artifacts, recordings.
	var pngs []string
	placeholderInDB := false
	eachStoredFile(func(p string, data []byte) {
		check(p, data)
		if strings.HasPrefix(filepath.Base(p), "temporal.db") && bytes.Contains(data, []byte("{{secret.api-key}}")) {
			placeholderInDB = true
		}
		if strings.HasSuffix(p, ".png") {
			pngs = append(pngs, p)
		}
	}, w.state)
	if !placeholderInDB {
		t.Error("the database never shows the placeholder: the grep did not look where history is")
	}
	// What the stored screenshots (and the images sent to the model) show.
	if len(pngs) == 0 {
		t.Error("no screenshots stored")
	}
	for _, p := range pngs {
		txt, err := exec.Command("tesseract", p, "stdout", "--psm", "11").Output()
		if err != nil {
			t.Fatalf("tesseract %s: %v", p, err)
		}
		if low := strings.ToLower(string(txt)); strings.Contains(low, "quartz") || strings.Contains(low, "4711") {
			t.Errorf("screenshot %s shows the secret to OCR:\n%s", p, txt)
		}
	}

	// The history, through the CLI and through the Web UI's API.
	srv := w.cmd(w.flags("server")...)
	var srvOut bytes.Buffer
	srv.Stdout, srv.Stderr = &srvOut, &srvOut
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Process.Signal(syscall.SIGINT); srv.Wait() }()
	waitPort(t, w.uiPort)
	for _, args := range [][]string{{"history", "leaky"}, {"history", "leaky", "--json"}} {
		code, out := w.pcflow(w.iflags(args...)...)
		if code != 0 || !strings.Contains(out, "{{secret.api-key}}") {
			t.Errorf("pcflow %v = %d, want the run's steps with placeholders:\n%s", args, code, out)
		}
		check(fmt.Sprintf("pcflow %v", args), []byte(out))
	}
	api := fmt.Sprintf("http://127.0.0.1:%d/api/v1/namespaces/default", w.uiPort)
	var list struct {
		Executions []struct {
			Execution struct {
				WorkflowID string `json:"workflowId"`
				RunID      string `json:"runId"`
			} `json:"execution"`
		} `json:"executions"`
	}
	if err := json.Unmarshal(get(t, api+"/workflows"), &list); err != nil || len(list.Executions) < 2 {
		t.Fatalf("UI API workflow list: %v, %d executions (want the run and its subtask)", err, len(list.Executions))
	}
	for _, e := range list.Executions {
		body := get(t, fmt.Sprintf("%s/workflows/%s/history?execution.runId=%s", api, url.PathEscape(e.Execution.WorkflowID), e.Execution.RunID))
		if !bytes.Contains(body, []byte(`"events"`)) {
			t.Errorf("UI API history of %s: %.300s", e.Execution.WorkflowID, body)
		}
		where := "UI API history of " + e.Execution.WorkflowID
		check(where, body)
		check(where+" (payloads decoded)", decodePayloads(body))
		if e.Execution.WorkflowID == "leaky" && !bytes.Contains(decodePayloads(body), []byte("{{secret.api-key}}")) {
			t.Errorf("%s: no placeholder in the decoded payloads: the check did not look where the data is", where)
		}
	}
	check("the server's output", srvOut.Bytes())

	// A secret on a command line is refused before anything runs.
	bad := filepath.Join(dir, "bad.hcl")
	os.WriteFile(bad, []byte(strings.Replace(secretsTask, `"cat ${var.dir}/token.txt; echo; printenv PCFLOW_SECRET_пароль; exit 1"`, `"echo ${var.пароль}"`, 1)), 0o644)
	code, vout := w.pcflow("validate", bad, "--var", "dir=/tmp", "--var", "api-key=x", "--var", "пароль=y")
	if code == 0 || !strings.Contains(vout, "Sensitive value in a command line") || !strings.Contains(vout, "bad.hcl:") || !strings.Contains(vout, "PCFLOW_SECRET_пароль") {
		t.Errorf("validate with a secret in argv = %d, want a located refusal naming the environment variable:\n%s", code, vout)
	}
}

// leakForms are the byte strings that reveal s: s itself and, at each of
// the three alignments, the part of its base64 form that depends on s
// alone (how a JSON payload shows it in an HTTP API).
func leakForms(s string) []string {
	forms := []string{s}
	for k := 0; k < 3; k++ {
		enc := base64.StdEncoding.EncodeToString(append(bytes.Repeat([]byte{'\''}, k), s...))
		start := 0
		if k > 0 {
			start = 4
		}
		end := 4 * ((k + len(s)) / 3)
		if end-start >= 8 {
			forms = append(forms, enc[start:end])
		}
	}
	return forms
}

// decodePayloads decodes every base64 "data" value in a JSON document.
func decodePayloads(body []byte) []byte {
	var out bytes.Buffer
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if s, ok := e.(string); ok && k == "data" {
					if b, err := base64.StdEncoding.DecodeString(s); err == nil {
						out.Write(b)
						out.WriteByte('\n')
					}
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	var v any
	json.Unmarshal(body, &v)
	walk(v)
	return out.Bytes()
}

func get(t *testing.T, u string) []byte {
	t.Helper()
	var body []byte
	for i := 0; i < 50; i++ {
		resp, err := http.Get(u)
		if err == nil {
			body, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return body
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("GET %s: %.300s", u, body)
	return nil
}

// processWatch is what watchProcesses saw: every command line, and for
// each process whose environment held the watched value, its command
// line and the names of the variables that held it.
type processWatch struct {
	cmdlines []string
	holders  map[string][]string
}

// watchProcesses samples every process but skip (0: none) until the
// returned function is called: its command line, and whether its
// environment (as /proc/PID/environ shows it to every program of the
// user) holds value ("" watches command lines only).
func watchProcesses(t *testing.T, skip int, value string) func() processWatch {
	ctx, cancel := context.WithCancel(context.Background())
	seen, holders := map[string]bool{}, map[string][]string{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		// The skipped process's command line: a child it has forked but
		// not yet exec'd shares its memory, so /proc shows the parent's
		// command line and environment under the child's pid.
		// Right after exec.Cmd.Start the kernel may not have set up the
		// new program's arguments yet (Start returns when exec closes the
		// CLOEXEC pipe, before the ELF loader writes argv): until it has,
		// /proc shows an empty command line. Wait for it; the process
		// forks nothing before its program runs.
		var skipCmdline []byte
		for skip != 0 && len(skipCmdline) == 0 && ctx.Err() == nil {
			var err error
			if skipCmdline, err = os.ReadFile(filepath.Join("/proc", fmt.Sprint(skip), "cmdline")); err != nil {
				break // gone already
			}
			if len(skipCmdline) == 0 {
				time.Sleep(time.Millisecond)
			}
		}
		for ctx.Err() == nil {
			entries, _ := os.ReadDir("/proc")
			for _, e := range entries {
				if skip != 0 && e.Name() == fmt.Sprint(skip) {
					continue
				}
				b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
				if err != nil || len(b) == 0 || (len(skipCmdline) > 0 && bytes.Equal(b, skipCmdline)) {
					continue
				}
				cl := string(bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
				seen[cl] = true
				if value == "" {
					continue
				}
				env, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
				for _, kv := range bytes.Split(env, []byte{0}) {
					if k, v, ok := bytes.Cut(kv, []byte("=")); ok && bytes.Contains(v, []byte(value)) && !slices.Contains(holders[cl], string(k)) {
						holders[cl] = append(holders[cl], string(k))
					}
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	return func() processWatch {
		cancel()
		<-done
		w := processWatch{holders: holders}
		for k := range seen {
			w.cmdlines = append(w.cmdlines, k)
		}
		return w
	}
}

// eachStoredFile calls fn with the path and bytes of every file under the
// roots (sockets and unreadable files left out): where a secret must not
// be found.
func eachStoredFile(fn func(path string, data []byte), roots ...string) {
	for _, root := range roots {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Type()&fs.ModeSocket != 0 {
				return nil
			}
			if data, err := os.ReadFile(p); err == nil {
				fn(p, data)
			}
			return nil
		})
	}
}
