// Package tserver embeds a single-process Temporal server (frontend, history,
// matching and worker services) backed by one SQLite file, with the Temporal
// Web UI served beside it. It is what `pcflow run` and `pcflow server` start
// when no cluster is given.
//
// The database file is locked while a server owns it, so two processes never
// share one; a frontend port already in use is reported before the server
// starts (the server's own logger would otherwise exit the process).
package tserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"time"
	"unsafe"

	"github.com/labstack/echo/v4"
	"github.com/pcflow/pcflow/internal/freeport"
	"github.com/pcflow/pcflow/internal/proclock"
	uiserver "github.com/temporalio/ui-server/v2/server"
	uiconfig "github.com/temporalio/ui-server/v2/server/config"
	uiserveroptions "github.com/temporalio/ui-server/v2/server/server_options"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/server/api/adminservice/v1"
	clusterpkg "go.temporal.io/server/common/cluster"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/dynamicconfig"
	tlog "go.temporal.io/server/common/log"
	"go.temporal.io/server/common/membership/static"
	"go.temporal.io/server/common/metrics"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	"go.temporal.io/server/common/primitives"
	"go.temporal.io/server/common/rpc/encryption"
	sqliteschema "go.temporal.io/server/schema/sqlite"
	"go.temporal.io/server/temporal"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"google.golang.org/grpc"
)

// Namespace is the namespace pcflow creates and uses.
const Namespace = "default"

// SearchAttributes are the custom search attributes pcflow runs carry, so runs
// are findable in the UI by task name and status.
var SearchAttributes = map[string]enumspb.IndexedValueType{
	"PcflowTask":   enumspb.INDEXED_VALUE_TYPE_KEYWORD,
	"PcflowStatus": enumspb.INDEXED_VALUE_TYPE_KEYWORD,
}

// Options configure an embedded server.
type Options struct {
	// DatabaseFile is the SQLite file holding all state; empty means in memory.
	DatabaseFile string
	// IP the services bind to; default 127.0.0.1.
	IP string
	// Port of the frontend gRPC service; default 7233.
	Port int
	// UIPort of the Web UI; 0 disables the UI.
	UIPort int
	// UIIP is the address the Web UI and its HTTP API bind to; default
	// 127.0.0.1 whatever IP is, since neither has authentication.
	UIIP string
	// LogFile receives the server's own log (warnings and errors); empty discards it.
	LogFile string
	// Postgres, when set, keeps the state in PostgreSQL instead of
	// DatabaseFile. Servers on one database form one cluster: they find
	// each other through it, and each serves every role. Their services
	// then listen on fixed ports beside Port (see ClusterPorts).
	Postgres *Postgres
	// Shards is the number of history shards of a new PostgreSQL cluster
	// (default DefaultShards). It is fixed when the database is first made: a server
	// given another number keeps the database's and warns.
	Shards int
	// TLS, when set, makes the frontend and the traffic between services
	// (internode, membership included) require mutual TLS: clients and
	// nodes show a certificate signed by its CA. Start checks the files
	// first (CheckTLS). A node's certificate allows client
	// use too, and its first DNS name (else its first IP address) is one
	// every node's certificate of the cluster has: a node's internal
	// worker checks it in whichever node's frontend it reaches.
	TLS *TLS
}

// TLS is a certificate, its key and the certificate authority that signs
// the certificates of the other side, as PEM files.
type TLS struct {
	CertFile, KeyFile, CAFile string
}

// Server is a running embedded Temporal server.
type Server struct {
	srv     temporal.Server
	ui      *uiserver.Server
	lock    *os.File
	logSync func() error
	// HostPort is the frontend address clients dial.
	HostPort string
	// UIURL is the Web UI's address, empty when the UI is off.
	UIURL string
	// Shards is the number of history shards this node owned when it
	// started serving (cluster nodes only).
	Shards int
	// historyAddr is a cluster node's history service, tls its TLS files.
	historyAddr string
	tls         *TLS
	// admin asks the node's own frontend about its history service.
	admin     adminservice.AdminServiceClient
	adminConn *grpc.ClientConn
}

// ErrPortInUse reports that the frontend port is already taken: usually
// another pcflow server is running, and clients should connect to it instead.
var ErrPortInUse = errors.New("port in use")

// ErrLocked reports that another process owns the database file.
var ErrLocked = errors.New("database file locked by another process")

