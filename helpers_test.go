package reconcile_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/backoff"
	"github.com/pdnskit/reconcile/backoff/backofftest"
	"github.com/pdnskit/reconcile/internal/pdnsapi"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

func TestMain(m *testing.M) { pdnstest.Main(m) }

// recorder is the HTTP transport of a test's Reconciler: it counts what the
// server answered, by method and status, and can run a hook just before a
// PATCH goes out (to let another writer change the zone in between a
// Reconciler's read and its write).
type recorder struct {
	base   http.RoundTripper
	counts pdnsapi.Counts

	mu          sync.Mutex
	beforePatch func()
	// namesRead counts the reads narrowed to one name (rrset_name), by
	// name; wholeRead the reads of a zone with every RRset. Neither
	// counts a read that met a server fault (a 5xx or no answer): the
	// library sends it again, a loaded server's doing, not its choice.
	namesRead map[string]int
	wholeRead int
	// sent is every request, as "METHOD path?query status", for the
	// message of a count that came out wrong.
	sent []string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPatch {
		r.mu.Lock()
		hook := r.beforePatch
		r.beforePatch = nil
		r.mu.Unlock()
		if hook != nil {
			hook()
		}
	}
	resp, err := r.base.RoundTrip(req)
	status := 0
	if err == nil {
		status = resp.StatusCode
	}
	r.counts.Observe(req.Method, status)
	r.mu.Lock()
	r.sent = append(r.sent, fmt.Sprintf("%s %s %d", req.Method, req.URL.RequestURI(), status))
	if req.Method == http.MethodGet && answered(resp, err) {
		if name := req.URL.Query().Get("rrset_name"); name != "" {
			if r.namesRead == nil {
				r.namesRead = make(map[string]int)
			}
			r.namesRead[name]++
		} else if strings.Contains(req.URL.Path, "/zones/") && !strings.Contains(req.URL.Path, "/metadata") &&
			req.URL.Query().Get("rrsets") != "false" {
			r.wholeRead++
		}
	}
	r.mu.Unlock()
	return resp, err
}

// answered reports whether a request got an answer the library acts on:
// not a server fault (a 5xx, or no answer), which it sends again.
func answered(resp *http.Response, err error) bool {
	return err == nil && resp.StatusCode < 500
}

// requestMark is where a recorder stood before an operation: its requests
// so far, and how many of them were server faults.
type requestMark struct{ sent, faults int }

// faults counts the requests a server fault answered: a 5xx or a transport
// error (status 0). The library sends each again, and counts both.
func (r *recorder) faults() int { return r.counts.Statuses(500, 600) + r.counts.Statuses(0, 1) }

// patches counts the PATCHes sent, a PATCH that met a server fault (and
// was sent again) left out: how many times the library chose to write.
func (r *recorder) patches() int {
	return r.counts.Method(http.MethodPatch) - r.counts.Get(http.MethodPatch, 0) - r.patchStatuses(500, 600)
}

// patchStatuses counts the PATCHes answered with a status from lo up to
// but not including hi.
func (r *recorder) patchStatuses(lo, hi int) int {
	n := 0
	for status := lo; status < hi; status++ {
		n += r.counts.Get(http.MethodPatch, status)
	}
	return n
}

// mark returns where r stands now.
func (r *recorder) mark() requestMark {
	r.mu.Lock()
	defer r.mu.Unlock()
	return requestMark{sent: len(r.sent), faults: r.faults()}
}

// assertRequests checks that the operation since m sent want requests
// (got, from its Result), besides one more for each server fault it met:
// a request PowerDNS answered 5xx or that got no answer is sent again, a
// loaded server's doing rather than the library's choice. A wrong count
// names every request sent since m.
func (r *recorder) assertRequests(t *testing.T, m requestMark, want, got int, what string) bool {
	t.Helper()
	r.mu.Lock()
	sent := slices.Clone(r.sent[m.sent:])
	faults := r.faults() - m.faults
	r.mu.Unlock()
	return assert.Equal(t, want+faults, got, "%s: %d request(s) expected, %d of them server faults sent again; sent:\n%s",
		what, want+faults, faults, strings.Join(sent, "\n"))
}

// onNextPatch runs hook once, before the next PATCH is sent.
func (r *recorder) onNextPatch(hook func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.beforePatch = hook
}

