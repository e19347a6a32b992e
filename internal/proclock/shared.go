package proclock

import (
	"context"
	"os"
	"path/filepath"
	"time"
)

// Users is a lock many processes hold at once, each while it uses
// something one of them owns (the embedded Temporal server of a state
// folder): the owner stops that thing only once it holds the lock alone.
type Users struct {
	f *os.File
}

// Use takes a shared hold on the lock file at path, waiting (until ctx
// ends) while an owner holds it alone, which it does while it stops what
// the lock guards: a process that finds it so starts anew afterwards.
func Use(ctx context.Context, path string) (*Users, error) {
	// A process that may not write the folder (another user's, looking
	// at its runs) holds the lock through a read-only descriptor; one
	// that cannot make it gets the error of the open.
	_ = os.MkdirAll(filepath.Dir(path), 0o755)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		if f, err = os.Open(path); err != nil {
			return nil, err
		}
	}
	for {
		err := lockShared(f)
		if err == nil {
			return &Users{f: f}, nil
		}
		if err != ErrHeld {
			f.Close()
			return nil, err
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Alone reports whether this process is the only one holding the lock;
// when it is, it now holds it alone (a process calling Use waits until
// Release). When it is not, it holds its shared hold still.
func (u *Users) Alone() bool {
	if u == nil || u.f == nil {
		return true
	}
	if upgrade(u.f) == nil {
		return true
	}
	// The failed upgrade may have dropped the shared hold: take it again
	// (never refused: others hold it shared, none alone).
	_ = lockShared(u.f)
	return false
}

// Release lets go of the hold.
func (u *Users) Release() {
	if u != nil && u.f != nil {
		u.f.Close()
		u.f = nil
	}
}
