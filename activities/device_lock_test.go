package activities_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pcflow/pcflow/activities"
)

// Activities registered through Exclusive never use the device at the
// same time; one waiting for it gives up when its context ends.
func TestExclusiveTakesTurns(t *testing.T) {
	a := &activities.Activities{}
	var inside, most atomic.Int32
	use := activities.Exclusive(a, func(ctx context.Context, _ int) (int, error) {
		n := inside.Add(1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		inside.Add(-1)
		return 0, nil
	})
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Add(1)
		go func() { defer wg.Done(); _, _ = use(context.Background(), i) }()
	}
	wg.Wait()
	if most.Load() != 1 {
		t.Fatalf("%d exclusive activities used the device at once", most.Load())
	}

	hold := make(chan struct{})
	held := make(chan struct{})
	go func() {
		_, _ = activities.Exclusive(a, func(context.Context, int) (int, error) { close(held); <-hold; return 0, nil })(context.Background(), 0)
	}()
	<-held
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := activities.ExclusiveErr(a, func(context.Context, int) error { return nil })(ctx, 0); err == nil {
		t.Fatal("an activity ran while another held the device")
	}
	close(hold)
}
