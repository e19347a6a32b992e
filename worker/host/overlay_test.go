package host

import (
	"slices"
	"strings"
	"testing"
)

// TestOverlaySandboxMachine: an overlay sandbox shows the worker the
// task's network namespace the sandbox's script made (the worker cannot
// bring a loopback interface up itself), and the task's home folder, made
// afresh in the sandbox's memory, over the empty /home — after it, so
// that the folder is not hidden again.
func TestOverlaySandboxMachine(t *testing.T) {
	sb := overlayMounts{Layers: "/run/pcflow-sandbox/d", Base: "/s/base", Home: "/home/user", User: "user", Command: []string{"w"}}
	a := sb.argv()
	got := strings.Join(a, " ")
	if !strings.Contains(got, " sh /run/pcflow-sandbox/d /s/base /home/user user bwrap ") {
		t.Errorf("the script is not given the layers, base, home and user in order: %s", got)
	}
	if !strings.Contains(got, " --ro-bind /run/pcflow-sandbox/d/net "+TaskNetPath+" ") {
		t.Errorf("the task's network namespace is not shown at %s: %s", TaskNetPath, got)
	}
	home := slices.Index(a, "/run/pcflow-sandbox/d/home")
	hide := slices.Index(a, "--tmpfs") // the hidden folders come first
	if home < 0 || a[home-1] != "--bind" || a[home+1] != "/home/user" || home < hide || home < slices.Index(a, "/home") {
		t.Errorf("the home folder is not bound over the hidden /home: %s", got)
	}
	if s := (overlayMounts{Layers: "/l", Command: []string{"w"}}).argv(); slices.Contains(s, "/l/home") {
		t.Errorf("a sandbox with no task home binds one: %s", strings.Join(s, " "))
	}
	for _, want := range []string{"unshare --net=\"$L/net\"", "ip link set lo up", "exit 1", `"$U:x:$id:$gid::$H:/bin/bash"`} {
		if !strings.Contains(overlayScript, want) {
			t.Errorf("the sandbox's script lacks %q", want)
		}
	}
}
