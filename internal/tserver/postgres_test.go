package tserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A database URL carrying a password is refused (a command line is
// readable by every user of the machine), and the refusal does not repeat
// the password; a well-formed URL gets its defaults.
func TestParsePostgres(t *testing.T) {
	_, err := ParsePostgres("postgres://pcflow:hunter2@db:5432/temporal", "")
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "PCFLOW_DB_PASSWORD") {
		t.Errorf("URL with a password: %v, want a refusal that names $PCFLOW_DB_PASSWORD and not the password", err)
	}
	p, err := ParsePostgres("postgres://pcflow@db/", "pw")
	if err != nil {
		t.Fatal(err)
	}
	if p.Addr != "db:5432" || p.Database != "temporal" || p.VisibilityDatabase() != "temporal_visibility" || p.Attributes["sslmode"] != "disable" || p.Password != "pw" {
		t.Errorf("defaults: %+v", p)
	}
	if strings.Contains(p.String(), "pw") {
		t.Errorf("String() shows the password: %s", p)
	}
	for _, bad := range []string{"mysql://u@h/d", "postgres:///d", "postgres://h/d", `postgres://u@h/a"b`} {
		if _, err := ParsePostgres(bad, ""); err == nil {
			t.Errorf("ParsePostgres(%q) accepted", bad)
		}
	}
}

// A password file others can read is refused, naming the fix.
func TestReadPasswordFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "pw")
	os.WriteFile(f, []byte("s3cret\n"), 0o644)
	if _, err := ReadPasswordFile(f); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("a world-readable password file: %v, want a refusal saying chmod 600", err)
	}
	os.Chmod(f, 0o600)
	if pw, err := ReadPasswordFile(f); err != nil || pw != "s3cret" {
		t.Errorf("ReadPasswordFile = %q, %v", pw, err)
	}
}
