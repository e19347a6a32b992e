package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"syscall"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/activities/x11"
	"github.com/pcflow/pcflow/internal/netlab"
	"github.com/pcflow/pcflow/internal/tserver"
)

// clusterLab is a team's deployment made of network namespaces: a
// PostgreSQL host, two server nodes forming one Temporal cluster over it
// with mutual TLS on their frontends, and device hosts whose workers
// reach the cluster by both nodes' addresses.
type clusterLab struct {
	t      *testing.T
	lab    *netlab.Lab
	pg     *netlab.Postgres
	certs  certs
	state  string
	nodes  []*netlab.Host
	procs  map[string]*exec.Cmd
	logs   map[string]*lockedBuffer
	frontA string // "IP:7233,IP:7233"
	// devices are the pool's devices, hosts their workers' hosts.
	devices []string
	hosts   map[string]*netlab.Host
}

func newClusterLab(t *testing.T) *clusterLab {
	t.Helper()
	if why := netlab.Available(); why != "" {
		t.Skip(why)
	}
	c := &clusterLab{t: t, lab: netlab.New(t), state: t.TempDir(), procs: map[string]*exec.Cmd{}, logs: map[string]*lockedBuffer{},
		hosts: map[string]*netlab.Host{}}
	db := c.lab.Host("db")
	c.nodes = []*netlab.Host{c.lab.Host("n1"), c.lab.Host("n2")}
	c.pg = netlab.StartPostgres(t, db)
	c.certs = makeCerts(t, c.nodes[0].IP, c.nodes[1].IP)
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
// certificate, or with one from another authority, are refused, saying so,
// and so is a client without a certificate on every port a node opens
// (internode traffic and membership are mutual TLS too).
func TestClusterOfTwoNodes(t *testing.T) {
	t.Parallel() // its own hosts, desktops and state folders
	c := newClusterLab(t)
	began := time.Now()
	c.node(0)
	firstNode := time.Since(began)
	bench := os.Getenv("PCFLOW_CLUSTER_BENCH") != ""
	if !bench {
		c.node(1)
	}
	if !bench {
		t.Logf("first node serving after %v (schema made), second after %v more; %s / %s", firstNode.Round(time.Millisecond),
			(time.Since(began) - firstNode).Round(time.Millisecond), lastLine(c.logs["node1"].String(), "cluster node"), lastLine(c.logs["node2"].String(), "cluster node"))
	}

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
	for _, name := range []string{"node1", "node2"} {
		if c.logs[name] == nil {
			continue
		}
		if strings.Contains(c.logs[name].String(), "WITHOUT AUTHENTICATION: anyone who can reach it") && strings.Contains(c.logs[name].String(), "frontend") {
			t.Errorf("%s warns that its frontend has no authentication, under mutual TLS:\n%s", name, c.logs[name].String())
		}
		if strings.Contains(c.logs[name].String(), c.pg.Password) {
			t.Errorf("%s printed the database password", name)
		}
	}
	if code, out := pcflowRun(t, c.client("status", "--state", c.state)...); code != 0 {
		t.Fatalf("pcflow status with the client certificate = %d:\n%s", code, out)
	}
	// Every port a node listens on refuses a client without a
	// certificate: the frontend (gRPC and its HTTP API), history, matching,
	// the internal worker's gRPC port, and the membership (ringpop) port
	// of each of the four services — ringpop speaks the internode TLS.
	for _, h := range c.nodes {
		c.refusedEverywhere(h)
	}

	smoke := func(f string) string {
		abs, _ := filepath.Abs(filepath.Join("..", "specs", "suites", "smoke", f))
		return abs
	}
	tasks := []string{smoke("calc_add.hcl"), smoke("editor_note.hcl")}
	script := mergeScripts(t, smoke("calc_add.script.json"), smoke("editor_note.script.json"))
	// -short (CI): one device host, which goes away last for good; whole:
	// two, the second going away for good.
	devices := []string{"ca", "cb"}
	if testing.Short() {
		devices = devices[:1]
	}
	pool := strings.Join(devices, ",")
	last := devices[len(devices)-1]
	for _, dev := range devices {
		h := c.lab.Host("w" + dev)
		c.hosts[dev] = h
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

	c.devices = devices
	if bench {
		// The same suite on one node, then on two: seconds per suite.
		for i := 0; i < 2; i++ {
			began := time.Now()
			c.suite(fmt.Sprintf("one-%d", i), tasks, pool, 2, func() {})
			t.Logf("BENCH one node: suite of 4 runs in %v", time.Since(began).Round(100*time.Millisecond))
		}
		c.node(1)
		for i := 0; i < 2; i++ {
			began := time.Now()
			c.suite(fmt.Sprintf("two-%d", i), tasks, pool, 2, func() {})
			t.Logf("BENCH two nodes: suite of 4 runs in %v", time.Since(began).Round(100*time.Millisecond))
		}
	}

	// A worker without a certificate, or with another authority's, is
	// refused, saying why.
	for _, creds := range [][]string{{"--tls-ca", c.certs.CA}, {"--tls-ca", c.certs.CA, "--tls-cert", c.certs.RogueClientCert, "--tls-key", c.certs.RogueClientKey}} {
		args := append([]string{"worker", "--device", "nocert", "--temporal", c.frontA, "--script", script, "--state", c.state, "--display", ":0"}, creds...)
		if code, out := pcflowRun(t, args...); code == 0 || !strings.Contains(out, "certificate") {
			t.Errorf("pcflow %s = %d, want a refusal naming the certificate:\n%s", strings.Join(args, " "), code, out)
		}
	}

	// Node 1 dies (SIGKILL) after the suite's second action.
	// -short (CI): the calculator task on each device; whole: with the
	// editor task too, each twice.
	killTasks := tasks
	if testing.Short() {
		killTasks = tasks[:1]
	}
	killed := c.suite("kill", killTasks, pool, 2, func() { c.nodes[0].Kill(syscall.SIGKILL) })
	t.Logf("node 1 killed with SIGKILL: next action %v later", killed)

	// Node 1 comes back and owns shards again; PostgreSQL restarts (5 s
	// down) in the middle of the next suite.
	c.procs["node1"].Wait()
	c.node(0)
	pgRuns := 2
	if testing.Short() {
		pgRuns = 1
	}
	pgBack := c.suite("postgres", tasks[:1], pool, pgRuns, func() {
		c.pg.Stop()
		time.Sleep(5 * time.Second)
		c.pg.Start()
	})
	t.Logf("PostgreSQL stopped for 5 s: next action %v after it went down", pgBack)

	// Device host ca is cut off mid-task and comes back after a while.
	away := 30 * time.Second
	if testing.Short() {
		away = 10 * time.Second
	}
	cut := c.suite("link", tasks[:1], "ca", 1, func() {
		c.hosts["ca"].Cut()
		time.Sleep(away)
		c.hosts["ca"].Mend()
	})
	t.Logf("device host ca cut off for %v: next action %v after the link came back", away, cut-away)

	// The last device host is cut off for good: its run reports the device
	// offline, naming it, within the device timeout (after the action in
	// flight misses its heartbeat).
	out := t.TempDir()
	ev := exec.Command(pcflowBin, c.client("eval", tasks[0], "--pool", last, "--device-timeout", "10s", "--out", out, "--id", "gone", "--no-report", "--state", c.state)...)
	ev.Dir = ".."
	evOut := &lockedBuffer{}
	ev.Stdout, ev.Stderr = evOut, evOut
	cbLog := filepath.Join(c.state, "actions", last+".jsonl")
	before := count(cbLog, `"phase":"finished"`)
	if err := ev.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(3 * time.Minute); count(cbLog, `"phase":"finished"`) < before+1; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			ev.Process.Kill()
			t.Fatalf("suite gone: no action on %s in 3 minutes:\n%s", last, evOut.String())
		}
	}
	c.hosts[last].Cut()
	gone := time.Now()
	waited := make(chan error, 1)
	go func() { waited <- ev.Wait() }()
	select {
	case <-waited:
	case <-time.After(4 * time.Minute):
		ev.Process.Kill()
		t.Fatalf("suite gone did not end within 4 minutes of cb's link going down:\n%s", evOut.String())
	}
	r := readResults(t, out)
	if len(r.Runs) != 1 || r.Runs[0].Reason != "device_error" || !strings.Contains(r.Runs[0].Error, "device "+last+" ") || !strings.Contains(r.Runs[0].Error, " is offline") {
		t.Errorf("the run on a device cut off for good: %+v, want device_error saying device %s is offline:\n%s", r.Runs, last, evOut.String())
	} else {
		t.Logf("device host %s cut off for good: reported offline %v later (%s)", last, time.Since(gone).Round(time.Second), r.Runs[0].Error)
	}
	// The database password appears in no log, no state file, no history.
	filepath.WalkDir(c.state, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), c.pg.Password) {
				t.Errorf("%s holds the database password", path)
			}
		}
		return nil
	})
	for _, id := range []string{"kill", "postgres", "link"} {
		if _, hist := pcflowRun(t, c.client("eval", "status", id, "--state", c.state)...); strings.Contains(hist, c.pg.Password) {
			t.Errorf("eval status %s shows the database password", id)
		}
	}
}

