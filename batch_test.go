package reconcile_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// heldApplies starts w.Apply of first and stops it just before its PATCH,
// in its turn; then starts an Apply of each of rest, waits until each has
// queued for the turn (or ended: one the server cannot store), and lets the
// first PATCH go. It returns the Results and errors of rest, in order.
// beforeBatch, when set, runs before the PATCH after the first.
func heldApplies(ctx context.Context, t *testing.T, w *reconcile.Reconciler, rec *recorder, zone string,
	first rrset.RRset, rest []rrset.RRset, beforeBatch func()) ([]reconcile.Result, []error) {
	t.Helper()
	var then func()
	if beforeBatch != nil {
		then = func() { rec.onNextPatch(beforeBatch) }
	}
	release, firstErr := applyHeld(ctx, w, rec, zone, first, then)

	results, errs := make([]reconcile.Result, len(rest)), make([]error, len(rest))
	var (
		wg    sync.WaitGroup
		ended atomic.Int32
	)
	for i, rr := range rest {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = w.Apply(ctx, zone, rr)
			ended.Add(1)
		}()
	}
	require.Eventually(t, func() bool { return reconcile.WaitingApplies(w, zone)+int(ended.Load()) == len(rest) },
		30*time.Second, 5*time.Millisecond, "the Applies queue for the turn")
	release()
	require.NoError(t, <-firstErr)
	wg.Wait()
	return results, errs
}

// TestGroupCommit: Applies that wait for their zone's turn while another
// Apply writes are carried out together when it ends: one PATCH for all
// whose names are unrelated, each with its own Result; an Apply at, above
// or below another's name waits for the next batch, so that the two are
// decided one after the other.
func TestGroupCommit(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		// Each turn takes the zone lock and frees it (the count at the end).
		w, rec := newWriter(t, srv, "dns-operator", reconcile.WithLockHold(0))
		rest := []rrset.RRset{
			pdnstest.MustRRset(t, zone, "b1", "A", 300, "192.0.2.1"),
			pdnstest.MustRRset(t, zone, "b2", "A", 300, "192.0.2.2"),
			pdnstest.MustRRset(t, zone, "x.b1", "A", 300, "192.0.2.3"),
			pdnstest.MustRRset(t, zone, "b2", "TXT", 300, `"two"`),
			pdnstest.MustRRset(t, zone, "b3", "AAAA", 300, "2001:db8::3"),
			pdnstest.MustRRset(t, zone, "b4", "A", 300, "192.0.2.4"),
			pdnstest.MustRRset(t, zone, "b5", "MX", 300, "10 mail.example.net."),
		}
		patches := rec.patches()
		results, errs := heldApplies(ctx, t, w, rec, zone, pdnstest.MustRRset(t, zone, "a", "A", 300, "192.0.2.9"), rest, nil)
		for i, rr := range rest {
			require.NoError(t, errs[i], rr.Key().String())
			require.Len(t, results[i].Applied, 1, "%s: its own change, only", rr.Key())
			assert.Equal(t, rr.Key(), results[i].Applied[0].Key())
			assert.Empty(t, results[i].Blocked)
			assert.Equal(t, 1, results[i].Patches, "%s: the PATCH of its batch", rr.Key())
			assert.True(t, results[i].Condition().Programmed)
			assert.Equal(t, rr.Records, liveContents(t, srv, zone, rr.Name, rr.Type), rr.Key().String())
		}
		// Without group commit, one PATCH each. With it, the held Apply's,
		// then two batches: x.b1 and b1, and the two RRsets of b2, are
		// never in one.
		assert.Equal(t, 3, rec.patches()-patches, "PATCHes")
		assert.Zero(t, rec.refusals())

		// The batch read the whole zone: an Apply of a name it did not
		// hold is now expected to create, and reads only under the lock.
		m := rec.mark()
		res, err := w.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "c", "A", 300, "192.0.2.10"))
		require.NoError(t, err)
		require.Len(t, res.Applied, 1)
		assert.Zero(t, rec.reads("c."+zone), "a create the whole-zone read expected, not read before the lock")
		rec.assertRequests(t, m, 4+readsOfOneName(srv, reconcile.OwnershipAuto), res.Requests, "the lock, one read, the PATCH")
	})
}

