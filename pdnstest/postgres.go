package pdnstest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"
)

// pgSchemaPaths are where the schema of PowerDNS's gpgsql backend may be,
// relative to a Debian root or inside an image: where images/build.sh keeps
// it, then Debian's own paths (they moved between releases), then the
// official images'.
var pgSchemaPaths = []string{
	"usr/share/pdnskit/schema.pgsql.sql",
	"usr/share/pdns-backend-pgsql/schema/schema.pgsql.sql",
	"usr/share/doc/pdns-backend-pgsql/schema.pgsql.sql",
	"usr/local/share/doc/pdns/schema.pgsql.sql",
}

// findPGSchema returns the path of the gpgsql schema under root ("/" for the
// host), relative to root.
func findPGSchema(root string) (string, error) {
	for _, p := range pgSchemaPaths {
		if _, err := os.Stat(filepath.Join(root, p)); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no gpgsql schema under %s (install pdns-backend-pgsql, or rebuild the root with `make images`)", root)
}

// maxPGConnections is PostgreSQL's max_connections for the shared server. A
// pdns_server holds four connections when idle and opens one more for each
// API request in flight (each request connects anew); every gpgsql server
// of a test binary (shared ones and those a test starts for itself) uses
// this one PostgreSQL. More costs each new connection time: PostgreSQL's
// backend start-up grows with it (in a container here, 50 ms at 100, 90 ms
// at 500).
const maxPGConnections = 200

// EnvPGBouncer names the variable that, set to "off", connects gpgsql
// frontends straight to PostgreSQL rather than through PgBouncer where the
// PostgreSQL image or root has it.
const EnvPGBouncer = "PDNS_TEST_PGBOUNCER"

// postgres is a running PostgreSQL that the gpgsql servers of a test binary
// share, each with a database of its own.
//
// Where the image or root has PgBouncer, frontends reach PostgreSQL through
// it, in session mode. PowerDNS's API connects to the database anew for
// every request; a PostgreSQL connection forks a backend, which took 35 to
// 160 ms here (0.8 ms through PgBouncer), and made a test run on gpgsql
// three times as long as on gsqlite3. Sessions are what PowerDNS would get
// from PostgreSQL itself: each holds a server connection of its own, reset
// (DISCARD ALL) before the next one gets it.
type postgres struct {
	// host and port are where pdns_server reaches it: PgBouncer's port
	// where it runs, else PostgreSQL's.
	host string
	port int
	// network is the Docker network a frontend container joins to reach
	// it; empty for the process provider.
	network string
	// psql runs an SQL script as the superuser in database db, straight
	// to PostgreSQL, or through PgBouncer when pooled.
	psql func(ctx context.Context, db string, script []byte, pooled bool) error
	// pool starts PgBouncer, where there is one, and points port at it.
	pool func(ctx context.Context) (bool, error)
	// pooled: PgBouncer runs.
	pooled bool
	// bounce stops PostgreSQL (and PgBouncer where it runs) with a fast
	// shutdown and starts them again, on the same ports with the same
	// data; nil where that cannot be done (a shared container, whose
	// cluster is on a tmpfs).
	bounce func(ctx context.Context) error
	stop   func(ctx context.Context) error
	logs   func() string

	refs int
}

// The running PostgreSQL servers, by provider and source, each stopped when
// its last gpgsql server stops: shared servers (stopped by Main), servers of
// one test (Start) and servers of a command (Launch) alike.
var pgShared struct {
	mu      sync.Mutex
	running map[string]*postgres
}

// acquirePostgres returns the PostgreSQL of t, starting it on first use;
// release stops it once no server uses it any more. With own, it starts
// one that no other server uses, and that can be restarted.
func acquirePostgres(ctx context.Context, t Target, own bool) (pg *postgres, release func(context.Context) error, err error) {
	if t.Postgres == "" {
		return nil, nil, errors.New("gpgsql target without a PostgreSQL: set " + EnvPostgresImage + " or " + EnvPostgresRoot)
	}
	if own {
		if pg, err = startPostgres(ctx, t, true); err != nil {
			return nil, nil, err
		}
		var once sync.Once
		release = func(ctx context.Context) error {
			var err error
			once.Do(func() { err = pg.stop(ctx) })
			return err
		}
		return pg, release, nil
	}
	key := string(t.Provider) + " " + t.Postgres
	pgShared.mu.Lock()
	defer pgShared.mu.Unlock()
	pg = pgShared.running[key]
	if pg == nil {
		if pg, err = startPostgres(ctx, t, false); err != nil {
			return nil, nil, err
		}
		if pgShared.running == nil {
			pgShared.running = make(map[string]*postgres)
		}
		pgShared.running[key] = pg
	}
	pg.refs++
	var once sync.Once
	release = func(ctx context.Context) error {
		var err error
		once.Do(func() {
			pgShared.mu.Lock()
			defer pgShared.mu.Unlock()
			if pg.refs--; pg.refs == 0 {
				delete(pgShared.running, key)
				err = pg.stop(ctx)
			}
		})
		return err
	}
	return pg, release, nil
}

// startPostgres starts the PostgreSQL of t (a restartable one with own,
// see acquirePostgres) and waits until it, and PgBouncer where there is
// one, accept connections.
func startPostgres(ctx context.Context, t Target, own bool) (pg *postgres, err error) {
	began := time.Now()
	switch t.Provider {
	case Container:
		pg, err = startPostgresContainer(ctx, t.Postgres, own)
	default:
		pg, err = startPostgresProcess(ctx, t.Postgres)
	}
	verbosef("PostgreSQL %s started in %s", t.Postgres, time.Since(began).Round(time.Millisecond))
	if err == nil {
		err = pg.waitReady(ctx, false)
	}
	if err == nil && pg.pool != nil && os.Getenv(EnvPGBouncer) != "off" {
		pg.pooled, err = pg.pool(ctx)
		if pg.pooled && err == nil {
			err = pg.waitReady(ctx, true)
		}
		verbosef("PostgreSQL %s: PgBouncer: %t", t.Postgres, pg.pooled)
	}
	if err != nil {
		if pg != nil {
			if logs := pg.logs(); logs != "" {
				err = fmt.Errorf("%w\nPostgreSQL output:\n%s", err, tail(logs, 40))
			}
			_ = pg.stop(context.WithoutCancel(ctx))
		}
		return nil, fmt.Errorf("start PostgreSQL %s: %w", t.Postgres, err)
	}
	verbosef("PostgreSQL %s ready in %s", t.Postgres, time.Since(began).Round(time.Millisecond))
	return pg, nil
}

// restart stops PostgreSQL, and PgBouncer where it runs, with a fast
// shutdown, starts them again on their ports with the cluster's data, and
// waits until they accept connections (sqlServer).
func (pg *postgres) restart(ctx context.Context) error {
	if pg.bounce == nil {
		return errors.New("PostgreSQL cannot be restarted")
	}
	if err := pg.bounce(ctx); err != nil {
		return fmt.Errorf("restart PostgreSQL: %w", err)
	}
	if err := pg.waitReady(ctx, false); err != nil {
		return err
	}
	if pg.pooled {
		return pg.waitReady(ctx, true)
	}
	return nil
}

// address is where frontends reach PostgreSQL (sqlServer).
func (pg *postgres) address() (host string, port int, network string) {
	return pg.host, pg.port, pg.network
}

// waitReady runs a trivial query until PostgreSQL (or PgBouncer) answers.
func (pg *postgres) waitReady(ctx context.Context, pooled bool) error {
	var lastErr error
	for {
		attempt, cancel := context.WithTimeout(ctx, 5*time.Second)
		lastErr = pg.psql(attempt, "postgres", []byte("SELECT 1;\n"), pooled)
		cancel()
		if lastErr == nil {
			return nil
		}
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return fmt.Errorf("wait for PostgreSQL: %w (last: %w)", err, lastErr)
		}
	}
}

