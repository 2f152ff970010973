package pdnstest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// mySchemaPaths are where the schema of PowerDNS's gmysql backend may be,
// relative to a Debian root or inside an image: where images/build.sh keeps
// it, then Debian's own paths, then the official images'.
var mySchemaPaths = []string{
	"usr/share/pdnskit/schema.mysql.sql",
	"usr/share/pdns-backend-mysql/schema/schema.mysql.sql",
	"usr/share/doc/pdns-backend-mysql/schema.mysql.sql",
	"usr/local/share/doc/pdns/schema.mysql.sql",
}

// findMySchema returns the path of the gmysql schema under root ("/" for the
// host), relative to root.
func findMySchema(root string) (string, error) {
	for _, p := range mySchemaPaths {
		if _, err := os.Stat(filepath.Join(root, p)); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no gmysql schema under %s (install pdns-backend-mysql, or rebuild the root with `make images`)", root)
}

// mySchemaOf reads the gmysql schema of t's PowerDNS: from its image, or
// from its Debian root (or the host). Each version's own: the columns and
// their character sets differ between versions.
func mySchemaOf(ctx context.Context, t Target) ([]byte, error) {
	if t.Provider == Container {
		return imageFile(ctx, t.Image, mySchemaPaths)
	}
	root := t.Root
	if root == HostRoot {
		root = "/"
	}
	p, err := findMySchema(root)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(filepath.Join(root, p))
}

// maxMyConnections is MariaDB's max_connections for the shared server. A
// pdns_server holds a few connections when idle and opens one more for
// each API request in flight (each request connects anew), and every gmysql
// server of a test binary uses this one MariaDB. A MariaDB connection is a
// thread, not a process: many cost little.
const maxMyConnections = 1000

// mariaDBServerArgs are the settings the harness adds to its MariaDB's
// (see images/mariadb-start for the others).
func mariaDBServerArgs() []string {
	return []string{"--max-connections=" + strconv.Itoa(maxMyConnections)}
}

// mariaDB is a running MariaDB that the gmysql servers of a test binary
// share, each with a database of its own. It lets every user in without a
// password (--skip-grant-tables): a throwaway test database.
type mariaDB struct {
	// host and port are where pdns_server reaches it.
	host string
	port int
	// network is the Docker network a frontend container joins to reach
	// it; empty for the process provider.
	network string
	// sql runs an SQL script with the mariadb client, stopping at the
	// first error.
	sql func(ctx context.Context, script []byte) error
	// bounce shuts MariaDB down (SIGTERM: it rolls back what is in flight
	// and flushes what was committed) and starts it again, on the same
	// port with the same data; nil where that cannot be done (a shared
	// container, whose data is on a tmpfs).
	bounce func(ctx context.Context) error
	stop   func(ctx context.Context) error
	logs   func() string

	refs int
}

// The running MariaDB servers, by provider and source, each stopped when
// its last gmysql server stops, as pgShared.
var myShared struct {
	mu      sync.Mutex
	running map[string]*mariaDB
}

// acquireMariaDB returns the MariaDB of t, starting it on first use;
// release stops it once no server uses it any more. With own, it starts
// one that no other server uses, and that can be restarted.
func acquireMariaDB(ctx context.Context, t Target, own bool) (my *mariaDB, release func(context.Context) error, err error) {
	if t.MariaDB == "" {
		return nil, nil, errors.New("gmysql target without a MariaDB: set " + EnvMariaDBImage + " or " + EnvMariaDBRoot)
	}
	if own {
		if my, err = startMariaDB(ctx, t, true); err != nil {
			return nil, nil, err
		}
		var once sync.Once
		release = func(ctx context.Context) error {
			var err error
			once.Do(func() { err = my.stop(ctx) })
			return err
		}
		return my, release, nil
	}
	key := string(t.Provider) + " " + t.MariaDB
	myShared.mu.Lock()
	defer myShared.mu.Unlock()
	my = myShared.running[key]
	if my == nil {
		if my, err = startMariaDB(ctx, t, false); err != nil {
			return nil, nil, err
		}
		if myShared.running == nil {
			myShared.running = make(map[string]*mariaDB)
		}
		myShared.running[key] = my
	}
	my.refs++
	var once sync.Once
	release = func(ctx context.Context) error {
		var err error
		once.Do(func() {
			myShared.mu.Lock()
			defer myShared.mu.Unlock()
			if my.refs--; my.refs == 0 {
				delete(myShared.running, key)
				err = my.stop(ctx)
			}
		})
		return err
	}
	return my, release, nil
}

// startMariaDB starts the MariaDB of t (a restartable one with own, see
// acquireMariaDB) and waits until it accepts connections.
func startMariaDB(ctx context.Context, t Target, own bool) (my *mariaDB, err error) {
	began := time.Now()
	switch t.Provider {
	case Container:
		my, err = startMariaDBContainer(ctx, t.MariaDB, own)
	default:
		my, err = startMariaDBProcess(ctx, t.MariaDB)
	}
	if err == nil {
		err = my.waitReady(ctx)
	}
	if err != nil {
		if my != nil {
			if logs := my.logs(); logs != "" {
				err = fmt.Errorf("%w\nMariaDB output:\n%s", err, tail(logs, 40))
			}
			_ = my.stop(context.WithoutCancel(ctx))
		}
		return nil, fmt.Errorf("start MariaDB %s: %w", t.MariaDB, err)
	}
	verbosef("MariaDB %s ready in %s", t.MariaDB, time.Since(began).Round(time.Millisecond))
	return my, nil
}

// restart shuts MariaDB down, starts it again on its port with its data,
// and waits until it accepts connections (sqlServer).
func (my *mariaDB) restart(ctx context.Context) error {
	if my.bounce == nil {
		return errors.New("MariaDB cannot be restarted")
	}
	if err := my.bounce(ctx); err != nil {
		return fmt.Errorf("restart MariaDB: %w", err)
	}
	return my.waitReady(ctx)
}

// address is where frontends reach MariaDB (sqlServer).
func (my *mariaDB) address() (host string, port int, network string) {
	return my.host, my.port, my.network
}

// waitReady runs a trivial query until MariaDB answers.
func (my *mariaDB) waitReady(ctx context.Context) error {
	var lastErr error
	for {
		attempt, cancel := context.WithTimeout(ctx, 5*time.Second)
		lastErr = my.sql(attempt, []byte("SELECT 1;\n"))
		cancel()
		if lastErr == nil {
			return nil
		}
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return fmt.Errorf("wait for MariaDB: %w (last: %w)", err, lastErr)
		}
	}
}

