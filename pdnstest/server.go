package pdnstest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/joeig/go-powerdns/v3"
	"github.com/miekg/dns"
)

// DefaultStartTimeout bounds how long a server may take to answer on both its
// API and its DNS port.
const DefaultStartTimeout = 90 * time.Second

// APIKeyPrefix starts the API key of every server the harness runs, so that
// a key that leaks into anything a test prints can be found by looking for
// it (make test does).
const APIKeyPrefix = "pdnstest-key-"

// Server is a running PowerDNS Authoritative.
type Server struct {
	Target Target
	// URL is the API base URL, e.g. http://127.0.0.1:32771.
	URL    string
	APIKey string
	// DNSAddr is host:port of the DNS service, on both UDP and TCP.
	DNSAddr string
	// Version is the version the server reports in
	// GET /api/v1/servers/localhost, e.g. "4.9.18".
	Version string
	Backend Backend
	// Client is a go-powerdns client for the server, with the API key set.
	Client *powerdns.Client
	// Frontends are the pdns_server instances of a server that runs
	// several on one database (GPGSQL, GMySQL), each with its own API, DNS port
	// and caches. URL is then a round-robin that sends consecutive requests
	// to alternate frontends, and DNSAddr the first frontend's. Nil for a
	// server of one instance.
	Frontends []Frontend

	stop func(context.Context) error
	logs func() string
	// kill stops the server at once, keeping its data; revive starts it
	// again on the same ports.
	kill, revive func(context.Context) error
	// endpoints are where the server may be reached; waitReady keeps the
	// first that answers. There is more than one when a container's mapped
	// ports may be on the reported Docker host or on loopback.
	endpoints []endpoint
	// db is the database of a gpgsql or gmysql frontend.
	db *database
	// restartDB restarts the database server of a gpgsql or gmysql server
	// that has one of its own (WithOwnDatabase).
	restartDB func(context.Context) error
}

type endpoint struct{ url, dnsAddr string }

// Name identifies the server in test names and logs, from what it reports:
// e.g. "pdns-5.1.5-lmdb".
func (s *Server) Name() string {
	return "pdns-" + s.Version + "-" + string(s.Backend)
}

// AtLeast reports whether the server's version is at least major.minor.
func (s *Server) AtLeast(major, minor int) bool {
	maj, mnr := parseVersion(s.Version)
	return maj > major || (maj == major && mnr >= minor)
}

// Logs returns what the server has printed so far, for failure reports.
func (s *Server) Logs() string {
	if s.logs == nil {
		return ""
	}
	return s.logs()
}

// Stop stops the server. A shared server is stopped by Main; a server from
// Start is stopped by its test's cleanup.
func (s *Server) Stop(ctx context.Context) error {
	if s.stop == nil {
		return nil
	}
	stop := s.stop
	s.stop = nil
	return stop(ctx)
}

// Kill stops the server abruptly, keeping its data and ports, so a test can
// see what a client does when PowerDNS goes away in the middle of a
// request. A process gets SIGKILL, a container a stop without grace.
// A server with Frontends loses all of them at once; its database and its
// round-robin stay, and the round-robin answers 502 Bad Gateway until
// Restart.
func (s *Server) Kill(ctx context.Context) error {
	if s.kill == nil {
		return errors.New("pdnstest: server cannot be killed")
	}
	return s.kill(ctx)
}

// Restart starts a killed server again, on the same address with the same
// data, and waits until it answers.
func (s *Server) Restart(ctx context.Context) error {
	if s.revive == nil {
		return errors.New("pdnstest: server cannot be restarted")
	}
	// The server comes back on its old port, which the kernel or Docker's
	// proxy may not have let go of yet (or a short-lived socket holds):
	// "address already in use" is worth a few more tries.
	var err error
	for try := 0; ; try++ {
		if err = s.revive(ctx); err == nil || try == 9 || !strings.Contains(err.Error(), "address already in use") {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("pdnstest: restart %s: %w", s.Name(), err)
		case <-time.After(500 * time.Millisecond):
		}
	}
	if err != nil {
		return fmt.Errorf("pdnstest: restart %s: %w", s.Name(), err)
	}
	s.endpoints = []endpoint{{url: s.URL, dnsAddr: s.DNSAddr}}
	return s.waitReady(ctx)
}

