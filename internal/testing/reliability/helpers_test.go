package reliability_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/backoff"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/internal/pdnsapi"
	"github.com/pdnskit/reconcile/internal/testing/depth"
	"github.com/pdnskit/reconcile/internal/testing/faultproxy"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// TestMain runs the tests on servers of their own even where a whole test
// run shares one set (pdnstest.EnvServers): they judge how long requests
// take and how PowerDNS answers under their own load, which test binaries
// writing to the same servers at the same time would change (4.7.3's
// gsqlite3 answers 'database is locked' to more of them).
//
// For the same reason at most two of them run at once, whatever -parallel
// asks of the other packages' tests (make test asks for four).
func TestMain(m *testing.M) {
	_ = os.Unsetenv(pdnstest.EnvServers)
	flag.Parse()
	if n, err := strconv.Atoi(flag.Lookup("test.parallel").Value.String()); err == nil && n > maxParallel {
		_ = flag.Set("test.parallel", strconv.Itoa(maxParallel))
	}
	pdnstest.Main(m)
}

// maxParallel is how many of the package's tests run at once at most.
const maxParallel = 2

// logBuffer collects what a Reconciler logs, at every level.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// attempts bounds the attempts of one API call in the fault tests.
const attempts = 3

// fastRetry is the retry policy of the fault tests: attempts attempts,
// waits of 5 to 20 milliseconds, within ten seconds.
func fastRetry() reconcile.Option {
	return reconcile.WithRetry(
		backoff.WithMaxAttempts(attempts),
		backoff.WithInitialInterval(5*time.Millisecond),
		backoff.WithMaxInterval(20*time.Millisecond),
		backoff.WithMaxElapsedTime(10*time.Second),
	)
}

// requeues bounds how often a Sync is requeued after transient failures.
const requeues = 10

// syncRequeued syncs want as a controller reconciles: a Sync that gave up
// on transient failures (PowerDNS 4.7.3 on gsqlite3 answers writes that
// meet the other tests' with 500 "database is locked", for longer the
// busier the machine) is requeued, here at once, up to requeues times; any
// other error fails the test. For the steps where no fault is injected:
// seeding a zone, converging once the faults stop, and the Syncs whose
// only outcome that matters is what they leave written.
//
// The Result is the last Sync's, but its Applied, Patches and Requests
// cover every Sync of the run: a Sync that wrote and then gave up counts
// as having written, so that "nothing left to write" is judged on all that
// the controller's requeues did, not on the last of them alone.
func syncRequeued(ctx context.Context, t *testing.T, w *reconcile.Reconciler, zone string, want []rrset.RRset) reconcile.Result {
	t.Helper()
	var applied []rrset.Change
	patches, requests := 0, 0
	for i := 0; ; i++ {
		res, err := w.Sync(ctx, zone, want)
		applied = append(applied, res.Applied...)
		patches, requests = patches+res.Patches, requests+res.Requests
		if err == nil {
			res.Applied, res.Patches, res.Requests = applied, patches, requests
			return res
		}
		require.True(t, pdnserrors.IsRetryable(err) && i < requeues, "sync %s (requeued %d times): %v", zone, i, err)
		t.Logf("requeued: %v", err)
	}
}

// writer builds a Reconciler writing as name to the API at url (the
// server's, or a proxy's in front of it), with its own HTTP transport and a
// logger whose output is checked for the API key when the test ends.
func writer(t *testing.T, srv *pdnstest.Server, url, name string, opts ...reconcile.Option) *reconcile.Reconciler {
	t.Helper()
	return writerWith(t, srv, url, name, &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}, opts...)
}

func writerWith(t *testing.T, srv *pdnstest.Server, url, name string, hc *http.Client, opts ...reconcile.Option) *reconcile.Reconciler {
	t.Helper()
	logs := new(logBuffer)
	all := append([]reconcile.Option{
		reconcile.WithAPIKey(srv.APIKey),
		reconcile.WithManagedBy(name),
		reconcile.WithHTTPClient(hc),
		reconcile.WithDNSAddr(srv.DNSAddr),
		reconcile.WithLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))),
	}, opts...)
	r, err := reconcile.New(url, all...)
	require.NoError(t, err)
	t.Cleanup(func() {
		requireNoKey(t, srv.APIKey, "the log", logs.String())
		requireNoKey(t, srv.APIKey, "the Reconciler", r)
	})
	return r
}

// statusCounter is an HTTP transport counting PowerDNS's answers by method
// and status.
type statusCounter struct {
	base   http.RoundTripper
	counts pdnsapi.Counts
}

func (c *statusCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(req)
	status := 0
	if err == nil {
		status = resp.StatusCode
	}
	c.counts.Observe(req.Method, status)
	return resp, err
}

// serverErrors counts the 5xx answers seen.
func (c *statusCounter) serverErrors() int { return c.counts.Statuses(500, 600) }

// countedWriter is writer with a statusCounter beneath the Reconciler.
func countedWriter(t *testing.T, srv *pdnstest.Server, name string, opts ...reconcile.Option) (*reconcile.Reconciler, *statusCounter) {
	t.Helper()
	c := &statusCounter{base: http.DefaultTransport.(*http.Transport).Clone()}
	return writerWith(t, srv, srv.URL, name, &http.Client{Transport: c}, opts...), c
}

// requireNoKey fails when key shows in any printed form of v.
func requireNoKey(t *testing.T, key, what string, v any) {
	t.Helper()
	if key == "" {
		return
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
		if strings.Contains(fmt.Sprintf(verb, v), key) {
			t.Fatalf("the API key shows in %s printed with %s", what, verb)
		}
	}
	if e, ok := v.(error); ok && e != nil && strings.Contains(e.Error(), key) {
		t.Fatalf("the API key shows in %s", what)
	}
}

