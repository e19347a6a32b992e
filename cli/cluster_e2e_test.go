package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"syscall"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/x11"
	"github.com/pcflow/pcflow/internal/netlab"
)

// clusterLab is a team's deployment made of network namespaces: a
// PostgreSQL host, two server nodes forming one Temporal cluster over it
// with mutual TLS on their frontends, and device hosts whose workers
// reach the cluster by both nodes' addresses.
type clusterLab struct {
	t      *testing.T
	lab    *netlab.Lab
	pg     *netlab.Postgres
	certs  netlab.Certs
	state  string
	nodes  []*netlab.Host
	procs  map[string]*exec.Cmd
	logs   map[string]*lockedBuffer
	frontA string // "IP:7233,IP:7233"
}

func newClusterLab(t *testing.T) *clusterLab {
	t.Helper()
	if why := netlab.Available(); why != "" {
		t.Skip(why)
	}
	c := &clusterLab{t: t, lab: netlab.New(t), state: t.TempDir(), procs: map[string]*exec.Cmd{}, logs: map[string]*lockedBuffer{}}
	db := c.lab.Host("db")
	c.nodes = []*netlab.Host{c.lab.Host("n1"), c.lab.Host("n2")}
	c.pg = netlab.StartPostgres(t, db)
	c.certs = netlab.MakeCerts(t, t.TempDir(), c.nodes[0].IP, c.nodes[1].IP)
	c.frontA = c.nodes[0].IP + ":7233," + c.nodes[1].IP + ":7233"
	t.Cleanup(func() {
		for name, p := range c.procs {
			syscall.Kill(-p.Process.Pid, syscall.SIGKILL)
			p.Wait()
			if t.Failed() {
				t.Logf("--- %s:\n%s", name, tail(c.logs[name].String(), 3000))
			}
		}
	})
	return c
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// start runs pcflow in a host; env adds to the environment.
func (c *clusterLab) start(name string, h *netlab.Host, env []string, args ...string) *exec.Cmd {
	c.t.Helper()
	cmd := h.Command(pcflowBin, args...)
	cmd.Dir = ".."
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OPENAI_") && !strings.HasPrefix(kv, "PCFLOW_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	buf := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = buf, buf
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	c.procs[name], c.logs[name] = cmd, buf
	return cmd
}

// node starts server node i and waits until its history owns shards.
func (c *clusterLab) node(i int) {
	c.t.Helper()
	h := c.nodes[i]
	name := fmt.Sprintf("node%d", i+1)
	c.start(name, h, []string{"PCFLOW_DB_PASSWORD=" + c.pg.Password},
		"server", "--db", fmt.Sprintf("postgres://%s@%s/temporal", c.pg.User, c.pg.Addr), "--ip", h.IP,
		"--state", filepath.Join(c.state, name), "--ui-port", "0",
		"--tls-cert", c.certs.NodeCert, "--tls-key", c.certs.NodeKey, "--tls-ca", c.certs.CA)
	c.waitLog(name, "Temporal cluster node on", 3*time.Minute)
}

func (c *clusterLab) waitLog(name, needle string, d time.Duration) {
	c.t.Helper()
	for deadline := time.Now().Add(d); !strings.Contains(c.logs[name].String(), needle); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			c.t.Fatalf("%s did not print %q within %v:\n%s\nPostgreSQL:\n%s", name, needle, d, tail(c.logs[name].String(), 4000), tail(c.pg.Log(), 2000))
		}
		if p := c.procs[name]; p.ProcessState != nil {
			slog, _ := os.ReadFile(filepath.Join(c.state, name, "server.log"))
			c.t.Fatalf("%s exited:\n%s\nserver log:\n%s", name, c.logs[name].String(), tail(string(slog), 6000))
		}
	}
}

// client are the flags of a client with the lab's client certificate.
func (c *clusterLab) client(args ...string) []string {
	return append(args, "--temporal", c.frontA, "--tls-cert", c.certs.ClientCert, "--tls-key", c.certs.ClientKey, "--tls-ca", c.certs.CA)
}

