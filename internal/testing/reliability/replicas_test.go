package reliability_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/backoff/backofftest"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/internal/testing/depth"
	"github.com/pdnskit/reconcile/internal/testing/reliability"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// TestReplicasHandOver: two replicas of one writer (two Reconcilers with
// the same WithManagedBy, as during a leader-election hand-over, when the
// old leader has not stopped yet) sync one zone at the same time, with the
// same desired state and with slightly different ones. While both run, no
// RRset either wrote is ever missing — those only one of them wants
// included, since no deletion gate opens during the overlap — and every
// RRset stays the writer's; once the old leader stops, the new one
// converges, deleting what only the old one wanted once the deletion gate
// opens.
//
// The test judges what a controller sees: a Sync that gives up on a
// server's transient failures (4.7's sqlite answers concurrent writes with
// 500 "database is locked") returns a retryable error and a requeue, which
// a controller takes as "try again"; it is counted, not failed. What must
// never happen — a lost RRset, an owner change — fails.
func TestReplicasHandOver(t *testing.T) {
	t.Parallel()
	eachServerAtOnce(t, func(t *testing.T, srv *pdnstest.Server) {
		for _, s := range stores(srv) {
			for _, differ := range []bool{false, true} {
				name := s.String() + "/same desired"
				if differ {
					name = s.String() + "/different desired"
				}
				t.Run(name, func(t *testing.T) { handOver(t, srv, s, differ) })
			}
		}
	})
}