// RestartDatabase restarts the database server of a gpgsql or gmysql
// server started WithOwnDatabase: PostgreSQL (with the PgBouncer in front
// of it, where it runs) or MariaDB is stopped and started again with its
// data, where its frontends reach it, and RestartDatabase returns once it
// accepts connections again. The frontends and the round-robin stay; what
// they answer while the database is away is PowerDNS's to say.
//
// The database is shut down cleanly but without waiting for its clients,
// as a database is restarted for maintenance or a failover: PostgreSQL's
// fast shutdown (SIGINT), MariaDB's SIGTERM. Every connection is cut and
// every transaction in flight rolled back, and every committed one is
// kept. An abrupt stop (SIGKILL) could lose committed transactions, as the
// harness runs its databases without durability (fsync off, InnoDB
// flushing its log once a second): a test of a client would then find
// writes gone that PowerDNS had reported done, which no client can guard
// against.
//
// A container is stopped and started again, keeping its name on its
// network (its IP address may change; the frontends connect by name); a
// process is stopped and started again on its port. A server that shares
// its database server with others (started without WithOwnDatabase, or
// shared by a test run) returns an error, as does a server without one.
func (s *Server) RestartDatabase(ctx context.Context) error {
	if s.restartDB == nil {
		if _, sql := sqlBackends[s.Backend]; !sql {
			return fmt.Errorf("pdnstest: %s has no database server to restart", s.Name())
		}
		return fmt.Errorf("pdnstest: %s shares its database server with other servers, which a restart "+
			"would fail: start one for the test with Start and WithOwnDatabase", s.Name())
	}
	if err := s.restartDB(ctx); err != nil {
		return fmt.Errorf("pdnstest: restart the database of %s: %w", s.Name(), err)
	}
	return nil
}

func parseVersion(v string) (major, minor int) {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return 0, 0
	}
	major, _ = strconv.Atoi(parts[0])
	minor, _ = strconv.Atoi(parts[1])
	return major, minor
}

// Option configures Start.
type Option func(*options)

type options struct {
	target       *Target
	backend      Backend
	args         []string
	startTimeout time.Duration
	ownDatabase  bool
}

func defaultOptions() options {
	return options{backend: GSQLite3, startTimeout: DefaultStartTimeout}
}

// WithTarget starts exactly this target instead of the first configured one.
func WithTarget(t Target) Option { return func(o *options) { o.target = &t } }

// WithBackend picks the first configured target of this backend.
func WithBackend(b Backend) Option { return func(o *options) { o.backend = b } }

// WithArgs appends pdns_server arguments, e.g. "--webserver-max-bodysize=1".
func WithArgs(args ...string) Option {
	return func(o *options) { o.args = append(o.args, args...) }
}

// WithStartTimeout bounds the start-up; the default is DefaultStartTimeout.
// A gpgsql or gmysql server, which waits for its database before it starts
// its frontends, gets twice as long.
func WithStartTimeout(d time.Duration) Option { return func(o *options) { o.startTimeout = d } }

// WithOwnDatabase runs a gpgsql or gmysql server on a PostgreSQL or MariaDB
// of its own, started with it and stopped with it, rather than on the one
// the servers of the test binary share: a test can then restart the
// database (Server.RestartDatabase) without failing other tests' requests.
// Its data is then on the container's filesystem, or a process's
// directory, rather than on a tmpfs, so that it outlives the restart. The
// server fails to start with it on a backend without a database server.
func WithOwnDatabase() Option { return func(o *options) { o.ownDatabase = true } }

// Start starts a PowerDNS server for this test alone and stops it when the
// test ends. Without WithTarget it runs the first configured target of the
// wanted backend. It skips the test under -short, and when no PowerDNS is
// available unless PDNS_TEST_REQUIRED=1.
func Start(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	if short() {
		tb.Skipf("pdnstest: %v", errShort)
	}
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	target, err := pickTarget(o)
	if err != nil {
		skipOrFail(tb, err)
	}
	srv, err := start(context.Background(), target, o)
	// Cleanup first: a half-started server is still stopped.
	tb.Cleanup(func() {
		if srv == nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := srv.Stop(ctx); err != nil {
			tb.Logf("pdnstest: stop %s: %v", srv.Name(), err)
		}
	})
	if err != nil {
		tb.Fatalf("pdnstest: start %s: %v", target, err)
	}
	return srv
}

