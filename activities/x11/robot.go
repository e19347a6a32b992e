package x11

import (
	"os"
	"sync"

	"github.com/go-vgo/robotgo"
)

// robot is robotgo's one Xlib connection of the process (its "main
// display", opened on the name SetXDisplayName gave it), shared by every
// device: a device that sends input or captures through robotgo takes it,
// points it at its own display when another device's was last, and gives
// it back. So two devices on two displays in one process each send their
// input to their own screen, taking turns. It is package state because
// robotgo's connection is C state of the process.
var robot struct {
	sync.Mutex
	display string // the display robotgo's connection is on ("" none yet)
}

// robotOn takes robotgo for display and returns its release.
func robotOn(display string) (release func()) {
	robot.Lock()
	if robot.display != display {
		// robotgo closes its connection and opens one on the new name at
		// its next call.
		_ = robotgo.SetXDisplayName(display)
		robot.display = display
	}
	// robotgo types a character that is not on the keyboard through a
	// connection of its own, XOpenDisplay(NULL), which reads $DISPLAY:
	// without it that call crashed the process (SIGSEGV in input_utf, a
	// secret with a non-ASCII character typed under `pcflow run`).
	if os.Getenv("DISPLAY") != display {
		_ = os.Setenv("DISPLAY", display)
	}
	return robot.Unlock
}

// closeRobot closes robotgo's connection if it is on display (whose X
// server may be about to go: Xlib ends the process on a connection whose
// server died); another device's connection is left alone.
func closeRobot(display string) {
	robot.Lock()
	defer robot.Unlock()
	if robot.display == display {
		robotgo.CloseMainDisplay()
		robot.display = ""
	}
}

// robot takes robotgo for the device's display; the release returned
// gives it back.
func (d *Device) robot() (release func()) { return robotOn(d.display) }
