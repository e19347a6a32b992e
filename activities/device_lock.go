package activities

import (
	"context"
	"sync"
)

// deviceLock lets one activity at a time use the device's screen, mouse
// and keyboard, while model calls run beside it: a device worker takes
// several activities at once, so the pipelined loop's Reflection and next
// Decision wait for the model together, yet two actions, or an action and
// an observation, never interleave.
type deviceLock struct {
	once sync.Once
	ch   chan struct{}
}

// useDevice waits for the device (or ctx) and returns the release.
func (a *Activities) useDevice(ctx context.Context) (func(), error) {
	a.devLock.once.Do(func() { a.devLock.ch = make(chan struct{}, 1) })
	select {
	case a.devLock.ch <- struct{}{}:
		return func() { <-a.devLock.ch }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