// Launch starts a server outside of a test, for commands such as the demo and
// the benchmarks: the first configured target of the wanted backend unless
// WithTarget says otherwise. The caller stops it with Stop, also when Launch
// fails and returns a server.
func Launch(ctx context.Context, opts ...Option) (*Server, error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	target, err := pickTarget(o)
	if err != nil {
		return nil, err
	}
	srv, err := start(ctx, target, o)
	if err != nil {
		return srv, fmt.Errorf("start %s: %w", target, err)
	}
	return srv, nil
}

func pickTarget(o options) (Target, error) {
	if o.target != nil {
		return *o.target, nil
	}
	targets, err := Targets()
	if err != nil {
		return Target{}, err
	}
	for _, t := range targets {
		if t.Backend == o.backend {
			return t, nil
		}
	}
	if len(targets) == 0 {
		return Target{}, ErrNoServer
	}
	return Target{}, fmt.Errorf("%w: %s", ErrNoBackend, o.backend)
}

// ErrNoBackend is returned when no configured target runs the backend
// asked for (WithBackend); tests skip on it unless PDNS_TEST_REQUIRED=1.
var ErrNoBackend = errors.New("no configured target runs the backend")

func skipOrFail(tb testing.TB, err error) {
	tb.Helper()
	if os.Getenv(EnvRequired) == "1" || !errors.Is(err, ErrNoServer) && !errors.Is(err, ErrNoBackend) {
		tb.Fatalf("pdnstest: %v", err)
	}
	tb.Skipf("pdnstest: %v", err)
}

// start runs target and waits until both its API and its DNS port answer.
// On error the returned server, when not nil, must still be stopped.
func start(ctx context.Context, target Target, o options) (*Server, error) {
	suffix, err := randomHex(16)
	if err != nil {
		return nil, err
	}
	key := APIKeyPrefix + suffix
	srv := &Server{Target: target, APIKey: key, Backend: target.Backend}
	budget := o.startTimeout
	_, frontends := sqlBackends[target.Backend]
	if o.ownDatabase && !frontends {
		return nil, fmt.Errorf("WithOwnDatabase: the %s backend has no database server", target.Backend)
	}
	if frontends {
		// The database first (shared, so perhaps started already), then
		// two servers.
		budget *= 2
	}
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	switch {
	case frontends:
		err = startFrontends(ctx, srv, o.args, o.ownDatabase)
	case target.Provider == Container:
		err = startContainer(ctx, srv, o.args)
	case target.Provider == Process:
		err = startProcess(ctx, srv, o.args)
	default:
		err = fmt.Errorf("unknown provider %q", target.Provider)
	}
	if err == nil {
		err = srv.waitReady(ctx)
	}
	if err != nil {
		if logs := srv.Logs(); logs != "" {
			err = fmt.Errorf("%w\nserver output:\n%s", err, tail(logs, 40))
		}
		return srv, err
	}
	srv.Client = powerdns.New(srv.URL, "localhost", powerdns.WithAPIKey(srv.APIKey))
	return srv, nil
}

// apiArgs are the pdns_server arguments every provider passes: the API on,
// caches off (so a read over DNS right after a PATCH sees the change).
func apiArgs(apiKey, webAddr string, webPort int) []string {
	return []string{
		"--api=yes",
		"--api-key=" + apiKey,
		"--webserver=yes",
		"--webserver-address=" + webAddr,
		"--webserver-port=" + strconv.Itoa(webPort),
		"--webserver-allow-from=0.0.0.0/0,::/0",
		"--cache-ttl=0",
		"--query-cache-ttl=0",
		"--negquery-cache-ttl=0",
		"--loglevel=4",
	}
}

