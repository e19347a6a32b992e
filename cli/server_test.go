package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer is a buffer written by a command running in a goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor polls until cond holds; the limit only stops a hung test.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	// A minute by the clock, however long each look takes (a look that
	// runs a pcflow command takes seconds).
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// startServer runs `pcflow server` in this process until the test ends.
func startServer(t *testing.T, args ...string) *syncBuffer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	done := make(chan int)
	go func() { done <- run(ctx, append([]string{"server"}, args...), &out, &out) }()
	t.Cleanup(func() { cancel(); <-done })
	waitFor(t, "the server", func() bool { return strings.Contains(out.String(), "Ctrl-C stops it") })
	return &out
}

// TestNoWorkerSaysWhatToStart starts a run against a server that no
// worker serves: instead of waiting in silence it names each queue that
// has no worker and how to start one, and its UI link points at the
// server's actual Web UI port.
func TestNoWorkerSaysWhatToStart(t *testing.T) {
	port, uiPort := freePort(t), freePort(t)
	startServer(t, "--state", t.TempDir(), "--port", fmt.Sprint(port), "--ui-port", fmt.Sprint(uiPort))
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	done := make(chan int)
	t.Setenv("OPENAI_API_KEY", "")
	go func() {
		done <- run(ctx, []string{"run", "../specs/examples/calculator.hcl", "--temporal", addr, "--no-worker", "--state", t.TempDir(), "--id", "nobody-serves"}, &out, &out)
	}()
	waitFor(t, "the no-worker notice", func() bool { return strings.Contains(out.String(), "has no worker") })
	cancel()
	<-done
	got := out.String()
	for _, want := range []string{
		"no worker runs workflows on queue pcflow",
		"device desktop has no worker (nothing polls queue device.desktop at " + addr + ")",
		"pcflow worker --device desktop --display :N --temporal " + addr,
		fmt.Sprintf("Temporal UI: http://127.0.0.1:%d/namespaces/default/workflows/nobody-serves", uiPort),
	} {
		if !strings.Contains(got, want) {
			t.Errorf("pcflow run --no-worker output lacks %q:\n%s", want, got)
		}
	}
}

// TestUIStaysOnLoopback exposes the frontend on the machine's address:
// the Web UI and its HTTP API stay on 127.0.0.1, and the exposure is
// announced loudly.
func TestUIStaysOnLoopback(t *testing.T) {
	ip := outsideIP(t)
	port, uiPort := freePort(t), freePort(t)
	out := startServer(t, "--state", t.TempDir(), "--ip", ip, "--port", fmt.Sprint(port), "--ui-port", fmt.Sprint(uiPort))
	if !strings.Contains(out.String(), "WARNING: the Temporal frontend (gRPC) listens on "+ip+" WITHOUT AUTHENTICATION") {
		t.Errorf("no warning about the exposed frontend:\n%s", out.String())
	}
	if strings.Contains(out.String(), "WARNING: the Web UI") {
		t.Errorf("warned about a UI that stays on loopback:\n%s", out.String())
	}
	if c, err := net.DialTimeout("tcp", net.JoinHostPort(ip, fmt.Sprint(port)), 2*time.Second); err != nil {
		t.Errorf("frontend not reachable on %s: %v", ip, err)
	} else {
		c.Close()
	}
	if c, err := net.DialTimeout("tcp", net.JoinHostPort(ip, fmt.Sprint(uiPort)), 2*time.Second); err == nil {
		c.Close()
		t.Errorf("the Web UI answers on %s:%d; it must stay on 127.0.0.1 unless --ui-ip says otherwise", ip, uiPort)
	}
	waitFor(t, "the UI on loopback", func() bool {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/api/v1/namespaces", uiPort))
		if err != nil {
			return false
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode == 200
	})
}

// outsideIP returns an address of this machine other than loopback.
func outsideIP(t *testing.T) string {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
			return n.IP.String()
		}
	}
	t.Skip("this machine has no address besides loopback")
	return ""
}

// TestHintsForPortAndState: a port held by something that is not a
// Temporal server, and a state folder that cannot be written, each say
// which flag fixes them.
func TestHintsForPortAndState(t *testing.T) {
	t.Parallel() // its own desktop, state folder and ports (see newWorld)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	busy := l.Addr().(*net.TCPAddr).Port
	code, _, errs := runCLI(t, "status", "--state", t.TempDir(), "--port", fmt.Sprint(busy))
	if code != 1 || !strings.Contains(errs, fmt.Sprintf("port %d is taken", busy)) || !strings.Contains(errs, "--port") {
		t.Errorf("status on a port held by another program = %d, %q; want a hint to pass --port", code, errs)
	}
	code, _, errs = runCLI(t, "server", "--state", t.TempDir(), "--port", fmt.Sprint(busy))
	if code != 1 || !strings.Contains(errs, "pass --port") {
		t.Errorf("server on a busy port = %d, %q; want a hint to pass --port", code, errs)
	}
	for _, cmd := range []string{"status", "server"} {
		code, _, errs = runCLI(t, cmd, "--state", "/dev/null/state", "--port", fmt.Sprint(freePort(t)))
		if code != 1 || !strings.Contains(errs, "not writable") || !strings.Contains(errs, "--state") {
			t.Errorf("%s with a state folder that cannot be made = %d, %q; want a hint to pass --state", cmd, code, errs)
		}
	}
}

