package tserver

import (
	"fmt"
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

// TestParsePostgresRefusesAnyPassword: a password anywhere in the
// database URL — the user part, a query parameter named password in any
// case or escaping (and sslpassword), libpq's key=value form — is refused,
// saying how to pass it instead, and no refusal repeats it (was: a
// ?password= parameter was taken and showed in ps; a key=value string's
// refusal printed it).
func TestParsePostgresRefusesAnyPassword(t *testing.T) {
	for _, raw := range []string{
		"postgres://pcflow:hunter2@db:5432/temporal",
		"postgres://pcflow@db:5432/temporal?password=hunter2",
		"postgresql://pcflow@db/temporal?sslmode=require&PassWord=hunter2",
		"postgres://pcflow@db/temporal?pass%77ord=hunter2",
		"postgres://pcflow@db/temporal?password=hunter2%zz",
		"postgres://pcflow@db/temporal?sslpassword=hunter2",
		"postgres://pcflow@db/temporal;password=hunter2",
		"host=db user=pcflow password=hunter2 dbname=temporal",
		"host=db user=pcflow PASSWORD = 'hunter2 x'",
		"password=hunter2",
	} {
		_, err := ParsePostgres(raw, "")
		if err == nil {
			t.Errorf("ParsePostgres(%q) accepted it, want a refusal", raw)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "$PCFLOW_DB_PASSWORD") || !strings.Contains(err.Error(), "--db-password-file") {
			t.Errorf("ParsePostgres(%q) = %v, want a refusal naming $PCFLOW_DB_PASSWORD and --db-password-file, without the password", raw, err)
		}
	}
	// Without a password: a key=value string is refused without being
	// shown; other parameters pass through.
	if _, err := ParsePostgres("host=db user=pcflow dbname=temporal", ""); err == nil || !strings.Contains(err.Error(), "postgres://") || strings.Contains(err.Error(), "pcflow") {
		t.Errorf("key=value string: %v, want a refusal asking for a URL, not repeating the string", err)
	}
	p, err := ParsePostgres("postgres://pcflow@db/temporal?sslmode=require&connect_timeout=5", "pw")
	if err != nil || p.Attributes["sslmode"] != "require" || p.Attributes["connect_timeout"] != "5" || p.Password != "pw" {
		t.Errorf("ParsePostgres with parameters = %+v, %v", p, err)
	}
}

// TestClusterPortRange: a PostgreSQL node's frontend port above
// MaxClusterPort is refused before anything starts, saying the highest
// port and why (was: its membership ports, port+100…103, overflowed the
// database's smallint column and the server panicked).
func TestClusterPortRange(t *testing.T) {
	for _, port := range []int{MaxClusterPort + 1, 40000, 65000} {
		// The database is unreachable: the refusal must come before it is asked.
		_, err := Start(Options{Port: port, Postgres: &Postgres{Addr: "127.0.0.1:1", User: "u", Database: "d"}})
		if err == nil || !strings.Contains(err.Error(), fmt.Sprint(MaxClusterPort)) || !strings.Contains(err.Error(), "smallint") {
			t.Errorf("Start(cluster node on port %d) = %v, want a refusal naming the highest port %d and the smallint column", port, err, MaxClusterPort)
		}
	}
	if MaxClusterPort+103 != 32767 {
		t.Errorf("MaxClusterPort = %d: its last membership port %d is not smallint's largest, 32767", MaxClusterPort, MaxClusterPort+103)
	}
	if err := CheckClusterPort(MaxClusterPort); err != nil {
		t.Errorf("CheckClusterPort(%d) = %v, want nil", MaxClusterPort, err)
	}
}
