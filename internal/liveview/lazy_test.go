package liveview

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/pcflow/pcflow/activities/x11"
	"github.com/pcflow/pcflow/internal/testdisplay"
)

// open is a page opening the view: the printed URL (which sets the
// cookie), then the state, as view.html does. It returns the state.
func open(t *testing.T, s *Server) (st struct {
	State
	Password string `json:"password"`
}) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	base, _, _ := strings.Cut(s.URL(), "?")
	r, err := c.Get(base + "api/state")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	if r.StatusCode != 200 {
		t.Fatalf("GET api/state = %d", r.StatusCode)
	}
	if err := json.NewDecoder(r.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return st
}

// x11vncOn lists the x11vnc processes serving display.
func x11vncOn(display string) []string {
	var pids []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(cmd), "\x00")
		if filepath.Base(args[0]) != "x11vnc" {
			continue
		}
		for i, a := range args {
			if a == "-display" && i+1 < len(args) && args[i+1] == display && !strings.Contains(string(cmd), "\x00-R\x00") && !strings.Contains(string(cmd), "\x00-Q\x00") {
				pids = append(pids, e.Name())
			}
		}
	}
	return pids
}

// noClient stands for a Temporal connection: the view asks Current
// first, and with no subtask ("") asks the server nothing.
type noClient struct{ client.Client }

// TestUnwatchedViewCostsNothing: a device's view runs no VNC server and
// does not follow the subtask until a page opens it; the first page
// starts both, and they serve it at once.
func TestUnwatchedViewCostsNothing(t *testing.T) {
	state, display := t.TempDir(), testdisplay.Reserve(t)
	d, err := x11.Up(t.Context(), x11.DesktopOptions{Display: display, StateDir: state})
	if err != nil {
		t.Fatalf("desktop: %v", err)
	}
	t.Cleanup(func() { d.Down() })
	for k, v := range d.Env {
		t.Setenv(k, v)
	}
	var asked atomic.Int32
	s, err := Start(context.Background(), Options{Device: "desk", Display: display, StateDir: state,
		Client: noClient{}, Current: func() string { asked.Add(1); return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	time.Sleep(3 * time.Second)
	if p := x11vncOn(display); len(p) != 0 {
		t.Errorf("x11vnc runs (pids %v) before any page opened the view", p)
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the view followed the subtask %d times before any page opened it", n)
	}
	st := open(t, s)
	if st.Password == "" || !st.ViewOnly {
		t.Errorf("first state = %+v, want a password and view-only", st)
	}
	if p := x11vncOn(display); len(p) != 1 {
		t.Errorf("x11vnc processes after the page opened: %v, want one", p)
	}
	if err := rfbLogin(s.server().addr(), st.Password); err != nil {
		t.Errorf("login with the password the page got: %v", err)
	}
	for deadline := time.Now().Add(10 * time.Second); asked.Load() < 2; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the view did not follow the subtask while watched (asked %d times)", asked.Load())
		}
	}
}
