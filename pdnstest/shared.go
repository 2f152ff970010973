package pdnstest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

// The servers shared by a test binary: one per configured target, started
// on first use and stopped by Main, or those another process runs, named by
// EnvServers, which Main leaves running. Tests stay isolated by zone.
var shared struct {
	once    sync.Once
	servers []*Server
	err     error
}

// errShort is why no server is started under go test -short.
var errShort = errors.New("-short: no PowerDNS is started")

// short reports whether the test binary runs with -short; false outside a
// test binary, where testing.Short would panic.
func short() bool {
	return flag.Parsed() && flag.Lookup("test.short") != nil && testing.Short()
}

// Main runs a package's tests and then stops its shared servers. Call it
// from TestMain:
//
//	func TestMain(m *testing.M) { pdnstest.Main(m) }
//
// A runnable example cannot skip itself, so examples that need a server
// are named with the suffix "_powerDNS" (ExampleReconciler_Sync_powerDNS),
// and Main skips them where no PowerDNS is available or under -short, as
// Servers skips tests.
//
// Where EnvServers names running servers, Main leaves them running for the
// other test binaries of the run.
func Main(m *testing.M) {
	flag.Parse()
	skipServerExamples()
	code := m.Run()
	stopShared()
	os.Exit(code)
}

// serverExamples matches the names of the examples that need a server.
const serverExamples = `^Example\w*_powerDNS$`

// skipServerExamples adds serverExamples to -test.skip when no PowerDNS is
// configured and PDNS_TEST_REQUIRED is not 1, and says so on the test
// output: an example cannot skip itself, and one skipped by the flag would
// vanish without a word.
func skipServerExamples() {
	var err error
	switch {
	case short():
		err = errShort
	case os.Getenv(EnvRequired) == "1":
		return
	case os.Getenv(EnvServers) != "":
		return
	default:
		targets, terr := Targets()
		if terr == nil && len(targets) > 0 {
			return
		}
		if err = terr; err == nil {
			err = ErrNoServer
		}
	}
	skip := flag.Lookup("test.skip")
	if skip == nil {
		return
	}
	pattern := serverExamples
	if cur := skip.Value.String(); cur != "" {
		pattern = cur + "|" + pattern
	}
	_ = skip.Value.Set(pattern)
	fmt.Println(skipNotice(err))
}

// skipNotice is the line Main prints when it skips the examples that need
// a server.
func skipNotice(reason error) string {
	return fmt.Sprintf("--- SKIP: examples matching %s: %v", serverExamples, reason)
}

// Servers returns the shared servers, one per configured target, starting
// them (concurrently) on first use, or those EnvServers names. It skips tb
// under -short, and when no PowerDNS is available unless
// PDNS_TEST_REQUIRED=1; a configured server that fails to start fails tb.
func Servers(tb testing.TB) []*Server {
	tb.Helper()
	if short() {
		tb.Skipf("pdnstest: %v", errShort)
	}
	startSharedOnce()
	if shared.err != nil {
		skipOrFail(tb, shared.err)
	}
	return shared.servers
}

// SharedServer returns the first shared server, starting the shared servers
// on first use, for runnable examples, which have no testing.TB (see Main).
// Main stops it. Under -short it starts nothing and returns an error.
func SharedServer() (*Server, error) {
	if short() {
		return nil, errShort
	}
	startSharedOnce()
	if shared.err != nil {
		return nil, shared.err
	}
	return shared.servers[0], nil
}

func startSharedOnce() {
	shared.once.Do(func() {
		if path := os.Getenv(EnvServers); path != "" {
			// Another process stops them: Main stops only what this
			// binary added (its round-robins).
			shared.servers, shared.err = attachServers(path)
			return
		}
		shared.servers, shared.err = startShared()
	})
}

// ForEachServer runs fn as a subtest against every shared server, named after
// what the server reports, e.g. "pdns-4.9.18-gsqlite3".
func ForEachServer(t *testing.T, fn func(t *testing.T, srv *Server)) {
	t.Helper()
	for _, srv := range Servers(t) {
		t.Run(srv.Name(), func(t *testing.T) { fn(t, srv) })
	}
}

func startShared() ([]*Server, error) {
	servers, err := LaunchAll(context.Background())
	if err != nil {
		// Keep what started so that stopShared stops it.
		shared.servers = servers
		stopShared()
		return nil, err
	}
	return servers, nil
}

func stopShared() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for _, srv := range shared.servers {
		if srv == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := srv.Stop(ctx); err != nil {
				fmt.Fprintf(os.Stderr, "pdnstest: stop %s: %v\n", srv.Name(), err)
			}
		}()
	}
	wg.Wait()
	shared.servers = nil
}
