package tserver

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pcflow/pcflow/internal/freeport"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
)

// testPKI writes certificates and keys as PEM files into a folder.
type testPKI struct {
	t   *testing.T
	dir string
	n   int64
}

type testCert struct {
	cert *x509.Certificate
	key  crypto.Signer
	// CertFile and KeyFile are the files written.
	CertFile, KeyFile string
}

// make signs a certificate valid from..until with parent (nil: itself,
// a CA), and writes it and its key.
func (p *testPKI) make(name string, parent *testCert, from, until time.Time, usage ...x509.ExtKeyUsage) *testCert {
	p.t.Helper()
	return p.makeNamed(name, true, parent, from, until, usage...)
}

// makeNamed is make with the node names (pcflow-cluster, 127.0.0.1) in
// the certificate or, for a client's, none.
func (p *testPKI) makeNamed(name string, named bool, parent *testCert, from, until time.Time, usage ...x509.ExtKeyUsage) *testCert {
	p.t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		p.t.Fatal(err)
	}
	p.n++
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(p.n), Subject: pkix.Name{CommonName: name}, NotBefore: from, NotAfter: until,
		ExtKeyUsage: usage}
	if named {
		tmpl.DNSNames, tmpl.IPAddresses = []string{"pcflow-cluster"}, []net.IP{net.ParseIP("127.0.0.1")}
	}
	signer, signerKey := tmpl, crypto.Signer(key)
	if parent == nil {
		tmpl.IsCA, tmpl.BasicConstraintsValid, tmpl.KeyUsage = true, true, x509.KeyUsageCertSign|x509.KeyUsageDigitalSignature
	} else {
		signer, signerKey = parent.cert, parent.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, key.Public(), signerKey)
	if err != nil {
		p.t.Fatal(err)
	}
	c := &testCert{key: key, CertFile: filepath.Join(p.dir, name+".pem"), KeyFile: filepath.Join(p.dir, name+"-key.pem")}
	if c.cert, err = x509.ParseCertificate(der); err != nil {
		p.t.Fatal(err)
	}
	kb, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		p.t.Fatal(err)
	}
	os.WriteFile(c.CertFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
	os.WriteFile(c.KeyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kb}), 0o600)
	return c
}

// TestCheckTLS: a node's TLS files that would crash the server or make
// every peer refuse it are reported at start, naming the file and, for a
// certificate outside its validity window, its dates (was: an expired
// node certificate made `pcflow server` die with a SIGSEGV dump).
func TestCheckTLS(t *testing.T) {
	p := &testPKI{t: t, dir: t.TempDir()}
	now := time.Now()
	year, day := 365*24*time.Hour, 24*time.Hour
	both := []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
	ca := p.make("ca", nil, now.Add(-day), now.Add(year))
	good := p.make("node", ca, now.Add(-day), now.Add(year), both...)
	expired := p.make("expired", ca, now.Add(-2*year), now.Add(-day), both...)
	early := p.make("early", ca, now.Add(day), now.Add(year), both...)
	serverOnly := p.make("server-only", ca, now.Add(-day), now.Add(year), x509.ExtKeyUsageServerAuth)
	other := p.make("other-ca", nil, now.Add(-day), now.Add(year))
	foreign := p.make("foreign", other, now.Add(-day), now.Add(year), both...)
	oldCA := p.make("old-ca", nil, now.Add(-2*year), now.Add(-day))
	garbage := filepath.Join(p.dir, "garbage.pem")
	os.WriteFile(garbage, []byte("not a certificate\n"), 0o644)
	date := func(t time.Time) string { return t.UTC().Format("2006-01-02") }

	if err := CheckTLS(&TLS{CertFile: good.CertFile, KeyFile: good.KeyFile, CAFile: ca.CertFile}, now); err != nil {
		t.Fatalf("CheckTLS(a good node certificate) = %v, want nil", err)
	}
	for _, tt := range []struct {
		name string
		tls  TLS
		want []string
	}{
		{"expired", TLS{expired.CertFile, expired.KeyFile, ca.CertFile}, []string{expired.CertFile, "expired on " + date(expired.cert.NotAfter), date(expired.cert.NotBefore), "make-certs.sh"}},
		{"not yet valid", TLS{early.CertFile, early.KeyFile, ca.CertFile}, []string{early.CertFile, "not valid yet", date(early.cert.NotBefore), "clock"}},
		{"another certificate's key", TLS{good.CertFile, expired.KeyFile, ca.CertFile}, []string{expired.KeyFile, good.CertFile, "does not match"}},
		{"signed by another CA", TLS{foreign.CertFile, foreign.KeyFile, ca.CertFile}, []string{foreign.CertFile, ca.CertFile, "unknown authority"}},
		{"server use only", TLS{serverOnly.CertFile, serverOnly.KeyFile, ca.CertFile}, []string{serverOnly.CertFile, "client use"}},
		{"expired CA", TLS{good.CertFile, good.KeyFile, oldCA.CertFile}, []string{oldCA.CertFile, "certificate authority", "expired on " + date(oldCA.cert.NotAfter)}},
		{"not a certificate", TLS{garbage, good.KeyFile, ca.CertFile}, []string{garbage, "no PEM certificate"}},
		{"CA not a certificate", TLS{good.CertFile, good.KeyFile, garbage}, []string{garbage, "no PEM certificate"}},
		{"missing file", TLS{filepath.Join(p.dir, "nope.pem"), good.KeyFile, ca.CertFile}, []string{"nope.pem", "no such file"}},
	} {
		err := CheckTLS(&tt.tls, now)
		for _, w := range tt.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: CheckTLS(%+v) = %v, want an error saying %q", tt.name, tt.tls, err, w)
			}
		}
	}
}