func handOver(t *testing.T, srv *pdnstest.Server, store reconcile.OwnershipStore, differ bool) {
	ctx := pdnstest.Context(t)
	zone := srv.NewZone(t)
	const writerName = "external-dns"
	var common []rrset.RRset
	for i := range 8 {
		common = append(common, pdnstest.MustRRset(t, zone, fmt.Sprintf("svc%d", i), "A", 300, fmt.Sprintf("192.0.2.%d", i+1)))
	}
	oldWant := append(append([]rrset.RRset(nil), common...), pdnstest.MustRRset(t, zone, "x", "TXT", 300, `"v=1"`))
	newWant := append(append([]rrset.RRset(nil), common...), pdnstest.MustRRset(t, zone, "x", "TXT", 300, `"v=1"`))
	if differ {
		oldWant = append(oldWant, pdnstest.MustRRset(t, zone, "old-only", "A", 300, "192.0.2.100"))
		newWant[len(newWant)-1] = pdnstest.MustRRset(t, zone, "x", "TXT", 300, `"v=2"`)
		newWant = append(newWant, pdnstest.MustRRset(t, zone, "new-only", "AAAA", 300, "2001:db8::2"))
	}
	// The new leader's clock is a fake one, moved on once the old leader
	// stops, so that its deletion gate can open without a two-minute wait
	// (it moves by itself through retry waits).
	clock := backofftest.NewAutoClock(time.Now())
	oldLeader, oldCounts := countedWriter(t, srv, writerName, reconcile.WithOwnershipStore(store))
	newLeader, newCounts := countedWriter(t, srv, writerName, reconcile.WithOwnershipStore(store), reconcile.WithClock(clock))
	// The old leader ran alone before the hand-over.
	syncRequeued(ctx, t, oldLeader, zone, oldWant)

	var (
		mu        sync.Mutex
		problems  []string
		postponed int
		requeued  int
		flips     int
		lastX     string
		// snaps counts the snapshots ownership was checked on.
		snaps int
		// seen are the RRsets only one replica wants, once written: no
		// gate opens during the overlap, so none may vanish.
		seen = make(map[rrset.Key]bool)
	)
	onlyOne := []rrset.Key{{Name: "old-only." + zone, Type: "A"}, {Name: "new-only." + zone, Type: "AAAA"}}
	check := func(who string) {
		// The snapshot is read under mu so that snapshots are judged in the
		// order they were read: one read before an RRset was written but
		// judged after one read since would report it lost.
		mu.Lock()
		defer mu.Unlock()
		snap := takeSnapshot(t, srv, zone)
		for _, rr := range common {
			if got, ok := snap.state[rr.Key()]; !ok || strings.Join(got, ",") != strings.Join(rr.Records, ",") {
				problems = append(problems, fmt.Sprintf("after %s: %s lost: %v", who, rr.Key(), got))
			}
		}
		for _, k := range onlyOne {
			_, ok := snap.state[k]
			switch {
			case ok:
				seen[k] = true
			case seen[k]:
				problems = append(problems, fmt.Sprintf("after %s: %s deleted before the deletion gate opened", who, k))
			}
		}
		if x := strings.Join(snap.state[rrset.Key{Name: "x." + zone, Type: "TXT"}], ","); x != lastX {
			if lastX != "" {
				flips++
			}
			lastX = x
		}
		snaps++
		for k := range snap.state {
			if k.Type == "NS" {
				continue
			}
			if snap.owners[k] != writerName {
				problems = append(problems, fmt.Sprintf("after %s: %s owned by %q", who, k, snap.owners[k]))
			}
		}
	}

	// The overlap: both replicas sync, overlapSyncs times each, at once.
	overlapSyncs := depth.Of(5, 8)
	var wg sync.WaitGroup
	for _, r := range []struct {
		name string
		w    *reconcile.Reconciler
		want []rrset.RRset
	}{{"old leader", oldLeader, oldWant}, {"new leader", newLeader, newWant}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range overlapSyncs {
				res, err := r.w.Sync(ctx, zone, r.want)
				if err != nil && !pdnserrors.IsRetryable(err) {
					assert.NoError(t, err, "a Sync of %s fails for good", r.name)
					return
				}
				mu.Lock()
				postponed += min(1, len(res.Postponed))
				if err != nil {
					requeued++
				}
				mu.Unlock()
				check(r.name)
			}
		}()
	}
	wg.Wait()
	for _, p := range problems {
		t.Error(p)
	}
	overlap := takeSnapshot(t, srv, zone)
	if differ {
		assert.Contains(t, overlap.state, rrset.Key{Name: "old-only." + zone, Type: "A"}, "the gate keeps the old leader's RRset during the overlap")
		assert.Contains(t, overlap.state, rrset.Key{Name: "new-only." + zone, Type: "AAAA"}, "the gate keeps the new leader's RRset during the overlap")
	}

	// The old leader is gone: the new one converges once its gate opens,
	// within ten Syncs that got through; those that gave up on transient
	// failures are requeued and not counted among them, since they do not
	// move the gate on.
	syncs, gaveUp := 0, 0
	for quiet := false; !quiet; {
		require.Less(t, syncs, 10, "converges")
		res, err := newLeader.Sync(ctx, zone, newWant)
		if err != nil {
			require.True(t, pdnserrors.IsRetryable(err) && gaveUp < requeues, "%v", err)
			requeued++
			gaveUp++
			continue
		}
		syncs++
		quiet = len(res.Applied) == 0 && len(res.Deferred) == 0 && len(res.Postponed) == 0
		clock.Advance(time.Minute)
	}
	final := takeSnapshot(t, srv, zone)
	assert.True(t, final.state.holds(newWant), "the new leader's desired state")
	assert.NotContains(t, final.state, rrset.Key{Name: "old-only." + zone, Type: "A"})
	for k, owner := range final.owners {
		assert.Equal(t, writerName, owner, "%s", k)
	}
	reliability.Record(t, reliability.Outcome{
		Group: "replicas", Fault: fmt.Sprintf(map[bool]string{false: "two replicas, same desired state, %d concurrent Syncs each",
			true: "two replicas, different desired states (one RRset differs, one extra each), %d concurrent Syncs each"}[differ], overlapSyncs),
		Server: srv.Name(), Store: storeName(srv, store),
		Result: fmt.Sprintf("%d problem(s) (lost RRset, RRset deleted before its gate opened, or owner change in %d snapshot(s) of 16); %d Sync(s) postponed by the zone lock; %d Sync(s) gave up on transient failures (a requeue); %d 5xx answer(s) from PowerDNS retried; the differing RRset changed %d time(s); after the hand-over the new leader converged in %d Sync(s)",
			len(problems), snaps, postponed, requeued, oldCounts.serverErrors()+newCounts.serverErrors(), flips, syncs),
	})
}

