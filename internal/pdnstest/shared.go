package pdnstest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"
)

// The servers shared by a test binary: one per configured target, started
// on first use and stopped by Main. Tests stay isolated by zone.
var shared struct {
	once    sync.Once
	servers []*Server
	err     error
}

// Main runs a package's tests and then stops its shared servers. Call it
// from TestMain:
//
//	func TestMain(m *testing.M) { pdnstest.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	stopShared()
	os.Exit(code)
}

// Servers returns the shared servers, one per configured target, starting
// them (concurrently) on first use. It skips tb when no PowerDNS is
// available, unless PDNS_TEST_REQUIRED=1; a configured server that fails to
// start fails tb.
func Servers(tb testing.TB) []*Server {
	tb.Helper()
	shared.once.Do(func() { shared.servers, shared.err = startShared() })
	if shared.err != nil {
		skipOrFail(tb, shared.err)
	}
	return shared.servers
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
	targets, err := Targets()
	if err != nil {
		return nil, err
	}
	if len(targets) == 0 {
		return nil, ErrNoServer
	}
	servers := make([]*Server, len(targets))
	errs := make([]error, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			servers[i], errs[i] = start(context.Background(), t, defaultOptions())
			if errs[i] != nil {
				errs[i] = fmt.Errorf("start %s: %w", t, errs[i])
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		// Keep what started so that Main still stops it.
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
