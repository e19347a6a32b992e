package liveview

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/pcflow/pcflow/internal/control"
	"github.com/pcflow/pcflow/workflows"
)

//go:embed page
var page embed.FS

// NoVNCDir is where Debian's novnc package puts noVNC's client.
const NoVNCDir = "/usr/share/novnc"

// Options configure a live view.
type Options struct {
	// Device is the logical device name (the view's file is named by it).
	Device string
	// Display is the X display to show, e.g. ":90".
	Display string
	// Addr is the HTTP listen address; empty: 127.0.0.1:0 (a free port).
	Addr string
	// StateDir holds the view's URL file (0600) under view/.
	StateDir string
	// NoVNC is noVNC's directory; empty: NoVNCDir.
	NoVNC string
	// Client reaches the Temporal server; nil shows the desktop without
	// the subtask's status or buttons.
	Client client.Client
	// Current returns the workflow id of the subtask whose activity this
	// device ran last ("" when none).
	Current func() string
	// Sign signs the page's approvals and answers (recorded as "view
	// page"); nil: the page cannot decide them.
	Sign   control.Signer
	Logger *slog.Logger
}

// Server serves one device's live view. The token never leaves this
// process except through URLFile (0600) and the URL its starter prints.
type Server struct {
	opts   Options
	token  string
	cookie string
	http   *http.Server
	ln     net.Listener
	url    string
	file   string
	cancel context.CancelFunc
	done   chan struct{}
	kick   chan struct{} // a button was pressed: look again now

	mu      sync.Mutex
	state   State
	vnc     *vnc      // nil until first watched; replaced when it died and the display is back
	seen    time.Time // the last request with the token
	viewers int       // open websockets
	vncTry  time.Time // the last start of x11vnc that failed
}

// watchedFor is how long after a page's last request the view counts as
// watched: the page asks for the state every second or two.
const watchedFor = time.Minute

// State is what the page shows: the subtask running on the device.
type State struct {
	Device   string                 `json:"device"`
	Run      string                 `json:"run,omitempty"`
	Workflow string                 `json:"workflow,omitempty"`
	Running  bool                   `json:"running"`
	Live     *workflows.SubtaskLive `json:"live,omitempty"`
	ViewOnly bool                   `json:"view_only"`
	Error    string                 `json:"error,omitempty"`
}

// URLFile is the file that holds device's view URL (with its token).
func URLFile(state, device string) string {
	return filepath.Join(state, "view", device+".url")
}

// Start starts the HTTP server. x11vnc starts when a page first asks
// for the view, and the view follows the device's subtask only while a
// page watches it: a device nobody watches runs no VNC server and costs
// the Temporal server no queries.
func Start(ctx context.Context, o Options) (*Server, error) {
	if o.NoVNC == "" {
		o.NoVNC = NoVNCDir
	}
	if o.Addr == "" {
		o.Addr = "127.0.0.1:0"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if _, err := os.Stat(filepath.Join(o.NoVNC, "core", "rfb.js")); err != nil {
		return nil, fmt.Errorf("noVNC is not installed at %s: install it (apt-get install novnc, or scripts/setup.sh), or pass --no-view", o.NoVNC)
	}
	if _, err := exec.LookPath("x11vnc"); err != nil {
		return nil, errNoX11vnc
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return nil, fmt.Errorf("--view-addr %s: %w", o.Addr, err)
	}
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		ln.Close()
		return nil, err
	}
	s := &Server{opts: o, token: hex.EncodeToString(b), ln: ln, done: make(chan struct{}), kick: make(chan struct{}, 1)}
	port := ln.Addr().(*net.TCPAddr).Port
	// Cookies are per host, not per port: each view names its own.
	s.cookie = fmt.Sprintf("pcflow_view_%d", port)
	host := ln.Addr().(*net.TCPAddr).IP.String()
	if ip := ln.Addr().(*net.TCPAddr).IP; ip.IsUnspecified() {
		host, _ = os.Hostname()
		if host == "" {
			host = "127.0.0.1"
		}
	}
	s.url = (&url.URL{Scheme: "http", Host: net.JoinHostPort(host, fmt.Sprint(port)), Path: "/", RawQuery: "token=" + s.token}).String()
	s.file = URLFile(o.StateDir, o.Device)
	err = os.MkdirAll(filepath.Dir(s.file), 0o700)
	if err == nil {
		err = os.WriteFile(s.file, []byte(s.url+"\n"), 0o600)
	}
	if err != nil {
		s.stopAll()
		return nil, fmt.Errorf("write %s: %w", s.file, err)
	}
	_ = os.Chmod(s.file, 0o600) // an older file keeps its mode on rewrite
	s.state = State{Device: o.Device, ViewOnly: true}
	s.http = &http.Server{Handler: s.handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.http.Serve(ln) }()
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.cancel = cancel
	go s.sync(sctx)
	return s, nil
}

