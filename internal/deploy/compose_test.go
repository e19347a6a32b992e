// Package deploy holds the checks of the deployment files: no Docker engine
// runs on the build machines, so the compose file is loaded and checked with
// the compose-spec loader instead of started.
package deploy

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
)

func TestComposeFile(t *testing.T) {
	opts, err := cli.NewProjectOptions([]string{"../../docker-compose.yml"},
		cli.WithEnv([]string{"POSTGRES_PASSWORD=checked-by-test"}), cli.WithWorkingDirectory("../.."), cli.WithName("pcflow"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := opts.LoadProject(context.Background())
	if err != nil {
		t.Fatalf("docker-compose.yml does not load: %v", err)
	}
	for _, name := range []string{"postgresql", "pcflow-1", "pcflow-2", "device"} {
		if _, err := p.GetService(name); err != nil {
			t.Errorf("service %s: %v", name, err)
		}
	}
	for _, s := range p.Services {
		if s.Build != nil {
			if _, err := os.Stat("../../" + s.Build.Dockerfile); err != nil {
				t.Errorf("service %s builds from %s: %v", s.Name, s.Build.Dockerfile, err)
			}
			continue
		}
		i := strings.LastIndex(s.Image, ":")
		if i < 0 || s.Image[i+1:] == "latest" || !strings.ContainsAny(s.Image[i+1:], "0123456789") {
			t.Errorf("service %s image %q is not pinned to a version", s.Name, s.Image)
		}
	}
	ports := map[string]uint32{"pcflow-1": 7233, "pcflow-2": 7233}
	for name, want := range ports {
		s, _ := p.GetService(name)
		found := false
		for _, pc := range s.Ports {
			if pc.Target == want && pc.Published == strings.TrimSpace(pc.Published) && pc.Published != "" {
				found = true
			}
		}
		if !found {
			t.Errorf("service %s does not publish port %d: %+v", name, want, s.Ports)
		}
	}
	dev, _ := p.GetService("device")
	if dev.Environment["PCFLOW_TEMPORAL"] == nil || *dev.Environment["PCFLOW_TEMPORAL"] != "pcflow-1:7233,pcflow-2:7233" {
		t.Errorf("device worker does not point at both nodes of the cluster: %v", dev.Environment)
	}
	// Every node and the device speak mutual TLS, and the nodes take the
	// database password from the environment only.
	for _, name := range []string{"pcflow-1", "pcflow-2", "device"} {
		s, _ := p.GetService(name)
		for _, k := range []string{"PCFLOW_TLS_CERT", "PCFLOW_TLS_KEY", "PCFLOW_TLS_CA"} {
			if s.Environment[k] == nil || *s.Environment[k] == "" {
				t.Errorf("service %s has no %s", name, k)
			}
		}
	}
	for _, name := range []string{"pcflow-1", "pcflow-2"} {
		s, _ := p.GetService(name)
		if s.Environment["PCFLOW_DB"] == nil || strings.Contains(*s.Environment["PCFLOW_DB"], ":checked-by-test@") {
			t.Errorf("service %s: PCFLOW_DB missing or carrying the password: %v", name, s.Environment["PCFLOW_DB"])
		}
		if s.Environment["PCFLOW_DB_PASSWORD"] == nil || *s.Environment["PCFLOW_DB_PASSWORD"] != "checked-by-test" {
			t.Errorf("service %s does not take the password from POSTGRES_PASSWORD", name)
		}
		// The Web UI is published on the host's loopback only.
		for _, pc := range s.Ports {
			if pc.Target == 8233 && pc.HostIP != "127.0.0.1" {
				t.Errorf("service %s publishes the Web UI on %q, not 127.0.0.1", name, pc.HostIP)
			}
		}
	}
	// The password comes from the environment, never from the file.
	b, _ := os.ReadFile("../../docker-compose.yml")
	if strings.Contains(string(b), "checked-by-test") {
		t.Error("a password is written in docker-compose.yml")
	}
	noPW, err := cli.NewProjectOptions([]string{"../../docker-compose.yml"}, cli.WithWorkingDirectory("../.."), cli.WithName("pcflow"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := noPW.LoadProject(context.Background()); err == nil || !strings.Contains(err.Error(), "POSTGRES_PASSWORD") {
		t.Errorf("loading without POSTGRES_PASSWORD: err = %v, want it to ask for the password", err)
	}
}