// TestReplicasNeverDeleteOnFirstSight: two replicas of one writer in a
// rollout (both dns-operator, deletion gate 3 syncs over an hour) each add
// an RRset the other does not know yet, round after round, at the same
// time. Whatever path plans a delete — the first read, or the read again
// under the zone lock after the other replica wrote — it passes the same
// deletion gate, so no RRset is ever deleted: neither replica has seen the
// other's absent for an hour. The same with two upsert-only replicas.
func TestReplicasNeverDeleteOnFirstSight(t *testing.T) {
	t.Parallel()
	eachServerAtOnce(t, func(t *testing.T, srv *pdnstest.Server) {
		for _, mode := range []struct {
			name string
			opt  reconcile.Option
		}{
			{"deletion gate of 3 syncs over an hour", reconcile.WithDeletionGate(3, time.Hour)},
			{"upsert-only", reconcile.WithUpsertOnly()},
		} {
			t.Run(mode.name, func(t *testing.T) { firstSight(t, srv, mode.name, mode.opt) })
		}
	})
}

func firstSight(t *testing.T, srv *pdnstest.Server, mode string, opt reconcile.Option) {
	ctx := pdnstest.Context(t)
	zone := srv.NewZone(t)
	rounds := depth.Of(5, 10)
	replicas := []*reconcile.Reconciler{
		writer(t, srv, srv.URL, "dns-operator", opt),
		writer(t, srv, srv.URL, "dns-operator", opt),
	}
	base := pdnstest.MustRRset(t, zone, "base", "A", 300, "192.0.2.1")
	wants := make([][]rrset.RRset, len(replicas))
	var (
		mu       sync.Mutex
		deletes  []string
		requeued int
	)
	for round := range rounds {
		var wg sync.WaitGroup
		for i, r := range replicas {
			wants[i] = append(wants[i], pdnstest.MustRRset(t, zone, fmt.Sprintf("r%d-%d", i, round), "A", 300, "192.0.2.2"))
			want := append([]rrset.RRset{base}, wants[i]...)
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := r.Sync(ctx, zone, want)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					assert.True(t, pdnserrors.IsRetryable(err), "%v", err)
					requeued++
				}
				// A Sync that gave up may have written before it did:
				// its deletes are judged too.
				for _, c := range res.Applied {
					if c.Op == rrset.OpDelete {
						deletes = append(deletes, fmt.Sprintf("round %d, replica %d: %s", round, i, c.Key()))
					}
				}
			}()
		}
		wg.Wait()
	}
	// A last Sync of each, one after the other: what a round postponed (the
	// other replica held the zone lock) or gave up on is written now.
	for i, r := range replicas {
		for try := 0; ; try++ {
			// Requeued on transient failures; Applied covers every Sync
			// of the requeues, so a delete by one that then gave up is
			// judged too.
			res := syncRequeued(ctx, t, r, zone, append([]rrset.RRset{base}, wants[i]...))
			for _, c := range res.Applied {
				if c.Op == rrset.OpDelete {
					deletes = append(deletes, fmt.Sprintf("last sync, replica %d: %s", i, c.Key()))
				}
			}
			if len(res.Postponed) > 0 && try < 5 {
				continue
			}
			break
		}
	}
	for _, d := range deletes {
		t.Errorf("deleted before its gate opened: %s", d)
	}
	// Every RRset either replica wanted is there.
	state := readState(t, srv, zone)
	for i := range replicas {
		for _, rr := range wants[i] {
			if _, ok := state[rr.Key()]; !ok {
				t.Errorf("%s missing", rr.Key())
			}
		}
	}
	reliability.Record(t, reliability.Outcome{
		Group: "replicas", Fault: fmt.Sprintf("two replicas of one writer (%s), each adding an RRset the other does not want, %d concurrent rounds", mode, rounds),
		Server: srv.Name(), Store: storeName(srv, reconcile.OwnershipAuto),
		Result: fmt.Sprintf("%d delete(s) that did not pass the gate (must be 0); %d Sync(s) gave up on transient failures (a requeue)", len(deletes), requeued),
	})
}
