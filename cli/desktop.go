package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/pcflow/pcflow/activities/x11"
)

func cmdDesktop(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 || (args[0] != "up" && args[0] != "down") {
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-h") {
			fmt.Fprintln(e.stdout, `Usage: pcflow desktop up|down [--display :N]

up starts a headless desktop: Xvfb, a D-Bus session with accessibility on, and
the openbox window manager; it prints the environment to use (eval "$(pcflow
desktop up)") and records it in the state folder, where --display :N finds it.
Several displays can run side by side, one per device. down stops one.`)
			return 0
		}
		fmt.Fprintln(e.stderr, "pcflow desktop: usage: pcflow desktop up|down [--display :N]")
		return 2
	}
	var state string
	fs := newFlags(e, "desktop "+args[0], "[--display :N]", "Start or stop a headless desktop.")
	stateFlag(fs, e, &state)
	display := fs.String("display", "", "X display `:N` (up: default the first free from :90; down: required)")
	var size *string
	if args[0] == "up" {
		size = fs.String("size", "1440x900", "screen size `WIDTHxHEIGHT`")
	}
	if _, code := parseFlags(fs, args[1:]); code >= 0 {
		return code
	}
	if args[0] == "down" {
		if *display == "" {
			fmt.Fprintln(e.stderr, "pcflow desktop down: --display :N is required")
			return 2
		}
		d, err := x11.Load(state, *display)
		if err != nil {
			fmt.Fprintln(e.stderr, "pcflow desktop down:", err)
			return 1
		}
		d.Down()
		_ = os.Remove(x11.EnvFile(state, *display))
		fmt.Fprintf(e.stdout, "desktop %s stopped\n", *display)
		return 0
	}
	var w, h int
	if _, err := fmt.Sscanf(strings.ToLower(*size), "%dx%d", &w, &h); err != nil || w < 200 || h < 200 {
		fmt.Fprintf(e.stderr, "pcflow desktop up: --size %q: write WIDTHxHEIGHT, e.g. 1440x900\n", *size)
		return 2
	}
	d, err := x11.Up(ctx, x11.DesktopOptions{Display: *display, Width: w, Height: h, StateDir: state})
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow desktop up:", err)
		return 1
	}
	fmt.Fprint(e.stdout, d.Exports())
	fmt.Fprintf(e.stderr, "desktop %s is up; drive it with --display %s; stop it with pcflow desktop down --display %s\n", d.Display, d.Display, d.Display)
	return 0
}