// wholeReads counts the reads of a whole zone so far.
func (r *recorder) wholeReads() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.wholeRead
}

// reads counts the reads of name alone so far.
func (r *recorder) reads(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.namesRead[name]
}

// applyHeld starts w.Apply(ctx, zone, rr) and returns once the Apply is
// about to send its PATCH, which waits, in the zone's turn, until release
// is called; then runs after the release, before that PATCH is sent, when
// set. done gives the Apply's error.
func applyHeld(ctx context.Context, w *reconcile.Reconciler, rec *recorder, zone string, rr rrset.RRset, then func()) (release func(), done <-chan error) {
	inPatch, released := make(chan struct{}), make(chan struct{})
	rec.onNextPatch(func() {
		close(inPatch)
		<-released
		if then != nil {
			then()
		}
	})
	errs := make(chan error, 1)
	go func() {
		_, err := w.Apply(ctx, zone, rr)
		errs <- err
	}()
	<-inPatch
	return func() { close(released) }, errs
}

// refusals counts the 4xx answers the server gave.
func (r *recorder) refusals() int { return r.counts.Statuses(400, 500) }

// newWriter returns a Reconciler writing as writer to srv, and its recorder.
func newWriter(tb testing.TB, srv *pdnstest.Server, writer string, opts ...reconcile.Option) (*reconcile.Reconciler, *recorder) {
	tb.Helper()
	rec := &recorder{base: http.DefaultTransport}
	all := append([]reconcile.Option{
		reconcile.WithAPIKey(srv.APIKey),
		reconcile.WithManagedBy(writer),
		reconcile.WithHTTPClient(&http.Client{Transport: rec, Timeout: 30 * time.Second}),
		reconcile.WithDNSAddr(srv.DNSAddr),
	}, opts...)
	r, err := reconcile.New(srv.URL, all...)
	require.NoError(tb, err)
	return r, rec
}

// liveTypes reads the zone through the API: the types at each name.
func liveTypes(t *testing.T, srv *pdnstest.Server, zone string) map[string][]string {
	t.Helper()
	z := readZone(t, srv, zone)
	out := make(map[string][]string)
	for _, rr := range z.RRsets {
		out[*rr.Name] = append(out[*rr.Name], string(*rr.Type))
	}
	for _, types := range out {
		sort.Strings(types)
	}
	return out
}

func readZone(t *testing.T, srv *pdnstest.Server, zone string) *powerdns.Zone {
	t.Helper()
	return srv.ReadZone(t, zone)
}

// liveContents reads one RRset's record contents through the API, sorted;
// nil when the RRset does not exist.
func liveContents(t *testing.T, srv *pdnstest.Server, zone, name, typ string) []string {
	t.Helper()
	for _, rr := range readZone(t, srv, zone).RRsets {
		if *rr.Name == name && string(*rr.Type) == typ {
			var out []string
			for _, r := range rr.Records {
				out = append(out, *r.Content)
			}
			sort.Strings(out)
			return out
		}
	}
	return nil
}

// requireNoCNAMEWithAddress fails when any name holds a CNAME next to an A
// or AAAA: the state the incident left behind.
func requireNoCNAMEWithAddress(t *testing.T, srv *pdnstest.Server, zone string) {
	t.Helper()
	for name, types := range liveTypes(t, srv, zone) {
		joined := "," + strings.Join(types, ",") + ","
		if strings.Contains(joined, ",CNAME,") && (strings.Contains(joined, ",A,") || strings.Contains(joined, ",AAAA,")) {
			t.Fatalf("%s holds %v: CNAME next to an address", name, types)
		}
	}
}

// stores are the ownership stores every Reconciler test runs with: the one
// the server gets by default, and zone metadata forced where that is not
// already it, so both stores are proven on every backend that takes them.
func stores(srv *pdnstest.Server) []reconcile.OwnershipStore {
	if srv.Backend == pdnstest.LMDB && !srv.AtLeast(5, 1) {
		return []reconcile.OwnershipStore{reconcile.OwnershipAuto}
	}
	return []reconcile.OwnershipStore{reconcile.OwnershipAuto, reconcile.OwnershipMetadata}
}

