package tserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"go.temporal.io/server/api/adminservice/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
)

// ClientTLS is the tls.Config a client presents to a frontend that
// requires mutual TLS: its certificate, and the authority that signed the
// server's. serverName overrides the name checked in the server's
// certificate (default: the address dialled).
func ClientTLS(certFile, keyFile, caFile, serverName string) (*tls.Config, error) {
	conf := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: serverName}
	if certFile != "" || keyFile != "" {
		if certFile == "" || keyFile == "" {
			return nil, fmt.Errorf("TLS: a certificate needs its key and a key its certificate (got certificate %q, key %q)", certFile, keyFile)
		}
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("TLS certificate %s with key %s: %w", certFile, keyFile, err)
		}
		// An expired certificate is the server's "bad certificate" at
		// connect; say which file and when here instead.
		if cert.Leaf != nil { // parsed by LoadX509KeyPair since Go 1.23
			if err := inWindow(cert.Leaf, certFile, "certificate (--tls-cert)", time.Now()); err != nil {
				return nil, err
			}
		}
		conf.Certificates = []tls.Certificate{cert}
	}
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return nil, fmt.Errorf("TLS certificate authority: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("TLS certificate authority %s holds no PEM certificate", caFile)
		}
		conf.RootCAs = pool
	}
	return conf, nil
}

// OwnedShards asks this node's history service, through its frontend,
// how many history shards it has loaded. A node that serves no shard
// (one restarted during a database outage can come up as a ring of its
// own) is not healthy however well its frontend answers.
func (s *Server) OwnedShards(ctx context.Context) (int, error) {
	if s.historyAddr == "" {
		return 0, fmt.Errorf("not a cluster node")
	}
	if s.admin == nil { // one connection for every call, made on the first
		creds := insecure.NewCredentials()
		if s.tls != nil {
			conf, err := ClientTLS(s.tls.CertFile, s.tls.KeyFile, s.tls.CAFile, "")
			if err != nil {
				return 0, err
			}
			creds = credentials.NewTLS(conf)
		}
		conn, err := grpc.NewClient(s.HostPort, grpc.WithTransportCredentials(creds))
		if err != nil {
			return 0, err
		}
		s.adminConn, s.admin = conn, adminservice.NewAdminServiceClient(conn)
	}
	r, err := s.admin.DescribeHistoryHost(ctx, &adminservice.DescribeHistoryHostRequest{HostAddress: s.historyAddr})
	if err != nil {
		return 0, err
	}
	return int(r.GetShardsNumber()), nil
}

// waitShards waits until this node's history service owns a shard.
func (s *Server) waitShards(d time.Duration) error {
	deadline := time.Now().Add(d)
	var last error
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		n, err := s.OwnedShards(ctx)
		cancel()
		if err == nil && n > 0 {
			s.Shards = n
			return nil
		}
		if err == nil {
			err = fmt.Errorf("its history service owns no shard")
		}
		last = err
		time.Sleep(500 * time.Millisecond)
	}
	return fmt.Errorf("cluster node %s is not serving after %v: %v (is the database reachable, and are the other nodes' ports %v open to it?)", s.HostPort, d, last, ClusterPorts(portOf(s.HostPort)))
}

func portOf(hostPort string) int {
	_, p, _ := net.SplitHostPort(hostPort)
	n, _ := strconv.Atoi(p)
	return n
}

// sharedName is the name a node's internal worker checks in the frontend
// certificates of the cluster: the certificate's first DNS name, else its
// first IP address.
func sharedName(certFile string) (string, error) {
	b, err := os.ReadFile(certFile)
	if err != nil {
		return "", fmt.Errorf("TLS certificate: %w", err)
	}
	block, _ := pem.Decode(b)
	if block == nil {
		return "", fmt.Errorf("TLS certificate %s holds no PEM block", certFile)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return "", fmt.Errorf("TLS certificate %s: %w", certFile, err)
	}
	switch {
	case len(cert.DNSNames) > 0:
		return cert.DNSNames[0], nil
	case len(cert.IPAddresses) > 0:
		return cert.IPAddresses[0].String(), nil
	}
	return "", fmt.Errorf("TLS certificate %s names no host (DNS or IP subject alternative name): a node's certificate must name it", certFile)
}
