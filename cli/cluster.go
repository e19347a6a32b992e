package main

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
	"google.golang.org/grpc"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"

	"github.com/pcflow/pcflow/internal/tserver"
)

// tlsFlags are a client's (or a server's) certificate, its key and the
// authority that signs the other side's certificates.
type tlsFlags struct {
	cert, key, ca, serverName string
}

func (t *tlsFlags) register(fs *flag.FlagSet, e *env, client bool) {
	fs.StringVar(&t.cert, "tls-cert", e.getenv("PCFLOW_TLS_CERT"), "`FILE`: PEM certificate shown to the other side for mutual TLS ($PCFLOW_TLS_CERT)")
	fs.StringVar(&t.key, "tls-key", e.getenv("PCFLOW_TLS_KEY"), "`FILE`: the certificate's PEM private key ($PCFLOW_TLS_KEY)")
	fs.StringVar(&t.ca, "tls-ca", e.getenv("PCFLOW_TLS_CA"), "`FILE`: PEM certificate authority that signs the other side's certificates ($PCFLOW_TLS_CA)")
	if client {
		fs.StringVar(&t.serverName, "tls-server-name", e.getenv("PCFLOW_TLS_SERVER_NAME"), "`NAME` checked in the server's certificate (default: the address dialled; $PCFLOW_TLS_SERVER_NAME)")
	}
}

func (t *tlsFlags) set() bool { return t.cert != "" || t.key != "" || t.ca != "" }

// server is the server's TLS: all three files or none.
func (t *tlsFlags) server() (*tserver.TLS, error) {
	if !t.set() {
		return nil, nil
	}
	if t.cert == "" || t.key == "" || t.ca == "" {
		return nil, fmt.Errorf("mutual TLS needs --tls-cert, --tls-key and --tls-ca together (the CA signs the clients' certificates)")
	}
	// Check them now (parsed, in their validity windows, the key the
	// certificate's, the CA its signer): a bad file is reported here, not
	// by a server that crashes or refuses every client.
	conf := &tserver.TLS{CertFile: t.cert, KeyFile: t.key, CAFile: t.ca}
	if err := tserver.CheckTLS(conf, time.Now()); err != nil {
		return nil, err
	}
	return conf, nil
}

// clientOptions are the options of a Temporal client for addr: one
// HOST:PORT, or several separated by commas (the frontends of a cluster's
// nodes: calls go round them and skip a node that is down), with mutual
// TLS when the flags give a certificate or an authority.
func clientOptions(addr string, t tlsFlags, identity string) (client.Options, error) {
	o := client.Options{HostPort: addr, Namespace: tserver.Namespace, Logger: quietLogger(), Identity: identity}
	if t.set() {
		conf, err := tserver.ClientTLS(t.cert, t.key, t.ca, t.serverName)
		if err != nil {
			return o, err
		}
		o.ConnectionOptions.TLS = conf
	}
	if strings.Contains(addr, ",") {
		var addrs []resolver.Address
		for _, a := range strings.Split(addr, ",") {
			a = strings.TrimSpace(a)
			if a == "" {
				continue
			}
			host := a
			if i := strings.LastIndex(a, ":"); i > 0 {
				host = strings.Trim(a[:i], "[]")
			}
			// ServerName: each node's certificate is checked against its own address.
			addrs = append(addrs, resolver.Address{Addr: a, ServerName: host})
		}
		r := manual.NewBuilderWithScheme("pcflow")
		r.InitialState(resolver.State{Addresses: addrs})
		o.HostPort = "pcflow:///cluster"
		o.ConnectionOptions.DialOptions = append(o.ConnectionOptions.DialOptions, grpc.WithResolvers(r))
	}
	return o, nil
}

// dialHint says what to check when a client cannot reach a frontend.
func dialHint(err error, t tlsFlags) string {
	msg := err.Error()
	closed := false
	for _, m := range []string{"error reading server preface", "broken pipe", "EOF", "connection reset"} {
		closed = closed || strings.Contains(msg, m)
	}
	switch {
	case strings.Contains(msg, "certificate required"), strings.Contains(msg, "bad certificate"),
		strings.Contains(msg, "remote error: tls: unknown certificate authority"):
		return "the server refused this client's certificate: it requires one signed by its CA (--tls-cert, --tls-key; $PCFLOW_TLS_CERT, $PCFLOW_TLS_KEY)"
	case strings.Contains(msg, "x509:"):
		return "the server's certificate is not signed by --tls-ca, or does not name the address dialled (--tls-server-name)"
	case strings.Contains(msg, "first record does not look like a TLS handshake"):
		return "this client speaks TLS to a server without it: leave out --tls-cert, --tls-key and --tls-ca"
	case closed && !t.set():
		return "the server closed the connection: it may require mutual TLS; pass --tls-cert, --tls-key and --tls-ca ($PCFLOW_TLS_CERT, $PCFLOW_TLS_KEY, $PCFLOW_TLS_CA)"
	case closed && t.cert == "":
		return "the server closed the connection: it may require a client certificate; pass --tls-cert and --tls-key ($PCFLOW_TLS_CERT, $PCFLOW_TLS_KEY)"
	case closed:
		return "the server closed the connection: it may refuse this client's certificate (is it signed by the server's CA?)"
	case t.set():
		return "is the server running, and does it use TLS? check --temporal and the --tls-* files"
	}
	return "is the server running? start one with `pcflow server`, or check --temporal"
}
