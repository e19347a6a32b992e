package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/pcflow/pcflow/activities/artifacts"
	"github.com/pcflow/pcflow/internal/httpguard"
	"github.com/pcflow/pcflow/internal/mcpserver"
	"github.com/pcflow/pcflow/internal/signing"
	"github.com/pcflow/pcflow/specs"
	"github.com/pcflow/pcflow/worker/host"
	"github.com/pcflow/pcflow/workflows"
)

// MCP token: $PCFLOW_MCP_TOKEN, --token-file, or the state folder's file.
const (
	mcpTokenEnv  = "PCFLOW_MCP_TOKEN"
	mcpTokenFile = "mcp-token"
)

func cmdMCP(ctx context.Context, e *env, args []string) int {
	var ef engineFlags
	fs := newFlags(e, "mcp", "[--http ADDR] [flags]", `Serve pcflow's devices to MCP clients (the Model Context Protocol): the tools
devices, observe (the screen with numbered marks and the element list) and act
(one action of pcflow's closed set, on an element id or a point). Every act is a
Temporal workflow run once per request_id, its action journaled in the device's
action log; a device is leased to one MCP session at a time. The devices are
served by pcflow worker processes on the same Temporal server and state folder.

Without --http: one session over standard input and output (for a client that
starts pcflow mcp itself). With --http ADDR: streamable HTTP on ADDR, bound to
the loopback unless --allow-remote; every request needs the bearer token
($`+mcpTokenEnv+`, --token-file, else the state folder's `+mcpTokenFile+`, made on
first use; its path is printed, never the token), and a Host and Origin it
allows. See docs/mcp.md.`)
	ef.register(fs, e, false)
	addr := fs.String("http", "", "serve streamable HTTP on `ADDR` (HOST:PORT; an empty host is 127.0.0.1) instead of standard input and output")
	remote := fs.Bool("allow-remote", false, "let --http bind an address other than the loopback (the token then travels the network in clear: use it on a network you trust)")
	tokenFile := fs.String("token-file", "", "read the HTTP bearer token from `FILE` (mode 600, 16 characters or more) instead of $"+mcpTokenEnv+" or the state folder's "+mcpTokenFile)
	var origins, hosts multiFlag
	fs.Var(&origins, "allow-origin", "let requests carry this Origin `URL` (scheme://host:port; repeatable); by default a request with any Origin is refused")
	fs.Var(&hosts, "allow-host", "let requests name this host `NAME` in their Host header besides IP addresses and localhost (repeatable)")
	policy := fs.String("policy", "", "the operator's policy `FILE` every act passes (default $"+specs.PolicyEnv+"); an act a confirm rule holds waits for pcflow approve of its workflow")
	tasks := fs.String("tasks", "", "also offer the tools run (a task file of `DIR`, by name, or an instruction in words, started as pcflow run --detach starts it), status and history")
	approve := fs.Bool("allow-approve", false, "with --tasks, also offer the approve tool: the MCP client may then approve or reject what a policy's confirm rules leave to a person")
	devTimeout := fs.Duration("device-timeout", time.Minute, "the `DURATION` an act or observation waits for the device's worker before it says the device is offline")
	rest, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	if len(rest) > 0 {
		fmt.Fprintf(e.stderr, "pcflow mcp: unexpected argument %q (see pcflow mcp --help)\n", rest[0])
		return 2
	}
	if *approve && *tasks == "" {
		fmt.Fprintln(e.stderr, "pcflow mcp: --allow-approve needs --tasks DIR (the approve tool goes with the run tools)")
		return 2
	}
	if *tasks != "" {
		if fi, err := os.Stat(*tasks); err != nil || !fi.IsDir() {
			fmt.Fprintf(e.stderr, "pcflow mcp: --tasks %s: not a folder of task files\n", *tasks)
			return 2
		}
	}
	op, files, diags := specs.OperatorPolicy(*policy, e.environ)
	_ = specs.WriteDiagnostics(e.stderr, files, diags, false)
	if diags.HasErrors() {
		return 1
	}
	var ln net.Listener
	var guard httpguard.Guard
	if *addr != "" {
		var from string
		var err error
		ln, guard, from, err = mcpListen(e, *addr, *remote, *tokenFile, ef.state)
		if err != nil {
			fmt.Fprintln(e.stderr, "pcflow mcp:", err)
			return 1
		}
		defer ln.Close()
		guard.AllowedOrigins, guard.AllowedHosts = origins, hosts
		fmt.Fprintf(e.stderr, "MCP on http://%s/ (streamable HTTP), the bearer token in %s\n", ln.Addr(), from)
	}
	host.ProtectState(ef.state)
	g, err := ef.connect(ctx, e, false)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow mcp:", err)
		return 1
	}
	defer g.close()
	logger, closeLog, err := host.FileLogger(ef.state)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow mcp:", err)
		return 1
	}
	defer closeLog()
	key, err := signing.LoadOrCreate(ef.state)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow mcp:", err)
		return 1
	}
	o := mcpserver.Options{Client: g.client, DecisionKey: key, Artifacts: artifacts.Dir{Root: filepath.Join(ef.state, "artifacts")},
		Policy: op, Holder: func(d string) workflows.Holder { return host.LeaseHolder(d, "", "") }, Gone: host.LeaseHolderGone, DeviceTimeout: *devTimeout, Version: version, Logger: logger}
	if *tasks != "" {
		abs, _ := filepath.Abs(*tasks)
		o.Runs, o.Approve = mcpRuns{e: e, g: g, state: ef.state, tasks: abs, policy: *policy, timeout: *devTimeout}, *approve
	}
	s, err := mcpserver.New(o)
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow mcp:", err)
		return 1
	}
	defer s.Close()
	if ln == nil {
		err = s.ServeStdio(ctx, os.Stdin, nopWriteCloser{e.stdout})
	} else {
		guard.Logger = logger
		err = s.ServeHTTP(ctx, ln, guard)
	}
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow mcp:", err)
		return 1
	}
	return 0
}

// mcpListen binds --http's address, refusing one off the loopback
// without --allow-remote, and finds the token.
func mcpListen(e *env, addr string, remote bool, tokenFile, state string) (net.Listener, httpguard.Guard, string, error) {
	var g httpguard.Guard
	h, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, g, "", fmt.Errorf("--http %q: %w (give HOST:PORT, e.g. 127.0.0.1:8765)", addr, err)
	}
	if h == "" {
		h = "127.0.0.1"
	}
	if !httpguard.Loopback(h) && !remote {
		return nil, g, "", fmt.Errorf("--http %s is not a loopback address: anyone who reaches it could drive your devices with the token; bind 127.0.0.1, or add --allow-remote on a network you trust", addr)
	}
	token, from, err := httpguard.TokenSource{Env: mcpTokenEnv, File: tokenFile, StateDir: state, StateFile: mcpTokenFile}.Token(e.environ)
	if err != nil {
		return nil, g, "", err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(h, port))
	if err != nil {
		return nil, g, "", fmt.Errorf("--http: %w", err)
	}
	return ln, httpguard.Guard{Name: "mcp", Token: token}, from, nil
}

// nopWriteCloser is a writer whose Close does nothing (standard output
// stays open for the process).
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
