package pdnstest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/joeig/go-powerdns/v3"
)

// GPGSQLFrontends is how many pdns_server instances a gpgsql or a gmysql
// server runs on its database.
const GPGSQLFrontends = 2

// Frontend is one pdns_server instance of a server that has several on one
// database (GPGSQL, GMySQL): what a pod behind a Kubernetes Service is.
type Frontend struct {
	// URL is this instance's own API, past the round-robin.
	URL string
	// DNSAddr is host:port of this instance's DNS service, on UDP and TCP.
	DNSAddr string
	// Client is a go-powerdns client for this instance alone.
	Client *powerdns.Client

	// inst is the instance, for Kill and Restart; nil where the server
	// is another process's (attached, shared by a test run).
	inst *Server
}

// Kill stops this frontend abruptly, as Server.Kill stops a whole server,
// keeping its address: the round-robin answers 502 Bad Gateway to the
// requests it sends there, while the other frontends and the database go
// on, as behind a load balancer that has not yet seen the instance die.
// Only a server the test started itself (Start, Launch) can lose a
// frontend; a server a test run shares cannot.
func (f Frontend) Kill(ctx context.Context) error {
	if f.inst == nil {
		return errors.New("pdnstest: frontend cannot be killed")
	}
	return f.inst.Kill(ctx)
}

// Restart starts a killed frontend again, on its address and database,
// and waits until it answers.
func (f Frontend) Restart(ctx context.Context) error {
	if f.inst == nil {
		return errors.New("pdnstest: frontend cannot be restarted")
	}
	return f.inst.Restart(ctx)
}

// database is where a gpgsql or gmysql frontend keeps its data.
type database struct {
	host string
	port int
	name string
	// network is the Docker network of the database's container.
	network string
}

// sqlServer is a database server (PostgreSQL, MariaDB) that the servers of
// one backend share, each with a database of its own.
type sqlServer interface {
	// createDatabase creates database name and loads schema into it.
	createDatabase(ctx context.Context, name string, schema []byte) error
	// dropDatabase drops database name.
	dropDatabase(ctx context.Context, name string) error
	// address is where a frontend reaches the server: host and port, and
	// the Docker network a frontend container joins (empty for processes).
	address() (host string, port int, network string)
	// restart stops the server and starts it again with its data, at its
	// address, and waits until it accepts connections.
	restart(ctx context.Context) error
}

// frontendsOf is what startFrontends needs of a backend: its schema and its
// database server, shared or (own) of the server's own.
type frontendsOf struct {
	// db names the database server in messages.
	db       string
	schemaOf func(ctx context.Context, t Target) ([]byte, error)
	acquire  func(ctx context.Context, t Target, own bool) (sqlServer, func(context.Context) error, error)
}

// sqlBackends are the backends whose servers are several frontends on one
// database.
var sqlBackends = map[Backend]frontendsOf{
	GPGSQL: {
		db:       "PostgreSQL",
		schemaOf: pgSchemaOf,
		acquire: func(ctx context.Context, t Target, own bool) (sqlServer, func(context.Context) error, error) {
			return acquirePostgres(ctx, t, own)
		},
	},
	GMySQL: {
		db:       "MariaDB",
		schemaOf: mySchemaOf,
		acquire: func(ctx context.Context, t Target, own bool) (sqlServer, func(context.Context) error, error) {
			return acquireMariaDB(ctx, t, own)
		},
	},
}

// gmysqlArgs launch the gmysql backend on db, as gpgsqlArgs do gpgsql. The
// MariaDB of the harness lets every user in without a password.
func gmysqlArgs(configDir string, db *database) []string {
	return []string{
		"--config-dir=" + configDir,
		"--launch=gmysql",
		"--gmysql-host=" + db.host,
		"--gmysql-port=" + strconv.Itoa(db.port),
		"--gmysql-dbname=" + db.name,
		"--gmysql-user=root",
		"--gmysql-dnssec=yes",
		"--zone-cache-refresh-interval=0",
	}
}

// backendArgs launch srv's backend where it is not the gsqlite3 an image
// is configured for; configDir is a directory without a pdns.conf.
func backendArgs(srv *Server, configDir string) []string {
	switch srv.Backend {
	case LMDB:
		return lmdbArgs(configDir)
	case GPGSQL:
		return gpgsqlArgs(configDir, srv.db)
	case GMySQL:
		return gmysqlArgs(configDir, srv.db)
	}
	return nil
}

// gpgsqlArgs launch the gpgsql backend on db. The config dir is one without
// a pdns.conf, as for LMDB (see lmdbArgs). The zone cache is off, as every
// other cache of the harness's servers (apiArgs): with it on, a frontend
// answers REFUSED for a zone created through the other until its next
// refresh, up to zone-cache-refresh-interval (300 s by default). A test of
// that starts its own server WithArgs("--zone-cache-refresh-interval=N").
func gpgsqlArgs(configDir string, db *database) []string {
	return []string{
		"--config-dir=" + configDir,
		"--launch=gpgsql",
		"--gpgsql-host=" + db.host,
		"--gpgsql-port=" + strconv.Itoa(db.port),
		"--gpgsql-dbname=" + db.name,
		"--gpgsql-user=postgres",
		"--gpgsql-dnssec=yes",
		"--zone-cache-refresh-interval=0",
	}
}