// TestPortFlagsInRange: a port out of 1–65535 given to any command that
// takes --port or --ui-port is refused when the flags are parsed, saying
// so (was: "port 233410145 is taken by something that does not answer as
// a Temporal server").
func TestPortFlagsInRange(t *testing.T) {
	cmds := [][]string{{"eval", "status", "x"}, {"eval", "resume", "x"}, {"desktop", "up"}}
	for _, c := range commands() {
		cmds = append(cmds, []string{c.name})
	}
	var checked int
	for _, c := range cmds {
		_, help, _ := runCLI(t, append(c, "--help")...)
		for _, flag := range []string{"-port", "-ui-port"} {
			if !strings.Contains(help, "  "+flag+" ") {
				continue
			}
			for _, bad := range []string{"233410145", "-1", "65536", "http"} {
				args := append(append([]string{}, c...), "--state", t.TempDir(), flag, bad)
				code, _, errs := runCLI(t, args...)
				if code != 2 || !strings.Contains(errs, "invalid value \""+bad+"\" for flag "+flag) || !strings.Contains(errs, "65535") {
					t.Errorf("pcflow %v = %d, %q; want 2 and the port's range", args, code, errs)
				}
				if strings.Contains(errs, "is taken") {
					t.Errorf("pcflow %v called an impossible port taken: %q", args, errs)
				}
			}
			checked++
		}
	}
	if checked < 10 {
		t.Errorf("checked %d port flags; want every command's", checked)
	}
	// --ui-port 0 still means no UI; --port 0 is refused.
	if code, _, errs := runCLI(t, "server", "--state", t.TempDir(), "--port", "0"); code != 2 || !strings.Contains(errs, "out of range 1–65535") {
		t.Errorf("server --port 0 = %d, %q; want 2 and the range", code, errs)
	}
}

// TestServerOfAnotherStateFolder: a command whose state folder is not the
// one of the pcflow server already on its port is refused, naming the
// server's folder and the three ways on (was: a second run joined it
// silently and kept its history in the other folder); the server's own
// folder is served.
func TestServerOfAnotherStateFolder(t *testing.T) {
	t.Parallel()
	mine, other := t.TempDir(), t.TempDir()
	port := freePort(t)
	srv := exec.Command(pcflowBin, "server", "--state", mine, "--port", fmt.Sprint(port), "--ui-port", "0")
	var out syncBuffer
	srv.Stdout = &out
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Signal(syscall.SIGINT); srv.Wait() })
	// The line comes once the server published its folder.
	waitFor(t, "the server", func() bool { return strings.Contains(out.String(), "Temporal server on") })
	if code, _, errs := runCLI(t, "status", "--state", mine, "--port", fmt.Sprint(port)); code != 0 {
		t.Fatalf("status on the server's own folder = %d: %s", code, errs)
	}
	code, _, errs := runCLI(t, "status", "--state", other, "--port", fmt.Sprint(port))
	for _, want := range []string{"keeps its runs in the state folder " + mine, "--state " + mine, "--port N", "--temporal"} {
		if code == 0 || !strings.Contains(errs, want) {
			t.Errorf("status on another state folder = %d, %q; want it refused, saying %q", code, errs, want)
		}
	}
}

// TestServerDatabaseFlags: a cluster node's --port above the highest a
// PostgreSQL node can have is refused when the flags are parsed, saying
// which is the highest and why (was: a panic once its membership ports
// overflowed the database's smallint column), and a password in the
// database URL's query is refused without being repeated, saying how to
// pass it (was: taken, and shown in ps).
func TestServerDatabaseFlags(t *testing.T) {
	db := "postgres://pcflow@127.0.0.1:1/temporal"
	code, _, errs := runCLI(t, "server", "--state", t.TempDir(), "--db", db, "--port", "32665")
	if code != 2 || !strings.Contains(errs, "--port 32665") || !strings.Contains(errs, "highest port is 32664") || !strings.Contains(errs, "smallint") {
		t.Errorf("server --db … --port 32665 = %d, %q; want 2, the highest port (32664) and why", code, errs)
	}
	for _, url := range []string{db + "?password=hunter2", db + "?sslmode=disable&PASSWORD=hunter2", "host=127.0.0.1 user=pcflow password=hunter2"} {
		code, out, errs := runCLI(t, "server", "--state", t.TempDir(), "--db", url)
		if code == 0 || strings.Contains(out+errs, "hunter2") || !strings.Contains(errs, "$PCFLOW_DB_PASSWORD") {
			t.Errorf("server --db %q = %d, %q %q; want a refusal naming $PCFLOW_DB_PASSWORD, without the password", url, code, out, errs)
		}
	}
}
