package tserver

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"time"

	"go.temporal.io/server/common/rpc/encryption"
)

// CheckTLS loads a server's TLS files and checks them as the server and
// its peers will, so that a bad file stops the start with its name and
// the reason instead of a server that crashes or refuses every peer: each
// file parses, the certificate authority and the certificate are valid
// at now (the error gives their dates), the key is the certificate's,
// and the authority signs the certificate for both server and client use
// (a node is a client of the other nodes and of the frontends).
func CheckTLS(t *TLS, now time.Time) error {
	cas, err := readCerts(t.CAFile, "certificate authority (--tls-ca)")
	if err != nil {
		return err
	}
	roots := x509.NewCertPool()
	for _, ca := range cas {
		if err := inWindow(ca, t.CAFile, "certificate authority (--tls-ca)", now); err != nil {
			return err
		}
		roots.AddCert(ca)
	}
	chain, err := readCerts(t.CertFile, "certificate (--tls-cert)")
	if err != nil {
		return err
	}
	cert := chain[0]
	if err := inWindow(cert, t.CertFile, "certificate (--tls-cert)", now); err != nil {
		return err
	}
	if _, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile); err != nil {
		return fmt.Errorf("TLS key %s (--tls-key) with certificate %s: %v: give the key the certificate was made for", t.KeyFile, t.CertFile, err)
	}
	inter := x509.NewCertPool()
	for _, c := range chain[1:] {
		inter.AddCert(c)
	}
	for _, use := range []struct {
		usage x509.ExtKeyUsage
		name  string
	}{{x509.ExtKeyUsageServerAuth, "server"}, {x509.ExtKeyUsageClientAuth, "client"}} {
		_, err := cert.Verify(x509.VerifyOptions{Roots: roots, Intermediates: inter, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{use.usage}})
		if err != nil {
			return fmt.Errorf("TLS certificate %s (--tls-cert, subject %q) is not accepted for %s use by the authority in %s (--tls-ca): %v (a node's certificate is signed by the cluster's CA and allows server and client use: scripts/make-certs.sh makes one)",
				t.CertFile, cert.Subject.String(), use.name, t.CAFile, err)
		}
	}
	return nil
}

// readCerts parses every certificate of a PEM file (at least one).
func readCerts(file, what string) ([]*x509.Certificate, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("TLS %s: %w", what, err)
	}
	var certs []*x509.Certificate
	for {
		var block *pem.Block
		block, b = pem.Decode(b)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("TLS %s %s: certificate %d: %v", what, file, len(certs)+1, err)
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, fmt.Errorf("TLS %s %s holds no PEM certificate (want a file that begins with -----BEGIN CERTIFICATE-----)", what, file)
	}
	return certs, nil
}

// inWindow says when a certificate is used outside its validity window.
func inWindow(c *x509.Certificate, file, what string, now time.Time) error {
	const day = "2006-01-02 15:04:05 MST"
	from, until := c.NotBefore.UTC().Format(day), c.NotAfter.UTC().Format(day)
	switch {
	case now.After(c.NotAfter):
		return fmt.Errorf("TLS %s %s (subject %q) expired on %s (valid from %s until %s; now %s): make a new one (scripts/make-certs.sh)",
			what, file, c.Subject.String(), until, from, until, now.UTC().Format(day))
	case now.Before(c.NotBefore):
		return fmt.Errorf("TLS %s %s (subject %q) is not valid yet: valid from %s until %s, and now is %s (is this machine's clock right?)",
			what, file, c.Subject.String(), from, until, now.UTC().Format(day))
	}
	return nil
}

// nodesOnly is the server's TLS provider with its internode listeners
// (history, matching, the internal worker, membership) taking only node
// certificates — ones that name the cluster's shared name, as nodes
// check each other's — not every certificate the CA signed: a client's
// certificate opens the frontend, never the services behind it.
type nodesOnly struct {
	encryption.TLSConfigProvider
	name string
}

func (p nodesOnly) GetInternodeServerConfig() (*tls.Config, error) {
	c, err := p.TLSConfigProvider.GetInternodeServerConfig()
	if c == nil || err != nil {
		return c, err
	}
	c = c.Clone()
	c.VerifyPeerCertificate = p.verify
	if get := c.GetConfigForClient; get != nil {
		c.GetConfigForClient = func(h *tls.ClientHelloInfo) (*tls.Config, error) {
			cc, err := get(h)
			if cc != nil {
				cc = cc.Clone()
				cc.VerifyPeerCertificate = p.verify
			}
			return cc, err
		}
	}
	return c, nil
}

// verify accepts a peer whose verified certificate names the shared name.
func (p nodesOnly) verify(_ [][]byte, chains [][]*x509.Certificate) error {
	if len(chains) == 0 || len(chains[0]) == 0 {
		return fmt.Errorf("internode peer showed no verified certificate")
	}
	if leaf := chains[0][0]; leaf.VerifyHostname(p.name) != nil {
		return fmt.Errorf("internode peer %q is not a node of this cluster: its certificate does not name %s", leaf.Subject.String(), p.name)
	}
	return nil
}
