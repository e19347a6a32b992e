package liveview

import (
	"context"
	"testing"

	"github.com/pcflow/pcflow/activities/x11"
	"github.com/pcflow/pcflow/internal/testdisplay"
)

// BenchmarkVNC measures, on a real desktop, starting x11vnc until it
// answers (start) and one switch between view-only and control through
// its remote control, confirmed by a query (switch).
//
//	flock /tmp/pcflow-desktop.lock go test -run '^$' -bench VNC ./internal/liveview/
func BenchmarkVNC(b *testing.B) {
	state, display := b.TempDir(), testdisplay.Reserve(b)
	d, err := x11.Up(context.Background(), x11.DesktopOptions{Display: display, StateDir: state})
	if err != nil {
		b.Fatal(err)
	}
	defer d.Down()
	for k, v := range d.Env {
		b.Setenv(k, v)
	}
	ctx := context.Background()
	b.Run("start", func(b *testing.B) {
		for b.Loop() {
			v, err := startVNC(ctx, display)
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			v.stop()
			b.StartTimer()
		}
	})
	v, err := startVNC(ctx, display)
	if err != nil {
		b.Fatal(err)
	}
	defer v.stop()
	b.Run("switch", func(b *testing.B) {
		on := true
		for b.Loop() {
			on = !on
			if err := v.setViewOnly(ctx, on); err != nil {
				b.Fatal(err)
			}
		}
	})
}
