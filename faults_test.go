package reconcile_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/backoff/backofftest"
	"github.com/pdnskit/reconcile/internal/testing/faultproxy"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// Regression tests for faults found by internal/testing/reliability: each needs a
// server answering what PowerDNS never answers, so a fault proxy stands
// between the Reconciler and a real PowerDNS.

// proxied returns a Reconciler writing to srv through a fault proxy, and
// the proxy.
func proxied(t *testing.T, srv *pdnstest.Server, rules ...faultproxy.Rule) (*reconcile.Reconciler, *faultproxy.Proxy) {
	t.Helper()
	return proxiedWith(t, srv, nil, rules...)
}

// proxiedWith is proxied with more options for the Reconciler.
func proxiedWith(t *testing.T, srv *pdnstest.Server, opts []reconcile.Option, rules ...faultproxy.Rule) (*reconcile.Reconciler, *faultproxy.Proxy) {
	t.Helper()
	p, err := faultproxy.Start(srv.URL)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	p.Inject(rules...)
	r, err := reconcile.New(p.URL, append([]reconcile.Option{reconcile.WithAPIKey(srv.APIKey), reconcile.WithManagedBy("external-dns"),
		reconcile.WithHTTPClient(&http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()})}, opts...)...)
	require.NoError(t, err)
	return r, p
}

// TestZoneReadNull: a zone answered as JSON null is an incomplete read (it
// was a nil pointer dereference).
func TestZoneReadNull(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		zone := srv.NewZone(t)
		w, _ := proxied(t, srv, faultproxy.Rule{Method: http.MethodGet, Path: faultproxy.ZonePath,
			Fault: faultproxy.Status(http.StatusOK, "application/json", []byte("null"))})
		res, err := w.Sync(pdnstest.Context(t), zone, []rrset.RRset{pdnstest.MustRRset(t, zone, "www", "A", 300, "192.0.2.1")})
		require.ErrorIs(t, err, reconcile.ErrIncompleteZone)
		assert.Zero(t, res.Patches)
	})
}

// TestSyncReturnsByItsContext: a Sync returns when its context ends, even
// when the server answers neither its PATCH nor the release of the zone
// lock, which goes on in the background for up to five seconds, an
// OperationFreeLock of its own; and a Sync queued behind a stuck Sync of
// the same zone gives up with its own context (it waited for the stuck
// one). The Reconciler's clock moves only when told: the zone lock the
// first Sync keeps is kept, and the stuck Sync goes on with it.
func TestSyncReturnsByItsContext(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		zone := srv.NewZone(t)
		frees := newFreeLocks()
		w, p := proxiedWith(t, srv, []reconcile.Option{
			reconcile.WithClock(backofftest.NewClock(time.Now())), reconcile.WithObserver(frees)})
		// A first Sync without faults, so that the stuck one goes
		// straight to its PATCH.
		_, err := w.Sync(pdnstest.Context(t), zone, []rrset.RRset{pdnstest.MustRRset(t, zone, "www", "A", 300, "192.0.2.1")})
		require.NoError(t, err)
		p.Inject(
			faultproxy.Rule{Method: http.MethodPatch, Path: faultproxy.ZonePath, Fault: faultproxy.Hang()},
			// A DELETE of a metadata kind frees the zone lock.
			faultproxy.Rule{Method: http.MethodDelete, Path: faultproxy.MetadataPath, Fault: faultproxy.Hang()},
		)
		// A new RRset: the Sync takes the zone lock, which it must then
		// free.
		want := []rrset.RRset{pdnstest.MustRRset(t, zone, "www", "A", 300, "192.0.2.2"), pdnstest.MustRRset(t, zone, "new", "A", 300, "192.0.2.3")}
		patches := p.Count(http.MethodPatch, faultproxy.ZonePath)

		// The stuck Sync can only return by its context, which the test
		// ends: what returns before is not waiting for it.
		stuckCtx, unstick := context.WithCancel(context.Background())
		defer unstick()
		stuck := make(chan error, 1)
		go func() {
			_, err := w.Sync(stuckCtx, zone, want)
			stuck <- err
		}()
		// Once the first Sync is stuck in its PATCH, queue a second one.
		require.Eventually(t, func() bool { return p.Count(http.MethodPatch, faultproxy.ZonePath) > patches },
			30*time.Second, time.Millisecond, "the first Sync reaches its PATCH")
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		_, err = w.Sync(ctx, zone, want)
		require.ErrorIs(t, err, context.DeadlineExceeded, "the queued Sync returns by its own context")
		select {
		case err := <-stuck:
			t.Fatalf("the stuck Sync returned before its context ended: %v", err)
		default:
		}

		unstick()
		select {
		case err := <-stuck:
			require.ErrorIs(t, err, context.Canceled, "the stuck Sync returns by its context")
		case <-time.After(30 * time.Second):
			t.Fatal("the stuck Sync did not return when its context ended")
		}
		frees.none(t, "the release hangs on after the Sync returned")
		freed := frees.next(t)
		assert.Equal(t, zone, freed.Zone)
		assert.Equal(t, 1, freed.Result.Requests, "the hung release, in an event of its own")
		require.ErrorIs(t, freed.Err, context.DeadlineExceeded, "given up at its bound")
	})
}

// TestReconcilerHidesAPIKey: a Reconciler printed with any verb, or logged,
// never shows its API key (the key was a plain string in its
// configuration).
func TestReconcilerHidesAPIKey(t *testing.T) {
	const key = "hidden-api-key-31337"
	r, err := reconcile.New("http://127.0.0.1:8081", reconcile.WithAPIKey(key), reconcile.WithManagedBy("external-dns"))
	require.NoError(t, err)
	for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
		assert.NotContains(t, fmt.Sprintf(verb, r), key, verb)
	}
	var b strings.Builder
	slog.New(slog.NewTextHandler(&b, nil)).Info("reconciler", "r", r)
	slog.New(slog.NewJSONHandler(&b, nil)).Info("reconciler", "r", r)
	assert.NotContains(t, b.String(), key)
}