// PortFree reports whether host:port can be listened on.
func PortFree(ip string, port int) bool { return freeport.Free(ip, port) }

// Start starts the server and, when UIPort is set, the Web UI. It returns
// once the frontend accepts connections.
func Start(o Options) (*Server, error) {
	if o.IP == "" {
		o.IP = "127.0.0.1"
	}
	if o.Port == 0 {
		o.Port = 7233
	}
	if o.UIIP == "" {
		o.UIIP = "127.0.0.1"
	}
	if o.Postgres != nil {
		if err := CheckClusterPort(o.Port); err != nil {
			return nil, err
		}
	}
	if o.TLS != nil {
		if err := CheckTLS(o.TLS, time.Now()); err != nil {
			return nil, err
		}
	}
	if !PortFree(o.IP, o.Port) {
		return nil, fmt.Errorf("frontend %s:%d: %w", o.IP, o.Port, ErrPortInUse)
	}
	// The UI's port is held from this check until the UI binds it, a
	// moment before: the Web UI's server ends the whole process when its
	// port is taken, and another process picking a free port while the
	// Temporal server starts (seconds under load) could take it.
	var uiHold net.Listener
	if o.UIPort != 0 {
		l, err := net.Listen("tcp", net.JoinHostPort(o.UIIP, strconv.Itoa(o.UIPort)))
		if err != nil {
			return nil, fmt.Errorf("web UI %s:%d: %w (pass another --ui-port, or 0 to disable the UI)", o.UIIP, o.UIPort, ErrPortInUse)
		}
		uiHold = l
		defer func() {
			if uiHold != nil {
				uiHold.Close()
			}
		}()
	}
	s := &Server{HostPort: net.JoinHostPort(o.IP, strconv.Itoa(o.Port))}
	if o.Postgres != nil {
		for _, p := range ClusterPorts(o.Port) {
			if !PortFree(o.IP, p) {
				return nil, fmt.Errorf("port %s:%d (a cluster node's services use ports %v): %w", o.IP, p, ClusterPorts(o.Port), ErrPortInUse)
			}
		}
	} else if o.DatabaseFile != "" {
		if err := os.MkdirAll(filepath.Dir(o.DatabaseFile), 0o755); err != nil {
			return nil, fmt.Errorf("state folder: %w", err)
		}
		f, err := os.OpenFile(o.DatabaseFile+".lock", os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", o.DatabaseFile, err)
		}
		if err := proclock.TryLock(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w (is another `pcflow server` or `pcflow run` using this state folder?)", o.DatabaseFile, ErrLocked)
		}
		s.lock = f
	}
	logger, sync, err := serverLogger(o.LogFile)
	if err != nil {
		s.unlock()
		return nil, err
	}
	var sqlConf *config.SQL
	if o.Postgres != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		err = PrepareSchema(ctx, o.Postgres, logger)
		cancel()
	} else {
		sqlConf, err = sqlConfig(o.DatabaseFile)
	}
	if err != nil {
		s.unlock()
		return nil, err
	}
	s.logSync = sync
	conf, hosts, err := serverConfig(o, sqlConf)
	if err != nil {
		s.unlock()
		return nil, err
	}
	dyn := dynamicconfig.StaticClient{
		dynamicconfig.FrontendMaxNamespaceVisibilityRPSPerInstance.Key(): 100,
		// The default (20) caps child workflow starts at ~5 per second.
		dynamicconfig.MakeKey("history.transferProcessorMaxPollRPS"): 1000,
		dynamicconfig.MakeKey("history.timerProcessorMaxPollRPS"):    1000,
	}
	if o.TLS != nil {
		// Membership (ringpop) speaks the internode TLS too.
		dyn[dynamicconfig.EnableRingpopTLS.Key()] = true
	}
	var srv temporal.Server
	lg := &startLogger{Logger: logger}
	err = lg.start(func() error {
		var err error
		opts := []temporal.ServerOption{
			temporal.WithConfig(conf),
			temporal.ForServices(temporal.DefaultServices),
			temporal.WithLogger(lg),
			temporal.WithDynamicConfigClient(dyn),
		}
		if hosts != nil { // one node: no membership to join
			opts = append(opts, temporal.WithStaticHosts(hosts))
		}
		if o.TLS != nil {
			tp, err := encryption.NewTLSConfigProviderFromConfig(conf.Global.TLS, metrics.NoopMetricsHandler, lg, nil)
			if err != nil {
				return fmt.Errorf("TLS settings: %w", err)
			}
			opts = append(opts, temporal.WithTLSConfigFactory(nodesOnly{TLSConfigProvider: tp, name: conf.Global.TLS.Internode.Client.ServerName}))
		}
		srv, err = temporal.NewServer(opts...)
		if err != nil {
			return fmt.Errorf("create temporal server: %w", err)
		}
		if err := srv.Start(); err != nil {
			return fmt.Errorf("start temporal server: %w", err)
		}
		return nil
	})
	if err != nil {
		s.unlock()
		return nil, err
	}
	s.srv = srv
	if o.UIPort != 0 {
		s.ui = uiserver.NewServer(uiserveroptions.WithConfigProvider(&uiconfig.Config{
			Host:                o.UIIP,
			Port:                o.UIPort,
			TemporalGRPCAddress: s.HostPort,
			EnableUI:            true,
			CORS:                uiconfig.CORS{CookieInsecure: true},
			HideLogs:            true,
			DisableNewsFetch:    true,
			DefaultNamespace:    Namespace,
			TLS:                 uiTLS(o.TLS),
		}))
		if e := uiEcho(s.ui); e != nil {
			// The UI serves on the listener held since the check: no
			// moment when another process could take the port.
			e.Listener = uiHold
		} else {
			uiHold.Close()
		}
		uiHold = nil
		go func() { _ = s.ui.Start() }()
		s.UIURL = "http://" + net.JoinHostPort(o.UIIP, strconv.Itoa(o.UIPort))
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", s.HostPort, time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, fmt.Errorf("temporal frontend %s did not come up: %w", s.HostPort, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if o.Postgres != nil {
		s.historyAddr = net.JoinHostPort(o.IP, strconv.Itoa(o.Port+1))
		s.tls = o.TLS
		if err := s.waitShards(2 * time.Minute); err != nil {
			s.Stop()
			return nil, err
		}
	}
	return s, nil
}

