package tserver

import (
	"net"
	"strings"
	"testing"

	"github.com/pcflow/pcflow/internal/freeport"
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
