package tserver

import (
	"database/sql"
	"net"
	"path/filepath"
	"strings"
	"testing"

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
