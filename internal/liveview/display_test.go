package liveview

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities/x11"
	"github.com/pcflow/pcflow/internal/testdisplay"
)

// TestViewFollowsTheDisplay: a view on a real desktop answers with the
// VNC server's state; when the display dies the page is told, and when a
// desktop comes back on the same display the view serves it again. The
// URL file is the owner's alone and goes when the view stops.
func TestViewFollowsTheDisplay(t *testing.T) {
	state, display := t.TempDir(), testdisplay.Reserve(t)
	up := func() *x11.Desktop {
		d, err := x11.Up(context.Background(), x11.DesktopOptions{Display: display, StateDir: state})
		if err != nil {
			t.Fatalf("desktop: %v", err)
		}
		return d
	}
	d := up()
	t.Cleanup(func() { d.Down() })
	for k, v := range d.Env {
		t.Setenv(k, v)
	}
	s, err := Start(context.Background(), Options{Device: "desk", Display: display, StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	file := URLFile(state, "desk")
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("URL file %s: %v, want mode 0600", file, err)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	base, _, _ := strings.Cut(s.URL(), "?")
	state1 := func() (st struct {
		State
		Password string `json:"password"`
	}) {
		t.Helper()
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
	wait := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(200 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	if st := state1(); !st.ViewOnly || st.Error != "" || st.Password == "" {
		t.Errorf("state = %+v, want view-only, no error, a password", st)
	}
	if err := s.server().ready(); err != nil {
		t.Fatalf("VNC server: %v", err)
	}
	d.Down()
	wait("the page to hear the display is gone", func() bool { return strings.Contains(state1().Error, "is gone") })
	d = up()
	wait("the view to come back", func() bool { st := state1(); return st.Error == "" && s.server().ready() == nil })
	s.Close()
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("URL file after Close: %v, want it removed", err)
	}
	if s.server().alive() {
		t.Error("x11vnc still runs after Close")
	}
}
