package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	namespacepb "go.temporal.io/api/namespace/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/pcflow/pcflow/internal/proclock"
	"github.com/pcflow/pcflow/internal/tracing"
	"github.com/pcflow/pcflow/internal/tserver"
	"github.com/pcflow/pcflow/worker/host"
	"github.com/pcflow/pcflow/workflows"
)

// stateFlag registers --state: the folder with the embedded server's
// database, artifacts, action logs, run records and desktops.
func stateFlag(fs *flag.FlagSet, e *env, p *string) {
	def := e.getenv("PCFLOW_STATE")
	if def == "" {
		home, _ := os.UserHomeDir()
		def = filepath.Join(home, ".pcflow")
	}
	fs.StringVar(p, "state", def, "the state folder `DIR`: the embedded server's database, artifacts, action logs, run records ($PCFLOW_STATE)")
}

// engineFlags are the flags of commands that talk to Temporal: --temporal
// or the embedded server on --port (with its Web UI for commands that
// start long-lived work).
type engineFlags struct {
	state    string
	temporal string
	port     int
	uiPort   int
	uiIP     string
	tls      tlsFlags
	// otel is --otel-endpoint: where the spans of a command that starts
	// work go (internal/tracing).
	otel string
	// process names the command in its spans' resource.
	process string
}

// register registers the flags; ui adds the Web UI's.
func (f *engineFlags) register(fs *flag.FlagSet, e *env, ui bool) {
	stateFlag(fs, e, &f.state)
	fs.StringVar(&f.temporal, "temporal", e.getenv("PCFLOW_TEMPORAL"), "`HOST:PORT` of an existing Temporal frontend, or several separated by commas (a cluster's nodes) (default: the embedded server; $PCFLOW_TEMPORAL)")
	f.tls.register(fs, e, true)
	portVar(fs, &f.port, "port", 7233, false, "`PORT` of the embedded server's frontend on 127.0.0.1")
	f.uiPort, f.uiIP = 8233, "127.0.0.1"
	if ui {
		uiFlags(fs, &f.uiPort, &f.uiIP)
		// The commands that start long-lived work run workflows and
		// activities, or start runs: theirs are the spans of a run.
		fs.StringVar(&f.otel, "otel-endpoint", "", "`URL` of an OTLP/HTTP receiver (an OpenTelemetry Collector's, http://HOST:4318) to send traces of runs to: a span per run, subtask, step and model call, never a prompt, a screenshot or a secret (docs/tracing.md; default $"+tracing.EnvTracesEndpoint+" or $"+tracing.EnvEndpoint+", neither: no traces)")
		f.process = fs.Name()
	}
}

// tracingOptions are the options of this command's tracing.
func (f *engineFlags) tracingOptions(e *env) tracing.Options {
	return tracing.Options{Endpoint: f.otel, Getenv: e.getenv, Process: f.process, Report: func(err error) {
		if err == nil {
			fmt.Fprintln(e.stderr, "pcflow: traces: sending spans again")
			return
		}
		fmt.Fprintf(e.stderr, "pcflow: traces: %v\n", err)
	}}
}

// traceEnv adds --otel-endpoint to the environment of a pcflow process
// this one starts (a device worker), as the variable that says the same.
func (f *engineFlags) traceEnv(environ []string) []string {
	if f.otel == "" {
		return environ
	}
	out := make([]string, 0, len(environ)+1)
	for _, kv := range environ {
		// The flag wins over the environment here as in this process.
		if !strings.HasPrefix(kv, tracing.EnvTracesEndpoint+"=") && !strings.HasPrefix(kv, tracing.EnvEndpoint+"=") {
			out = append(out, kv)
		}
	}
	return append(out, tracing.EnvEndpoint+"="+f.otel)
}

// uiFlags registers the Web UI's port and address.
func uiFlags(fs *flag.FlagSet, port *int, ip *string) {
	portVar(fs, port, "ui-port", 8233, true, "`PORT` of the embedded server's Web UI (0: no UI)")
	fs.StringVar(ip, "ui-ip", "127.0.0.1", "`IP` address the Web UI and its HTTP API listen on; they have no authentication, so anything but 127.0.0.1 lets everyone who can reach it read and control every run")
}

// portVar registers a TCP port flag whose value is checked when the flags
// are parsed: 1–65535, or also 0 when zero says "none".
func portVar(fs *flag.FlagSet, p *int, name string, def int, zero bool, usage string) {
	*p = def
	fs.Var(portValue{p: p, zero: zero}, name, usage)
}

// portValue is a flag.Value holding a TCP port.
type portValue struct {
	p    *int
	zero bool
}

