package reconcile_test

import (
	"context"
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
// take. The hold runs on the Reconciler's clock, which moves only when
// the test says so: nothing is freed behind the counts.
func TestLockHold(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		frees := newFreeLocks()
		w, rec, _ := newHoldingWriter(t, srv, "dns-operator", reconcile.WithObserver(frees))
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
		reconcile.HoldLock(w, 0, time.Second)
		require.Len(t, create(w, "first").Applied, 1)
		require.Empty(t, lockKinds(t, srv, zone))
		reconcile.HoldLock(w, reconcile.DefaultLockHold, time.Second)
		rec.counts.Reset()

		// A create alone: the lock's kind and the metadata, the zone, the
		// PATCH (and the claim where ownership lives in metadata); the
		// lock is not freed yet.
		m := rec.mark()
		res := create(w, "a")
		require.Len(t, res.Applied, 1)
		rec.assertRequests(t, m, 3+readsOfOneName(srv, reconcile.OwnershipAuto), res.Requests, "a create alone")
		assert.Zero(t, rec.counts.Method(http.MethodDelete), "the lock is kept")
		held := lockKinds(t, srv, zone)
		require.Len(t, held, 1, "the lock kept")

		postponed, err := other.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "theirs-2", "A", 300, "192.0.2.2"))
		require.NoError(t, err)
		require.Len(t, postponed.Postponed, 1, "another writer's create waits for the lock kept")
		assert.Equal(t, []string{"dns-operator"}, postponed.PostponedFor)

		for i := range 3 {
			m := rec.mark()
			res := create(w, fmt.Sprintf("run-%d", i))
			require.Len(t, res.Applied, 1)
			rec.assertRequests(t, m, createUnderKeptLock(srv), res.Requests, fmt.Sprintf("create %d under the lock kept", i))
		}
		assert.Equal(t, held, lockKinds(t, srv, zone), "one lock, held all along")
		assert.Zero(t, rec.counts.Method(http.MethodDelete), "never freed meanwhile")
		frees.none(t, "before Close")

		require.NoError(t, w.Close(ctx))
		assert.Empty(t, lockKinds(t, srv, zone), "Close frees the lock kept")
		freed := frees.next(t)
		assert.Equal(t, zone, freed.Zone)
		assert.Equal(t, 1, freed.Result.Requests, "Close's free is an event of its own")
		assert.Equal(t, 1, rec.counts.Method(http.MethodDelete))
		m = rec.mark()
		res = create(w, "after-close")
		require.Len(t, res.Applied, 1)
		rec.assertRequests(t, m, 4+readsOfOneName(srv, reconcile.OwnershipAuto), res.Requests, "after Close, a create frees its lock")
		assert.Empty(t, lockKinds(t, srv, zone))
		frees.none(t, "after Close, in the operation")

		res, err = other.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "theirs-2", "A", 300, "192.0.2.2"))
		require.NoError(t, err)
		assert.Len(t, res.Applied, 1, "the zone is free again")
	})
}

// TestLockHoldRunsOut: a lock kept after a write is freed once the
// Reconciler's clock passes WithLockHold with no operation needing it, in
// a request of its own that an Observer is told of. One kept as long as a
// lock may be is freed where that ends, by its hold or by the operation
// that finds it so, and the Reconciler leaves the zone's lock free for
// the rest before it takes it again, so that a writer waiting for the zone
// gets it. The clock moves only when the test says so, and the rest is
// read off it: exact, whatever the machine's load.
func TestLockHoldRunsOut(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		frees := newFreeLocks()
		w, rec, clock := newHoldingWriter(t, srv, "dns-operator", reconcile.WithLockHold(100*time.Millisecond),
			reconcile.WithObserver(frees))
		create := func(name string) reconcile.Result {
			t.Helper()
			res, err := w.Apply(ctx, zone, pdnstest.MustRRset(t, zone, name, "A", 300, "192.0.2.1"))
			require.NoError(t, err)
			require.Len(t, res.Applied, 1)
			return res
		}
		create("a")
		require.Len(t, lockKinds(t, srv, zone), 1)
		clock.Advance(99 * time.Millisecond)
		frees.none(t, "before the hold ran out")
		clock.Advance(time.Millisecond)
		freed := frees.next(t)
		require.NoError(t, freed.Err)
		assert.Equal(t, 1, freed.Result.Requests)
		assert.Equal(t, 1, rec.counts.Method(http.MethodDelete), "the hold ran out: the lock is freed")
		assert.Empty(t, lockKinds(t, srv, zone))

		// Kept for a minute after each write, for 300 ms at most before
		// the Reconciler looks whether another writer waits: with no
		// operation to look, the hold ends at the cap.
		reconcile.HoldLock(w, time.Minute, 300*time.Millisecond)
		create("b")
		require.Len(t, lockKinds(t, srv, zone), 1)
		clock.Advance(299 * time.Millisecond)
		frees.none(t, "before the cap")
		clock.Advance(time.Millisecond)
		frees.next(t)
		assert.Empty(t, lockKinds(t, srv, zone), "freed at the cap")
		assert.Equal(t, 2, rec.counts.Method(http.MethodDelete))
		// Nobody waits for the zone: the next create takes a lock at once,
		// without the clock moving.
		m := rec.mark()
		rec.assertRequests(t, m, 3+readsOfOneName(srv, reconcile.OwnershipAuto), create("c").Requests, "a new lock, kept")

		// An operation that ends past the cap under the lock kept has not
		// looked: the lock is kept for the next one, which reads the
		// zone's metadata too, finds nobody waiting and keeps the lock
		// as one taken anew. Nothing is freed.
		clock.Advance(299 * time.Millisecond)
		rec.onNextPatch(func() { clock.Advance(time.Millisecond) })
		m = rec.mark()
		rec.assertRequests(t, m, createUnderKeptLock(srv), create("d").Requests, "under the lock kept")
		require.Len(t, lockKinds(t, srv, zone), 1)
		look := 2 - readsOfOneName(srv, reconcile.OwnershipAuto) // the metadata, unless read anyway
		m = rec.mark()
		rec.assertRequests(t, m, createUnderKeptLock(srv)+look, create("e").Requests, "under the lock kept, and a look")
		require.Len(t, lockKinds(t, srv, zone), 1)
		clock.Advance(299 * time.Millisecond)
		frees.none(t, "renewed: a new cap")
		assert.Equal(t, 2, rec.counts.Method(http.MethodDelete), "nothing freed")
	})
}