// URL is the view's address with its token.
func (s *Server) URL() string { return s.url }

// Close stops the HTTP server and x11vnc and removes the URL file.
func (s *Server) Close() {
	s.cancel()
	<-s.done
	s.stopAll()
}

func (s *Server) stopAll() {
	if s.http != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = s.http.Shutdown(ctx)
		cancel()
	}
	s.ln.Close()
	if v := s.server(); v != nil {
		v.stop()
	}
	if s.file != "" {
		_ = os.Remove(s.file)
	}
}

// sync follows the device's subtask each second while a page watches and
// keeps the VNC server view-only unless that subtask is taken over. Any
// doubt (no subtask, a failed query, a finished run) means view-only.
func (s *Server) sync(ctx context.Context) {
	defer close(s.done)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		if s.watched() {
			s.refresh(ctx)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-s.kick:
		}
	}
}

// refresh reads the subtask's state, starts x11vnc when it does not run
// (the first page, or the display back after it was gone) and switches
// it between view-only and control.
func (s *Server) refresh(ctx context.Context) {
	st := s.poll(ctx)
	v := s.ensureVNC(ctx)
	takenOver := st.Running && st.Live != nil && st.Live.Waiting != nil && st.Live.Waiting.Kind == workflows.WaitTakeover
	if v == nil || !v.alive() {
		st.Error = "the VNC server has stopped: the display " + s.opts.Display + " is gone (the view comes back with it)"
	} else if err := v.setViewOnly(ctx, !takenOver); err != nil && ctx.Err() == nil {
		st.Error = err.Error()
		s.opts.Logger.Warn("live view: switch view-only", "device", s.opts.Device, "err", err)
	}
	st.ViewOnly = v == nil || v.isViewOnly()
	s.mu.Lock()
	s.state = st
	s.mu.Unlock()
}

// ensureVNC returns the running x11vnc, starting it when there is none or
// it died (at most every 5 s while starting fails). nil: none runs.
func (s *Server) ensureVNC(ctx context.Context) *vnc {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.vnc != nil && s.vnc.alive() {
		return s.vnc
	}
	if time.Since(s.vncTry) < 5*time.Second {
		return s.vnc
	}
	nv, err := startVNC(ctx, s.opts.Display)
	if err != nil {
		s.vncTry = time.Now()
		s.opts.Logger.Warn("live view: start x11vnc", "device", s.opts.Device, "err", err)
		return s.vnc
	}
	if s.vnc != nil {
		s.vnc.stop()
	}
	s.vnc = nv
	return nv
}

// watched reports whether a page asked for the view within watchedFor, or
// holds a websocket to it.
func (s *Server) watched() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.viewers > 0 || !s.seen.IsZero() && time.Since(s.seen) < watchedFor
}

