package pdnstest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Environment variables that configure the test matrix.
const (
	// EnvProvider selects how servers run: auto (default), container or
	// process. auto uses containers when a Docker engine answers, else
	// local pdns_server processes.
	EnvProvider = "PDNS_TEST_PROVIDER"
	// EnvImages lists the images run with gsqlite3 (comma-separated);
	// "none" for none.
	EnvImages = "PDNS_TEST_IMAGES"
	// EnvLMDBImages lists the images also run with LMDB; "none" for none.
	EnvLMDBImages = "PDNS_TEST_LMDB_IMAGES"
	// EnvRoots lists the Debian roots (or "host") run with gsqlite3 by the
	// process provider; "none" for none.
	EnvRoots = "PDNS_TEST_ROOTS"
	// EnvLMDBRoots lists the Debian roots (or "host") also run with LMDB;
	// "none" for none.
	EnvLMDBRoots = "PDNS_TEST_LMDB_ROOTS"
	// EnvGPGSQLImages lists the images also run with gpgsql, two frontends
	// on one PostgreSQL database behind a round-robin; "none" for none.
	EnvGPGSQLImages = "PDNS_TEST_GPGSQL_IMAGES"
	// EnvGPGSQLRoots lists the Debian roots (or "host") also run with
	// gpgsql by the process provider; "none" for none.
	EnvGPGSQLRoots = "PDNS_TEST_GPGSQL_ROOTS"
	// EnvPostgresImage is the PostgreSQL image of the gpgsql servers
	// (LocalPostgresImage by default).
	EnvPostgresImage = "PDNS_TEST_POSTGRES_IMAGE"
	// EnvPostgresRoot is the Debian root holding the PostgreSQL that the
	// process provider runs for the gpgsql servers, or "host" for the
	// host's /usr/lib/postgresql/*/bin; by default the root images/build.sh
	// makes, else the host's.
	EnvPostgresRoot = "PDNS_TEST_POSTGRES_ROOT"
	// EnvGMySQLImages lists the images also run with gmysql, two frontends
	// on one MariaDB database behind a round-robin; "none" for none.
	EnvGMySQLImages = "PDNS_TEST_GMYSQL_IMAGES"
	// EnvGMySQLRoots lists the Debian roots (or "host") also run with
	// gmysql by the process provider; "none" for none.
	EnvGMySQLRoots = "PDNS_TEST_GMYSQL_ROOTS"
	// EnvMariaDBImage is the MariaDB image of the gmysql servers
	// (LocalMariaDBImage by default).
	EnvMariaDBImage = "PDNS_TEST_MARIADB_IMAGE"
	// EnvMariaDBRoot is the Debian root holding the MariaDB that the
	// process provider runs for the gmysql servers, or "host" for the
	// host's mariadbd; by default the root images/build.sh makes, else the
	// host's.
	EnvMariaDBRoot = "PDNS_TEST_MARIADB_ROOT"
	// EnvRequired, when "1", makes a missing PowerDNS a test failure
	// rather than a skip. CI sets it.
	EnvRequired = "PDNS_TEST_REQUIRED"
)

// ErrNoServer is returned when neither a Docker engine nor a pdns_server is
// available; tests skip on it unless PDNS_TEST_REQUIRED=1.
var ErrNoServer = errors.New("no PowerDNS available: run `make test` " +
	"(it builds local PowerDNS images or Debian roots), or install pdns-server, " +
	"pdns-backend-sqlite3 and sqlite3; set " + EnvRequired + "=1 to fail instead of skipping")

// Targets returns the configured test matrix, read from the environment.
func Targets() ([]Target, error) {
	provider, err := selectProvider()
	if err != nil {
		return nil, err
	}
	switch provider {
	case Container:
		return containerTargets(), nil
	default:
		return processTargets()
	}
}

