package x11

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-vgo/robotgo"

	"github.com/pcflow/pcflow/activities/screen"
)

// actInput executes the input primitives of the computer-use protocols:
// middle and triple click, pointer moves, button down and up, keys held for
// a while. handled is false for any other kind.
func (d *Device) actInput(ctx context.Context, a screen.Action) (note string, handled bool, err error) {
	moveTo := func() {
		robotgo.Move(a.X-1, a.Y-1)
		time.Sleep(40 * time.Millisecond)
		robotgo.Move(a.X, a.Y)
		time.Sleep(40 * time.Millisecond)
	}
	press := func(btn string, n int) error {
		for i := 0; i < n; i++ {
			if err := robotgo.Toggle(btn); err != nil {
				return err
			}
			time.Sleep(40 * time.Millisecond)
			if err := robotgo.Toggle(btn, "up"); err != nil {
				return err
			}
			if i+1 < n {
				time.Sleep(60 * time.Millisecond)
			}
		}
		return nil
	}
	switch a.Kind {
	case screen.ActMiddleClick, screen.ActTripleClick:
		d.focusAt(a.X, a.Y)
		moveTo()
		btn, n := "center", 1
		if a.Kind == screen.ActTripleClick {
			btn, n = "left", 3
		}
		if err := press(btn, n); err != nil {
			return "", true, fmt.Errorf("%s at (%d,%d): %w", a.Kind, a.X, a.Y, err)
		}
		return fmt.Sprintf("%s at (%d,%d)", a.Kind, a.X, a.Y), true, nil
	case screen.ActMouseMove:
		moveTo()
		return fmt.Sprintf("moved the pointer to (%d,%d)", a.X, a.Y), true, nil
	case screen.ActMouseDown, screen.ActMouseUp:
		if a.X != 0 || a.Y != 0 {
			moveTo()
		}
		dir := "down"
		if a.Kind == screen.ActMouseUp {
			dir = "up"
		}
		if err := robotgo.Toggle("left", dir); err != nil {
			return "", true, fmt.Errorf("%s: %w", a.Kind, err)
		}
		x, y := robotgo.Location()
		return fmt.Sprintf("left button %s at (%d,%d)", dir, x, y), true, nil
	case screen.ActHoldKey:
		if len(a.Keys) == 0 {
			return "", true, fmt.Errorf("hold_key needs keys")
		}
		keys := make([]string, len(a.Keys))
		for i, k := range a.Keys {
			keys[i] = normKey(k)
		}
		for i, k := range keys {
			if err := robotgo.KeyToggle(k, "down"); err != nil {
				for _, held := range keys[:i] {
					_ = robotgo.KeyToggle(held, "up")
				}
				return "", true, fmt.Errorf("hold_key %s: %w", k, err)
			}
		}
		var werr error
		select {
		case <-time.After(time.Duration(a.Seconds * float64(time.Second))):
		case <-ctx.Done():
			werr = ctx.Err()
		}
		for i := len(keys) - 1; i >= 0; i-- {
			if err := robotgo.KeyToggle(keys[i], "up"); err != nil && werr == nil {
				werr = fmt.Errorf("release %s: %w", keys[i], err)
			}
		}
		return fmt.Sprintf("held %s for %gs", strings.Join(keys, "+"), a.Seconds), true, werr
	}
	return "", false, nil
}

// holdModifiers presses the keys a pointer action is to be done with
// (shift-click, ctrl-scroll) and returns their release.
func holdModifiers(a screen.Action) (func(), error) {
	if len(a.Keys) == 0 || !screen.HoldsKeys(a.Kind) {
		return func() {}, nil
	}
	keys := make([]string, len(a.Keys))
	for i, k := range a.Keys {
		keys[i] = normKey(k)
	}
	release := func(n int) {
		for i := n - 1; i >= 0; i-- {
			_ = robotgo.KeyToggle(keys[i], "up")
		}
	}
	for i, k := range keys {
		if err := robotgo.KeyToggle(k, "down"); err != nil {
			release(i)
			return nil, fmt.Errorf("hold %s for %s: %w", k, a.Kind, err)
		}
	}
	time.Sleep(30 * time.Millisecond)
	return func() { release(len(keys)) }, nil
}