// TestGroupCommitRefusal: PowerDNS refusing one member's RRset in a
// batch's PATCH is isolated to that member: the others are applied, and
// only its Result holds the refusal.
func TestGroupCommitRefusal(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		w, rec := newWriter(t, srv, "dns-operator")
		rest := []rrset.RRset{
			pdnstest.MustRRset(t, zone, "b1", "A", 300, "192.0.2.1"),
			pdnstest.MustRRset(t, zone, "v4", "CNAME", 300, "@"),
			pdnstest.MustRRset(t, zone, "b3", "A", 300, "192.0.2.3"),
		}
		raced := func() {
			// Another client writes an address at v4 after the batch read.
			err := srv.Client.Records.Add(context.Background(), zone, "v4."+zone, powerdns.RRTypeA, 300, []string{"192.0.2.200"})
			require.NoError(t, err)
		}
		results, errs := heldApplies(ctx, t, w, rec, zone, pdnstest.MustRRset(t, zone, "a", "A", 300, "192.0.2.9"),
			rest, raced)
		for i, rr := range rest {
			require.NoError(t, errs[i], rr.Key().String())
		}
		require.Len(t, results[1].Refused, 1, "the raced member's RRset is refused")
		assert.Equal(t, pdnserrors.Conflict, results[1].Refused[0].Problems[0].Reason, results[1].Refused[0].String())
		assert.Empty(t, results[1].Applied)
		for _, i := range []int{0, 2} {
			assert.Empty(t, results[i].Refused, rest[i].Key().String())
			require.Len(t, results[i].Applied, 1, rest[i].Key().String())
			assert.Equal(t, rest[i].Records, liveContents(t, srv, zone, rest[i].Name, "A"))
		}
		requireNoCNAMEWithAddress(t, srv, zone)
	})
}

// TestGroupCommitContext: an Apply whose context ends while it waits for
// its zone's turn returns then, and is not written by a later batch.
func TestGroupCommitContext(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		w, rec := newWriter(t, srv, "dns-operator")
		release, first := applyHeld(ctx, w, rec, zone, pdnstest.MustRRset(t, zone, "a", "A", 300, "192.0.2.9"), nil)

		// The first Apply holds the turn until release: an Apply that
		// returns before it returns by its own context.
		short, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
		defer cancel()
		_, err := w.Apply(short, zone, pdnstest.MustRRset(t, zone, "gone", "A", 300, "192.0.2.1"))
		require.ErrorIs(t, err, context.DeadlineExceeded, "returns by its context")

		kept := make(chan error, 1)
		go func() {
			_, err := w.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "kept", "A", 300, "192.0.2.2"))
			kept <- err
		}()
		require.Eventually(t, func() bool { return reconcile.WaitingApplies(w, zone) == 1 },
			30*time.Second, 5*time.Millisecond, "kept queues for the turn")
		release()
		require.NoError(t, <-first)
		require.NoError(t, <-kept)
		assert.Empty(t, liveContents(t, srv, zone, "gone."+zone, "A"), "an Apply given up while waiting is not written")
		assert.Equal(t, []string{"192.0.2.2"}, liveContents(t, srv, zone, "kept."+zone, "A"))
	})
}