func containerTargets() []Target {
	images := splitList(os.Getenv(EnvImages))
	lmdb := splitList(os.Getenv(EnvLMDBImages))
	gpgsql := splitList(os.Getenv(EnvGPGSQLImages))
	gmysql := splitList(os.Getenv(EnvGMySQLImages))
	_, imagesSet := os.LookupEnv(EnvImages)
	_, lmdbSet := os.LookupEnv(EnvLMDBImages)
	_, gpgsqlSet := os.LookupEnv(EnvGPGSQLImages)
	_, gmysqlSet := os.LookupEnv(EnvGMySQLImages)
	postgres, mariadb := postgresImage(), mariaDBImage()
	if !imagesSet {
		images = []string{DefaultImage49, DefaultImage51}
		if local := localImages(); local != nil {
			// No official image here, but those `make images` builds:
			// use them rather than try a pull that cannot succeed.
			images = local
		}
		// LMDB and gpgsql on 4.9 and 5.1, official or local alike.
		newer := images[len(images)-2:]
		if !lmdbSet {
			lmdb = newer
		}
		if !gpgsqlSet && imagePresentNow(postgres) {
			gpgsql = newer
		}
		// gmysql where the images have its backend: those build.sh made
		// before it installed pdns-backend-mysql do not.
		if !gmysqlSet && imagePresentNow(mariadb) {
			for _, img := range newer {
				if imageHasGMySQL(img) {
					gmysql = append(gmysql, img)
				}
			}
		}
	}
	return matrix(Container, databases{postgres, mariadb}, images, lmdb, gpgsql, gmysql)
}

// mariaDBImage is the MariaDB image gmysql targets run.
func mariaDBImage() string {
	if img := strings.TrimSpace(os.Getenv(EnvMariaDBImage)); img != "" {
		return img
	}
	return LocalMariaDBImage
}

// gmysqlImages remembers which images hold the gmysql schema (and so the
// backend), as Targets runs for every Start.
var gmysqlImages sync.Map

// imageHasGMySQL reports whether image holds the schema of the gmysql
// backend, which comes with it.
func imageHasGMySQL(image string) bool {
	if v, ok := gmysqlImages.Load(image); ok {
		return v.(bool)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := imageFile(ctx, image, mySchemaPaths)
	gmysqlImages.Store(image, err == nil)
	return err == nil
}

// postgresImage is the PostgreSQL image gpgsql targets run.
func postgresImage() string {
	if img := strings.TrimSpace(os.Getenv(EnvPostgresImage)); img != "" {
		return img
	}
	return LocalPostgresImage
}

func imagePresentNow(image string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return imagePresent(ctx, image)
}

// localImages returns pdnskit/pdns-auth:{4.7,4.9,5.1} when all of them and
// none of the default official images are present in the Docker engine.
func localImages() []string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, img := range []string{DefaultImage49, DefaultImage51} {
		if imagePresent(ctx, img) {
			return nil
		}
	}
	local := []string{LocalImageRepo + ":4.7", LocalImageRepo + ":4.9", LocalImageRepo + ":5.1"}
	for _, img := range local {
		if !imagePresent(ctx, img) {
			return nil
		}
	}
	return local
}

func processTargets() ([]Target, error) {
	roots := splitList(os.Getenv(EnvRoots))
	lmdb := splitList(os.Getenv(EnvLMDBRoots))
	gpgsql := splitList(os.Getenv(EnvGPGSQLRoots))
	gmysql := splitList(os.Getenv(EnvGMySQLRoots))
	_, lmdbSet := os.LookupEnv(EnvLMDBRoots)
	_, gpgsqlSet := os.LookupEnv(EnvGPGSQLRoots)
	_, gmysqlSet := os.LookupEnv(EnvGMySQLRoots)
	postgres, mariadb := postgresRoot(), mariaDBRoot()
	if len(roots) == 0 {
		found := builtRoots()
		switch {
		case len(found) > 0:
			roots = found
			// As in the container matrix: LMDB and gpgsql on 4.9 and 5.1.
			for _, r := range found {
				if filepath.Base(r) == "4.7" {
					continue
				}
				if !lmdbSet {
					lmdb = append(lmdb, r)
				}
				if !gpgsqlSet && postgres != "" && rootHasGPGSQL(r) {
					gpgsql = append(gpgsql, r)
				}
				if !gmysqlSet && mariadb != "" && rootHasGMySQL(r) {
					gmysql = append(gmysql, r)
				}
			}
		case hostPDNS() != "":
			roots = []string{HostRoot}
			if !lmdbSet && hostHasLMDB() {
				lmdb = []string{HostRoot}
			}
			if !gpgsqlSet && postgres != "" && rootHasGPGSQL(HostRoot) {
				gpgsql = []string{HostRoot}
			}
			if !gmysqlSet && mariadb != "" && rootHasGMySQL(HostRoot) {
				gmysql = []string{HostRoot}
			}
		default:
			return nil, ErrNoServer
		}
	}
	return matrix(Process, databases{postgres, mariadb}, roots, lmdb, gpgsql, gmysql), nil
}

