package control

import (
	"os"
	"os/user"
	"strconv"
	"strings"
	"testing"
)

// TestByIsTheProcessUser: the identity recorded for approvals, rejections
// and answers is the user of the process's uid; $USER (and $LOGNAME),
// which any caller sets, change nothing.
func TestByIsTheProcessUser(t *testing.T) {
	t.Setenv("USER", "someone")
	t.Setenv("LOGNAME", "someone")
	me := Me()
	if me.UID != strconv.Itoa(os.Getuid()) {
		t.Errorf("Me().UID = %q, want %d", me.UID, os.Getuid())
	}
	want := "uid " + me.UID
	if u, err := user.LookupId(me.UID); err == nil {
		want = u.Username
	}
	if me.Name != want || me.Name == "someone" {
		t.Errorf("Me().Name = %q with USER=someone, want %q", me.Name, want)
	}
	if by := By(); strings.HasPrefix(by, "someone@") || !strings.HasPrefix(by, want+"@") {
		t.Errorf("By() = %q with USER=someone, want %s@HOST", by, want)
	}
	// A uid without a name is still named, by its number.
	if p := personOf(2147483000); p.Name != "uid 2147483000" || p.UID != "2147483000" {
		t.Errorf("personOf(unnamed uid) = %+v", p)
	}
}