// TestGroupCommitArrivalOrder: two Applies of one key that wait for the
// zone's turn are decided in the order they came, as one after the other:
// the later object's takes the RRset over from the earlier's (a handover
// within the writer), whichever of them takes the turn.
func TestGroupCommitArrivalOrder(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		w, rec := newWriter(t, srv, "dns-operator")
		for round := range 3 {
			release, first := applyHeld(ctx, w, rec, zone, pdnstest.MustRRset(t, zone, fmt.Sprintf("held%d", round), "A", 300, "192.0.2.9"), nil)

			rr := pdnstest.MustRRset(t, zone, fmt.Sprintf("k%d", round), "A", 300, "192.0.2.1")
			owners := []string{"default/older", "default/newer"}
			results, errs := make([]reconcile.Result, 2), make([]error, 2)
			var wg sync.WaitGroup
			for i, owner := range owners {
				wg.Add(1)
				go func() {
					defer wg.Done()
					results[i], errs[i] = w.Apply(ctx, zone, rr, reconcile.WithOwner(owner))
				}()
				require.Eventually(t, func() bool { return reconcile.WaitingApplies(w, zone) == i+1 },
					30*time.Second, 5*time.Millisecond, "%s queues for the turn", owner)
			}
			release()
			require.NoError(t, <-first)
			wg.Wait()
			require.NoError(t, errs[0])
			require.NoError(t, errs[1])
			require.Len(t, results[0].Applied, 1, "the older object's create")
			require.Len(t, results[1].Handovers, 1, "round %d: the newer object's takes it over", round)
			assert.Equal(t, "default/older", results[1].Handovers[0].From)
			live, err := w.Live(ctx, zone)
			require.NoError(t, err)
			i := slices.IndexFunc(live, func(l rrset.RRset) bool { return l.Key() == rr.Key() })
			require.GreaterOrEqual(t, i, 0)
			assert.Equal(t, "default/newer", live[i].Owner)
		}
	})
}

// TestGroupCommitLargeZone: in a zone large against the batch (1,000 RRsets
// per name), a batch reads its members' names one at a time, not the
// whole zone, and carries them out in one PATCH.
func TestGroupCommitLargeZone(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		w, rec := newWriter(t, srv, "dns-operator")
		var many []rrset.RRset
		for i := range 2000 {
			many = append(many, pdnstest.MustRRset(t, zone, fmt.Sprintf("h%04d", i), "A", 300, "192.0.2.1"))
		}
		_, err := w.Sync(ctx, zone, many) // which reads the zone whole
		require.NoError(t, err)

		rest := []rrset.RRset{
			pdnstest.MustRRset(t, zone, "n1", "A", 300, "192.0.2.1"),
			pdnstest.MustRRset(t, zone, "n2", "A", 300, "192.0.2.2"),
		}
		patches := rec.patches()
		results, errs := heldApplies(ctx, t, w, rec, zone, pdnstest.MustRRset(t, zone, "a", "A", 300, "192.0.2.9"), rest, nil)
		for i, rr := range rest {
			require.NoError(t, errs[i])
			require.Len(t, results[i].Applied, 1, rr.Key().String())
			assert.Equal(t, 1, rec.reads(rr.Name), "%s: read by name, once", rr.Name)
			assert.Equal(t, rr.Records, liveContents(t, srv, zone, rr.Name, "A"))
		}
		assert.Equal(t, 2, rec.patches()-patches, "the held Apply's PATCH and the batch's")
	})
}

// TestGroupCommitBadMember: an Apply the server cannot store (LUA on
// PowerDNS 5.1) that waits with others gets its own *InputError, and the
// others are written.
func TestGroupCommitBadMember(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		if !srv.AtLeast(5, 1) {
			t.Skip("PowerDNS before 5.1 stores LUA records through its API")
		}
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		w, rec := newWriter(t, srv, "dns-operator")
		_, err := w.Sync(ctx, zone, nil) // read whole: the Applies below expect to create
		require.NoError(t, err)
		rest := []rrset.RRset{
			pdnstest.MustRRset(t, zone, "good", "A", 300, "192.0.2.1"),
			pdnstest.MustRRset(t, zone, "lua", "LUA", 300, `A "ifportup(443, {'192.0.2.1'})"`),
			pdnstest.MustRRset(t, zone, "fine", "A", 300, "192.0.2.2"),
		}
		results, errs := heldApplies(ctx, t, w, rec, zone, pdnstest.MustRRset(t, zone, "a", "A", 300, "192.0.2.9"), rest, nil)
		var input *reconcile.InputError
		require.ErrorAs(t, errs[1], &input, "the LUA Apply's own error")
		for _, i := range []int{0, 2} {
			require.NoError(t, errs[i], rest[i].Key().String())
			require.Len(t, results[i].Applied, 1, rest[i].Key().String())
		}
	})
}
