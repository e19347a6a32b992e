package signing

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pcflow/pcflow/workflows"
)

// TestVerify: a decision verifies only as signed: with the same key, every
// field as it was, within MaxAge.
func TestVerify(t *testing.T) {
	state := t.TempDir()
	k, err := LoadOrCreate(state)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(KeyPath(state)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file %v, %v: want mode 0600", fi.Mode(), err)
	}
	other, _ := LoadOrCreate(t.TempDir())
	now := time.Unix(1_800_000_000, 0)
	ap := workflows.Approval{Request: "step-3", Approve: true, By: "fay@desk", UID: "1001", At: now.Unix()}
	sig := k.Sign(ap.Claim("run/multiply"))
	for _, tc := range []struct {
		name string
		c    workflows.Claim
		sig  string
		at   time.Time
		want string
	}{
		{"as signed", ap.Claim("run/multiply"), sig, now, ""},
		{"unsigned", ap.Claim("run/multiply"), "", now, "is not signed"},
		{"another key", ap.Claim("run/multiply"), other.Sign(ap.Claim("run/multiply")), now, "does not match"},
		{"another name", func() workflows.Claim { a := ap; a.By = "root@vm"; return a.Claim("run/multiply") }(), sig, now, "does not match"},
		{"another uid", func() workflows.Claim { a := ap; a.UID = "0"; return a.Claim("run/multiply") }(), sig, now, "does not match"},
		{"a rejection", func() workflows.Claim { a := ap; a.Approve = false; return a.Claim("run/multiply") }(), sig, now, "does not match"},
		{"another request", func() workflows.Claim { a := ap; a.Request = "step-4"; return a.Claim("run/multiply") }(), sig, now, "does not match"},
		{"another workflow", ap.Claim("run/other"), sig, now, "does not match"},
		{"an answer", workflows.Answer{Request: "step-3", Text: "", By: ap.By, UID: ap.UID, At: ap.At}.Claim("run/multiply"), sig, now, "does not match"},
		{"stale", ap.Claim("run/multiply"), sig, now.Add(MaxAge + time.Second), "more than"},
	} {
		err := k.Verify(tc.c, tc.sig, tc.at)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: Verify = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestSignerSignsAsItsUser: the signer names this process's user whatever
// the claim said, and without a key says where it should be.
func TestSignerSignsAsItsUser(t *testing.T) {
	state := t.TempDir()
	c := workflows.Approval{Request: "r", Approve: true, By: "root@vm", UID: "0"}.Claim("w")
	if _, err := (Signer{State: state}).Sign(&c); err == nil || !strings.Contains(err.Error(), filepath.Join(state, KeyName)) {
		t.Errorf("Sign without a key = %v, want it to name %s", err, KeyPath(state))
	}
	k, _ := LoadOrCreate(state)
	sig, err := Signer{State: state}.Sign(&c)
	by, uid := Person(os.Getuid())
	if err != nil || c.By != by || c.UID != uid || k.Verify(c, sig, time.Now()) != nil {
		t.Errorf("Sign = %q %v, claim by %q uid %q; want by %q uid %q and a signature that verifies", sig, err, c.By, c.UID, by, uid)
	}
}