// eachServerAtOnce runs fn as a subtest against every shared server, all of
// them at once: such a subtest spends its time waiting on its own server,
// so they run from goroutines (as testing allows) rather than in turns of
// -parallel, which is the number of CPUs.
func eachServerAtOnce(t *testing.T, fn func(t *testing.T, srv *pdnstest.Server)) {
	t.Helper()
	eachServerSharing(t, func(t *testing.T, srv *pdnstest.Server, _ share) { fn(t, srv) })
}

// share is a server's part of a test's cases (see depth.Pick): the j-th
// of n servers.
type share struct{ j, n int }

// has reports whether case i of the test runs on the server.
func (s share) has(i int) bool { return depth.Pick(i, s.j, s.n) }

// eachServerSharing is eachServerAtOnce for a test whose cases are dealt
// out among the servers: fn runs on each with its share.
func eachServerSharing(t *testing.T, fn func(t *testing.T, srv *pdnstest.Server, sh share)) {
	t.Helper()
	servers := pdnstest.Servers(t)
	var wg sync.WaitGroup
	for j, srv := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(srv.Name(), func(t *testing.T) { fn(t, srv, share{j: j, n: len(servers)}) })
		}()
	}
	wg.Wait()
}

// fullOr is full with depth.Full, else quick: for the tests that start
// servers of their own, where each server costs the machine the other
// tests' time.
func fullOr(full, quick targetSelector) targetSelector {
	if depth.Full() {
		return full
	}
	return quick
}

// targetSource is where a target's PowerDNS comes from: its image or root.
func targetSource(tg pdnstest.Target) string {
	if tg.Provider == pdnstest.Process {
		return tg.Root
	}
	return tg.Image
}

// eachTargetAtOnce runs fn, as a subtest named after the target, on every
// configured target that pick selects, all at once, from goroutines: each
// starts a server of its own (a test that kills one must not fail the
// other tests' requests) and spends its time waiting for it to die and
// come back, rather than in turns of -parallel.
func eachTargetAtOnce(t *testing.T, pick targetSelector, fn func(t *testing.T, tg pdnstest.Target)) {
	t.Helper()
	targets, err := pdnstest.Targets()
	if err != nil || len(targets) == 0 {
		pdnstest.Servers(t) // skips, or fails where PowerDNS is required
		return
	}
	var wg sync.WaitGroup
	for _, tg := range pick(targets) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(targetName(tg), func(t *testing.T) { fn(t, tg) })
		}()
	}
	wg.Wait()
}

// startProxy starts a fault proxy in front of srv for one test.
func startProxy(t *testing.T, srv *pdnstest.Server, opts ...faultproxy.Option) *faultproxy.Proxy {
	t.Helper()
	p, err := faultproxy.Start(srv.URL, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// zoneState is what a zone holds, read straight from the server: the
// sorted contents of every RRset but the SOA (whose serial moves), by key.
type zoneState map[rrset.Key][]string

func readState(t *testing.T, srv *pdnstest.Server, zone string) zoneState {
	t.Helper()
	z := srv.ReadZone(t, zone)
	out := make(zoneState)
	for _, rr := range z.RRsets {
		if rr.Type == nil || *rr.Type == powerdns.RRTypeSOA {
			continue
		}
		var contents []string
		for _, r := range rr.Records {
			contents = append(contents, *r.Content)
		}
		sort.Strings(contents)
		out[rrset.Key{Name: *rr.Name, Type: string(*rr.Type)}] = contents
	}
	return out
}

// harnessRead runs a read of the test itself, straight from the server,
// trying again a few times: under concurrent writes PowerDNS sometimes
// answers a read 500 (seen on 4.9 with LMDB), which the library retries
// too.
func harnessRead(t *testing.T, read func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := backoff.Retry(ctx, read,
		backoff.WithRetryable(func(error) bool { return true }),
		backoff.WithMaxAttempts(5), backoff.WithInitialInterval(20*time.Millisecond))
	require.NoError(t, err)
}

// holds reports whether the state holds every RRset of want, with its data.
func (s zoneState) holds(want []rrset.RRset) bool {
	for _, rr := range want {
		got, ok := s[rr.Key()]
		if !ok || strings.Join(got, "\n") != strings.Join(rr.Records, "\n") {
			return false
		}
	}
	return true
}

// holdsNone reports whether the state holds none of the keys of rrs.
func (s zoneState) holdsNone(rrs []rrset.RRset) bool {
	for _, rr := range rrs {
		if _, ok := s[rr.Key()]; ok {
			return false
		}
	}
	return true
}

func (s zoneState) equal(o zoneState) bool {
	if len(s) != len(o) {
		return false
	}
	for k, v := range s {
		if strings.Join(v, "\n") != strings.Join(o[k], "\n") {
			return false
		}
	}
	return true
}

// stores are the ownership stores a test runs with on srv: the one the
// server gets by default and, where the backend takes comments, zone
// metadata as well.
func stores(srv *pdnstest.Server) []reconcile.OwnershipStore {
	if srv.Backend == pdnstest.LMDB && !srv.AtLeast(5, 1) {
		return []reconcile.OwnershipStore{reconcile.OwnershipAuto}
	}
	return []reconcile.OwnershipStore{reconcile.OwnershipAuto, reconcile.OwnershipMetadata}
}

// storeName names the store actually used on srv.
func storeName(srv *pdnstest.Server, s reconcile.OwnershipStore) string {
	if s != reconcile.OwnershipAuto {
		return s.String()
	}
	if srv.Backend == pdnstest.LMDB && !srv.AtLeast(5, 1) {
		return reconcile.OwnershipMetadata.String()
	}
	return reconcile.OwnershipComments.String()
}
