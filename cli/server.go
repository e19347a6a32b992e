package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/pcflow/pcflow/internal/tserver"
)

func cmdServer(ctx context.Context, e *env, args []string) int {
	var state, uiIP string
	var port, uiPort int
	fs := newFlags(e, "server", "[flags]", `Run the embedded Temporal server (SQLite in the state folder) and its Web UI,
for workers and runs in other processes or on other machines. --ip 0.0.0.0 makes
the frontend reachable from the network; the Web UI and its HTTP API stay on
127.0.0.1 unless --ui-ip says otherwise. Neither has authentication: see
"A shared server" in docs/deployment.md before exposing them.`)
	stateFlag(fs, e, &state)
	ip := fs.String("ip", "127.0.0.1", "`IP` address the frontend listens on (0.0.0.0: every interface)")
	portVar(fs, &port, "port", 7233, false, "`PORT` of the frontend")
	uiFlags(fs, &uiPort, &uiIP)
	if _, code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if err := writable(state); err != nil {
		fmt.Fprintln(e.stderr, "pcflow server:", err)
		return 1
	}
	srv, err := tserver.Start(tserver.Options{DatabaseFile: filepath.Join(state, "temporal.db"), IP: *ip, Port: port,
		UIPort: uiPort, UIIP: uiIP, LogFile: filepath.Join(state, "server.log")})
	if err != nil {
		if errors.Is(err, tserver.ErrPortInUse) {
			err = fmt.Errorf("%w: another server (or program) listens there; pass --port N (and --ui-port N) to use other ports", err)
		}
		if errors.Is(err, tserver.ErrLocked) {
			err = fmt.Errorf("%w; or pass --state DIR to use another folder", err)
		}
		fmt.Fprintln(e.stderr, "pcflow server:", err)
		return 1
	}
	defer srv.Stop()
	warnExposed(e.stderr, *ip, uiIP)
	// Clients print links to the UI from what the server publishes, and
	// a command on another state folder is told whose server this is.
	dctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	if c, err := client.DialContext(dctx, client.Options{HostPort: srv.HostPort, Namespace: tserver.Namespace, Logger: quietLogger()}); err == nil {
		publishServer(dctx, c, srv.UIURL, state)
		c.Close()
	}
	cancel()
	fmt.Fprintf(e.stdout, "Temporal server on %s (state %s)\n", srv.HostPort, state)
	if srv.UIURL != "" {
		fmt.Fprintf(e.stdout, "Web UI: %s\n", srv.UIURL)
	}
	fmt.Fprintln(e.stdout, "Ctrl-C stops it")
	<-ctx.Done()
	return 0
}
