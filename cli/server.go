package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/pcflow/pcflow/internal/tserver"
)

func cmdServer(ctx context.Context, e *env, args []string) int {
	var state string
	fs := newFlags(e, "server", "[flags]", `Run the embedded Temporal server (SQLite in the state folder) and its Web UI,
for workers and runs in other processes or on other machines. --ip 0.0.0.0 makes
it reachable from the network.`)
	stateFlag(fs, e, &state)
	ip := fs.String("ip", "127.0.0.1", "`IP` address the frontend listens on (0.0.0.0: every interface; it has no authentication)")
	port := fs.Int("port", 7233, "`PORT` of the frontend")
	uiPort := fs.Int("ui-port", 8233, "`PORT` of the Web UI (0: no UI)")
	if _, code := parseFlags(fs, args); code >= 0 {
		return code
	}
	srv, err := tserver.Start(tserver.Options{DatabaseFile: filepath.Join(state, "temporal.db"), IP: *ip, Port: *port,
		UIPort: *uiPort, LogFile: filepath.Join(state, "server.log")})
	if err != nil {
		fmt.Fprintln(e.stderr, "pcflow server:", err)
		return 1
	}
	defer srv.Stop()
	fmt.Fprintf(e.stdout, "Temporal server on %s (state %s)\n", srv.HostPort, state)
	if srv.UIURL != "" {
		fmt.Fprintf(e.stdout, "Web UI: %s\n", srv.UIURL)
	}
	fmt.Fprintln(e.stdout, "Ctrl-C stops it")
	<-ctx.Done()
	return 0
}
