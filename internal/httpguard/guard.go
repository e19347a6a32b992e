// Package httpguard is what pcflow's HTTP servers for other programs
// (the OSWorld device endpoint, internal/osworldapi; the MCP server,
// internal/mcpserver) check before any route: a secret token, the Host a
// request names (DNS rebinding) and its Origin (a web page in a browser
// on the same machine), and where their token comes from. It holds no
// state: each server builds a Guard from its options.
package httpguard

import (
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
)

// MinToken is the shortest token a server accepts.
const MinToken = 16

// Guard checks Host, Origin and the token of every request before its
// handler sees it.
type Guard struct {
	// Name names the server in logs ("osworld api", "mcp").
	Name string
	// Token is the secret every request must carry as a bearer token
	// (or, with Basic, as the password of HTTP basic credentials).
	Token string
	// Basic also accepts the token as the password of HTTP basic
	// credentials (http://USER:TOKEN@host:port).
	Basic bool
	// AllowedHosts are host names a request's Host may name besides
	// localhost and IP addresses.
	AllowedHosts []string
	// AllowedOrigins are the Origin values a request may carry
	// (scheme://host:port); a request with any other Origin is refused.
	AllowedOrigins []string
	// Addr is the address the server is bound to, for the refusal of a
	// wrong Host.
	Addr string
	// Refuse writes a refusal in the server's own shape; nil: plain text.
	Refuse func(w http.ResponseWriter, code int, reason string)
	// MaxBody bounds a request's body (0: 1 MiB).
	MaxBody int64
	// Logger logs each refusal (never the token).
	Logger *slog.Logger
}

// Wrap returns next behind the guard's checks: a Host that is not an IP
// address, localhost or an allowed host is refused with 421, a foreign
// Origin with 403, a missing or wrong token with 401.
func (g Guard) Wrap(next http.Handler) http.Handler {
	refuse := g.Refuse
	if refuse == nil {
		refuse = func(w http.ResponseWriter, code int, reason string) { http.Error(w, reason, code) }
	}
	log := g.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	max := g.MaxBody
	if max <= 0 {
		max = 1 << 20
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !HostAllowed(r.Host, g.AllowedHosts) {
			log.Warn(g.Name+" refused a host", "host", r.Host, "path", r.URL.Path)
			refuse(w, http.StatusMisdirectedRequest, fmt.Sprintf("host %q is not this server's (DNS rebinding?); address it as %s", r.Host, g.Addr))
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !slices.Contains(g.AllowedOrigins, o) {
			log.Warn(g.Name+" refused an origin", "origin", o, "path", r.URL.Path)
			refuse(w, http.StatusForbidden, fmt.Sprintf("origin %q is not allowed: a web page may not drive this device", o))
			return
		}
		if !g.Authorized(r) {
			log.Warn(g.Name+" refused a request without the token", "path", r.URL.Path)
			how := "send Authorization: Bearer TOKEN"
			if g.Basic {
				w.Header().Set("WWW-Authenticate", `Basic realm="pcflow", charset="UTF-8"`)
				how += ", or use http://pcflow:TOKEN@HOST:PORT"
			} else {
				w.Header().Set("WWW-Authenticate", `Bearer realm="pcflow"`)
			}
			refuse(w, http.StatusUnauthorized, "the token is missing or wrong: "+how)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, max)
		next.ServeHTTP(w, r)
	})
}

// Authorized says whether r carries the token, as a bearer token or (with
// Basic) as the password of basic credentials, compared in constant time.
func (g Guard) Authorized(r *http.Request) bool {
	if len(g.Token) < MinToken {
		return false
	}
	h := r.Header.Get("Authorization")
	var got string
	switch {
	case strings.HasPrefix(h, "Bearer "):
		got = strings.TrimPrefix(h, "Bearer ")
	case g.Basic && strings.HasPrefix(h, "Basic "):
		b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(h, "Basic "))
		if err != nil {
			return false
		}
		_, got, _ = strings.Cut(string(b), ":")
	default:
		return false
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(g.Token)) == 1
}

// HostAllowed says whether a request's Host names this server: an
// address (a name an attacker controls is what DNS rebinding needs),
// localhost, or one of allowed.
func HostAllowed(hostport string, allowed []string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	if host == "localhost" || net.ParseIP(host) != nil {
		return true
	}
	for _, a := range allowed {
		if strings.EqualFold(a, host) {
			return true
		}
	}
	return false
}

// Loopback says whether addr's host ("HOST:PORT" or a bare host) is a
// loopback address or localhost; an empty host is not.
func Loopback(addr string) bool {
	host := addr
	if h, _, err := net.SplitHostPort(addr); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
