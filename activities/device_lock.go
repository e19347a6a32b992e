package activities

import (
	"context"
	"sync"
)

// deviceLock lets one activity at a time use the device's screen, mouse
// and keyboard, while model calls run beside it: a device worker takes
// several activities at once, so the pipelined loop's Reflection and next
// Decision wait for the model together, yet two actions, or an action and
// an observation, never interleave. The activities that use the device
// throughout are registered through Exclusive; Decide and Reflect take it
// only while they observe (observeNow).
type deviceLock struct {
	once sync.Once
	ch   chan struct{}
}

// Exclusive is f run while no other activity uses the device.
func Exclusive[I, O any](a *Activities, f func(context.Context, I) (O, error)) func(context.Context, I) (O, error) {
	return func(ctx context.Context, in I) (O, error) {
		release, err := a.useDevice(ctx)
		if err != nil {
			var zero O
			return zero, err
		}
		defer release()
		return f(ctx, in)
	}
}

// ExclusiveErr is Exclusive for an activity with no result.
func ExclusiveErr[I any](a *Activities, f func(context.Context, I) error) func(context.Context, I) error {
	g := Exclusive(a, func(ctx context.Context, in I) (struct{}, error) { return struct{}{}, f(ctx, in) })
	return func(ctx context.Context, in I) error {
		_, err := g(ctx, in)
		return err
	}
}

// useDevice waits for the device (or ctx), heartbeating meanwhile, and
// returns the release.
func (a *Activities) useDevice(ctx context.Context) (func(), error) {
	a.devLock.once.Do(func() { a.devLock.ch = make(chan struct{}, 1) })
	defer heartbeat(ctx)()
	select {
	case a.devLock.ch <- struct{}{}:
		return func() { <-a.devLock.ch }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