// createDatabase creates database name and loads schema into it, with one
// run of the client.
func (my *mariaDB) createDatabase(ctx context.Context, name string, schema []byte) error {
	if !dbName.MatchString(name) {
		return fmt.Errorf("database name %q", name)
	}
	script := append([]byte("CREATE DATABASE "+name+";\nUSE "+name+";\n"), schema...)
	if err := my.sql(ctx, script); err != nil {
		return fmt.Errorf("create database %s with the gmysql schema: %w", name, err)
	}
	return nil
}

// dropDatabase drops database name.
func (my *mariaDB) dropDatabase(ctx context.Context, name string) error {
	if !dbName.MatchString(name) {
		return fmt.Errorf("database name %q", name)
	}
	if err := my.sql(ctx, []byte("DROP DATABASE IF EXISTS "+name+";\n")); err != nil {
		return fmt.Errorf("drop database %s: %w", name, err)
	}
	return nil
}

// mariaDBClient is the shell command that runs the SQL script file $0 with
// the mariadb client as root over TCP to port: batch mode stops at the
// first error.
func mariaDBClient(port int) []string {
	return []string{"sh", "-c", `exec mariadb --no-defaults --protocol=tcp -h 127.0.0.1 -P ` + strconv.Itoa(port) +
		` -u root --batch --silent < "$0"`}
}