// uiEcho is the Web UI server's HTTP server, which ui-server keeps in an
// unexported field; nil if a later ui-server keeps it elsewhere (then the
// UI binds its port itself, a moment after the held one is let go).
func uiEcho(ui *uiserver.Server) *echo.Echo {
	f := reflect.ValueOf(ui).Elem().FieldByName("httpServer")
	if !f.IsValid() || f.Type() != reflect.TypeOf((*echo.Echo)(nil)) {
		return nil
	}
	e, _ := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface().(*echo.Echo)
	return e
}

// uiTLS is the Web UI's client certificate for a frontend that requires one.
func uiTLS(t *TLS) uiconfig.TLS {
	if t == nil {
		return uiconfig.TLS{}
	}
	return uiconfig.TLS{CaFile: t.CAFile, CertFile: t.CertFile, KeyFile: t.KeyFile, EnableHostVerification: true}
}

// Stop stops the UI and the server and releases the database lock.
func (s *Server) Stop() {
	if s.adminConn != nil {
		s.adminConn.Close()
	}
	if s.ui != nil {
		s.ui.Stop()
	}
	if s.srv != nil {
		_ = s.srv.Stop()
	}
	if s.logSync != nil {
		_ = s.logSync()
	}
	s.unlock()
}

func (s *Server) unlock() {
	if s.lock != nil {
		s.lock.Close() // drops the lock
		s.lock = nil
	}
}

func serverLogger(file string) (tlog.Logger, func() error, error) {
	if file == "" {
		return tlog.NewNoopLogger(), nil, nil
	}
	cfg := zap.NewProductionConfig()
	cfg.Level = zap.NewAtomicLevelAt(zapcore.WarnLevel)
	cfg.OutputPaths = []string{file}
	cfg.ErrorOutputPaths = []string{file}
	cfg.Sampling = nil
	zl, err := cfg.Build()
	if err != nil {
		return nil, nil, fmt.Errorf("server log %s: %w", file, err)
	}
	return tlog.NewZapLogger(zl), zl.Sync, nil
}