// readsOfOneName is how many requests a read of one name makes with the
// ownership store kind: the RRsets at the name, and the zone's metadata
// where ownership lives there (LMDB before 5.1 by default).
func readsOfOneName(srv *pdnstest.Server, kind reconcile.OwnershipStore) int {
	if kind == reconcile.OwnershipMetadata || (srv.Backend == pdnstest.LMDB && !srv.AtLeast(5, 1)) {
		return 2
	}
	return 1
}

// rawWrite makes a write straight through the API, as a client without the
// library does, trying again a few times while PowerDNS answers 5xx:
// gsqlite3 before 4.8 answers 500 ('database is locked') to a write that
// meets another (another test's, or a zone lock a Reconciler frees once
// its hold runs out).
func rawWrite(t *testing.T, write func(ctx context.Context) error) {
	t.Helper()
	err := backoff.Retry(pdnstest.Context(t), write, backoff.WithRetryable(func(err error) bool {
		var e *powerdns.Error
		return errors.As(err, &e) && e.StatusCode >= 500
	}), backoff.WithMaxAttempts(5), backoff.WithInitialInterval(20*time.Millisecond))
	require.NoError(t, err)
}

// createUnderKeptLock is what a create costs under the zone lock its
// Reconciler kept from its last operation: the zone and the PATCH; where
// ownership lives in metadata, also the metadata and the claim.
func createUnderKeptLock(srv *pdnstest.Server) int {
	return 2 * readsOfOneName(srv, reconcile.OwnershipAuto)
}

// newHoldingWriter is newWriter on a fake clock that moves only when the
// test says so: the zone lock the Reconciler keeps after a write stays
// kept until the test advances the clock past its hold, or the Reconciler
// is closed (at the test's end at the latest), so that no request is sent
// in the background while the test counts. It returns the clock too.
func newHoldingWriter(tb testing.TB, srv *pdnstest.Server, writer string, opts ...reconcile.Option) (*reconcile.Reconciler, *recorder, *backofftest.Clock) {
	tb.Helper()
	clock := backofftest.NewClock(time.Now())
	r, rec := newWriter(tb, srv, writer, append([]reconcile.Option{reconcile.WithClock(clock)}, opts...)...)
	tb.Cleanup(func() {
		if err := r.Close(context.Background()); err != nil {
			tb.Errorf("close: %v", err)
		}
	})
	return r, rec, clock
}

// freeLocks is an Observer that hands on the zone locks a Reconciler frees
// outside its operations (reconcile.OperationFreeLock), for a test to wait
// for them.
type freeLocks chan reconcile.OperationEvent

// newFreeLocks has room for more frees than a test makes: the Reconciler
// must not wait for the test to take them.
func newFreeLocks() freeLocks { return make(freeLocks, 64) }

func (freeLocks) ObserveRequest(reconcile.RequestEvent) {}
func (freeLocks) ObserveLock(reconcile.LockEvent)       {}
func (f freeLocks) ObserveOperation(e reconcile.OperationEvent) {
	if e.Operation == reconcile.OperationFreeLock {
		f <- e
	}
}

// next waits for the next lock freed.
func (f freeLocks) next(tb testing.TB) reconcile.OperationEvent {
	tb.Helper()
	select {
	case e := <-f:
		return e
	case <-time.After(30 * time.Second):
		tb.Fatal("no zone lock freed")
		return reconcile.OperationEvent{}
	}
}

// none checks that no lock was freed so far.
func (f freeLocks) none(tb testing.TB, msg string) {
	tb.Helper()
	select {
	case e := <-f:
		tb.Errorf("%s: a zone lock was freed (%+v)", msg, e)
	default:
	}
}

// forEachStore runs fn against every server, once per ownership store.
func forEachStore(t *testing.T, fn func(t *testing.T, srv *pdnstest.Server, store reconcile.Option)) {
	t.Helper()
	forEachStoreKind(t, func(t *testing.T, srv *pdnstest.Server, kind reconcile.OwnershipStore) {
		fn(t, srv, reconcile.WithOwnershipStore(kind))
	})
}

// forEachStoreKind is forEachStore for tests that need to know the store.
func forEachStoreKind(t *testing.T, fn func(t *testing.T, srv *pdnstest.Server, kind reconcile.OwnershipStore)) {
	t.Helper()
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		for _, s := range stores(srv) {
			t.Run(s.String(), func(t *testing.T) { fn(t, srv, s) })
		}
	})
}
