// Package x11 is the device side on a Linux X11 desktop: actions through
// robotgo, observation (screenshot, window titles, clipboard), the
// accessibility tree over AT-SPI2 as Set-of-Marks elements, OCR with
// tesseract, headless desktops under Xvfb, and the reset between the tasks
// of a suite (applications stopped, folders emptied, an overlay sandbox
// dropped). It is the Linux platform: it builds on Linux only, and what
// only Linux has lives here, not in package activities.
//
// A Device drives the display New was given, never $DISPLAY, and one made
// by NewOn reads the tree through its desktop's own D-Bus session: two
// devices of one process drive two desktops, robotgo's one connection
// pointed at each in turn (robot.go). The desktop's XDG folders, which a
// reset empties, are still the process's (Desktop.Apply).
//
// Files: device.go (the Device, Observe; its files and the commands a
// task runs are the host's: local.Files, local.Commands), platform.go
// (the linux platform's opener, Register), robot.go, act.go and input.go (actions),
// wm.go (windows: titles, title bars, the active one, focus, the window
// manager's upkeep), launch.go (programs),
// ocr.go, atspi.go (the tree over D-Bus) and atspi_guard.go (no request
// waits on an application that does not answer), elements.go, layers.go,
// naming.go and labels.go (the tree as Set-of-Marks elements), health.go
// (display, window manager, accessibility bus), desktop.go (headless
// desktops) and confine.go (what the desktop's window manager and bus
// may start: nothing), reset.go, sandbox.go and procs/ (the reset),
// jail.go (an overlay sandbox's task programs apart from the worker),
// video.go (the screen recorded with ffmpeg for a run's video).
package x11
