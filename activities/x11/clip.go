package x11

import (
	"context"
	"errors"
	"math"
	"os/exec"
	"sync"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// clipMax is how much of the clipboard an observation carries.
const clipMax = 2000

// errClipTimeout: the clipboard's owner did not answer in time (a frozen
// program); xclip would wait as long.
var errClipTimeout = errors.New("the clipboard's owner did not answer")

// clipReader reads the CLIPBOARD selection over an X connection of its
// own (its only events are the owner's answers and the changes of its
// window's property) into a window of its own, as xclip does, without
// starting a process per observation. After a timeout the connection is
// dropped, so a late answer is never taken for the next request's.
type clipReader struct {
	mu      sync.Mutex
	display string
	conn    *xgb.Conn
	events  chan xgb.Event
	win     xproto.Window
	// atoms: CLIPBOARD, UTF8_STRING, INCR and the property the owner
	// writes the text to.
	clipboard, utf8, incr, prop xproto.Atom
}

// read returns the clipboard's text (at most clipMax bytes), "" when it
// is empty, holds no text or its owner does not answer within 500 ms;
// xclip reads it when this cannot (no X connection).
func (c *clipReader) read(display string) string {
	s, err := c.convert(display, 500*time.Millisecond)
	switch {
	case errors.Is(err, errClipTimeout):
		return ""
	case err != nil:
		return clipboard(display)
	}
	return s
}

// convert asks the clipboard's owner on display for its text and waits up
// to timeout for all of it.
func (c *clipReader) convert(display string, timeout time.Duration) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.conn != nil && c.display != display {
		c.closeLocked()
	}
	if c.conn == nil {
		if err := c.open(display); err != nil {
			return "", err
		}
	}
	for len(c.events) > 0 { // the last read's property changes
		<-c.events
	}
	owner, err := xproto.GetSelectionOwner(c.conn, c.clipboard).Reply()
	if err != nil {
		c.closeLocked()
		return "", err
	}
	if owner.Owner == xproto.WindowNone {
		return "", nil
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	// UTF8_STRING, else STRING (Latin-1), as xclip asks.
	for _, target := range []xproto.Atom{c.utf8, xproto.AtomString} {
		xproto.ConvertSelection(c.conn, c.win, c.clipboard, target, c.prop, xproto.TimeCurrentTime)
		var n xproto.SelectionNotifyEvent
		err := c.wait(deadline.C, func(ev xgb.Event) bool {
			e, ok := ev.(xproto.SelectionNotifyEvent)
			n = e
			return ok && e.Requestor == c.win && e.Selection == c.clipboard
		})
		if err != nil {
			return "", err
		}
		if n.Property == xproto.AtomNone {
			continue // the owner has no text of this kind
		}
		p, err := xproto.GetProperty(c.conn, true, c.win, c.prop, xproto.GetPropertyTypeAny, 0, (clipMax+3)/4).Reply()
		if err != nil {
			c.closeLocked()
			return "", err
		}
		v, typ := p.Value, p.Type
		if typ == c.incr {
			// Deleting the property (done) asks for the first piece.
			if v, typ, err = c.pieces(deadline.C); err != nil {
				return "", err
			}
		} else if p.BytesAfter > 0 {
			// The rest is left on the window: delete it.
			xproto.DeleteProperty(c.conn, c.win, c.prop)
		}
		if len(v) > clipMax {
			v = v[:clipMax]
		}
		if typ == xproto.AtomString {
			return latin1(v), nil
		}
		return string(v), nil
	}
	return "", nil
}

// pieces reads an INCR transfer (ICCCM: a value of a megabyte or more
// comes in pieces) to its end, since the owner waits for each piece to be
// taken, and returns its first clipMax bytes and their type.
func (c *clipReader) pieces(deadline <-chan time.Time) ([]byte, xproto.Atom, error) {
	var v []byte
	var typ xproto.Atom
	for {
		err := c.wait(deadline, func(ev xgb.Event) bool {
			e, ok := ev.(xproto.PropertyNotifyEvent)
			return ok && e.Window == c.win && e.Atom == c.prop && e.State == xproto.PropertyNewValue
		})
		if err != nil {
			return nil, 0, err
		}
		p, err := xproto.GetProperty(c.conn, true, c.win, c.prop, xproto.GetPropertyTypeAny, 0, math.MaxUint32/4).Reply()
		if err != nil {
			c.closeLocked()
			return nil, 0, err
		}
		if len(p.Value) == 0 {
			return v, typ, nil
		}
		typ = p.Type
		if len(v) < clipMax {
			v = append(v, p.Value[:min(len(p.Value), clipMax-len(v))]...)
		}
	}
}

// wait waits for an event that match accepts. At the deadline it drops
// the connection, so that a late answer is never taken for the next
// request's.
func (c *clipReader) wait(deadline <-chan time.Time, match func(xgb.Event) bool) error {
	for {
		select {
		case ev, ok := <-c.events:
			if !ok {
				c.closeLocked()
				return errors.New("the X connection closed")
			}
			if match(ev) {
				return nil
			}
		case <-deadline:
			c.closeLocked()
			return errClipTimeout
		}
	}
}

// open connects to display and makes the window the owner writes to.
func (c *clipReader) open(display string) error {
	conn, err := xgb.NewConnDisplay(display)
	if err != nil {
		return err
	}
	atoms := make([]xproto.Atom, 4)
	for i, name := range []string{"CLIPBOARD", "UTF8_STRING", "INCR", "_PCFLOW_CLIPBOARD"} {
		r, err := xproto.InternAtom(conn, false, uint16(len(name)), name).Reply()
		if err != nil {
			conn.Close()
			return err
		}
		atoms[i] = r.Atom
	}
	win, err := xproto.NewWindowId(conn)
	if err == nil {
		root := xproto.Setup(conn).DefaultScreen(conn).Root
		err = xproto.CreateWindowChecked(conn, 0, win, root, 0, 0, 1, 1, 0, xproto.WindowClassInputOnly, 0, xproto.CwEventMask, []uint32{xproto.EventMaskPropertyChange}).Check()
	}
	if err != nil {
		conn.Close()
		return err
	}
	c.display, c.conn, c.win = display, conn, win
	c.clipboard, c.utf8, c.incr, c.prop = atoms[0], atoms[1], atoms[2], atoms[3]
	c.events = make(chan xgb.Event, 16)
	go func(events chan<- xgb.Event) {
		defer close(events)
		for {
			ev, err := conn.WaitForEvent()
			if ev == nil && err == nil {
				return // closed
			}
			if ev != nil {
				events <- ev
			}
		}
	}(c.events)
	return nil
}

// close drops the connection (and with it the window).
func (c *clipReader) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closeLocked()
}

func (c *clipReader) closeLocked() {
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
}

// latin1 converts ISO 8859-1 (the STRING target) to UTF-8.
func latin1(b []byte) string {
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}

// clipboard reads display's clipboard with xclip.
func clipboard(display string) string { return clipboardWithin(display, 500*time.Millisecond) }

// clipboardWithin is clipboard with xclip given d to answer.
func clipboardWithin(display string, d time.Duration) string {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	out, err := exec.CommandContext(ctx, "xclip", "-display", display, "-o", "-selection", "clipboard").Output()
	if err != nil {
		return ""
	}
	if len(out) > clipMax {
		out = out[:clipMax]
	}
	return string(out)
}
