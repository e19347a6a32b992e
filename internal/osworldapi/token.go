package osworldapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// TokenEnv is the environment variable that gives the token instead of
// the state folder's file.
const TokenEnv = "PCFLOW_OSWORLD_TOKEN"

// TokenFile is the file in the state folder that holds the token.
const TokenFile = "osworld-token"

// Token returns the server's token and where it is kept (for the
// user, never the token itself): $PCFLOW_OSWORLD_TOKEN when environ sets
// it, else the state folder's osworld-token, made (mode 0600, 32 random
// bytes in hex) when missing. A token file others may read is refused.
func Token(stateDir string, environ []string) (token, from string, err error) {
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, TokenEnv+"="); ok && v != "" {
			if len(v) < 16 {
				return "", "", fmt.Errorf("$%s is shorter than 16 characters; give a longer, random token", TokenEnv)
			}
			return v, "$" + TokenEnv, nil
		}
	}
	path := filepath.Join(stateDir, TokenFile)
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		fi, err := os.Stat(path)
		if err != nil {
			return "", "", err
		}
		if fi.Mode().Perm()&0o077 != 0 {
			return "", "", fmt.Errorf("token file %s may be read by others (mode %v): chmod 600 it, or delete it for a new token", path, fi.Mode().Perm())
		}
		t := strings.TrimSpace(string(b))
		if len(t) < 16 {
			return "", "", fmt.Errorf("token file %s holds fewer than 16 characters: delete it for a new token", path)
		}
		return t, path, nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", "", err
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", "", err
	}
	t := hex.EncodeToString(raw)
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
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

// Start serves o on addr until ctx ends, with the token Token finds for
// stateDir and environ (o.Token is set to it); it returns the server and
// where the token is kept.
func Start(ctx context.Context, addr, stateDir string, environ []string, o Options) (*Server, string, error) {
	token, from, err := Token(stateDir, environ)
	if err != nil {
		return nil, "", err
	}
	o.Token = token
	s, err := Listen(addr, o)
	if err != nil {
		return nil, "", err
	}
	go func() {
		if err := s.Serve(ctx); err != nil {
			s.o.Logger.Error("osworld api stopped", "err", err)
		}
	}()
	return s, from, nil
}
