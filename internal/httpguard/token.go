package httpguard

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// TokenSource says where a server's token comes from.
type TokenSource struct {
	// Env is the environment variable that gives the token.
	Env string
	// File is a file that holds it, given by the user: read, never made.
	File string
	// StateFile is the file in the state folder that holds it when
	// neither Env nor File gives one, made on first use.
	StateDir, StateFile string
}

// Token returns the token and where it is kept (for the user, never the
// token itself): $Env when environ sets it, else File when given, else
// the state folder's StateFile, made (mode 0600, 32 random bytes in hex)
// when missing. A token file others may read, or one shorter than
// MinToken, is refused.
func (s TokenSource) Token(environ []string) (token, from string, err error) {
	if s.Env != "" {
		for _, kv := range environ {
			if v, ok := strings.CutPrefix(kv, s.Env+"="); ok && v != "" {
				if len(v) < MinToken {
					return "", "", fmt.Errorf("$%s is shorter than %d characters; give a longer, random token", s.Env, MinToken)
				}
				return v, "$" + s.Env, nil
			}
		}
	}
	if s.File != "" {
		t, err := readToken(s.File)
		if errors.Is(err, fs.ErrNotExist) {
			return "", "", fmt.Errorf("token file %s does not exist: write a random token of %d characters or more into it (mode 600)", s.File, MinToken)
		}
		return t, s.File, err
	}
	path := filepath.Join(s.StateDir, s.StateFile)
	t, err := readToken(path)
	switch {
	case err == nil:
		return t, path, nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", "", err
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", "", err
	}
	t = hex.EncodeToString(raw)
	if err := os.MkdirAll(s.StateDir, 0o700); err != nil {
		return "", "", err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", "", fmt.Errorf("token file: %w", err)
	}
	if _, err := f.WriteString(t + "\n"); err != nil {
		f.Close()
		return "", "", err
	}
	return t, path, f.Close()
}

// readToken reads a token file, refusing one others may read.
func readToken(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("token file %s may be read by others (mode %v): chmod 600 it, or delete it for a new token", path, fi.Mode().Perm())
	}
	t := strings.TrimSpace(string(b))
	if len(t) < MinToken {
		return "", fmt.Errorf("token file %s holds fewer than %d characters: delete it for a new token", path, MinToken)
	}
	return t, nil
}