// touch records a request with the token; the first after a while without
// one refreshes the view at once.
func (s *Server) touch() {
	s.mu.Lock()
	idle := s.viewers == 0 && (s.seen.IsZero() || time.Since(s.seen) >= watchedFor)
	s.seen = time.Now()
	s.mu.Unlock()
	if idle {
		select {
		case s.kick <- struct{}{}:
		default:
		}
	}
}

func (s *Server) server() *vnc {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.vnc
}

func (s *Server) poll(ctx context.Context) State {
	st := State{Device: s.opts.Device}
	if s.opts.Client == nil || s.opts.Current == nil {
		return st
	}
	id := s.opts.Current()
	if id == "" {
		return st
	}
	st.Workflow = id
	qctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	desc, err := s.opts.Client.DescribeWorkflowExecution(qctx, id, "")
	if err != nil {
		st.Error = fmt.Sprintf("subtask %s: %v", id, err)
		return st
	}
	info := desc.GetWorkflowExecutionInfo()
	st.Run = info.GetParentExecution().GetWorkflowId()
	st.Running = info.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	if !st.Running {
		return st
	}
	v, err := s.opts.Client.QueryWorkflow(qctx, id, "", workflows.ProgressQuery)
	if err != nil {
		st.Error = fmt.Sprintf("subtask %s: progress: %v", id, err)
		return st
	}
	var live workflows.SubtaskLive
	if err := v.Get(&live); err != nil {
		st.Error = fmt.Sprintf("subtask %s: progress: %v", id, err)
		return st
	}
	st.Live = &live
	return st
}

func (s *Server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.servePage)
	mux.Handle("GET /novnc/", http.StripPrefix("/novnc/", http.FileServer(http.Dir(s.opts.NoVNC))))
	mux.HandleFunc("GET /websockify", s.serveWS)
	mux.HandleFunc("GET /api/state", s.serveState)
	mux.HandleFunc("POST /api/control", s.serveControl)
	return s.auth(mux)
}

func (s *Server) tokenOK(t string) bool {
	return t != "" && subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1
}

// auth lets through requests with the token cookie. A token in the query
// (the printed URL) sets the cookie and redirects to the same address
// without it, so the token leaves the address bar and the history.
func (s *Server) auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Referrer-Policy", "no-referrer")
		w.Header().Set("X-Frame-Options", "DENY")
		if q := r.URL.Query(); q.Has("token") {
			if !s.tokenOK(q.Get("token")) || r.Method != http.MethodGet {
				http.Error(w, "wrong token: use the URL `pcflow view` prints", http.StatusUnauthorized)
				return
			}
			http.SetCookie(w, &http.Cookie{Name: s.cookie, Value: s.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			q.Del("token")
			u := *r.URL
			u.RawQuery = q.Encode()
			http.Redirect(w, r, u.String(), http.StatusSeeOther)
			return
		}
		c, err := r.Cookie(s.cookie)
		if err != nil || !s.tokenOK(c.Value) {
			http.Error(w, "no view token: open the URL `pcflow view DEVICE` prints", http.StatusUnauthorized)
			return
		}
		s.touch()
		next.ServeHTTP(w, r)
	})
}

func (s *Server) servePage(w http.ResponseWriter, r *http.Request) {
	b, err := page.ReadFile("page/view.html")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b)
}

func (s *Server) serveState(w http.ResponseWriter, r *http.Request) {
	v := s.ensureVNC(r.Context())
	s.mu.Lock()
	st := s.state
	s.mu.Unlock()
	password := ""
	if v != nil {
		password = v.password
	}
	writeJSON(w, http.StatusOK, struct {
		State
		// Password is the VNC server's; only a token holder gets it.
		Password string `json:"password"`
	}{st, password})
}