// suite runs an eval of tasks on pool from the test's own host; after its
// second finished action, disrupt runs. Every run must succeed and no
// action start twice. It returns the time from the disruption's start to
// the next action started.
func (c *clusterLab) suite(id string, tasks []string, pool string, repeat int, disrupt func()) time.Duration {
	t := c.t
	t.Helper()
	out := t.TempDir()
	ev := exec.Command(pcflowBin, c.client(append([]string{"eval"}, append(tasks, "--pool", pool, "--repeat", fmt.Sprint(repeat),
		"--out", out, "--id", id, "--no-report", "--state", c.state)...)...)...)
	ev.Dir = ".."
	evOut := &lockedBuffer{}
	ev.Stdout, ev.Stderr = evOut, evOut
	logs := func() []string {
		var paths []string
		for _, d := range c.devices {
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
	before := finished()
	began := time.Now()
	if err := ev.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- ev.Wait() }()
	for deadline := time.Now().Add(4 * time.Minute); finished() < before+2; time.Sleep(50 * time.Millisecond) {
		select {
		case <-done:
			t.Fatalf("suite %s ended before its second action:\n%s", id, evOut.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("suite %s: no action finished in 4 minutes:\n%s", id, evOut.String())
		}
	}
	disrupted := time.Now()
	disrupt()
	select {
	case <-done:
	case <-time.After(8 * time.Minute):
		ev.Process.Kill()
		t.Fatalf("suite %s did not end within 8 minutes of the disruption:\n%s", id, evOut.String())
	}
	r := readResults(t, out)
	want := len(tasks) * repeat
	if len(r.Runs) != want {
		t.Fatalf("suite %s: %d runs in results, want %d:\n%s", id, len(r.Runs), want, evOut.String())
	}
	for _, row := range r.Runs {
		if row.Status != "succeeded" {
			t.Errorf("suite %s: %s #%d: %s/%s (%s), want succeeded", id, row.Key, row.Repeat, row.Status, row.Reason, row.Error)
			// Every step of the run, and every action on the devices:
			// what the agent saw and did around the disruption.
			_, hist := pcflowRun(t, c.client("history", row.Workflow, "--state", c.state)...)
			t.Logf("disrupted at %s; pcflow history %s:\n%s", disrupted.Format("15:04:05.000"), row.Workflow, hist)
			for _, p := range logs() {
				b, _ := os.ReadFile(p)
				t.Logf("%s:\n%s", p, b)
			}
		}
	}
	// No action started twice, on any device, over every suite so far.
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
				if e.Time.After(disrupted) && (next.IsZero() || e.Time.Before(next)) {
					next = e.Time
				}
			}
		}
		for aid, n := range started {
			if n != 1 {
				t.Errorf("suite %s: %s: action %s started %d times", id, filepath.Base(p), aid, n)
			}
		}
	}
	t.Logf("suite %s: %d runs in %v", id, len(r.Runs), time.Since(began).Round(time.Second))
	if next.IsZero() {
		return 0
	}
	return next.Sub(disrupted).Round(time.Millisecond)
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