// TestClusterOfTwoNodes runs a team's deployment on network namespaces:
// PostgreSQL on its own host, two `pcflow server` nodes on two more
// forming one Temporal cluster over it (the schema made by Temporal's own
// tool at the first node's start), mutual TLS on the frontends, and two
// device workers on two more hosts that know both nodes. A suite runs on
// the two devices; one node is killed with SIGKILL mid-suite: every task
// still succeeds and no action starts twice. Clients without a
// certificate, or with one from another authority, are refused, saying so.
func TestClusterOfTwoNodes(t *testing.T) {
	t.Parallel() // its own hosts, desktops and state folders
	c := newClusterLab(t)
	began := time.Now()
	c.node(0)
	firstNode := time.Since(began)
	c.node(1)
	t.Logf("first node serving after %v (schema made), second after %v more; %s / %s", firstNode.Round(time.Millisecond),
		(time.Since(began) - firstNode).Round(time.Millisecond), lastLine(c.logs["node1"].String(), "cluster node"), lastLine(c.logs["node2"].String(), "cluster node"))

	// Refusals, before any work: no certificate, another authority's.
	rogue := []string{"status", "--temporal", c.frontA, "--tls-ca", c.certs.CA, "--state", c.state}
	for _, args := range [][]string{
		{"status", "--temporal", c.frontA, "--state", c.state},
		rogue,
		append(rogue, "--tls-cert", c.certs.RogueClientCert, "--tls-key", c.certs.RogueClientKey),
	} {
		code, out := pcflowRun(t, args...)
		if code == 0 || !strings.Contains(out, "connect to Temporal") || !(strings.Contains(out, "certificate") || strings.Contains(out, "TLS")) {
			t.Errorf("pcflow %s = %d, want a refusal that names the certificate or TLS:\n%s", strings.Join(args, " "), code, out)
		}
	}
	if code, out := pcflowRun(t, c.client("status", "--state", c.state)...); code != 0 {
		t.Fatalf("pcflow status with the client certificate = %d:\n%s", code, out)
	}

	smoke := func(f string) string {
		abs, _ := filepath.Abs(filepath.Join("..", "specs", "suites", "smoke", f))
		return abs
	}
	tasks := []string{smoke("calc_add.hcl"), smoke("editor_note.hcl")}
	script := mergeScripts(t, smoke("calc_add.script.json"), smoke("editor_note.script.json"))
	devices := []string{"ca", "cb"}
	for _, dev := range devices {
		h := c.lab.Host("w" + dev)
		d, err := x11.Up(context.Background(), x11.DesktopOptions{StateDir: c.state})
		if err != nil {
			t.Fatalf("desktop for %s: %v", dev, err)
		}
		t.Cleanup(func() { x11.StopApps(d.Display); d.Down() })
		c.start("worker "+dev, h, nil, c.client("worker", "--device", dev, "--display", d.Display, "--script", script, "--state", c.state)...)
	}
	for _, dev := range devices {
		c.waitLog("worker "+dev, "worker for device "+dev, 2*time.Minute)
	}
	time.Sleep(time.Second) // the line comes just before the worker polls

	// The suite, from the test's own host; node 1 dies after the first
	// action anywhere.
	out := t.TempDir()
	ev := exec.Command(pcflowBin, c.client(append([]string{"eval"}, append(tasks, "--pool", "ca,cb", "--repeat", "2", "--out", out, "--id", "cluster", "--no-report", "--state", c.state)...)...)...)
	ev.Dir = ".."
	evOut := &lockedBuffer{}
	ev.Stdout, ev.Stderr = evOut, evOut
	if err := ev.Start(); err != nil {
		t.Fatal(err)
	}
	logs := func() []string {
		var paths []string
		for _, d := range devices {
			paths = append(paths, filepath.Join(c.state, "actions", d+".jsonl"))
		}
		return paths
	}
	finished := func() int {
		n := 0
		for _, p := range logs() {
			n += count(p, `"phase":"finished"`)
		}
		return n
	}
	for deadline := time.Now().Add(4 * time.Minute); finished() < 2; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) || ev.ProcessState != nil {
			t.Fatalf("no action finished on the cluster in 4 minutes:\n%s", evOut.String())
		}
	}
	killed := time.Now()
	c.nodes[0].Kill(syscall.SIGKILL)
	t.Logf("node 1 killed with SIGKILL after %d finished actions", finished())

	done := make(chan error, 1)
	go func() { done <- ev.Wait() }()
	select {
	case <-done:
	case <-time.After(8 * time.Minute):
		ev.Process.Kill()
		t.Fatalf("the suite did not end within 8 minutes of the node's death:\n%s", evOut.String())
	}
	r := readResults(t, out)
	if len(r.Runs) != 4 {
		t.Fatalf("%d runs in results, want 4:\n%s", len(r.Runs), evOut.String())
	}
	for _, row := range r.Runs {
		if row.Status != "succeeded" {
			t.Errorf("%s #%d: %s/%s (%s), want succeeded though a node died", row.Key, row.Repeat, row.Status, row.Reason, row.Error)
		}
	}
	// No action started twice, on either device; the first action after
	// the kill says how long the cluster took to carry on.
	var next time.Time
	for _, p := range logs() {
		entries, err := activities.ReadActionLog(p)
		if err != nil {
			t.Fatal(err)
		}
		started := map[string]int{}
		for _, e := range entries {
			if e.Phase == activities.PhaseStarted {
				started[e.ID]++
				if e.Time.After(killed) && (next.IsZero() || e.Time.Before(next)) {
					next = e.Time
				}
			}
		}
		for id, n := range started {
			if n != 1 {
				t.Errorf("%s: action %s started %d times", filepath.Base(p), id, n)
			}
		}
	}
	if !next.IsZero() {
		t.Logf("from node 1's SIGKILL to the next action started: %v", next.Sub(killed).Round(time.Millisecond))
	}
	t.Logf("suite of %d runs on two devices, one node killed: %v", len(r.Runs), time.Since(killed).Round(time.Second))
}

// pcflowRun runs pcflow in the test's own host, to its end.
func pcflowRun(t *testing.T, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, pcflowBin, args...)
	c.Dir = ".."
	out, err := c.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	} else if err != nil {
		t.Fatalf("pcflow %v: %v", args, err)
	}
	return 0, string(out)
}

func lastLine(s, has string) string {
	var last string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if strings.Contains(sc.Text(), has) {
			last = sc.Text()
		}
	}
	return last
}
