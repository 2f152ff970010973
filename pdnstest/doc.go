// Package pdnstest starts real PowerDNS Authoritative servers for tests: in
// containers through testcontainers-go where a Docker engine answers, or as
// local pdns_server processes (from PATH or inside a Debian root, run with
// chroot) where it does not. There is no mock server.
//
// Every integration test runs against every configured server (ForEachServer);
// tests are isolated by zone (NewZone). A server runs one of four backends:
// gsqlite3, LMDB, gpgsql or gmysql; the last two are run as PowerDNS is
// deployed at scale: two pdns_server frontends on one PostgreSQL or MariaDB
// database behind a round-robin that sends consecutive API requests to
// alternate frontends (Server.URL), each frontend with its own API, DNS port
// and caches (Server.Frontends). The gpgsql servers of a test binary share
// one PostgreSQL, the gmysql servers one MariaDB, each server with a
// database of its own holding its PowerDNS version's schema.
//
// # Using it
//
// A package whose tests need PowerDNS calls Main from TestMain, and its
// tests ask for servers:
//
//	func TestMain(m *testing.M) { pdnstest.Main(m) }
//
//	func TestSync(t *testing.T) {
//		pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
//			t.Parallel()
//			zone := srv.NewZone(t)
//			// ... talk to srv.URL with srv.APIKey
//		})
//	}
//
// Servers, ForEachServer and SharedServer give the shared servers: one per
// configured target, started on the first request of a test binary and
// stopped by Main when its tests end. Start gives one test a server of its
// own, stopped when the test ends: for a test that kills or restarts it
// (Server.Kill, Server.Restart) or runs it with other arguments (WithArgs).
// A gpgsql or gmysql server started WithOwnDatabase has a PostgreSQL or
// MariaDB of its own too, which a test can restart under it
// (Server.RestartDatabase).
//
// Importing the package configures nothing. The first time the harness
// talks to a Docker engine it disables testcontainers-go's Ryuk reaper
// (TESTCONTAINERS_RYUK_DISABLED=true, unless the variable is set: the
// harness removes its own containers, also those a killed test binary
// left) and silences testcontainers-go's logger (unless PDNS_TEST_VERBOSE
// is set).
//
// # Under go test -short
//
// No server is started: Servers, ForEachServer and Start skip the test with
// the reason, SharedServer returns it, and Main skips the examples that
// need a server (named with the suffix "_powerDNS") and says so. A package
// of integration tests then runs its other tests in seconds.
//
// # One set of servers for a whole run
//
// Each test binary starts its own shared servers, and go test ./... runs a
// test binary per package. To start them once for all of them, run go test
// under the pdnstest command (github.com/pdnskit/reconcile/pdnstest/cmd/pdnstest):
//
//	go run github.com/pdnskit/reconcile/pdnstest/cmd/pdnstest -- go test ./...
//
// It starts one server per configured target (LaunchAll), writes how to
// reach them to a file readable by its owner only (WriteServers), runs the
// command with EnvServers naming that file, and stops the servers when the
// command ends, also when it is interrupted. A test binary that finds
// EnvServers set uses those servers instead of starting its own (with a
// round-robin of its own in front of a gpgsql or gmysql server's frontends,
// so that its consecutive requests alternate whatever the others send), and Main
// leaves them running; a server so shared refuses Kill and Restart, and
// Start still starts a server of the test's own from the variables below.
// Test binaries that run at once share the servers: tests stay isolated by
// zone, and NewZone's names carry 64 random bits, so that zones from
// different binaries do not meet. Two kinds of server are the exception,
// and each binary runs one of its own, as without EnvServers: gsqlite3
// before 4.8, which answers 500 ('database is locked') to writes that
// several binaries send at once, and LMDB, which hands a deleted zone's
// RRset comments to the next zone that gets its id, whichever binary
// created it. Nor do they share load: a package
// whose tests judge timing, or PowerDNS's answers under its own load, can
// unset EnvServers in its TestMain before Main to run on servers of its own.
//
// # Variables
//
// The test matrix is read from the environment (Targets):
//
//   - PDNS_TEST_PROVIDER (EnvProvider): auto (containers when a Docker
//     engine answers, else processes), container or process.
//   - PDNS_TEST_IMAGES, PDNS_TEST_LMDB_IMAGES, PDNS_TEST_GPGSQL_IMAGES
//     (EnvImages, EnvLMDBImages, EnvGPGSQLImages): the images run with
//     gsqlite3, LMDB and gpgsql, comma-separated, "none" for none. By
//     default the official images DefaultImage49 and DefaultImage51, or
//     LocalImageRepo's 4.7, 4.9 and 5.1 where those are present instead;
//     LMDB and gpgsql on the two newest, gpgsql where its PostgreSQL image
//     is present.
//   - PDNS_TEST_ROOTS, PDNS_TEST_LMDB_ROOTS, PDNS_TEST_GPGSQL_ROOTS
//     (EnvRoots, EnvLMDBRoots, EnvGPGSQLRoots): the Debian roots (or
//     HostRoot, "host") the process provider runs with gsqlite3, LMDB and
//     gpgsql.
//   - PDNS_TEST_POSTGRES_IMAGE, PDNS_TEST_POSTGRES_ROOT (EnvPostgresImage,
//     EnvPostgresRoot): the PostgreSQL of the gpgsql servers, an image
//     (LocalPostgresImage by default) or a Debian root (or "host").
//   - PDNS_TEST_GMYSQL_IMAGES, PDNS_TEST_GMYSQL_ROOTS (EnvGMySQLImages,
//     EnvGMySQLRoots): the images and the Debian roots (or "host") also
//     run with gmysql. By default, as for gpgsql, the two newest images
//     that have the gmysql backend where the MariaDB image is present, and
//     the built roots that have it where a MariaDB is found.
//   - PDNS_TEST_MARIADB_IMAGE, PDNS_TEST_MARIADB_ROOT (EnvMariaDBImage,
//     EnvMariaDBRoot): the MariaDB of the gmysql servers, an image
//     (LocalMariaDBImage by default) or a Debian root (or "host").
//   - PDNS_TEST_PGBOUNCER=off (EnvPGBouncer): gpgsql frontends connect
//     straight to PostgreSQL rather than through the PgBouncer of its image
//     or root.
//   - PDNS_TEST_REQUIRED=1 (EnvRequired): a missing PowerDNS fails the test
//     instead of skipping it.
//   - PDNS_TEST_SERVERS (EnvServers): the file of running servers that every
//     test binary shares (see above).
//   - PDNS_ROOTS_DIR: where the Debian roots that the images' build script
//     makes are kept, and where the process provider looks for them
//     (~/.cache/pdnskit/roots by default).
//   - PDNS_TEST_VERBOSE: the harness and testcontainers-go say what they do
//     on standard error.
package pdnstest