// TestStartRefusesExpiredCertificate: Start with an expired node
// certificate returns an error naming it and its dates, before anything
// starts (was: a SIGSEGV dump from inside the server).
func TestStartRefusesExpiredCertificate(t *testing.T) {
	p := &testPKI{t: t, dir: t.TempDir()}
	now := time.Now()
	ca := p.make("ca", nil, now.Add(-time.Hour), now.Add(time.Hour))
	old := p.make("node", ca, now.Add(-2*time.Hour), now.Add(-time.Hour), x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth)
	port, err := freeport.Pick("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Start(Options{Port: port, TLS: &TLS{CertFile: old.CertFile, KeyFile: old.KeyFile, CAFile: ca.CertFile}})
	if err == nil {
		s.Stop()
		t.Fatal("Start with an expired node certificate succeeded, want an error")
	}
	if !strings.Contains(err.Error(), old.CertFile) || !strings.Contains(err.Error(), "expired on "+old.cert.NotAfter.UTC().Format("2006-01-02")) {
		t.Errorf("Start with an expired node certificate = %v, want an error naming %s and when it expired", err, old.CertFile)
	}
}

// TestServerWithTLS: a single server with mutual TLS (internode TLS
// between its own services too) serves a client with a certificate:
// a workflow started through the frontend reaches history and is
// described from there, and a client without a certificate is refused.
func TestServerWithTLS(t *testing.T) {
	p := &testPKI{t: t, dir: t.TempDir()}
	now := time.Now()
	ca := p.make("ca", nil, now.Add(-time.Hour), now.Add(time.Hour))
	node := p.make("node", ca, now.Add(-time.Hour), now.Add(time.Hour), x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth)
	user := p.makeNamed("client", false, ca, now.Add(-time.Hour), now.Add(time.Hour), x509.ExtKeyUsageClientAuth)
	port, err := freeport.Pick("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	var internal []int // the frontend's HTTP API, history, matching, worker
	pickPort = func(ip string) (int, error) {
		p, err := freeport.PickNow(ip)
		internal = append(internal, p)
		return p, err
	}
	defer func() { pickPort = freeport.PickNow }()
	s, err := Start(Options{Port: port, TLS: &TLS{CertFile: node.CertFile, KeyFile: node.KeyFile, CAFile: ca.CertFile}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	// Every port the server opens refuses a client without a certificate
	// (was: history, matching and the worker answered in plaintext), and
	// takes the node's; a client's certificate opens the frontend (gRPC
	// and HTTP API) only, not the services behind it.
	roots := x509.NewCertPool()
	roots.AddCert(ca.cert)
	own, err := tls.LoadX509KeyPair(node.CertFile, node.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	clientCert, err := tls.LoadX509KeyPair(user.CertFile, user.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(internal) != 4 {
		t.Fatalf("the server picked ports %v, want 4 (HTTP API, history, matching, worker)", internal)
	}
	for _, p := range append([]int{port}, internal...) {
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(p))
		if err := tlsProbe(addr, roots, nil); err == nil || !strings.Contains(err.Error(), "certificate required") {
			t.Errorf("port %d: a client without a certificate got %v, want it refused for want of one", p, err)
		}
		if err := tlsProbe(addr, roots, &own); err != nil {
			t.Errorf("port %d: the node's own certificate: %v, want it accepted", p, err)
		}
		frontend := p == port || p == internal[0]
		err := tlsProbe(addr, roots, &clientCert)
		switch {
		case frontend && err != nil:
			t.Errorf("frontend port %d: a client's certificate: %v, want it accepted", p, err)
		case !frontend && (err == nil || !strings.Contains(err.Error(), "bad certificate")):
			t.Errorf("internode port %d: a client's certificate got %v, want it refused (not a node's)", p, err)
		}
	}
	dial := func(cert, key string) (client.Client, error) {
		conf, err := ClientTLS(cert, key, ca.CertFile, "")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		return client.DialContext(ctx, client.Options{HostPort: s.HostPort, Namespace: Namespace, ConnectionOptions: client.ConnectionOptions{TLS: conf}})
	}
	if c, err := dial("", ""); err == nil {
		c.Close()
		t.Errorf("a client without a certificate connected, want it refused")
	}
	c, err := dial(node.CertFile, node.KeyFile)
	if err != nil {
		t.Fatalf("a client with the node's certificate: %v", err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "tls-probe", TaskQueue: "nobody"}, "Nothing")
	if err != nil {
		t.Fatalf("start a workflow over mutual TLS: %v", err)
	}
	d, err := c.DescribeWorkflowExecution(ctx, run.GetID(), run.GetRunID())
	if err != nil || d.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		t.Errorf("describe the workflow (frontend → history over internode TLS) = %v, %v; want it running", d, err)
	}
}

// tlsProbe makes a TLS connection to addr trusting roots, showing cert
// (nil: none), and reads until the server refuses or a second passes;
// nil when the server kept the connection.
func tlsProbe(addr string, roots *x509.CertPool, cert *tls.Certificate) error {
	// h2: gRPC servers close a TLS connection that does not offer it.
	conf := &tls.Config{RootCAs: roots, ServerName: "pcflow-cluster", NextProtos: []string{"h2", "http/1.1"}}
	if cert != nil {
		conf.Certificates = []tls.Certificate{*cert}
	}
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, conf)
	if err != nil {
		return err
	}
	defer conn.Close()
	// TLS 1.3: the server checks the client's certificate after the
	// client's side of the handshake, and says so on the next read.
	conn.SetReadDeadline(time.Now().Add(time.Second))
	if _, err := conn.Read(make([]byte, 1)); err != nil {
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			return nil
		}
		return fmt.Errorf("after the handshake: %w", err)
	}
	return nil
}

// TestClientTLSExpired: a client's expired certificate is reported with
// its file and dates before it connects (was: the server's refusal, read
// as "it requires one signed by its CA").
func TestClientTLSExpired(t *testing.T) {
	p := &testPKI{t: t, dir: t.TempDir()}
	now := time.Now()
	ca := p.make("ca", nil, now.Add(-48*time.Hour), now.Add(time.Hour))
	old := p.makeNamed("client", false, ca, now.Add(-48*time.Hour), now.Add(-24*time.Hour), x509.ExtKeyUsageClientAuth)
	_, err := ClientTLS(old.CertFile, old.KeyFile, ca.CertFile, "")
	if err == nil || !strings.Contains(err.Error(), old.CertFile) || !strings.Contains(err.Error(), "expired on "+old.cert.NotAfter.UTC().Format("2006-01-02")) {
		t.Errorf("ClientTLS(an expired certificate) = %v, want an error naming %s and when it expired", err, old.CertFile)
	}
	good := p.makeNamed("client2", false, ca, now.Add(-time.Hour), now.Add(time.Hour), x509.ExtKeyUsageClientAuth)
	if _, err := ClientTLS(good.CertFile, good.KeyFile, ca.CertFile, ""); err != nil {
		t.Errorf("ClientTLS(a valid certificate) = %v", err)
	}
}