// certs are the files scripts/make-certs.sh writes, and a client
// certificate of another authority.
type certs struct {
	CA, NodeCert, NodeKey, ClientCert, ClientKey, RogueClientCert, RogueClientKey string
}

// makeCerts makes the lab's certificates as the deployment guide says,
// with scripts/make-certs.sh; a second run in another folder is another
// authority.
func makeCerts(t *testing.T, nodes ...string) certs {
	t.Helper()
	dir, rogue := t.TempDir(), t.TempDir()
	for _, d := range []string{dir, rogue} {
		out, err := exec.Command("bash", append([]string{"../scripts/make-certs.sh", d}, nodes...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("make-certs.sh: %v\n%s", err, out)
		}
	}
	f := func(d, name string) string { return filepath.Join(d, name) }
	return certs{CA: f(dir, "ca.pem"), NodeCert: f(dir, "node.pem"), NodeKey: f(dir, "node-key.pem"),
		ClientCert: f(dir, "client.pem"), ClientKey: f(dir, "client-key.pem"),
		RogueClientCert: f(rogue, "client.pem"), RogueClientKey: f(rogue, "client-key.pem")}
}

// refusedEverywhere checks every TCP port a node's host listens on (its
// whole namespace, from ss): a client that trusts the cluster's CA but
// shows no certificate is refused there for want of one, and the node's
// own certificate gets through (so a port that refuses everything, or
// answers in plaintext, fails). Every one of the node's cluster ports
// must be among them.
func (c *clusterLab) refusedEverywhere(h *netlab.Host) {
	t := c.t
	t.Helper()
	out, err := h.Command("ss", "-Hltn").Output()
	if err != nil {
		t.Fatalf("ss -Hltn in host %s: %v", h.Name, err)
	}
	listening := map[int]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		i := strings.LastIndex(f[3], ":")
		port, err := strconv.Atoi(f[3][i+1:])
		if i < 0 || err != nil {
			t.Fatalf("ss line %q: no local port", line)
		}
		listening[port] = strings.Trim(f[3][:i], "[]")
	}
	for _, p := range tserver.ClusterPorts(7233) {
		if _, ok := listening[p]; !ok {
			t.Errorf("node %s does not listen on its cluster port %d (ss: %s)", h.Name, p, out)
		}
	}
	caPEM, err := os.ReadFile(c.certs.CA)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	node, err := tls.LoadX509KeyPair(c.certs.NodeCert, c.certs.NodeKey)
	if err != nil {
		t.Fatal(err)
	}
	var ports []int
	for p, ip := range listening {
		if ip != h.IP && ip != "0.0.0.0" && ip != "*" && ip != "::" {
			t.Errorf("node %s listens on %s:%d, out of the probe's reach (only its own address %s is expected)", h.Name, ip, p, h.IP)
			continue
		}
		ports = append(ports, p)
	}
	sort.Ints(ports)
	var wrong []string
	for _, p := range ports {
		addr := net.JoinHostPort(h.IP, strconv.Itoa(p))
		if err := tlsProbe(addr, roots, nil); err == nil || !certificateRequired(err) {
			wrong = append(wrong, fmt.Sprintf("port %d: a client without a certificate got %v, want it refused for want of a certificate", p, errOrAccepted(err)))
		}
		if err := tlsProbe(addr, roots, &node); err != nil {
			wrong = append(wrong, fmt.Sprintf("port %d: the node's own certificate: %v, want it accepted", p, err))
		}
	}
	if len(wrong) > 0 {
		// A port open to anyone: nothing after this is worth running.
		t.Fatalf("node %s (ports %v):\n%s", h.Name, ports, strings.Join(wrong, "\n"))
	}
	t.Logf("node %s: ports %v refuse a client without a certificate", h.Name, ports)
}