// waitKinds lists the waiting kinds in zone's metadata: writers waiting
// for its lock.
func waitKinds(tb testing.TB, srv *pdnstest.Server, zone string) []string {
	tb.Helper()
	kinds, err := listWaitKinds(pdnstest.Context(tb), srv, zone)
	require.NoError(tb, err)
	return kinds
}

// listWaitKinds is waitKinds for a condition polled off the test's
// goroutine: an error (a 500 from a busy LMDB) is returned, not failed on.
func listWaitKinds(ctx context.Context, srv *pdnstest.Server, zone string) ([]string, error) {
	md, err := srv.Client.Metadata.List(ctx, zone)
	if err != nil {
		return nil, err
	}
	var kinds []string
	for _, m := range md {
		if m.Kind != nil && strings.HasPrefix(string(*m.Kind), "X-PDNSKIT-W-") {
			kinds = append(kinds, string(*m.Kind))
		}
	}
	return kinds, nil
}

// TestLockHoldGivesWayToAWaiter: a writer that waits for a zone whose lock
// another keeps leaves a waiting kind; the holder's first operation past
// the cap sees it, frees the lock when done (its DELETE in its Result) and
// the waiting writer's create goes through. The waiting kind goes with the
// wait.
func TestLockHoldGivesWayToAWaiter(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		w, rec, clock := newHoldingWriter(t, srv, "dns-operator")
		other, _ := newWriter(t, srv, "external-dns", reconcile.WithLockHold(0), reconcile.WithLockWait(time.Minute))
		reconcile.HoldLock(w, time.Minute, 300*time.Millisecond)
		create := func(r *reconcile.Reconciler, name string) reconcile.Result {
			t.Helper()
			res, err := r.Apply(ctx, zone, pdnstest.MustRRset(t, zone, name, "A", 300, "192.0.2.1"))
			require.NoError(t, err)
			require.Len(t, res.Applied, 1, name)
			return res
		}
		create(w, "a")
		clock.Advance(299 * time.Millisecond)
		rec.onNextPatch(func() { clock.Advance(time.Millisecond) })
		create(w, "b") // past the cap, not looked: kept
		require.Len(t, lockKinds(t, srv, zone), 1)

		// The waiting Apply reports to the test's goroutine, never to t:
		// it may end after a failed test has.
		type outcome struct {
			res reconcile.Result
			err error
		}
		theirRR := pdnstest.MustRRset(t, zone, "theirs", "A", 300, "192.0.2.2")
		theirs := make(chan outcome, 1)
		go func() {
			res, err := other.Apply(ctx, zone, theirRR)
			theirs <- outcome{res, err}
		}()
		require.Eventually(t, func() bool {
			kinds, err := listWaitKinds(ctx, srv, zone)
			return err == nil && len(kinds) == 1
		}, 30*time.Second, 10*time.Millisecond, "the other writer waits, and says so")

		rec.counts.Reset()
		m := rec.mark()
		res := create(w, "c")
		// A request PowerDNS answered 500 (4.7.3 on gsqlite3: "database
		// is locked", the waiting writer polling beside it) is made again.
		rec.assertRequests(t, m, createUnderKeptLock(srv)+2-readsOfOneName(srv, reconcile.OwnershipAuto)+1, res.Requests,
			"under the lock kept, a look, and the lock freed: somebody waits")
		got := <-theirs
		require.NoError(t, got.err)
		assert.Len(t, got.res.Applied, 1, "the waiting writer's create goes through")
		assert.Empty(t, got.res.Postponed)
		assert.Empty(t, waitKinds(t, srv, zone), "the waiting kind goes with the wait")
		assert.Empty(t, lockKinds(t, srv, zone))
	})
}

// TestForgetFreesHeldLock: Forget frees the lock kept for the zone, and
// DeleteZone forgets one that went with the zone.
func TestForgetFreesHeldLock(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		w, _, _ := newHoldingWriter(t, srv, "dns-operator")
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
