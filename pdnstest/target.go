package pdnstest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Backend is the PowerDNS storage backend a test server runs with.
type Backend string

const (
	// GSQLite3 is the sqlite backend, the default of the official images.
	GSQLite3 Backend = "gsqlite3"
	// LMDB is the LMDB backend. It differs from gsqlite3 in what it keeps:
	// on 4.x it refuses RRset comments, from 5.1 it keeps them.
	LMDB Backend = "lmdb"
	// GPGSQL is the PostgreSQL backend, run as it is deployed at scale: two
	// pdns_server frontends on one database, behind a round-robin that
	// sends consecutive API requests to alternate frontends (Server.URL),
	// each frontend with its own caches and DNS port (Server.Frontends).
	GPGSQL Backend = "gpgsql"
	// GMySQL is the MySQL backend, run as GPGSQL is: two pdns_server
	// frontends on one MariaDB database behind a round-robin.
	GMySQL Backend = "gmysql"
)

// Provider is the way a server is run.
type Provider string

const (
	// Container runs an image (official or locally built) through
	// testcontainers-go.
	Container Provider = "container"
	// Process runs pdns_server as a local process: from PATH, or inside a
	// Debian root with chroot.
	Process Provider = "process"
)

// Default official images, at pinned published tags. Where no registry can be
// reached, `make images` builds pdnskit/pdns-auth:{4.7,4.9,5.1} instead and
// `make test` points PDNS_TEST_IMAGES at them.
const (
	DefaultImage49 = "powerdns/pdns-auth-49:4.9.17"
	DefaultImage51 = "powerdns/pdns-auth-51:5.1.4"
)

// LocalImageRepo is where pdnstest/images/build.sh puts the images
// it builds from Debian's packages.
const LocalImageRepo = "pdnskit/pdns-auth"

// LocalPostgresImage is the PostgreSQL image pdnstest/images/build.sh builds
// from Debian's packages, the default database of gpgsql targets.
const LocalPostgresImage = "pdnskit/postgres:15"

// LocalMariaDBImage is the MariaDB image pdnstest/images/build.sh builds
// from Debian's packages, the default database of gmysql targets.
const LocalMariaDBImage = "pdnskit/mariadb:10.11"

// HostRoot is the root that, in PDNS_TEST_ROOTS, means the pdns_server on PATH.
const HostRoot = "host"

// Target is one server configuration of the test matrix: what to run
// (an image or a Debian root) and with which backend.
type Target struct {
	Provider Provider
	// Image is the container image, for the container provider.
	Image string
	// Root is a Debian root holding pdns_server, or HostRoot, for the
	// process provider.
	Root    string
	Backend Backend
	// Postgres is where the PostgreSQL of a GPGSQL target comes from: an
	// image for the container provider, a Debian root (or HostRoot) for
	// the process provider. The gpgsql servers of a test binary with the
	// same Postgres share one PostgreSQL, each with a database of its own.
	Postgres string
	// MariaDB is where the MariaDB of a GMySQL target comes from, as
	// Postgres is for GPGSQL: an image or a Debian root (or HostRoot).
	MariaDB string
}

// String names the target before its server reports a version.
func (t Target) String() string {
	src := t.Image
	if t.Provider == Process {
		src = t.Root
	}
	switch t.Backend {
	case GPGSQL:
		return fmt.Sprintf("%s %s (%s on %s)", t.Provider, src, t.Backend, t.Postgres)
	case GMySQL:
		return fmt.Sprintf("%s %s (%s on %s)", t.Provider, src, t.Backend, t.MariaDB)
	}
	return fmt.Sprintf("%s %s (%s)", t.Provider, src, t.Backend)
}

// defaultRootsDir is where pdnstest/images/build.sh keeps its
// Debian roots.
func defaultRootsDir() string {
	if d := os.Getenv("PDNS_ROOTS_DIR"); d != "" {
		return d
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(cache, "pdnskit", "roots")
}

// splitList splits a comma-separated environment value, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