// serveWS proxies a websocket (from a page of this origin) to x11vnc.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	// Accept refuses an Origin other than the request's host: another
	// site cannot open the socket with the viewer's cookie.
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"binary"}})
	if err != nil {
		return
	}
	defer ws.CloseNow()
	ws.SetReadLimit(1 << 20)
	ctx := r.Context()
	s.mu.Lock()
	s.viewers++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.viewers--
		s.seen = time.Now()
		s.mu.Unlock()
	}()
	v := s.ensureVNC(ctx)
	if v == nil {
		ws.Close(websocket.StatusTryAgainLater, "the VNC server does not run: the display "+s.opts.Display+" is gone")
		return
	}
	vc, err := net.DialTimeout("tcp", v.addr(), 3*time.Second)
	if err != nil {
		ws.Close(websocket.StatusTryAgainLater, "the VNC server does not answer")
		return
	}
	defer vc.Close()
	nc := websocket.NetConn(ctx, ws, websocket.MessageBinary)
	errc := make(chan error, 2)
	go func() { _, err := io.Copy(vc, nc); errc <- err }()
	go func() { _, err := io.Copy(nc, vc); errc <- err }()
	<-errc
}

// ControlRequest is a button's POST body.
type ControlRequest struct {
	Op      string `json:"op"` // pause, resume, takeover, release, approve, reject, answer
	Reason  string `json:"reason,omitempty"`
	Text    string `json:"text,omitempty"`
	Note    string `json:"note,omitempty"`
	Request string `json:"request,omitempty"`
}

// by names the page in history; no person's identity is known here.
const by = "view page"

func (s *Server) serveControl(w http.ResponseWriter, r *http.Request) {
	// CSRF: the cookie (SameSite=Strict) and a same-origin Origin header.
	if !sameOriginOK(r) {
		writeJSON(w, http.StatusForbidden, map[string]string{"error": "cross-origin request refused"})
		return
	}
	var req ControlRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "bad request body: " + err.Error()})
		return
	}
	if s.opts.Client == nil {
		writeJSON(w, http.StatusConflict, map[string]string{"error": "this view has no Temporal connection"})
		return
	}
	st := s.poll(r.Context())
	if !st.Running || st.Live == nil {
		writeJSON(w, http.StatusConflict, map[string]string{"error": fmt.Sprintf("no subtask is running on device %s right now", s.opts.Device)})
		return
	}
	ctx := r.Context()
	var err error
	msg := ""
	switch req.Op {
	case workflows.ControlPause, workflows.ControlResume, workflows.ControlTakeover, workflows.ControlRelease:
		_, err = control.Send(ctx, s.opts.Client, st.Run, st.Live.Subtask, workflows.Control{Op: req.Op, By: by, Note: req.Note})
		msg = req.Op + " sent"
	case "approve", "reject", "answer":
		if s.opts.Sign == nil {
			err = fmt.Errorf("this view cannot sign decisions: approve, reject or answer with the pcflow command")
			break
		}
		if req.Op == "answer" {
			_, msg, err = control.Answer(ctx, s.opts.Client, s.opts.Sign, st.Run, st.Live.Subtask, workflows.Answer{Request: req.Request, Text: req.Text, By: by})
			break
		}
		_, msg, err = control.Approve(ctx, s.opts.Client, s.opts.Sign, st.Run, st.Live.Subtask, workflows.Approval{Request: req.Request, Approve: req.Op == "approve", Reason: req.Reason, By: by})
	default:
		err = fmt.Errorf("unknown operation %q: use pause, resume, takeover, release, approve, reject or answer", req.Op)
	}
	if err != nil {
		writeJSON(w, http.StatusConflict, map[string]string{"error": err.Error()})
		return
	}
	select {
	case s.kick <- struct{}{}:
	default:
	}
	writeJSON(w, http.StatusOK, map[string]string{"ok": msg})
}

// sameOriginOK reports whether r carries an Origin header naming r's own
// host: a page of another site cannot post with the viewer's cookie.
func sameOriginOK(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return false
	}
	u, err := url.Parse(o)
	if err != nil {
		return false
	}
	return (u.Scheme == "http" || u.Scheme == "https") && strings.EqualFold(u.Host, r.Host)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
