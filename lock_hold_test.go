package reconcile_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/pdnstest"
)

// lockKinds lists the zone lock kinds in zone's metadata.
func lockKinds(tb testing.TB, srv *pdnstest.Server, zone string) []string {
	tb.Helper()
	md, err := srv.Client.Metadata.List(pdnstest.Context(tb), zone)
	require.NoError(tb, err)
	var kinds []string
	for _, m := range md {
		if m.Kind != nil && strings.HasPrefix(string(*m.Kind), "X-PDNSKIT-L-") {
			kinds = append(kinds, string(*m.Kind))
		}
	}
	return kinds
}

// TestLockHold: a Reconciler keeps the zone lock after a create, so a run
// of creates pays the lock once. The first takes it (its kind, the zone's
// metadata, the zone, the PATCH) and returns without freeing it; the next
// ones read the zone and PATCH. The lock is held all along: another
// writer's create in the zone is postponed meanwhile, naming the holder.
// Close frees it at once, and operations after Close free the lock they
// take.
func TestLockHold(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		w, rec := newWriter(t, srv, "dns-operator")
		other, _ := newWriter(t, srv, "external-dns", reconcile.WithLockHold(0), reconcile.WithLockWait(0))
		create := func(r *reconcile.Reconciler, name string) reconcile.Result {
			t.Helper()
			res, err := r.Apply(ctx, zone, pdnstest.MustRRset(t, zone, name, "A", 300, "192.0.2.1"))
			require.NoError(t, err)
			return res
		}
		// Both read the zone whole (under the lock of a first create,
		// freed at once), so their next creates go straight to the lock.
		require.Len(t, create(other, "theirs").Applied, 1)
		reconcile.HoldLock(w, 0, time.Minute)
		require.Len(t, create(w, "first").Applied, 1)
		require.Empty(t, lockKinds(t, srv, zone))
		// Long enough that the counts below do not depend on the
		// machine's speed.
		reconcile.HoldLock(w, time.Minute, time.Minute)
		rec.counts.Reset()

		// A create alone: the lock's kind and the metadata, the zone, the
		// PATCH (and the claim where ownership lives in metadata); the
		// lock is not freed yet.
		res := create(w, "a")
		require.Len(t, res.Applied, 1)
		assert.Equal(t, 3+readsOfOneName(srv, reconcile.OwnershipAuto), res.Requests, "a create alone")
		assert.Zero(t, rec.counts.Method(http.MethodDelete), "the lock is kept")
		held := lockKinds(t, srv, zone)
		require.Len(t, held, 1, "the lock kept")

		postponed, err := other.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "theirs-2", "A", 300, "192.0.2.2"))
		require.NoError(t, err)
		require.Len(t, postponed.Postponed, 1, "another writer's create waits for the lock kept")
		assert.Equal(t, []string{"dns-operator"}, postponed.PostponedFor)

		for i := range 3 {
			res := create(w, fmt.Sprintf("run-%d", i))
			require.Len(t, res.Applied, 1)
			assert.Equal(t, createUnderKeptLock(srv), res.Requests, "create %d under the lock kept", i)
		}
		assert.Equal(t, held, lockKinds(t, srv, zone), "one lock, held all along")
		assert.Zero(t, rec.counts.Method(http.MethodDelete), "never freed meanwhile")

		require.NoError(t, w.Close(ctx))
		assert.Empty(t, lockKinds(t, srv, zone), "Close frees the lock kept")
		res = create(w, "after-close")
		require.Len(t, res.Applied, 1)
		assert.Equal(t, 4+readsOfOneName(srv, reconcile.OwnershipAuto), res.Requests, "after Close, a create frees its lock")
		assert.Empty(t, lockKinds(t, srv, zone))

		res, err = other.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "theirs-2", "A", 300, "192.0.2.2"))
		require.NoError(t, err)
		assert.Len(t, res.Applied, 1, "the zone is free again")
	})
}

// TestLockHoldRunsOut: a lock kept after a write is freed once
// WithLockHold passes with no operation needing it; one kept as long as a
// lock may be is freed by the operation that finds it so, and the
// Reconciler leaves the zone's lock free a moment before it takes it
// again, so that a writer waiting for the zone gets it.
func TestLockHoldRunsOut(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		w, rec := newWriter(t, srv, "dns-operator", reconcile.WithLockHold(100*time.Millisecond))
		_, err := w.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "a", "A", 300, "192.0.2.1"))
		require.NoError(t, err)
		require.Eventually(t, func() bool { return rec.counts.Method(http.MethodDelete) == 1 },
			30*time.Second, 10*time.Millisecond, "the hold runs out: the lock is freed")
		assert.Empty(t, lockKinds(t, srv, zone))

		// Kept for a minute after each write, for 300 ms at most in all.
		reconcile.HoldLock(w, time.Minute, 300*time.Millisecond)
		_, err = w.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "b", "A", 300, "192.0.2.1"))
		require.NoError(t, err)
		require.Len(t, lockKinds(t, srv, zone), 1)
		time.Sleep(300 * time.Millisecond)
		res, err := w.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "c", "A", 300, "192.0.2.1"))
		require.NoError(t, err)
		require.Len(t, res.Applied, 1)
		assert.Equal(t, createUnderKeptLock(srv)+1, res.Requests, "under the lock kept, then frees it: too old")
		assert.Empty(t, lockKinds(t, srv, zone))
		freed := time.Now()
		res, err = w.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "d", "A", 300, "192.0.2.1"))
		require.NoError(t, err)
		require.Len(t, res.Applied, 1)
		assert.GreaterOrEqual(t, time.Since(freed), 250*time.Millisecond, "the zone rests before the next lock")
		assert.Equal(t, 3+readsOfOneName(srv, reconcile.OwnershipAuto), res.Requests, "a new lock, kept")
		require.NoError(t, w.Close(ctx))
	})
}

// TestForgetFreesHeldLock: Forget frees the lock kept for the zone, and
// DeleteZone forgets one that went with the zone.
func TestForgetFreesHeldLock(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		w, _ := newWriter(t, srv, "dns-operator")
		reconcile.HoldLock(w, time.Minute, time.Minute)
		_, err := w.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "a", "A", 300, "192.0.2.1"))
		require.NoError(t, err)
		require.Len(t, lockKinds(t, srv, zone), 1)
		w.Forget(zone)
		assert.Empty(t, lockKinds(t, srv, zone), "Forget frees it")

		_, err = w.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "b", "A", 300, "192.0.2.1"))
		require.NoError(t, err)
		require.Len(t, lockKinds(t, srv, zone), 1)
		require.NoError(t, w.DeleteZone(ctx, zone))
		_, err = w.EnsureZone(ctx, zone, reconcile.ZoneSpec{Nameservers: []string{"ns1.example.net"}})
		require.NoError(t, err)
		res, err := w.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "c", "A", 300, "192.0.2.1"))
		require.NoError(t, err)
		require.Len(t, res.Applied, 1)
		assert.Len(t, lockKinds(t, srv, zone), 1, "a lock taken in the new zone, not the one kept in the old")
		require.NoError(t, w.Close(ctx))
	})
}
