package tserver

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx", for the schema lock
	"go.temporal.io/server/common/config"
	tlog "go.temporal.io/server/common/log"
	"go.temporal.io/server/common/persistence/sql/sqlplugin/postgresql"
	"go.temporal.io/server/tools/common/schema"
	sqltool "go.temporal.io/server/tools/sql"
)

// Postgres says where a server keeps its state in PostgreSQL: the
// history, executions and task queues in Database, the visibility
// records (what lists and searches runs) in Database + "_visibility".
// Several servers on one database form one cluster.
type Postgres struct {
	// Addr is the database's HOST:PORT.
	Addr string
	// User and Password authenticate; the password comes from the
	// environment or a file, never from a command line (see ParsePostgres).
	User, Password string
	// Database is the main database's name; default "temporal".
	Database string
	// Attributes are connection parameters (sslmode=disable, …).
	Attributes map[string]string
}

// VisibilityDatabase is the visibility database's name.
func (p *Postgres) VisibilityDatabase() string { return p.Database + "_visibility" }

// String names the database without its password.
func (p *Postgres) String() string {
	return fmt.Sprintf("postgres://%s@%s/%s", p.User, p.Addr, p.Database)
}

// ParsePostgres reads a database URL, postgres://USER@HOST:PORT/DATABASE
// with optional ?sslmode=… parameters. A password anywhere in it is
// refused — in the user part, as a query parameter (password, sslpassword,
// in any case) or in libpq's key=value form — since a command line is
// visible to every user of the machine and is kept in shell histories.
// The password is given separately (password). No error repeats it.
func ParsePostgres(raw, password string) (*Postgres, error) {
	if where := passwordIn(raw); where != "" {
		return nil, fmt.Errorf("database URL %s carries a password (%s): a command line is readable by every user of the machine and kept in shell histories; leave it out of the URL and put it in $PCFLOW_DB_PASSWORD, or in a file readable only by you given as --db-password-file FILE", redactURL(raw), where)
	}
	if !strings.Contains(raw, "://") && strings.Contains(raw, "=") {
		return nil, fmt.Errorf("database %s is a key=value connection string: give a URL instead, postgres://USER@HOST:PORT/DATABASE?sslmode=… (the password in $PCFLOW_DB_PASSWORD or --db-password-file)", redactURL(raw))
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("database URL %q: %v (want postgres://USER@HOST:PORT/DATABASE)", redactURL(raw), err)
	}
	if u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return nil, fmt.Errorf("database URL %q: scheme %q is not postgres (want postgres://USER@HOST:PORT/DATABASE)", redactURL(raw), u.Scheme)
	}
	raw = redactURL(raw) // nothing below prints more than it
	p := &Postgres{Addr: u.Host, User: u.User.Username(), Password: password, Database: strings.TrimPrefix(u.Path, "/"), Attributes: map[string]string{}}
	if p.Addr == "" {
		return nil, fmt.Errorf("database URL %q names no host (want postgres://USER@HOST:PORT/DATABASE)", raw)
	}
	if _, _, err := net.SplitHostPort(p.Addr); err != nil {
		p.Addr = net.JoinHostPort(p.Addr, "5432")
	}
	if p.User == "" {
		return nil, fmt.Errorf("database URL %q names no user (want postgres://USER@HOST:PORT/DATABASE)", raw)
	}
	if p.Database == "" {
		p.Database = "temporal"
	}
	if strings.ContainsAny(p.Database, `/"' `) {
		return nil, fmt.Errorf("database URL %q: database name %q has characters a database name cannot have", raw, p.Database)
	}
	for k, v := range u.Query() {
		p.Attributes[k] = v[len(v)-1]
	}
	if p.Attributes["sslmode"] == "" {
		p.Attributes["sslmode"] = "disable"
	}
	return p, nil
}

