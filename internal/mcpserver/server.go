package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/internal/httpguard"
	"github.com/pcflow/pcflow/internal/signing"
	"github.com/pcflow/pcflow/internal/text"
	"github.com/pcflow/pcflow/specs/plan"
	"github.com/pcflow/pcflow/worker"
	"github.com/pcflow/pcflow/workflows"
)

// Options configure a Server.
type Options struct {
	// Client is the connection to the Temporal server the devices'
	// workers use.
	Client client.Client
	// Artifacts is the store the devices' workers put observations in
	// (the state folder's artifacts).
	Artifacts activities.ArtifactStore
	// Policy is the operator's policy every act passes (nil: all allowed).
	Policy *plan.Policy
	// Holder names this process as a lease's holder (host.LeaseHolder);
	// the session's name is added to its Who.
	Holder func(device string) workflows.Holder
	// Gone says whether a lease's holder is known to have ended
	// (host.LeaseHolderGone): a killed pcflow mcp's sessions are taken
	// over at once.
	Gone func(workflows.Holder) bool
	// DeviceTimeout is how long an act or an observation waits for the
	// device's worker (0: a minute).
	DeviceTimeout time.Duration
	// LeaseTTL overrides worker.LeaseTTL (tests).
	LeaseTTL time.Duration
	// DecisionKey checks the signature of an approval of an act a
	// confirm rule holds (worker.DecisionInterceptor): the state folder's
	// key (signing.LoadOrCreate). Required.
	DecisionKey signing.Key
	// Runs, when set, offers the run, status and history tools.
	Runs Runs
	// Approve also offers the approve tool (with Runs): an MCP client may
	// then decide what a policy's confirm rules leave to a person.
	Approve bool
	// Version is pcflow's, told to clients.
	Version string
	// Logger logs each tool call's outcome (never a token or a secret).
	Logger *slog.Logger
}

// Server serves MCP sessions over pcflow's devices; each session has a
// *mcp.Server of its own (its leases and last observations).
type Server struct {
	o  Options
	w  sdkworker.Worker
	mu sync.Mutex
	// sessions are the live sessions, released at Close.
	sessions map[*session]bool
}

// New starts the worker of the MCP workflows (workflows.MCPQueue) and
// returns the server.
func New(o Options) (*Server, error) {
	if o.Client == nil || o.Artifacts == nil {
		return nil, errors.New("mcp server: a Temporal client and an artifact store are required")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Holder == nil {
		o.Holder = func(string) workflows.Holder { return workflows.Holder{Who: "pcflow mcp"} }
	}
	if _, err := o.Policy.Compile(); err != nil {
		return nil, fmt.Errorf("mcp server: the policy: %w", err)
	}
	if len(o.DecisionKey) == 0 {
		return nil, errors.New("mcp server: a key to check who approves is required (DecisionKey)")
	}
	w := sdkworker.New(o.Client, workflows.MCPQueue, sdkworker.Options{
		Interceptors: []interceptor.WorkerInterceptor{&worker.DecisionInterceptor{Key: o.DecisionKey}}})
	worker.RegisterMCP(w)
	if err := w.Start(); err != nil {
		return nil, fmt.Errorf("mcp server: the worker of queue %s: %w", workflows.MCPQueue, err)
	}
	return &Server{o: o, w: w, sessions: map[*session]bool{}}, nil
}

// Close ends every session's leases and stops the worker.
func (s *Server) Close() {
	s.mu.Lock()
	var all []*session
	for ss := range s.sessions {
		all = append(all, ss)
	}
	s.mu.Unlock()
	for _, ss := range all {
		ss.release()
	}
	s.w.Stop()
}

// instructions are what an MCP client is told of the server.
const instructions = `pcflow drives real computers (devices) through durable Temporal workflows.
Call devices to list them, observe DEVICE to see its screen (a screenshot with numbered marks and the element list), then act on it: one action of pcflow's closed set on an element id of your last observation or on a point (screen pixels).
Give every act a request_id unique to that action (a UUID): the same request_id returns the recorded result instead of acting again, so retry a call whose answer you lost with the same request_id.
A device is leased to one MCP session at a time, from your first observe or act on it until your session ends.`

// newMCP returns a new MCP server for one session, and its session.
func (s *Server) newMCP() (*mcp.Server, *session) {
	id := make([]byte, 4)
	_, _ = rand.Read(id)
	ss := &session{s: s, id: hex.EncodeToString(id), leases: map[string]*worker.DeviceLease{}, seen: map[string]observation{}}
	srv := mcp.NewServer(&mcp.Implementation{Name: "pcflow", Title: "pcflow devices", Version: s.o.Version},
		&mcp.ServerOptions{Instructions: instructions, Logger: s.o.Logger,
			// The session's leases end with it (the client closed it, or an
			// HTTP session timed out).
			InitializedHandler: func(_ context.Context, req *mcp.InitializedRequest) {
				s.track(ss)
				go func() {
					_ = req.Session.Wait()
					ss.release()
				}()
			}})
	ss.addTools(srv)
	if s.o.Runs != nil {
		ss.addRunTools(srv)
	}
	return srv, ss
}

// track counts ss among the live sessions, whose leases Close ends.
func (s *Server) track(ss *session) {
	s.mu.Lock()
	s.sessions[ss] = true
	s.mu.Unlock()
}

// ServeStdio serves one session over in and out (a client's pipes) until
// the client closes them or ctx ends; the session's leases end with it.
func (s *Server) ServeStdio(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	srv, ss := s.newMCP()
	defer ss.release()
	err := srv.Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// SessionTimeout ends an HTTP session (and its leases) after this long
// without a request.
const SessionTimeout = 30 * time.Minute

// Handler is the streamable HTTP endpoint behind g's checks (token, Host,
// Origin): a session per client, each with an MCP server of its own.
func (s *Server) Handler(g httpguard.Guard) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
		srv, _ := s.newMCP()
		return srv
	}, &mcp.StreamableHTTPOptions{SessionTimeout: SessionTimeout, Logger: s.o.Logger, MaxRequestBodyBytes: 1 << 20})
	if g.Name == "" {
		g.Name = "mcp"
	}
	return g.Wrap(h)
}