// lmdbArgs launch the LMDB backend with its file in dataDir. The config dir
// is dataDir too, where no pdns.conf exists: an image's pdns.conf names
// gsqlite3 settings, which pdns_server refuses once gsqlite3 is not launched.
func lmdbArgs(dataDir string) []string {
	return []string{
		"--config-dir=" + dataDir,
		"--launch=lmdb",
		"--lmdb-filename=" + dataDir + "/pdns.lmdb",
	}
}

// waitReady polls the API until it reports a version, then the DNS port
// until it answers over UDP and TCP.
func (s *Server) waitReady(ctx context.Context) error {
	var lastErr error
	for found := false; !found; {
		for _, e := range s.endpoints {
			v, err := fetchVersion(ctx, e.url, s.APIKey)
			if err == nil {
				s.URL, s.DNSAddr, s.Version = e.url, e.dnsAddr, v
				found = true
				break
			}
			lastErr = err
		}
		if found {
			break
		}
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return fmt.Errorf("wait for API at %v: %w (last: %w)", s.endpoints, err, lastErr)
		}
	}
	for _, network := range []string{"udp", "tcp"} {
		c := &dns.Client{Net: network, Timeout: time.Second}
		m := new(dns.Msg).SetQuestion("version.pdnstest.invalid.", dns.TypeSOA)
		for {
			_, _, err := c.ExchangeContext(ctx, m, s.DNSAddr)
			if err == nil {
				break
			}
			lastErr = err
			if err := sleep(ctx, 100*time.Millisecond); err != nil {
				return fmt.Errorf("wait for DNS over %s at %s: %w (last: %w)", network, s.DNSAddr, err, lastErr)
			}
		}
	}
	return nil
}

func fetchVersion(ctx context.Context, url, apiKey string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/api/v1/servers/localhost", nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("X-API-Key", apiKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET /api/v1/servers/localhost: %s", resp.Status)
	}
	var info struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(body, &info); err != nil {
		return "", fmt.Errorf("decode server info: %w", err)
	}
	if info.Version == "" {
		return "", errors.New("server info has no version")
	}
	return info.Version, nil
}

// NewZone creates a fresh, uniquely named Native zone for one test and
// deletes it when the test ends. It returns the zone's canonical name, e.g.
// "z3f9a1c0d5e7b2a48.pdnstest.example.": 64 random bits, so that the
// thousands of zones the test binaries of a run create on one shared server
// (LMDB keeps every one until the server stops) do not meet.
func (s *Server) NewZone(tb testing.TB) string {
	tb.Helper()
	suffix, err := randomHex(8)
	if err != nil {
		tb.Fatalf("pdnstest: %v", err)
	}
	return s.CreateZone(tb, "z"+suffix+".pdnstest.example.")
}

// CreateZone creates the Native zone name (absolute, with trailing dot),
// with an SOA and one out-of-zone NS, and deletes it when the test ends
// (except on LMDB, see below).
func (s *Server) CreateZone(tb testing.TB, name string) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.Client.Zones.AddNative(ctx, name, false, "", false, "", "", false,
		[]string{"ns1.pdnstest.invalid."}); err != nil {
		tb.Fatalf("pdnstest: create zone %s on %s: %v", name, s.Name(), err)
	}
	if s.Backend == LMDB {
		// LMDB keeps a deleted zone's RRset comments and hands them to the
		// next zone that gets its id (seen on 5.1.5): a later test would
		// find ownership it never wrote. The zone stays until the server
		// goes.
		return name
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := s.Client.Zones.Delete(ctx, name); err != nil {
			tb.Logf("pdnstest: delete zone %s on %s: %v", name, s.Name(), err)
		}
	})
	return name
}

func randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("read random: %w", err)
	}
	return hex.EncodeToString(b), nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// freePort asks the kernel for a port on ip free on both TCP and UDP, as a
// DNS server needs one port number for both.
func freePort(ip string) (int, error) {
	for range 20 {
		l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
		if err != nil {
			return 0, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		u, err := net.ListenPacket("udp", net.JoinHostPort(ip, strconv.Itoa(port)))
		l.Close()
		if err != nil {
			continue
		}
		u.Close()
		return port, nil
	}
	return 0, fmt.Errorf("no port on %s free on both TCP and UDP", ip)
}

func tail(s string, lines int) string {
	parts := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	return strings.Join(parts, "\n")
}
