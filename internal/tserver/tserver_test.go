package tserver

import (
	"database/sql"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pcflow/pcflow/internal/freeport"

	_ "modernc.org/sqlite"
)

// A service port taken between the check and the bind fails Start with the
// server's reason, instead of crashing the process from a goroutine later.
func TestInternalPortTaken(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	busy := taken.Addr().(*net.TCPAddr).Port
	calls := 0
	pickPort = func(ip string) (int, error) {
		calls++
		if calls == 4 { // HTTP, history, matching, then the worker service
			return busy, nil
		}
		return freeport.PickNow(ip)
	}
	defer func() { pickPort = freeport.PickNow }()
	front, err := freeport.Pick("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Start(Options{Port: front})
	if err == nil {
		s.Stop()
		t.Fatal("Start succeeded with the worker service's port taken")
	}
	if !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("error does not say why: %v", err)
	}
	t.Log(err)
}

// The state database runs in WAL mode: with the rollback journal SQLite
// synced every transaction, and a run spent a fifth of its CPU in those
// system calls. (The attribute names once carried a leading underscore,
// which SQLite ignored without a word.)
func TestStateDatabaseInWALMode(t *testing.T) {
	front, err := freeport.Pick("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "pcflow.db")
	s, err := Start(Options{Port: front, DatabaseFile: file})
	if err != nil {
		t.Fatal(err)
	}
	s.Stop()
	db, err := sql.Open("sqlite", "file:"+file+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" {
		t.Fatalf("state database journal_mode = %q, want wal", mode)
	}
}

// TestUIPortNeverLost: another process trying to take the Web UI's port
// the whole time the server starts never gets it (the UI's own server
// would end this process when it finds its port taken), and the UI
// answers on it.
func TestUIPortNeverLost(t *testing.T) {
	front, err := freeport.Pick("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	ui, err := freeport.Pick("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(ui))
	stop := make(chan struct{})
	took := make(chan bool, 1)
	go func() { // the other process, as fast as it can, from a moment after the check
		time.Sleep(2 * time.Millisecond)
		for {
			select {
			case <-stop:
				took <- false
				return
			default:
			}
			if l, err := net.Listen("tcp", addr); err == nil {
				took <- true
				time.Sleep(3 * time.Second) // long enough for the UI to try
				l.Close()
				return
			}
		}
	}()
	s, err := Start(Options{Port: front, UIPort: ui})
	if err != nil {
		close(stop)
		if !errors.Is(err, ErrPortInUse) {
			t.Fatal(err)
		}
		t.Skip("the other side bound the port before the check: nothing to hold")
	}
	defer s.Stop()
	time.Sleep(500 * time.Millisecond)
	close(stop)
	if <-took {
		t.Fatal("another process took the UI's port while the server started")
	}
	resp, err := http.Get(s.UIURL + "/")
	if err != nil {
		t.Fatalf("the UI does not answer on %s: %v", s.UIURL, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET %s/ = %s", s.UIURL, resp.Status)
	}
}

// TestSecondServerOnOneDatabaseIsRefused: a server whose database another
// server uses (it holds the database's lock) is refused with ErrLocked,
// and starts once that one lets go.
func TestSecondServerOnOneDatabaseIsRefused(t *testing.T) {
	front, err := freeport.Pick("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "pcflow.db")
	first, err := Start(Options{Port: front, DatabaseFile: file})
	if err != nil {
		t.Fatal(err)
	}
	other, err := freeport.Pick("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	if s, err := Start(Options{Port: other, DatabaseFile: file}); !errors.Is(err, ErrLocked) {
		if s != nil {
			s.Stop()
		}
		t.Fatalf("Start on a database another server uses = %v, want ErrLocked", err)
	}
	first.Stop()
	s, err := Start(Options{Port: other, DatabaseFile: file})
	if err != nil {
		t.Fatalf("Start after the first server stopped = %v, want it to start", err)
	}
	s.Stop()
}