func sqlConfig(file string) (*config.SQL, error) {
	conf := &config.SQL{PluginName: sqliteplugin.PluginName}
	if file == "" {
		conf.ConnectAttributes = map[string]string{"mode": "memory", "cache": "shared"}
		conf.DatabaseName = fmt.Sprintf("pcflow-%d", time.Now().UnixNano())
	} else {
		// Temporal's plugin passes every attribute but SQLite's URI
		// parameters as a pragma under its own name: journal_mode, not
		// _journal_mode (which SQLite ignores, leaving a rollback journal
		// and a sync of every transaction: a fifth of a run's CPU went to
		// those system calls). WAL with NORMAL sync survives any crash of
		// the process; only a power cut can lose the last transactions.
		conf.ConnectAttributes = map[string]string{"mode": "rwc", "journal_mode": "wal", "synchronous": "normal"}
		conf.DatabaseName = file
		if _, err := os.Stat(file); os.IsNotExist(err) {
			// Build the schema in a temporary file and rename it, so a crash
			// during setup never leaves a half-made database behind.
			tmp := file + ".init"
			_ = os.Remove(tmp)
			tconf := *conf
			// The schema file is renamed into place only when complete:
			// no sync needed while it is built.
			tconf.ConnectAttributes = map[string]string{"mode": "rwc", "journal_mode": "memory", "synchronous": "off"}
			tconf.DatabaseName = tmp
			if err := sqliteschema.SetupSchema(&tconf); err != nil {
				return nil, fmt.Errorf("set up schema in %s: %w", tmp, err)
			}
			if err := os.Rename(tmp, file); err != nil {
				return nil, fmt.Errorf("set up schema: %w", err)
			}
		}
	}
	if err := createNamespace(conf); err != nil {
		return nil, err
	}
	return conf, nil
}

// createNamespace makes pcflow's namespace, with its search attributes,
// in a store unless it is there (CreateNamespaces speaks to any SQL store
// through Temporal's own persistence layer: SQLite and PostgreSQL alike).
func createNamespace(conf *config.SQL) error {
	ns, err := sqliteschema.NewNamespaceConfig("active", Namespace, false, SearchAttributes)
	if err != nil {
		return fmt.Errorf("namespace config: %w", err)
	}
	if err := sqliteschema.CreateNamespaces(conf, ns); err != nil {
		return fmt.Errorf("create namespace %q: %w", Namespace, err)
	}
	return nil
}

// MaxClusterPort is the highest frontend port of a PostgreSQL cluster
// node: Temporal keeps each service's membership port, the frontend's
// port + 100 to + 103, in a smallint column of the database (at most
// 32767), so port + 103 must fit there.
const MaxClusterPort = 32767 - 103

// CheckClusterPort says why port cannot be a cluster node's frontend
// port, or nil when it can.
func CheckClusterPort(port int) error {
	if port < 1 || port > MaxClusterPort {
		return fmt.Errorf("port %d cannot be a cluster node's: its membership ports (port+100 to port+103, here %d–%d) are kept in the database's smallint column, which holds at most 32767, so the highest port is %d; pass --port 1–%d (default 7233)",
			port, port+100, port+103, MaxClusterPort, MaxClusterPort)
	}
	return nil
}

// ClusterPorts are the ports a cluster node's services listen on, from
// the frontend's port P: the frontend P (and its HTTP API P+10), history
// P+1, matching P+2 and the internal worker P+3; each service's
// membership P+100 to P+103. Open them between the nodes.
func ClusterPorts(port int) []int {
	return []int{port, port + 1, port + 2, port + 3, port + 10, port + 100, port + 101, port + 102, port + 103}
}