// ReadPasswordFile reads a password from a file that only its owner can
// read (the same rule as ssh's keys): a file others can read is refused.
func ReadPasswordFile(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("password file: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("password file %s is readable by others (mode %04o): chmod 600 %s", path, st.Mode().Perm(), path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("password file: %w", err)
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}

// dsnPassword finds a password key of libpq's key=value form
// ("host=db password=x", spaces allowed around the =).
var dsnPassword = regexp.MustCompile(`(?i)(^|\s)[a-z_]*password\s*=`)

// passwordIn says where a database URL (or key=value connection string)
// carries a password, or "" when it carries none.
func passwordIn(raw string) string {
	if dsnPassword.MatchString(raw) {
		return "a password= key"
	}
	u, err := url.Parse(raw)
	if err != nil {
		rest := raw[strings.Index(raw, "://")+1:] // after the scheme, if any
		if i := strings.LastIndex(rest, "@"); i >= 0 && strings.Contains(rest[:i], ":") {
			return "in the user part, USER:PASSWORD@"
		}
		if strings.Contains(strings.ToLower(raw), "password") {
			return "a password parameter"
		}
		return ""
	}
	if _, set := u.User.Password(); set {
		return "in the user part, USER:PASSWORD@"
	}
	for _, pair := range queryPairs(u.RawQuery) {
		if k := pair[0]; isPasswordKey(k) {
			return "query parameter " + k
		}
	}
	// Elsewhere (";password=" after the database's name, an escaped
	// "="): a driver may read it, and ps shows it either way.
	for _, s := range []string{raw, u.Path, u.Opaque} {
		if l := strings.ToLower(s); strings.Contains(l, "password=") || strings.Contains(l, "password%3d") {
			return "a password= parameter"
		}
	}
	return ""
}

// queryPairs splits a raw query into its keys (unescaped when they can
// be) and raw values. url.ParseQuery would drop a pair whose value is
// badly escaped, and with it a password the driver may still read.
func queryPairs(rawQuery string) [][2]string {
	var pairs [][2]string
	for _, kv := range strings.FieldsFunc(rawQuery, func(r rune) bool { return r == '&' || r == ';' }) {
		k, v, _ := strings.Cut(kv, "=")
		if uk, err := url.QueryUnescape(k); err == nil {
			k = uk
		}
		pairs = append(pairs, [2]string{k, v})
	}
	return pairs
}

func isPasswordKey(k string) bool { return strings.Contains(strings.ToLower(k), "password") }

// redactURL is a database URL fit for a message: without a password in
// the user part or in a query parameter; a key=value string is not shown
// at all, and a URL that does not parse only from its "@".
func redactURL(raw string) string {
	if !strings.Contains(raw, "://") && strings.Contains(raw, "=") {
		return "(a key=value string, not shown)"
	}
	u, err := url.Parse(raw)
	if err != nil {
		if i := strings.LastIndex(raw, "@"); i >= 0 {
			raw = raw[i:]
		}
		if i := strings.IndexAny(raw, "?;&"); i >= 0 {
			raw = raw[:i] + "?…"
		}
		return "…" + raw
	}
	var q []string
	for _, pair := range queryPairs(u.RawQuery) {
		if isPasswordKey(pair[0]) {
			pair[1] = "xxxxx"
		}
		q = append(q, url.QueryEscape(pair[0])+"="+pair[1])
	}
	u.RawQuery = strings.Join(q, "&")
	return passwordValue.ReplaceAllString(u.Redacted(), "${1}xxxxx")
}

// passwordValue is a password= value outside the query (after a ";").
var passwordValue = regexp.MustCompile(`(?i)(password(=|%3d))[^&;/?#\s]*`)

// sqlConf is the Temporal persistence configuration of one database.
func (p *Postgres) sqlConf(database string) *config.SQL {
	attrs := map[string]string{}
	for k, v := range p.Attributes {
		attrs[k] = v
	}
	return &config.SQL{
		PluginName: postgresql.PluginNamePGX, DatabaseName: database, ConnectAddr: p.Addr, ConnectProtocol: "tcp",
		User: p.User, Password: p.Password, ConnectAttributes: attrs,
		MaxConns: 20, MaxIdleConns: 20, MaxConnLifetime: time.Hour,
	}
}

// schemaLock is the advisory lock that serialises schema work between
// servers starting at once on one database.
const schemaLock = 723301

// PrepareSchema creates the two databases if they are missing and brings
// their schemas to the version this server needs, with Temporal's own
// schema tool (the steps `temporal-sql-tool setup-schema -v 0.0` and
// `update-schema` take). It is idempotent and safe for several servers
// starting at once: they take turns under an advisory lock.
func PrepareSchema(ctx context.Context, p *Postgres, logger tlog.Logger) error {
	if logger == nil {
		logger = tlog.NewNoopLogger()
	}
	unlock, err := p.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	for _, db := range []struct{ name, schema string }{
		{p.Database, "postgresql/v12/temporal"},
		{p.VisibilityDatabase(), "postgresql/v12/visibility"},
	} {
		if err := p.ensureDatabase(ctx, db.name, logger); err != nil {
			return err
		}
		conn, err := sqltool.NewConnection(p.sqlConf(db.name), logger)
		if err != nil {
			return fmt.Errorf("database %s: %w", db.name, err)
		}
		err = schema.NewSetupSchemaTask(conn, &schema.SetupConfig{InitialVersion: "0.0"}, logger).Run()
		if err == nil {
			err = schema.NewUpdateSchemaTask(conn, &schema.UpdateConfig{DBName: db.name, SchemaName: db.schema}, logger).Run()
		}
		conn.Close()
		if err != nil {
			return fmt.Errorf("schema of database %s: %w", db.name, err)
		}
	}
	return createNamespace(p.sqlConf(p.Database))
}

// ensureDatabase creates a database unless it exists: a user without the
// right to create databases can still use ones an administrator made.
func (p *Postgres) ensureDatabase(ctx context.Context, name string, logger tlog.Logger) error {
	db, err := p.open("postgres")
	if err != nil {
		return err
	}
	defer db.Close()
	var exists bool
	if err := db.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return p.explain(err)
	}
	if exists {
		return nil
	}
	conf := p.sqlConf(name)
	if err := sqltool.DoCreateDatabase(conf, "postgres", logger); err != nil {
		return fmt.Errorf("create database %s on %s: %w (create it as an administrator, or grant %s CREATEDB)", name, p.Addr, err, p.User)
	}
	return nil
}