// startFrontends runs a gpgsql or gmysql server: a database of its own on
// the shared PostgreSQL or MariaDB (on one of the server's own with
// ownDB), GPGSQLFrontends pdns_server instances on it, started at once,
// and a round-robin in front of their APIs, which is the server's URL.
//
// Kill kills every frontend (the database and the round-robin stay, and
// the round-robin answers 502 Bad Gateway, as a load balancer whose
// backends are all gone); Restart starts them all again. RestartDatabase
// restarts a database server of the server's own.
func startFrontends(ctx context.Context, srv *Server, extra []string, ownDB bool) error {
	of, ok := sqlBackends[srv.Backend]
	if !ok {
		return fmt.Errorf("backend %q has no frontends", srv.Backend)
	}
	began := time.Now()
	// The schema comes from the PowerDNS image or root, read while the
	// database starts.
	var (
		schema    []byte
		schemaErr error
		read      = make(chan struct{})
	)
	go func() {
		defer close(read)
		schema, schemaErr = of.schemaOf(ctx, srv.Target)
	}()
	dbs, release, err := of.acquire(ctx, srv.Target, ownDB)
	<-read
	if err != nil {
		return err
	}
	dbReady := time.Now()
	var (
		db        string
		frontends []*Server
		rr        *roundRobin
	)
	srv.stop = func(ctx context.Context) error {
		var errs []error
		if rr != nil {
			errs = append(errs, rr.close())
		}
		errs = append(errs, eachFrontend(frontends, func(f *Server) error { return f.Stop(ctx) }))
		if db != "" {
			errs = append(errs, dbs.dropDatabase(ctx, db))
		}
		errs = append(errs, release(ctx))
		return errors.Join(errs...)
	}
	if schemaErr != nil {
		return schemaErr
	}
	suffix, err := randomHex(6)
	if err != nil {
		return err
	}
	if err := dbs.createDatabase(ctx, "pdnstest_"+suffix, schema); err != nil {
		return err
	}
	db = "pdnstest_" + suffix
	verbosef("%s: %s after %s, database %s after %s", srv.Target, of.db, dbReady.Sub(began).Round(time.Millisecond),
		db, time.Since(began).Round(time.Millisecond))
	host, port, network := dbs.address()
	conn := &database{host: host, port: port, name: db, network: network}

	frontends = make([]*Server, GPGSQLFrontends)
	for i := range frontends {
		frontends[i] = &Server{Target: srv.Target, APIKey: srv.APIKey, Backend: srv.Backend, db: conn}
	}
	srv.logs = func() string {
		var b strings.Builder
		for i, f := range frontends {
			fmt.Fprintf(&b, "--- frontend %d ---\n%s\n", i, f.Logs())
		}
		return b.String()
	}
	err = eachFrontend(frontends, func(f *Server) error {
		var err error
		switch f.Target.Provider {
		case Container:
			err = startContainer(ctx, f, extra)
		default:
			err = startProcess(ctx, f, extra)
		}
		if err == nil {
			err = f.waitReady(ctx)
		}
		return err
	})
	if err != nil {
		return err
	}
	urls := make([]string, len(frontends))
	srv.Frontends = make([]Frontend, len(frontends))
	for i, f := range frontends {
		urls[i] = f.URL
		srv.Frontends[i] = Frontend{
			URL:     f.URL,
			DNSAddr: f.DNSAddr,
			Client:  powerdns.New(f.URL, "localhost", powerdns.WithAPIKey(srv.APIKey)),
			inst:    f,
		}
	}
	if rr, err = startRoundRobin(urls); err != nil {
		return err
	}
	srv.endpoints = []endpoint{{url: rr.url, dnsAddr: frontends[0].DNSAddr}}
	verbosef("%s: %d frontends ready after %s", srv.Target, len(frontends), time.Since(began).Round(time.Millisecond))
	srv.kill = func(ctx context.Context) error {
		return eachFrontend(frontends, func(f *Server) error { return f.Kill(ctx) })
	}
	srv.revive = func(ctx context.Context) error {
		return eachFrontend(frontends, func(f *Server) error { return f.Restart(ctx) })
	}
	if ownDB {
		srv.restartDB = dbs.restart
	}
	return nil
}

// eachFrontend runs fn on every frontend at once and joins their errors,
// each prefixed with the frontend it came from.
func eachFrontend(frontends []*Server, fn func(f *Server) error) error {
	errs := make([]error, len(frontends))
	var wg sync.WaitGroup
	for i, f := range frontends {
		if f == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(f); err != nil {
				errs[i] = fmt.Errorf("frontend %d: %w", i, err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// pgSchemaOf reads the gpgsql schema of t's PowerDNS: from its image, or
// from its Debian root (or the host).
func pgSchemaOf(ctx context.Context, t Target) ([]byte, error) {
	if t.Provider == Container {
		return imageFile(ctx, t.Image, pgSchemaPaths)
	}
	root := t.Root
	if root == HostRoot {
		root = "/"
	}
	p, err := findPGSchema(root)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(filepath.Join(root, p))
}
