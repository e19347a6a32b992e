package x11

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/go-vgo/robotgo"

	"github.com/pcflow/pcflow/activities/screen"
)

var keyNames = map[string]string{
	"control": "ctrl", "return": "enter", "escape": "esc", "super": "cmd", "win": "cmd", "meta": "cmd",
	"del": "delete", "pgup": "pageup", "pgdn": "pagedown", "page_up": "pageup", "page_down": "pagedown",
	"arrowup": "up", "arrowdown": "down", "arrowleft": "left", "arrowright": "right", "plus": "+",
}

func normKey(k string) string {
	k = strings.ToLower(strings.TrimSpace(k))
	if n, ok := keyNames[k]; ok {
		return n
	}
	return k
}

// Act executes one action; coordinates are in screen space.
func (d *Device) Act(ctx context.Context, a screen.Action) (string, error) {
	note, err := d.act(ctx, a)
	if err == nil && d.Settle > 0 {
		time.Sleep(d.Settle)
	}
	return note, err
}

func (d *Device) act(ctx context.Context, a screen.Action) (string, error) {
	if err := d.ready(ctx); err != nil {
		return "", err
	}
	if a.Kind != screen.ActWait {
		// A wait sends no input: another device of this process may.
		unlock := d.robot()
		defer unlock()
	}
	release, err := holdModifiers(a)
	if err != nil {
		return "", err
	}
	defer release()
	switch a.Kind {
	case screen.ActClick, screen.ActDoubleClick, screen.ActRightClick:
		d.focusAt(a.X, a.Y)
		// Arrive with a motion event (some toolkits ignore a press that
		// comes without one), then press.
		robotgo.Move(a.X-1, a.Y-1)
		time.Sleep(40 * time.Millisecond)
		robotgo.Move(a.X, a.Y)
		time.Sleep(40 * time.Millisecond)
		btn, double := "left", a.Kind == screen.ActDoubleClick
		if a.Kind == screen.ActRightClick {
			btn = "right"
		}
		// Press and release with a pause between, as a hand does: some
		// toolkits drop a press and release that arrive together.
		clicks := 1
		if double {
			clicks = 2
		}
		for i := 0; i < clicks; i++ {
			if err := robotgo.Toggle(btn); err != nil {
				return "", fmt.Errorf("%s at (%d,%d): %w", a.Kind, a.X, a.Y, err)
			}
			time.Sleep(40 * time.Millisecond)
			if err := robotgo.Toggle(btn, "up"); err != nil {
				return "", fmt.Errorf("%s at (%d,%d): %w", a.Kind, a.X, a.Y, err)
			}
			if i+1 < clicks {
				time.Sleep(60 * time.Millisecond)
			}
		}
		return fmt.Sprintf("%s at (%d,%d)", a.Kind, a.X, a.Y), nil
	case screen.ActType:
		if a.Element > 0 || a.X != 0 || a.Y != 0 {
			robotgo.Move(a.X, a.Y)
			if err := robotgo.Click("left", false); err != nil {
				return "", fmt.Errorf("focus (%d,%d): %w", a.X, a.Y, err)
			}
			time.Sleep(80 * time.Millisecond)
		}
		typeText(a.Text)
		if a.Enter {
			time.Sleep(30 * time.Millisecond)
			if err := robotgo.KeyTap("enter"); err != nil {
				return "", err
			}
		}
		return fmt.Sprintf("typed %d characters", len([]rune(a.Text))), nil
	case screen.ActHotkey:
		keys := make([]string, len(a.Keys))
		for i, k := range a.Keys {
			keys[i] = normKey(k)
		}
		var mods []any
		for _, m := range keys[:len(keys)-1] {
			mods = append(mods, m)
		}
		if err := robotgo.KeyTap(keys[len(keys)-1], mods...); err != nil {
			return "", fmt.Errorf("hotkey %s: %w", strings.Join(keys, "+"), err)
		}
		return "pressed " + strings.Join(keys, "+"), nil
	case screen.ActScroll:
		if a.X != 0 || a.Y != 0 {
			robotgo.Move(a.X, a.Y)
		}
		robotgo.ScrollDir(a.Amount, a.Direction)
		return fmt.Sprintf("scrolled %s %d", a.Direction, a.Amount), nil
	case screen.ActDrag, screen.ActSelect:
		robotgo.Move(a.X, a.Y)
		time.Sleep(30 * time.Millisecond)
		if err := robotgo.Toggle("left"); err != nil {
			return "", err
		}
		for i := 1; i <= 10; i++ {
			robotgo.Move(a.X+(a.X2-a.X)*i/10, a.Y+(a.Y2-a.Y)*i/10)
			time.Sleep(15 * time.Millisecond)
		}
		if err := robotgo.Toggle("left", "up"); err != nil {
			return "", err
		}
		return fmt.Sprintf("dragged (%d,%d)→(%d,%d)", a.X, a.Y, a.X2, a.Y2), nil
	case screen.ActCopy:
		return "copied", robotgo.KeyTap("c", "ctrl")
	case screen.ActPaste:
		return "pasted", robotgo.KeyTap("v", "ctrl")
	case screen.ActWait:
		select {
		case <-time.After(time.Duration(a.Seconds * float64(time.Second))):
		case <-ctx.Done():
			return "", ctx.Err()
		}
		return fmt.Sprintf("waited %gs", a.Seconds), nil
	case screen.ActSwitchWindow:
		return d.switchWindow(a.Title)
	case screen.ActOpenApp:
		argv, err := FindApp(a.App)
		if err != nil {
			return "", err
		}
		return "started " + strings.Join(argv, " "), d.Launch(ctx, argv)
	}
	if note, ok, err := d.actInput(ctx, a); ok {
		return note, err
	}
	return "", fmt.Errorf("action %q is not supported on this device", a.Kind)
}

// remapGap is the pause between two characters that are not on the
// keyboard map. robotgo types such a character by mapping its keysym onto
// a spare keycode and pressing that key; an application reads the
// keycode's keysym when it handles the event, so a next remap that lands
// first turns the earlier character into the later one ("東京" typed as
// "京京" on a loaded machine; at 100 ms CI still saw "brûlée" typed as
// "brélée" into mousepad). A pause costs only characters off the map.
const remapGap = 300 * time.Millisecond

// typeText types s, running the characters of the keyboard map together
// and pausing before each one that is not, but the first (the spare
// keycode is the same whatever was typed in between).
func typeText(s string) {
	var run []rune
	prevRemapped := false
	flush := func() {
		if len(run) > 0 {
			robotgo.Type(string(run))
			run = run[:0]
		}
	}
	prev := rune(0)
	for _, r := range s {
		// robotgo types a character by its keysym, and a line break or a
		// tab has none: it would be dropped ("one\ntwo" typed "onetwo").
		// They are the Return and Tab keys; "\r\n" is one Return.
		if r == '\n' || r == '\r' || r == '\t' {
			flush()
			switch {
			case r == '\t':
				robotgo.KeyTap("tab")
			case r == '\n' && prev == '\r':
			default:
				robotgo.KeyTap("enter")
			}
			prev = r
			continue
		}
		prev = r
		if r < 0x80 {
			run = append(run, r)
			continue
		}
		flush()
		if prevRemapped {
			time.Sleep(remapGap)
		}
		robotgo.Type(string(r))
		prevRemapped = true
	}
	flush()
}
