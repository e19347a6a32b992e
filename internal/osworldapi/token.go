package osworldapi

import (
	"context"

	"github.com/pcflow/pcflow/internal/httpguard"
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
	return httpguard.TokenSource{Env: TokenEnv, StateDir: stateDir, StateFile: TokenFile}.Token(environ)
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