// databases are where the databases of the SQL targets come from: images
// or Debian roots, by provider.
type databases struct{ postgres, mariadb string }

func matrix(p Provider, dbs databases, sqlite, lmdb, gpgsql, gmysql []string) []Target {
	var out []Target
	add := func(src string, b Backend) {
		t := Target{Provider: p, Backend: b}
		if p == Container {
			t.Image = src
		} else {
			t.Root = src
		}
		switch b {
		case GPGSQL:
			t.Postgres = dbs.postgres
		case GMySQL:
			t.MariaDB = dbs.mariadb
		}
		out = append(out, t)
	}
	// "none" names no server: PDNS_TEST_ROOTS=none runs no integration test.
	for _, s := range sqlite {
		if s != "none" {
			add(s, GSQLite3)
		}
	}
	for _, s := range lmdb {
		if s != "none" {
			add(s, LMDB)
		}
	}
	for _, s := range gpgsql {
		if s != "none" {
			add(s, GPGSQL)
		}
	}
	for _, s := range gmysql {
		if s != "none" {
			add(s, GMySQL)
		}
	}
	return out
}

// builtRoots lists the Debian roots made by images/build.sh, oldest
// version first.
func builtRoots() []string {
	dir := defaultRootsDir()
	var out []string
	for _, v := range []string{"4.7", "4.9", "5.1"} {
		root := filepath.Join(dir, v)
		if _, err := os.Stat(filepath.Join(root, "usr/sbin/pdns_server")); err == nil {
			out = append(out, root)
		}
	}
	return out
}

func hostPDNS() string {
	if p, err := exec.LookPath("pdns_server"); err == nil {
		return p
	}
	for _, p := range []string{"/usr/sbin/pdns_server", "/usr/local/sbin/pdns_server"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

func hostHasLMDB() bool {
	matches, _ := filepath.Glob("/usr/lib/*/pdns/liblmdbbackend.so")
	return len(matches) > 0
}

// rootHasGPGSQL reports whether a Debian root (or the host) has the gpgsql
// backend and the schema its database needs.
func rootHasGPGSQL(root string) bool {
	prefix := root
	if root == HostRoot {
		prefix = "/"
	}
	libs, _ := filepath.Glob(filepath.Join(prefix, "usr/lib/*/pdns/libgpgsqlbackend.so"))
	_, err := findPGSchema(prefix)
	return len(libs) > 0 && err == nil
}

// rootHasGMySQL reports whether a Debian root (or the host) has the gmysql
// backend and the schema its database needs.
func rootHasGMySQL(root string) bool {
	prefix := root
	if root == HostRoot {
		prefix = "/"
	}
	libs, _ := filepath.Glob(filepath.Join(prefix, "usr/lib/*/pdns/libgmysqlbackend.so"))
	_, err := findMySchema(prefix)
	return len(libs) > 0 && err == nil
}

var (
	providerOnce   sync.Once
	providerResult Provider
	providerErr    error
)

// selectProvider reads EnvProvider once; for auto it asks the Docker engine.
func selectProvider() (Provider, error) {
	providerOnce.Do(func() {
		switch v := strings.ToLower(strings.TrimSpace(os.Getenv(EnvProvider))); v {
		case "", "auto":
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if dockerAnswers(ctx) {
				providerResult = Container
			} else {
				providerResult = Process
			}
		case string(Container):
			providerResult = Container
		case string(Process):
			providerResult = Process
		default:
			providerErr = fmt.Errorf("%s=%q: want auto, container or process", EnvProvider, v)
		}
	})
	return providerResult, providerErr
}