func (v portValue) String() string {
	if v.p == nil {
		return ""
	}
	return strconv.Itoa(*v.p)
}

func (v portValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("not a port number (1–65535)")
	}
	lo := 1
	if v.zero {
		lo = 0
	}
	if n < lo || n > 65535 {
		return fmt.Errorf("port %d is out of range %d–65535", n, lo)
	}
	*v.p = n
	return nil
}

// engine is a connection to Temporal, and the embedded server if this
// process started one.
type engine struct {
	client   client.Client
	server   *tserver.Server
	uiURL    string
	addr     string
	identity string
	// notices is where the server's owner says why it keeps running.
	notices io.Writer
	// unwatch stops the watch on the state folder's disk (host.WatchDisk).
	unwatch func()
	// users is this process's hold on the embedded server of the state
	// folder (nil with --temporal): its owner stops it only when no other
	// pcflow process holds one.
	users *proclock.Users
	// tracing sends the spans of the client and its workers (off unless
	// an endpoint is set).
	tracing *tracing.Tracing
}

// serverUsersFile is the lock every pcflow process using a state
// folder's embedded server holds (see engine.users).
const serverUsersFile = ".server-users.lock"

// close closes the connection. The process that started the embedded
// server keeps it up while runs served by other processes still use it.
func (g *engine) close() {
	if g.unwatch != nil {
		g.unwatch()
	}
	if g.server != nil && g.client != nil {
		g.handOver()
	}
	if g.client != nil {
		g.client.Close()
	}
	if g.server != nil {
		g.waitForUsers()
		g.server.Stop()
	}
	g.users.Release()
	if err := g.tracing.Shutdown(5 * time.Second); err != nil {
		fmt.Fprintf(g.notices, "pcflow: traces: %v\n", err)
	}
}