func serverConfig(o Options, sqlConf *config.SQL) (*config.Config, map[primitives.ServiceName]static.Hosts, error) {
	cluster := o.Postgres != nil
	httpPort := o.Port + 10
	if !cluster {
		var err error
		if httpPort, err = pickPort(o.IP); err != nil {
			return nil, nil, err
		}
	}
	var conf config.Config
	conf.Global.Membership.MaxJoinDuration = 30 * time.Second
	conf.Global.Membership.BroadcastAddress = o.IP
	conf.Persistence.NumHistoryShards = 1
	if cluster {
		conf.Persistence.DefaultStore = "postgres"
		conf.Persistence.VisibilityStore = "postgres-visibility"
		conf.Persistence.NumHistoryShards = int32(max(o.Shards, 1))
		if o.Shards == 0 {
			conf.Persistence.NumHistoryShards = DefaultShards
		}
		conf.Persistence.DataStores = map[string]config.DataStore{
			"postgres":            {SQL: o.Postgres.sqlConf(o.Postgres.Database)},
			"postgres-visibility": {SQL: o.Postgres.sqlConf(o.Postgres.VisibilityDatabase())},
		}
	} else {
		conf.Persistence.DefaultStore = "sqlite"
		conf.Persistence.VisibilityStore = "sqlite"
		conf.Persistence.DataStores = map[string]config.DataStore{"sqlite": {SQL: sqlConf}}
	}
	// A cluster's metadata names one node's frontend: the node that last
	// started (Temporal itself dials it only for replication between
	// clusters, which pcflow does not use).
	rpc := net.JoinHostPort(o.IP, strconv.Itoa(o.Port))
	conf.ClusterMetadata = &clusterpkg.Config{
		FailoverVersionIncrement: 10,
		MasterClusterName:        "active",
		CurrentClusterName:       "active",
		ClusterInformation: map[string]clusterpkg.ClusterInformation{
			"active": {
				Enabled:                true,
				InitialFailoverVersion: 1,
				RPCAddress:             rpc,
				HTTPAddress:            net.JoinHostPort(o.IP, strconv.Itoa(httpPort)),
				ClusterID:              clusterID,
			},
		},
	}
	conf.DCRedirectionPolicy.Policy = "noop"
	conf.Services = map[string]config.Service{}
	var hosts map[primitives.ServiceName]static.Hosts
	if !cluster {
		hosts = map[primitives.ServiceName]static.Hosts{}
	}
	for i, name := range []primitives.ServiceName{primitives.FrontendService, primitives.HistoryService, primitives.MatchingService, primitives.WorkerService} {
		var svc config.Service
		svc.RPC.BindOnIP = o.IP
		switch {
		case name == primitives.FrontendService:
			svc.RPC.GRPCPort = o.Port
			svc.RPC.HTTPPort = httpPort
		case cluster:
			svc.RPC.GRPCPort = o.Port + i
		default:
			p, err := pickPort(o.IP)
			if err != nil {
				return nil, nil, err
			}
			svc.RPC.GRPCPort = p
		}
		if cluster {
			svc.RPC.MembershipPort = o.Port + 100 + i
		} else {
			hosts[name] = static.SingleLocalHost(net.JoinHostPort(o.IP, strconv.Itoa(svc.RPC.GRPCPort)))
		}
		conf.Services[string(name)] = svc
	}
	if o.TLS != nil {
		ca := []string{o.TLS.CAFile}
		conf.Global.TLS.Frontend = config.GroupTLS{
			Server: config.ServerTLS{CertFile: o.TLS.CertFile, KeyFile: o.TLS.KeyFile, ClientCAFiles: ca, RequireClientAuth: true},
			Client: config.ClientTLS{RootCAFiles: ca},
		}
		// The server's own worker calls the frontend as any client does:
		// with the node's certificate (which must allow client use too).
		// It reaches a frontend through membership, not by an address,
		// so it checks the certificate for a name every node's has.
		name, err := sharedName(o.TLS.CertFile)
		if err != nil {
			return nil, nil, err
		}
		conf.Global.TLS.SystemWorker = config.WorkerTLS{CertFile: o.TLS.CertFile, KeyFile: o.TLS.KeyFile,
			Client: config.ClientTLS{RootCAFiles: ca, ServerName: name}}
		// Between the services (history, matching, the internal worker,
		// and each one's membership, dynamic setting below): mutual TLS
		// with the node's certificate on both ends, the peer checked for
		// the shared name, as it is reached by an address from membership.
		conf.Global.TLS.Internode = config.GroupTLS{
			Server: config.ServerTLS{CertFile: o.TLS.CertFile, KeyFile: o.TLS.KeyFile, ClientCAFiles: ca, RequireClientAuth: true},
			Client: config.ClientTLS{RootCAFiles: ca, ServerName: name},
		}
	}
	conf.Archival.History.State = "disabled"
	conf.Archival.Visibility.State = "disabled"
	conf.NamespaceDefaults.Archival.History.State = "disabled"
	conf.NamespaceDefaults.Archival.Visibility.State = "disabled"
	if !cluster {
		conf.PublicClient.HostPort = rpc
	}
	return &conf, hosts, nil
}

// DefaultShards is the number of history shards of a new PostgreSQL
// cluster: enough that every node of a small cluster owns some.
const DefaultShards = 16

// clusterID names the cluster (a UUID, as Temporal wants one).
const clusterID = "6f1c3c1e-70a4-4b0e-9a52-7063666c6f77"
