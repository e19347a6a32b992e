package httpguard

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTokenSource: the environment first, then a given file (read,
// never made; one others may read is refused), then the state folder's
// file, made 0600 once and read again after.
func TestTokenSource(t *testing.T) {
	dir := t.TempDir()
	src := TokenSource{Env: "T_TOKEN", StateDir: dir, StateFile: "tok"}
	if tok, from, err := src.Token([]string{"T_TOKEN=from-the-environment-123"}); err != nil || tok != "from-the-environment-123" || from != "$T_TOKEN" {
		t.Errorf("Token with $T_TOKEN = %q, %q, %v", tok, from, err)
	}
	if _, _, err := src.Token([]string{"T_TOKEN=short"}); err == nil {
		t.Error("Token with a 5-character $T_TOKEN: no error, want it refused")
	}
	tok, from, err := src.Token(nil)
	fi, serr := os.Stat(filepath.Join(dir, "tok"))
	if err != nil || len(tok) != 64 || from != filepath.Join(dir, "tok") || serr != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("Token = %q, %q, %v (file %v, %v); want a new 64-digit token in a 0600 file", tok, from, err, fi, serr)
	}
	if again, _, err := src.Token(nil); err != nil || again != tok {
		t.Errorf("Token again = %q, %v; want the same", again, err)
	}
	given := filepath.Join(dir, "given")
	src.File = given
	if _, _, err := src.Token(nil); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Token with a missing --token-file: err %v, want it said", err)
	}
	if err := os.WriteFile(given, []byte("a-token-of-the-operator\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := src.Token(nil); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("Token with a readable --token-file: err %v, want chmod 600", err)
	}
	os.Chmod(given, 0o600)
	if tok, from, err := src.Token(nil); err != nil || tok != "a-token-of-the-operator" || from != given {
		t.Errorf("Token with --token-file = %q, %q, %v", tok, from, err)
	}
}

// TestGuardRefusals: without Basic, basic credentials are no token.
func TestGuardRefusals(t *testing.T) {
	token := strings.Repeat("k", 32)
	h := Guard{Token: token}.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	for _, tc := range []struct {
		name string
		set  func(r *http.Request)
		want int
	}{
		{"none", func(r *http.Request) {}, 401},
		{"bearer", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }, 200},
		{"basic", func(r *http.Request) { r.SetBasicAuth("pcflow", token) }, 401},
		{"origin", func(r *http.Request) {
			r.Header.Set("Authorization", "Bearer "+token)
			r.Header.Set("Origin", "http://127.0.0.1:1")
		}, 403},
		{"rebinding host", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token); r.Host = "attacker.example:80" }, 421},
	} {
		r := httptest.NewRequest("POST", "http://127.0.0.1:9/", nil)
		tc.set(r)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != tc.want {
			t.Errorf("%s: %d %s, want %d", tc.name, w.Code, w.Body, tc.want)
		}
	}
	for addr, want := range map[string]bool{"127.0.0.1:1": true, "[::1]:1": true, "localhost:1": true, "0.0.0.0:1": false, "10.0.0.1": false, ":1": false} {
		if got := Loopback(addr); got != want {
			t.Errorf("Loopback(%q) = %v, want %v", addr, got, want)
		}
	}
}