// ServeHTTP serves the streamable HTTP endpoint on ln until ctx ends.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, g httpguard.Guard) error {
	g.Addr = ln.Addr().String()
	hs := &http.Server{Handler: s.Handler(g), ReadHeaderTimeout: 10 * time.Second}
	stop := context.AfterFunc(ctx, func() { hs.Close() })
	defer stop()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// session is one MCP session: the devices it leased and what it saw of
// them last.
type session struct {
	s    *Server
	id   string
	mu   sync.Mutex
	done bool
	// leases are the devices this session holds, by name.
	leases map[string]*worker.DeviceLease
	// seen is each device's last observation, whose element ids an act
	// may name.
	seen map[string]observation
}

// lease takes device's MCP lease for the session, unless it holds it;
// another session's lease refuses it, naming the holder.
func (ss *session) lease(ctx context.Context, req *mcp.CallToolRequest, device string) error {
	if !plan.ValidName(device) {
		return fmt.Errorf("%q is not a device name (letters, digits, _ and -; see the devices tool)", device)
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.done {
		return errors.New("this MCP session has ended")
	}
	if _, ok := ss.leases[device]; ok {
		return nil
	}
	ss.s.track(ss)
	h := ss.s.o.Holder(device)
	h.Owner = "" // no other process takes an MCP session's lease over
	client := "an MCP client"
	if req != nil && req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil && p.ClientInfo.Name != "" {
			// The client names itself: shown to others, never as it is.
			client = fmt.Sprintf("the MCP client %q", text.Trunc(text.Printable(p.ClientInfo.Name), 60))
		}
	}
	h.Who = fmt.Sprintf("MCP session %s of %s, served by pcflow mcp (pid %d on %s)", ss.id, client, h.PID, h.Host)
	l, err := worker.HoldDevice(ctx, worker.LeaseOptions{Client: ss.s.o.Client, Device: workflows.MCPLeaseDevice(device),
		Holder: h, Gone: ss.s.o.Gone, Logger: ss.s.o.Logger, TTL: ss.s.o.LeaseTTL,
		Lost: func(error) { ss.lost(device) }})
	if errors.Is(err, worker.ErrLeaseHeld) {
		return fmt.Errorf("device %s is leased to another MCP session; one session drives a device at a time: end that session (or wait until its lease lapses) and call again. %w", device, err)
	}
	if err != nil {
		return fmt.Errorf("device %s: %w", device, err)
	}
	ss.leases[device] = l
	ss.s.o.Logger.Info("mcp session leased a device", "session", ss.id, "device", device)
	return nil
}

// lost forgets a lease another session took over (this one did not
// renew it in time): the next call asks for it again.
func (ss *session) lost(device string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	delete(ss.leases, device)
	delete(ss.seen, device)
}

// release ends the session: its leases are given up.
func (ss *session) release() {
	ss.mu.Lock()
	ss.done = true
	leases := ss.leases
	ss.leases = map[string]*worker.DeviceLease{}
	ss.mu.Unlock()
	for dev, l := range leases {
		l.Release()
		ss.s.o.Logger.Info("mcp session released a device", "session", ss.id, "device", dev)
	}
	ss.s.mu.Lock()
	delete(ss.s.sessions, ss)
	ss.s.mu.Unlock()
}
