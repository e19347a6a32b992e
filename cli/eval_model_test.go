package main

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
)

// countingEndpoint is an HTTP endpoint that counts the requests it gets
// and answers every one with 500: where a test points the real model's
// base URL to prove that nothing asks it.
func countingEndpoint(t *testing.T) (url string, hits *atomic.Int64) {
	t.Helper()
	hits = &atomic.Int64{}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, `{"error":{"message":"this endpoint must not be asked"}}`, 500)
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { srv.Close() })
	return "http://" + l.Addr().String() + "/v1", hits
}

// recordedDecisions reads the Decision answers recorded in a state
// folder's artifact store.
func recordedDecisions(t *testing.T, state string) []string {
	t.Helper()
	var answers []string
	files, _ := filepath.Glob(filepath.Join(state, "artifacts", "*", "*.json"))
	more, _ := filepath.Glob(filepath.Join(state, "artifacts", "*.json"))
	for _, f := range append(files, more...) {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var ex struct {
			Role     string `json:"role"`
			Response *struct {
				Choices []struct {
					Message struct {
						Content string `json:"content"`
					} `json:"message"`
				} `json:"choices"`
			} `json:"response"`
		}
		if json.Unmarshal(b, &ex) != nil || ex.Role != "decision" || ex.Response == nil || len(ex.Response.Choices) == 0 {
			continue
		}
		answers = append(answers, ex.Response.Choices[0].Message.Content)
	}
	return answers
}

// TestEvalProfileRecordReplay: `pcflow eval --profile uitars-1.5` makes the
// scripted model answer the Decision agent in UI-TARS's text format (the
// recorded answers say "Action: click(start_box=…)"), results.json records
// uitars-1.5 for the Decision role, and --record then --replay runs the
// same suite again to the same outcome with zero requests to any model:
// the real endpoint configured in the environment counts none, and no
// script is there to play.
func TestEvalProfileRecordReplay(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	w := newEvalWorld(t)
	suite := t.TempDir()
	for _, f := range []string{"calc_add.hcl", "calc_add.script.json"} {
		b, err := os.ReadFile(filepath.Join("..", "specs", "suites", "smoke", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(suite, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out := w.pcflow(w.flags("eval", suite, "--profile", "uitars-1.5", "--record", "--sandbox", "none", "--out", w.out, "--id", "tars")...)
	t.Log(out)
	if code != 0 {
		t.Fatalf("eval exited %d", code)
	}
	r := readResults(t, w.out)
	if len(r.Runs) != 1 || r.Runs[0].Status != "succeeded" {
		t.Fatalf("runs = %+v, want calc_add succeeded", r.Runs)
	}
	// A suite of one task still says how that task ended, on a line of
	// its own (it finished before the progress line polled it).
	if !regexp.MustCompile(`(?m)^✓ ` + regexp.QuoteMeta(r.Runs[0].Key) + ` `).MatchString(out) {
		t.Errorf("eval of one task printed no ✓ line for %s:\n%s", r.Runs[0].Key, out)
	}
	if r.Repro.Profiles["decision"] != "uitars-1.5" || r.Repro.Profiles["reflection"] != "openai-tools" {
		t.Errorf("results record profiles %v, want decision uitars-1.5 (reflection openai-tools)", r.Repro.Profiles)
	}
	if !strings.Contains(string(r.Repro.Profile), `"uitars-1.5"`) {
		t.Errorf("results record the Decision profile %s, want uitars-1.5", r.Repro.Profile)
	}
	answers := recordedDecisions(t, w.state)
	if len(answers) == 0 {
		t.Fatal("--record kept no Decision answers")
	}
	for _, a := range answers {
		if !strings.Contains(a, "Action: ") {
			t.Errorf("a Decision answer is not in UI-TARS's format: %q", a)
		}
	}
	if !strings.Contains(strings.Join(answers, "\n"), "start_box=") {
		t.Errorf("no recorded Decision answer clicks in UI-TARS's format (start_box=): %q", answers)
	}

	// The replay: the scripts are gone and a "real" endpoint that counts
	// every request is configured, with a key.
	for _, f := range []string{"calc_add.script.json"} {
		os.Remove(filepath.Join(suite, f))
	}
	url, hits := countingEndpoint(t)
	out2 := t.TempDir()
	c := w.cmd(w.flags("eval", suite, "--replay", "tars", "--sandbox", "none", "--out", out2, "--id", "tars-again")...)
	c.Env = append(c.Env, "OPENAI_API_KEY=sk-test-must-not-be-used", "OPENAI_BASE_URL="+url, "ANTHROPIC_API_KEY=sk-ant-must-not-be-used", "ANTHROPIC_BASE_URL="+url)
	b, err := c.CombinedOutput()
	t.Log(string(b))
	if err != nil {
		t.Fatalf("eval --replay: %v", err)
	}
	r2 := readResults(t, out2)
	if len(r2.Runs) != 1 || r2.Runs[0].Status != "succeeded" {
		t.Errorf("replayed runs = %+v, want calc_add succeeded", r2.Runs)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the replay asked the configured model endpoint %d times, want 0", n)
	}
	if r2.Repro.Replayed != "tars" || r2.Repro.Profiles["decision"] != "uitars-1.5" {
		t.Errorf("replay results record replayed=%q profiles=%v, want tars and uitars-1.5 (from the recorded suite)", r2.Repro.Replayed, r2.Repro.Profiles)
	}
}