// waitForUsers waits while other pcflow processes use the embedded server
// this process started (a `pcflow run` that joined it while a `pcflow
// status` owned it, before its run was listed): stopping it would stop
// them. A second Ctrl-C (or SIGTERM) stops it at once.
func (g *engine) waitForUsers() {
	if g.users == nil || g.users.Alone() {
		return
	}
	fmt.Fprintf(g.notices, "keeping the embedded server on %s up: another pcflow process on this state folder uses it; Ctrl-C stops it now\n", g.addr)
	sig, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	for !g.users.Alone() {
		select {
		case <-sig.Done():
			return
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func quietLogger() sdklog.Logger {
	return sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// uiDataKey is the namespace data entry where the embedded server's owner
// publishes the Web UI's address, so every client prints the right link.
const uiDataKey = "pcflow.ui"

// stateDataKey is the namespace data entry where the embedded server's
// owner publishes its state folder: a command on another state folder
// that finds this server on its port is told whose it is.
const stateDataKey = "pcflow.state"

// connect dials --temporal, or a pcflow server already listening on the
// port, or starts the embedded server on the state folder.
func (f *engineFlags) connect(ctx context.Context, e *env, withUI bool) (*engine, error) {
	g := &engine{identity: host.WorkerIdentity(os.Getpid()), notices: e.stderr}
	tr, err := tracing.Start(ctx, f.tracingOptions(e))
	if err != nil {
		return nil, err
	}
	g.tracing = tr
	if err := f.connectTo(ctx, e, g, withUI); err != nil {
		g.users.Release() // g.close released it on the paths that called it
		g.tracing.Shutdown(time.Second)
		return nil, err
	}
	return g, nil
}

// connectTo is connect's work on g.
func (f *engineFlags) connectTo(ctx context.Context, e *env, g *engine, withUI bool) error {
	addr := f.temporal
	joined := false
	if addr == "" {
		addr = fmt.Sprintf("127.0.0.1:%d", f.port)
		// Held from before the look at the port: an owner stopping the
		// server waits for this process, or this one for its stop.
		// A state folder this process cannot make or open (another
		// user's, or none yet) has no lock to hold: it may still join
		// the server on the port, and starting one says what is wrong.
		uctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		users, err := proclock.Use(uctx, filepath.Join(f.state, serverUsersFile))
		cancel()
		switch {
		case err == nil:
			g.users = users
		case errors.Is(err, context.DeadlineExceeded):
			return fmt.Errorf("state folder %s: another pcflow process has been stopping its embedded server for 2 minutes: try again, or pass --state to use another folder", f.state)
		case ctx.Err() != nil:
			return ctx.Err()
		}
		if tserver.PortFree("127.0.0.1", f.port) {
			if err := writable(f.state); err != nil {
				return err
			}
			if free, err := host.FreeSpace(f.state); err == nil && free < host.LowDisk {
				return host.FullDiskError(f.state, free)
			}
			uiPort := f.uiPort
			if !withUI {
				uiPort = 0
			}
			srv, err := tserver.Start(tserver.Options{
				DatabaseFile: filepath.Join(f.state, "temporal.db"), Port: f.port, UIPort: uiPort, UIIP: f.uiIP,
				LogFile: filepath.Join(f.state, "server.log"),
			})
			switch {
			case err == nil:
				g.server = srv
				if withUI {
					warnExposed(e.stderr, "127.0.0.1", f.uiIP)
				}
			case (errors.Is(err, tserver.ErrLocked) || errors.Is(err, tserver.ErrPortInUse)) && portTakenWithin(f.port, 5*time.Second):
				// Another pcflow process started the server on this state
				// folder between our look and our start (a `pcflow
				// approve` beside a `pcflow resume`, say): use it.
				joined = true
			case errors.Is(err, tserver.ErrLocked):
				return fmt.Errorf("%w; or pass --state to use another folder", err)
			default:
				return err
			}
		} else {
			joined = true
		}
	}
	g.addr = addr
	if _, err := os.Stat(f.state); err == nil {
		g.unwatch = host.WatchDisk(f.state, e.stderr, host.DiskCheckEvery)
	}
	// A pcflow server answers at once; something else on the port never
	// does, so a short wait tells which.
	wait := 15 * time.Second
	if joined {
		wait = 5 * time.Second
	}
	dctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	opts, err := clientOptions(addr, f.tls, g.identity)
	if err != nil {
		g.close()
		return err
	}
	// The run's trace goes from the client that starts it through every
	// worker made from this client (their interceptors are the client's).
	opts.Interceptors = g.tracing.ClientInterceptors()
	c, err := client.DialContext(dctx, opts)
	if err != nil {
		g.close()
		if joined {
			return fmt.Errorf("port %d is taken by something that does not answer as a Temporal server (%v): pass --port N to run pcflow's server on another port, or --temporal HOST:PORT to use a server elsewhere", f.port, err)
		}
		return fmt.Errorf("connect to Temporal at %s: %w (%s)", addr, err, dialHint(err, f.tls))
	}
	g.client = c
	if g.server != nil {
		publishServer(ctx, c, g.server.UIURL, f.state)
	}
	published := serverData(ctx, c)
	if joined {
		// The server on our port may be another state folder's: its
		// runs, history and artifacts are kept there, not in ours.
		if owner := published[stateDataKey]; owner != "" && !sameDir(owner, f.state) {
			g.close()
			return fmt.Errorf("the pcflow server on port %d keeps its runs in the state folder %s, not in %s: pass --state %s to use it, --port N to start a server of %s's own, or --temporal %s to use that server and keep everything in %s",
				f.port, owner, f.state, owner, f.state, addr, owner)
		}
	}
	g.uiURL = uiAddress(published[uiDataKey], addr)
	if joined && withUI {
		fmt.Fprintf(e.stderr, "pcflow: using the pcflow server already on %s (another process started it; it stays up while runs use it)\n", addr)
	}
	return nil
}

// portTakenWithin reports whether something listens on the loopback port
// within d.
func portTakenWithin(port int, d time.Duration) bool {
	for deadline := time.Now().Add(d); ; time.Sleep(100 * time.Millisecond) {
		if !tserver.PortFree("127.0.0.1", port) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// writable checks that the state folder can be written, with a hint.
func writable(state string) error {
	err := os.MkdirAll(state, 0o755)
	if err == nil {
		var f *os.File
		if f, err = os.CreateTemp(state, ".write-test-*"); err == nil {
			f.Close()
			os.Remove(f.Name())
			return nil
		}
	}
	return fmt.Errorf("state folder %s is not writable (%v): pass --state DIR or set PCFLOW_STATE to use another folder", state, err)
}

// warnExposed warns when the frontend or the UI listens beyond this
// machine: neither has authentication.
func warnExposed(w io.Writer, ip, uiIP string) {
	warnExposedTLS(w, ip, uiIP, false)
}

// warnExposedTLS is warnExposed for a frontend that may require mutual
// TLS (then only the Web UI can be unauthenticated).
func warnExposedTLS(w io.Writer, ip, uiIP string, mtls bool) {
	for _, x := range []struct {
		what, ip      string
		authenticated bool
	}{{"Temporal frontend (gRPC)", ip, mtls}, {"Web UI and its HTTP API", uiIP, false}} {
		if a := net.ParseIP(x.ip); a != nil && a.IsLoopback() || x.ip == "localhost" || x.authenticated {
			continue
		}
		fmt.Fprintf(w, "WARNING: the %s listens on %s WITHOUT AUTHENTICATION: anyone who can reach it can read every run and start, cancel or terminate runs. Put it behind mTLS or an authenticating proxy (see \"A shared server\" in docs/deployment.md), or keep it on 127.0.0.1.\n", x.what, x.ip)
	}
}

// publishServer records the Web UI's address and the state folder in the
// namespace's data.
func publishServer(ctx context.Context, c client.Client, url, state string) {
	data := map[string]string{}
	if url != "" {
		data[uiDataKey] = url
	}
	if abs, err := filepath.Abs(state); err == nil {
		data[stateDataKey] = abs
	}
	_, _ = c.WorkflowService().UpdateNamespace(ctx, &workflowservice.UpdateNamespaceRequest{
		Namespace:  tserver.Namespace,
		UpdateInfo: &namespacepb.UpdateNamespaceInfo{Data: data},
	})
}

// serverData returns what the server's owner published in the
// namespace's data (publishServer); empty when it cannot be read.
func serverData(ctx context.Context, c client.Client) map[string]string {
	resp, err := c.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: tserver.Namespace})
	if err != nil {
		return nil
	}
	return resp.GetNamespaceInfo().GetData()
}

// sameDir reports whether two paths name one folder.
func sameDir(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(fa, fb)
	}
	ca, _ := filepath.Abs(a)
	cb, _ := filepath.Abs(b)
	return filepath.Clean(ca) == filepath.Clean(cb)
}

// uiAddress returns the Web UI's address the server's owner published (raw), with
// an unspecified host (0.0.0.0) replaced by the host this client dialed;
// empty when none was published.
func uiAddress(raw, addr string) string {
	u, err := url.Parse(raw)
	if raw == "" || err != nil {
		return ""
	}
	dialed, _, _ := net.SplitHostPort(addr)
	if ip := net.ParseIP(u.Hostname()); ip != nil && ip.IsLoopback() && !isLoopback(dialed) {
		// The UI listens on the server's machine only.
		return ""
	}
	if ip := net.ParseIP(u.Hostname()); ip != nil && ip.IsUnspecified() {
		host, _, _ := net.SplitHostPort(addr)
		if host == "" || net.ParseIP(host) != nil && net.ParseIP(host).IsUnspecified() {
			host = "127.0.0.1"
		}
		u.Host = net.JoinHostPort(host, u.Port())
	}
	return u.String()
}

func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
}

// handOver waits while runs served by other processes use the embedded
// server this process started: stopping it would stop them. A second
// Ctrl-C (or SIGTERM) stops it at once; those runs continue with
// pcflow resume.
func (g *engine) handOver() {
	sig, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	told := false
	for {
		users := g.otherUsers(sig)
		if len(users) == 0 || sig.Err() != nil {
			return
		}
		if !told {
			fmt.Fprintf(g.notices, "keeping the embedded server on %s up: run(s) %s, served by other processes, still use it; Ctrl-C stops it now (they then continue with pcflow resume)\n",
				g.addr, strings.Join(users, ", "))
			told = true
		}
		select {
		case <-sig.Done():
			return
		case <-time.After(2 * time.Second):
		}
	}
}

// pollerFresh is how recently a worker must have polled to count as alive:
// a live worker polls again at least every minute.
const pollerFresh = 75 * time.Second

// otherUsers lists the running runs whose queue another process polls.
func (g *engine) otherUsers(ctx context.Context) []string {
	resp, err := g.client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		Namespace: tserver.Namespace, PageSize: 200, Query: "ExecutionStatus = 'Running'"})
	if err != nil {
		return nil
	}
	served := map[string]bool{}
	var users []string
	for _, ex := range resp.Executions {
		// A device's lease is no run: it runs as long as the server does.
		if ex.ParentExecution != nil || ex.GetType().GetName() == workflows.LeaseWorkflowName {
			continue
		}
		q := ex.GetTaskQueue()
		ok, seen := served[q]
		if !seen {
			ok = g.foreignPoller(ctx, q)
			served[q] = ok
		}
		if ok {
			users = append(users, ex.Execution.WorkflowId)
		}
	}
	sort.Strings(users)
	return users
}

// foreignPoller reports whether a live worker of another process polls
// the queue's workflow tasks.
func (g *engine) foreignPoller(ctx context.Context, queue string) bool {
	d, err := g.client.DescribeTaskQueue(ctx, queue, enumspb.TASK_QUEUE_TYPE_WORKFLOW)
	if err != nil {
		return false
	}
	for _, p := range d.GetPollers() {
		if p.GetIdentity() != g.identity && time.Since(p.GetLastAccessTime().AsTime()) < pollerFresh {
			return true
		}
	}
	return false
}