// tlsProbe makes a TLS connection to addr trusting roots, showing cert
// (nil: none), and reads from it until the server refuses or a second
// passes; nil when the server took it.
func tlsProbe(addr string, roots *x509.CertPool, cert *tls.Certificate) error {
	// h2: gRPC servers close a TLS connection that does not offer it.
	conf := &tls.Config{RootCAs: roots, ServerName: "pcflow-cluster", MinVersion: tls.VersionTLS12, NextProtos: []string{"h2", "http/1.1"}}
	if cert != nil {
		conf.Certificates = []tls.Certificate{*cert}
	}
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, conf)
	if err != nil {
		return err
	}
	defer conn.Close()
	// TLS 1.3: the server checks the client's certificate after the
	// client's side of the handshake ends, and says so on the next read.
	conn.SetReadDeadline(time.Now().Add(time.Second))
	if _, err := conn.Read(make([]byte, 1)); err != nil {
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			return nil // silent: waiting for the client to speak
		}
		if err != io.EOF && !strings.Contains(err.Error(), "connection reset") {
			return err
		}
		return fmt.Errorf("closed after the handshake: %w", err)
	}
	return nil
}

func certificateRequired(err error) bool {
	return strings.Contains(err.Error(), "certificate required") || strings.Contains(err.Error(), "bad certificate")
}

func errOrAccepted(err error) any {
	if err == nil {
		return "a connection the server kept"
	}
	return err
}