// dbName is what createDatabase accepts: a name that needs no quoting.
var dbName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// createDatabase creates database name and loads schema into it, with one
// psql: each costs a round trip to the Docker engine.
func (pg *postgres) createDatabase(ctx context.Context, name string, schema []byte) error {
	if !dbName.MatchString(name) {
		return fmt.Errorf("database name %q", name)
	}
	script := append([]byte("CREATE DATABASE "+name+";\n\\connect "+name+"\n"), schema...)
	if err := pg.psql(ctx, "postgres", script, false); err != nil {
		return fmt.Errorf("create database %s with the gpgsql schema: %w", name, err)
	}
	return nil
}

// dropDatabase drops database name, closing the connections a killed
// pdns_server may have left.
func (pg *postgres) dropDatabase(ctx context.Context, name string) error {
	if !dbName.MatchString(name) {
		return fmt.Errorf("database name %q", name)
	}
	if err := pg.psql(ctx, "postgres", []byte("DROP DATABASE IF EXISTS "+name+" WITH (FORCE);\n"), false); err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	return nil
}

// psqlArgs are the arguments of psql running script file as the
// superuser in database db over TCP: quiet, stopping at the first error.
func psqlArgs(port int, db, file string) []string {
	return []string{"-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", fmt.Sprint(port),
		"-U", "postgres", "-d", db, "-f", file}
}

// pgServerArgs are PostgreSQL settings for a throwaway test database: no
// durability (a test database that a crash loses costs nothing), room for
// every frontend's connections.
func pgServerArgs() []string {
	return []string{
		"-c", "fsync=off",
		"-c", "synchronous_commit=off",
		"-c", "full_page_writes=off",
		"-c", fmt.Sprintf("max_connections=%d", maxPGConnections),
	}
}

// pgbouncerPath is PgBouncer in a Debian image or root.
const pgbouncerPath = "/usr/sbin/pgbouncer"

// pgbouncerConfig is PgBouncer's configuration: listen on addr:port, pool
// sessions of any database to PostgreSQL on 127.0.0.1:pgPort as the
// superuser, without authentication (a throwaway test database), logging
// to logfile ("" for standard error).
func pgbouncerConfig(addr string, port, pgPort int, logfile, pidfile string) []byte {
	return []byte(fmt.Sprintf(`[databases]
* = host=127.0.0.1 port=%d user=postgres

[pgbouncer]
listen_addr = %s
listen_port = %d
unix_socket_dir =
auth_type = any
pool_mode = session
server_reset_query = DISCARD ALL
max_client_conn = 2000
default_pool_size = 30
logfile = %s
pidfile = %s
log_connections = 0
log_disconnections = 0
`, pgPort, addr, port, logfile, pidfile))
}

// verbosef prints a line of the harness's progress when PDNS_TEST_VERBOSE
// is set.
func verbosef(format string, args ...any) {
	if os.Getenv("PDNS_TEST_VERBOSE") != "" {
		fmt.Fprintf(os.Stderr, "pdnstest: "+format+"\n", args...)
	}
}
