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
	"github.com/pdnskit/reconcile/internal/reliability"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// TestReplicasHandOver: two replicas of one writer (two Reconcilers with
// the same WithManagedBy, as during a leader-election hand-over, when the
// old leader has not stopped yet) sync one zone at the same time, with the
// same desired state and with slightly different ones. While both run, no
// RRset either wants is ever missing and every RRset stays the writer's;
// once the old leader stops, the new one converges, deleting what only the
// old one wanted once the deletion gate opens.
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
	ctx := testContext(t)
	zone := srv.NewZone(t)
	const writerName = "external-dns"
	var common []rrset.RRset
	for i := range 8 {
		common = append(common, mustRRset(t, zone, fmt.Sprintf("svc%d", i), "A", 300, fmt.Sprintf("192.0.2.%d", i+1)))
	}
	oldWant := append(append([]rrset.RRset(nil), common...), mustRRset(t, zone, "x", "TXT", 300, `"v=1"`))
	newWant := append(append([]rrset.RRset(nil), common...), mustRRset(t, zone, "x", "TXT", 300, `"v=1"`))
	if differ {
		oldWant = append(oldWant, mustRRset(t, zone, "old-only", "A", 300, "192.0.2.100"))
		newWant[len(newWant)-1] = mustRRset(t, zone, "x", "TXT", 300, `"v=2"`)
		newWant = append(newWant, mustRRset(t, zone, "new-only", "AAAA", 300, "2001:db8::2"))
	}
	// The new leader's clock is a fake one, moved on once the old leader
	// stops, so that its deletion gate can open without a two-minute wait
	// (it moves by itself through retry waits).
	clock := backofftest.NewAutoClock(time.Now())
	oldLeader, oldCounts := countedWriter(t, srv, writerName, reconcile.WithOwnershipStore(store))
	newLeader, newCounts := countedWriter(t, srv, writerName, reconcile.WithOwnershipStore(store), reconcile.WithClock(clock))
	// The old leader ran alone before the hand-over.
	_, err := oldLeader.Sync(ctx, zone, oldWant)
	require.NoError(t, err)

	var (
		mu        sync.Mutex
		problems  []string
		postponed int
		flips     int
		lastX     string
		// quietSnaps counts the snapshots ownership was checked on.
		quietSnaps int
	)
	check := func(who string) {
		snap := takeSnapshot(t, srv, zone)
		mu.Lock()
		defer mu.Unlock()
		for _, rr := range common {
			if got, ok := snap.state[rr.Key()]; !ok || strings.Join(got, ",") != strings.Join(rr.Records, ",") {
				problems = append(problems, fmt.Sprintf("after %s: %s lost: %v", who, rr.Key(), got))
			}
		}
		if x := strings.Join(snap.state[rrset.Key{Name: "x." + zone, Type: "TXT"}], ","); x != lastX {
			if lastX != "" {
				flips++
			}
			lastX = x
		}
		if !snap.quiet {
			return
		}
		quietSnaps++
		for k := range snap.state {
			if k.Type == "NS" {
				continue
			}
			if snap.owners[k] != writerName {
				problems = append(problems, fmt.Sprintf("after %s: %s owned by %q", who, k, snap.owners[k]))
			}
		}
	}

	// The overlap: both replicas sync, eight times each, at once.
	var wg sync.WaitGroup
	for _, r := range []struct {
		name string
		w    *reconcile.Reconciler
		want []rrset.RRset
	}{{"old leader", oldLeader, oldWant}, {"new leader", newLeader, newWant}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 8 {
				res, err := r.w.Sync(ctx, zone, r.want)
				if !assert.NoError(t, err) {
					return
				}
				mu.Lock()
				postponed += min(1, len(res.Postponed))
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

	// The old leader is gone: the new one converges once its gate opens.
	syncs := 0
	for quiet := false; !quiet; syncs++ {
		require.Less(t, syncs, 6, "converges")
		res, err := newLeader.Sync(ctx, zone, newWant)
		require.NoError(t, err)
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
		Group: "replicas", Fault: map[bool]string{false: "two replicas, same desired state, 8 concurrent Syncs each",
			true: "two replicas, different desired states (one RRset differs, one extra each), 8 concurrent Syncs each"}[differ],
		Server: srv.Name(), Store: storeName(srv, store),
		Result: fmt.Sprintf("%d problem(s) (lost RRset, or owner change in %d quiet snapshot(s) of 16); %d Sync(s) postponed by the zone lock; %d 5xx answer(s) from PowerDNS retried; the differing RRset changed %d time(s); after the hand-over the new leader converged in %d Sync(s)",
			len(problems), quietSnaps, postponed, oldCounts.serverErrors()+newCounts.serverErrors(), flips, syncs),
	})
}
