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
	var tf tlsFlags
	fs := newFlags(e, "server", "[flags]", `Run the embedded Temporal server and its Web UI, for workers and runs in
other processes or on other machines. It keeps its state in SQLite in the state
folder, or with --db in PostgreSQL, where several servers on several hosts form
one cluster (docs/deployment.md). --ip makes the frontend reachable from the
network; the Web UI and its HTTP API stay on 127.0.0.1 unless --ui-ip says
otherwise. --tls-cert, --tls-key and --tls-ca make the frontend and the traffic
between a cluster's nodes require mutual TLS: every client, worker and node then
shows a certificate the CA signed. A cluster node's --port is at most 32664.`)
	stateFlag(fs, e, &state)
	ip := fs.String("ip", "127.0.0.1", "`IP` address the frontend listens on (0.0.0.0: every interface; a cluster node: its own address)")
	portVar(fs, &port, "port", 7233, false, "`PORT` of the frontend (a cluster node's other services use the ports beside it: docs/deployment.md)")
	uiFlags(fs, &uiPort, &uiIP)
	db := fs.String("db", e.getenv("PCFLOW_DB"), "`URL` postgres://USER@HOST:PORT/DATABASE: keep the state in PostgreSQL (the schema is made and upgraded at start); servers on one database form a cluster ($PCFLOW_DB)")
	pwFile := fs.String("db-password-file", "", "`FILE` holding the database password, readable only by you (default: $PCFLOW_DB_PASSWORD)")
	shards := fs.Int("shards", tserver.DefaultShards, "`N` history shards of a new PostgreSQL cluster; fixed once the database is made")
	tf.register(fs, e, false)
	if _, code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if *db != "" {
		if err := tserver.CheckClusterPort(port); err != nil {
			fmt.Fprintf(e.stderr, "pcflow server: --port %d with --db: %v\n", port, err)
			return 2
		}
	}
	fail := func(err error) int {
		fmt.Fprintln(e.stderr, "pcflow server:", err)
		return 1
	}
	if err := writable(state); err != nil {
		return fail(err)
	}
	opts := tserver.Options{DatabaseFile: filepath.Join(state, "temporal.db"), IP: *ip, Port: port,
		UIPort: uiPort, UIIP: uiIP, LogFile: filepath.Join(state, "server.log"), Shards: *shards}
	var err error
	if opts.TLS, err = tf.server(); err != nil {
		return fail(err)
	}
	if *db != "" {
		password := e.getenv("PCFLOW_DB_PASSWORD")
		if *pwFile != "" {
			if password, err = tserver.ReadPasswordFile(*pwFile); err != nil {
				return fail(err)
			}
		}
		if opts.Postgres, err = tserver.ParsePostgres(*db, password); err != nil {
			return fail(err)
		}
		if *ip == "0.0.0.0" || *ip == "::" {
			return fail(fmt.Errorf("a cluster node needs its own address in --ip (the other nodes reach it there), not %s", *ip))
		}
		if *shards < 1 {
			return fail(fmt.Errorf("--shards %d: a cluster needs at least one history shard", *shards))
		}
		fmt.Fprintf(e.stdout, "PostgreSQL %s: preparing the schema and joining the cluster\n", opts.Postgres)
	}
	srv, err := tserver.Start(opts)
	if err != nil {
		if errors.Is(err, tserver.ErrPortInUse) {
			err = fmt.Errorf("%w: another server (or program) listens there; pass --port N (and --ui-port N) to use other ports", err)
		}
		if errors.Is(err, tserver.ErrLocked) {
			err = fmt.Errorf("%w; or pass --state DIR to use another folder", err)
		}
		return fail(err)
	}
	defer srv.Stop()
	warnExposedTLS(e.stderr, *ip, uiIP, opts.TLS != nil)
	// Clients print links to the UI from what the server publishes, and
	// a command on another state folder is told whose server this is.
	dctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	if co, err := clientOptions(srv.HostPort, tf, ""); err == nil {
		if c, err := client.DialContext(dctx, co); err == nil {
			if opts.Postgres == nil {
				publishServer(dctx, c, srv.UIURL, state)
			}
			c.Close()
		}
	}
	cancel()
	if opts.Postgres != nil {
		fmt.Fprintf(e.stdout, "Temporal cluster node on %s (PostgreSQL %s; its history service owns %d shards; TLS %v)\n", srv.HostPort, opts.Postgres, srv.Shards, opts.TLS != nil)
	} else {
		fmt.Fprintf(e.stdout, "Temporal server on %s (state %s)\n", srv.HostPort, state)
	}
	if srv.UIURL != "" {
		fmt.Fprintf(e.stdout, "Web UI: %s\n", srv.UIURL)
	}
	fmt.Fprintln(e.stdout, "Ctrl-C stops it")
	<-ctx.Done()
	return 0
}
