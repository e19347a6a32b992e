package proclock

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// TestUsersOwnerWaitsForOthers: the owner of a shared thing is not alone
// while another user holds the lock, is alone once that user let go, and
// while it is alone a newcomer waits, then gets its hold once the owner
// released. (flock locks belong to an open file, so two holds in one
// process behave as two processes' would.)
func TestUsersOwnerWaitsForOthers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "server.users")
	ctx := context.Background()
	owner, err := Use(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if !owner.Alone() {
		t.Fatal("the only holder is not alone")
	}
	owner.Release()
	owner, _ = Use(ctx, path)
	other, err := Use(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if owner.Alone() {
		t.Fatal("the owner is alone while another process uses the lock")
	}
	if owner.Alone() { // the failed try kept its shared hold
		t.Fatal("the owner is alone on its second look")
	}
	other.Release()
	if !owner.Alone() {
		t.Fatal("the owner is not alone after the other let go")
	}
	// Alone now: a newcomer waits until the owner releases.
	got := make(chan error, 1)
	go func() {
		u, err := Use(ctx, path)
		if err == nil {
			u.Release()
		}
		got <- err
	}()
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, err := Use(short, path); err == nil {
		t.Fatal("a newcomer got a hold while the owner held the lock alone")
	}
	owner.Release()
	select {
	case err := <-got:
		if err != nil {
			t.Fatalf("the newcomer after the owner released: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the newcomer got no hold 30 s after the owner released")
	}
}
