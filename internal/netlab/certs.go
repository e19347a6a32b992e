package netlab

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Certs are PEM files of a certificate authority and certificates it
// signed: Node for the servers (their addresses and ClusterName as names,
// for server and client use, as a node also calls the others), Client for clients and
// workers. RogueClient is signed by another authority.
type Certs struct {
	CA                              string
	NodeCert, NodeKey               string
	ClientCert, ClientKey           string
	RogueClientCert, RogueClientKey string
}

// ClusterName is the DNS name every node's certificate has.
const ClusterName = "pcflow-cluster"

// MakeCerts writes the certificates into dir.
func MakeCerts(t testing.TB, dir string, nodeIPs ...string) Certs {
	t.Helper()
	ca, caKey := authority(t, "pcflow test CA")
	rogue, rogueKey := authority(t, "another CA")
	c := Certs{CA: filepath.Join(dir, "ca.pem")}
	writePEM(t, c.CA, "CERTIFICATE", ca.Raw)
	ips := []net.IP{net.ParseIP("127.0.0.1")}
	for _, s := range nodeIPs {
		ips = append(ips, net.ParseIP(s))
	}
	c.NodeCert, c.NodeKey = leaf(t, dir, "node", ca, caKey, []string{ClusterName}, ips, x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth)
	c.ClientCert, c.ClientKey = leaf(t, dir, "client", ca, caKey, nil, nil, x509.ExtKeyUsageClientAuth)
	c.RogueClientCert, c.RogueClientKey = leaf(t, dir, "rogue", rogue, rogueKey, nil, nil, x509.ExtKeyUsageClientAuth)
	return c
}

func authority(t testing.TB, name string) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tpl := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: name}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return cert, key
}

func leaf(t testing.TB, dir, name string, ca *x509.Certificate, caKey *ecdsa.PrivateKey, dns []string, ips []net.IP, usage ...x509.ExtKeyUsage) (string, string) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tpl := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: name}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(24 * time.Hour), KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: usage, IPAddresses: ips, DNSNames: dns}
	der, err := x509.CreateCertificate(rand.Reader, tpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	cert, keyFile := filepath.Join(dir, name+".pem"), filepath.Join(dir, name+"-key.pem")
	writePEM(t, cert, "CERTIFICATE", der)
	writePEM(t, keyFile, "EC PRIVATE KEY", kb)
	return cert, keyFile
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	return n
}

func writePEM(t testing.TB, path, kind string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}
