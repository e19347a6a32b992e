package osworldapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/pcflow/pcflow/activities"
	"github.com/pcflow/pcflow/internal/httpguard"
)

// Options configure a Server.
type Options struct {
	// Device is the device the routes observe and act on.
	Device activities.Device
	// Token is the secret every request must carry.
	Token string
	// Roots are the folders /file and /list_directory may read (the
	// task's home first: "~/" in a path is under it). None: those routes
	// refuse every path.
	Roots []string
	// AllowedHosts are host names a request's Host may name besides
	// localhost and IP addresses.
	AllowedHosts []string
	// AllowedOrigins are the Origin values a request may carry
	// (scheme://host:port); a request with any other Origin is refused.
	AllowedOrigins []string
	// Logger logs each request's route and outcome, never the token.
	Logger *slog.Logger
}

// Server is an OSWorld-compatible HTTP server over a device.
type Server struct {
	o     Options
	mu    sync.Mutex // one device request at a time
	state pointerState
	srv   *http.Server
	ln    net.Listener
}

// Listen binds addr ("HOST:PORT"; an empty host is 127.0.0.1, the
// loopback) and returns the server, not yet serving.
func Listen(addr string, o Options) (*Server, error) {
	if o.Device == nil {
		return nil, errors.New("osworld api: no device")
	}
	if len(o.Token) < httpguard.MinToken {
		return nil, fmt.Errorf("osworld api: the token must be at least %d characters", httpguard.MinToken)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("osworld api address %q: %w (give HOST:PORT, e.g. 127.0.0.1:5000)", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, fmt.Errorf("osworld api: %w", err)
	}
	s := &Server{o: o, ln: ln}
	s.srv = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Serve answers requests until ctx ends or Close is called.
func (s *Server) Serve(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() { s.Close() })
	defer stop()
	if err := s.srv.Serve(s.ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// Handler is the server's routes behind its checks.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /screenshot", s.screenshot)
	mux.HandleFunc("GET /accessibility", s.accessibility)
	mux.HandleFunc("POST /execute", s.execute)
	mux.HandleFunc("POST /setup/execute", s.execute)
	mux.HandleFunc("GET /platform", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "Linux") })
	mux.HandleFunc("/screen_size", s.screenSize)
	mux.HandleFunc("POST /setup/launch", s.launch)
	mux.HandleFunc("POST /setup/activate_window", s.activateWindow)
	mux.HandleFunc("POST /setup/close_window", s.closeWindow)
	mux.HandleFunc("POST /file", s.file)
	mux.HandleFunc("POST /list_directory", s.listDirectory)
	for _, p := range []string{"/run_python", "/run_bash_script", "/execute_with_verification", "/setup/execute_with_verification"} {
		mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			refuse(w, http.StatusForbidden, r.URL.Path+" is not served: pcflow's OSWorld endpoint runs no code it is sent; send pyautogui calls to /execute")
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		refuse(w, http.StatusNotFound, fmt.Sprintf("%s %s is not served by pcflow's OSWorld endpoint; it serves /screenshot, /accessibility, /execute, /platform, /screen_size, /setup/launch, /setup/activate_window, /setup/close_window, /file and /list_directory", r.Method, r.URL.Path))
	})
	return s.guard(mux)
}

// guard checks Host, Origin and the token before any route (the
// checks every pcflow server shares, internal/httpguard); the token may
// also come as basic credentials, the one way an unmodified OSWorld
// client sends one.
func (s *Server) guard(next http.Handler) http.Handler {
	return httpguard.Guard{Name: "osworld api", Token: s.o.Token, Basic: true, AllowedHosts: s.o.AllowedHosts,
		AllowedOrigins: s.o.AllowedOrigins, Addr: s.Addr(), Refuse: refuse, Logger: s.o.Logger}.Wrap(next)
}

// refuse answers with OSWorld's error shape and the reason.
func refuse(w http.ResponseWriter, code int, reason string) {
	writeJSON(w, code, map[string]any{"status": "error", "message": reason})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) screenshot(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	sc, err := s.o.Device.Observe(r.Context())
	s.mu.Unlock()
	if err != nil {
		refuse(w, http.StatusInternalServerError, "screenshot: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "image/png")
	if err := png.Encode(w, sc.Image); err != nil {
		s.o.Logger.Warn("osworld api screenshot", "err", err)
	}
}

func (s *Server) screenSize(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	sc, err := s.o.Device.Observe(r.Context())
	s.mu.Unlock()
	if err != nil {
		refuse(w, http.StatusInternalServerError, "screen size: "+err.Error())
		return
	}
	b := sc.Image.Bounds()
	writeJSON(w, http.StatusOK, map[string]int{"width": b.Dx(), "height": b.Dy()})
}

// readJSON decodes the request's JSON body into v, or answers 400.
func readJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		refuse(w, http.StatusBadRequest, fmt.Sprintf("%s: the body is not the JSON expected: %v", r.URL.Path, err))
		return false
	}
	return true
}

// formValue is a form field of a POST (OSWorld's /file sends
// file_path as a form).
func formValue(r *http.Request, key string) (string, error) {
	if err := r.ParseMultipartForm(1 << 20); err != nil && !errors.Is(err, http.ErrNotMultipart) {
		return "", err
	}
	v, ok := r.PostForm[key]
	if !ok || len(v) == 0 {
		return "", fmt.Errorf("%s is required", key)
	}
	return v[0], nil
}
