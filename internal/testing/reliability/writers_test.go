package reliability_test

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/conflict"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/internal/testing/depth"
	"github.com/pdnskit/reconcile/internal/testing/reliability"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// TestWritersRace: two different writers sync one zone at the same time,
// over and over, wanting the same names: the same type with different data
// (A against A), and another type (CNAME against A), next to names only one
// of them wants. No RRset of either is ever lost, a contested RRset never
// changes hands (neither writer takes over), no name ever holds a CNAME
// next to an address, and the writers converge: the loser of each name is
// told so (Blocked) and writes nothing more; PowerDNS refuses nothing.
func TestWritersRace(t *testing.T) {
	t.Parallel()
	eachServerAtOnce(t, func(t *testing.T, srv *pdnstest.Server) {
		for _, s := range stores(srv) {
			t.Run(s.String(), func(t *testing.T) { writersRace(t, srv, s) })
		}
	})
}

func writersRace(t *testing.T, srv *pdnstest.Server, store reconcile.OwnershipStore) {
	ctx := pdnstest.Context(t)
	zone := srv.NewZone(t)
	names := []string{"gateway-dns", "external-dns"}
	wants := make([][]rrset.RRset, 2)
	for i := range names {
		for n := range 6 { // same name, same type, different data
			wants[i] = append(wants[i], pdnstest.MustRRset(t, zone, fmt.Sprintf("s%d", n), "A", 300, fmt.Sprintf("192.0.2.%d", 10*i+n+1)))
		}
		for n := range 4 { // same name, CNAME against A
			if i == 0 {
				wants[i] = append(wants[i], pdnstest.MustRRset(t, zone, fmt.Sprintf("m%d", n), "CNAME", 300, "lb.example.net."))
			} else {
				wants[i] = append(wants[i], pdnstest.MustRRset(t, zone, fmt.Sprintf("m%d", n), "A", 300, fmt.Sprintf("198.51.100.%d", n+1)))
			}
		}
		for n := range 4 { // names only this writer wants
			wants[i] = append(wants[i], pdnstest.MustRRset(t, zone, fmt.Sprintf("own%d-%d", i, n), "TXT", 300, fmt.Sprintf(`"writer %d record %d"`, i, n)))
		}
	}
	// syncs is how many Syncs each writer gets through while racing.
	syncs := depth.Of(6, 10)
	w0, c0 := countedWriter(t, srv, names[0], reconcile.WithOwnershipStore(store))
	w1, c1 := countedWriter(t, srv, names[1], reconcile.WithOwnershipStore(store))
	writers := []*reconcile.Reconciler{w0, w1}

	var (
		mu       sync.Mutex
		firstOwn = make(map[rrset.Key]string)
		problems []string
		applied  [2]int
		// requeued counts the Syncs that gave up on transient failures.
		requeued int
		// snaps counts the snapshots ownership was checked on.
		snaps int
	)
	check := func(who string) {
		// The snapshot is read under mu so that snapshots are judged in the
		// order they were read: one read before an RRset was written but
		// judged after one read since would report it lost.
		mu.Lock()
		defer mu.Unlock()
		snap := takeSnapshot(t, srv, zone)
		if name := snap.cnameNextToAddress(); name != "" {
			problems = append(problems, fmt.Sprintf("after %s: %s holds a CNAME next to an address", who, name))
		}
		for k, owner := range firstOwn {
			if _, ok := snap.state[k]; !ok {
				problems = append(problems, fmt.Sprintf("after %s: %s of %s lost", who, k, owner))
			}
		}
		snaps++
		for k, owner := range snap.owners {
			if prev, ok := firstOwn[k]; ok && prev != owner {
				problems = append(problems, fmt.Sprintf("after %s: %s changed hands from %s to %s", who, k, prev, owner))
			} else if !ok {
				firstOwn[k] = owner
			}
		}
		for k := range snap.state {
			if _, ok := snap.owners[k]; !ok && k.Type != "NS" {
				problems = append(problems, fmt.Sprintf("after %s: %s has no owner", who, k))
			}
		}
	}

	var wg sync.WaitGroup
	for i, w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Ten Syncs that got to write. A Sync postponed because the other
			// writer held the zone, or that gave up on transient failures
			// (4.7's sqlite answers concurrent writes 500 "database is
			// locked"), is tried again after a short, random wait, as a
			// controller does with RequeueAfter (only shorter).
			for done, tries := 0, 0; done < syncs && tries < 200; tries++ {
				res, err := w.Sync(ctx, zone, wants[i])
				if err != nil && !pdnserrors.IsRetryable(err) {
					assert.NoError(t, err, "a Sync of %s fails for good", names[i])
					return
				}
				mu.Lock()
				if err != nil {
					requeued++
				}
				// Every conflict is the library's to see first: a
				// refusal is a write decided on a read that missed the
				// other writer's, also in a Sync that then gave up.
				for _, r := range res.Refused {
					problems = append(problems, fmt.Sprintf("PowerDNS refused %s's write: %s", names[i], r))
				}
				mu.Unlock()
				if err != nil || len(res.Postponed) > 0 {
					time.Sleep(time.Duration(5+rand.IntN(20)) * time.Millisecond)
					continue
				}
				done++
				mu.Lock()
				applied[i] += len(res.Applied)
				mu.Unlock()
				check(names[i])
			}
		}()
	}
	wg.Wait()
	for _, p := range problems {
		t.Error(p)
	}

	// Converged: neither writer has anything left to write, and each
	// contested name is the other's to one of them.
	snap := takeSnapshot(t, srv, zone)
	blocked := 0
	for i, w := range writers {
		// Requeued on transient failures; Applied covers every Sync of
		// the requeues, so one that wrote and then gave up is not
		// taken for converged.
		res := syncRequeued(ctx, t, w, zone, wants[i])
		assert.Empty(t, res.Applied, "%s converged", names[i])
		assert.Empty(t, res.Postponed)
		for _, c := range res.Blocked {
			assert.Contains(t, []conflict.Kind{conflict.NotOwner, conflict.CNAMEAndOtherData}, c.Kind, c.String())
		}
		blocked += len(res.Blocked)
		for _, rr := range wants[i][10:] {
			assert.Equal(t, names[i], snap.owners[rr.Key()], "%s keeps its own names", names[i])
		}
	}
	won := map[string]int{}
	for n := range 10 {
		owner := ""
		for k, o := range snap.owners {
			if k.Name == wants[0][n].Name {
				assert.True(t, owner == "" || owner == o, "%s: one writer per name", k.Name)
				owner = o
			}
		}
		assert.NotEmpty(t, owner, "%s is held by one of them", wants[0][n].Name)
		won[owner]++
	}
	reliability.Record(t, reliability.Outcome{
		Group: "writers", Fault: fmt.Sprintf("two writers, %d concurrent Syncs each, 6 names A/A and 4 names CNAME/A contested, 4 own names each", syncs),
		Server: srv.Name(), Store: storeName(srv, store),
		Result: fmt.Sprintf("%d problem(s) (lost RRset, CNAME next to address, owner change in %d snapshot(s) of 20, or a write PowerDNS refused); %d Sync(s) gave up on transient failures (a requeue); %d 5xx answer(s) from PowerDNS retried; contested names won: %s %d, %s %d; converged, %d write(s) blocked for the loser",
			len(problems), snaps, requeued, c0.serverErrors()+c1.serverErrors(), names[0], won[names[0]], names[1], won[names[1]], blocked),
	})
}