// open opens a database/sql handle on one database of the server.
func (p *Postgres) open(database string) (*sql.DB, error) {
	u := url.URL{Scheme: "postgres", User: url.UserPassword(p.User, p.Password), Host: p.Addr, Path: "/" + database}
	q := url.Values{}
	for k, v := range p.Attributes {
		q.Set(k, v)
	}
	q.Set("connect_timeout", "10")
	u.RawQuery = q.Encode()
	return sql.Open("pgx", u.String())
}

// lock takes the schema lock on a connection of its own.
func (p *Postgres) lock(ctx context.Context) (func(), error) {
	db, err := p.open("postgres")
	if err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, p.explain(err)
	}
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", schemaLock); err != nil {
		conn.Close()
		db.Close()
		return nil, p.explain(err)
	}
	return func() {
		_, _ = conn.ExecContext(context.Background(), "SELECT pg_advisory_unlock($1)", schemaLock)
		conn.Close()
		db.Close()
	}, nil
}

// explain says what a connection error means, without the password.
func (p *Postgres) explain(err error) error {
	msg := err.Error()
	if p.Password != "" {
		msg = strings.ReplaceAll(msg, p.Password, "****")
	}
	hint := "is PostgreSQL running there, and does it accept connections from this host (listen_addresses, pg_hba.conf)?"
	switch {
	case strings.Contains(msg, "password authentication failed"), strings.Contains(msg, "no password"):
		hint = "check $PCFLOW_DB_PASSWORD or --db-password-file"
	case strings.Contains(msg, "does not exist"):
		hint = "create the role or database as an administrator"
	}
	return fmt.Errorf("PostgreSQL %s: %s (%s)", p.String(), msg, hint)
}
