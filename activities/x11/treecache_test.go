package x11

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pcflow/pcflow/activities/screen"
)

// forget drops what the last observation read: the next one reads every
// tree.
func (a *a11y) forget() {
	a.mu.Lock()
	a.cache = nil
	a.mu.Unlock()
}

// TestObserveReadsAgainWhatChanged: on an unchanged screen an observation
// asks galculator almost nothing (its tree comes from the last one); after
// a key is clicked the display's new text is in the next observation; and
// after each step (a key, a menu opened, closed) what the device returns
// is what a full read of the trees returns.
func TestObserveReadsAgainWhatChanged(t *testing.T) {
	dev := desktop(t)
	app(t, dev, "galculator", "galculator")
	observe := func() (*screen.Screen, ObserveStats) {
		t.Helper()
		s, err := dev.Observe(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return s, dev.LastStats()
	}
	fresh := func() ([]screen.Element, ObserveStats) {
		t.Helper()
		dev.tree.forget()
		s, st := observe()
		if st.Reused != 0 {
			t.Fatalf("an observation after forget reused %d trees", st.Reused)
		}
		return s.Elements, st
	}
	_, full := fresh()
	if _, st := observe(); st.Reused == 0 || st.Requests*5 > full.Requests {
		t.Errorf("unchanged screen: %d requests (a full read: %d), %d trees reused; want a fifth of a full read's requests or fewer, and galculator's tree reused",
			st.Requests, full.Requests, st.Reused)
	}

	display := func(s *screen.Screen) string {
		for _, e := range s.Elements {
			if e.Role == "text" {
				return strings.TrimSpace(e.Value)
			}
		}
		return "(no display)"
	}
	// step acts, then observes until want holds (from the cache where it
	// can), and compares the last observation with a full read.
	step := func(what string, do func(s *screen.Screen), want func(s *screen.Screen) bool) {
		t.Helper()
		s, _ := observe()
		do(s)
		var got *screen.Screen
		var stats []ObserveStats
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			var st ObserveStats
			got, st = observe()
			stats = append(stats, st)
			if want(got) || time.Now().After(deadline) {
				break
			}
		}
		if !want(got) {
			t.Fatalf("%s: the observation never showed it (display %q; stats %+v)", what, display(got), stats)
		}
		// The application may still change (a menu takes the focus):
		// whatever it changes must be in the next observations too.
		time.Sleep(500 * time.Millisecond)
		for range 2 {
			var st ObserveStats
			got, st = observe()
			stats = append(stats, st)
		}
		if els, _ := fresh(); cmp.Diff(els, got.Elements) != "" {
			diff := cmp.Diff(els, got.Elements)
			t.Errorf("%s: the observation differs from a full read (-full +observed):\n%s", what, diff)
		}
		t.Logf("%s: %d observations, stats %+v", what, len(stats), stats)
	}
	click := func(name string) func(s *screen.Screen) {
		return func(s *screen.Screen) {
			for _, e := range s.Elements {
				if e.Name == name {
					x, y := e.Box.Center()
					if _, err := dev.Act(context.Background(), screen.Action{Kind: screen.ActClick, X: x, Y: y}); err != nil {
						t.Fatal(err)
					}
					return
				}
			}
			t.Fatalf("no element named %q", name)
		}
	}
	shows := func(v string) func(s *screen.Screen) bool {
		return func(s *screen.Screen) bool { return display(s) == v }
	}
	has := func(name string, yes bool) func(s *screen.Screen) bool {
		return func(s *screen.Screen) bool {
			for _, e := range s.Elements {
				if e.Name == name {
					return yes
				}
			}
			return !yes
		}
	}
	step("AC", click("AC"), shows("0"))
	step("7", click("7"), shows("7"))
	step("3", click("3"), shows("73"))
	step("View menu", click("View"), has("Scientific Mode", true))
	step("Escape", func(*screen.Screen) { key(dev, "Escape") }, has("Scientific Mode", false))
	step("+/-", click("+/-"), shows("-73"))
}
