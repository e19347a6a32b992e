package host

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBindSandboxHome checks the order of a bind sandbox's mounts: the
// device's own home folder over $HOME, then the host paths eval needs
// under it (the state folder), and a kept folder that holds the home
// folder before it (else it would show the host's home again).
func TestBindSandboxHome(t *testing.T) {
	for _, tc := range []struct {
		name string
		sb   bindMounts
		want string
	}{
		{name: "state under home",
			sb:   bindMounts{Tmp: "/s/d/tmp", Home: "/root", OwnHome: "/s/d/home", Scratch: "/s/d/scratch", Keep: []string{"/tmp/.X11-unix", "/root/.pcflow"}},
			want: "bwrap --dev-bind / / --bind /s/d/tmp /tmp --bind /s/d/home /root --bind /tmp/.X11-unix /tmp/.X11-unix --bind /root/.pcflow /root/.pcflow --bind /s/d/scratch " + ScratchDir + " --die-with-parent -- w"},
		{name: "home inside a kept folder",
			sb:   bindMounts{Tmp: "/s/d/tmp", Home: "/tmp/w/h", OwnHome: "/s/d/home", Scratch: "/s/d/scratch", Keep: []string{"/tmp/w"}},
			want: "bwrap --dev-bind / / --bind /s/d/tmp /tmp --bind /tmp/w /tmp/w --bind /s/d/home /tmp/w/h --bind /s/d/scratch " + ScratchDir + " --die-with-parent -- w"},
		{name: "no home of its own",
			sb:   bindMounts{Tmp: "/s/d/tmp", Scratch: "/s/d/scratch"},
			want: "bwrap --dev-bind / / --bind /s/d/tmp /tmp --bind /s/d/scratch " + ScratchDir + " --die-with-parent -- w"},
	} {
		if diff := cmp.Diff(tc.want, strings.Join(tc.sb.argv([]string{"w"}), " ")); diff != "" {
			t.Errorf("%s: argv (-want +got):\n%s", tc.name, diff)
		}
	}
	for env, want := range map[string]string{"HOME=/root": "/root", "HOME=/": "", "HOME=/tmp": "", "HOME=rel": "", "X=1": "", "HOME=/home/u/": "/home/u"} {
		if got := privateHome([]string{env}); got != want {
			t.Errorf("privateHome(%q) = %q, want %q", env, got, want)
		}
	}
}
