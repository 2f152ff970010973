package reconcile_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/backoff/backofftest"
	"github.com/pdnskit/reconcile/conflict"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/internal/testing/depth"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// TestIncident replays the incident this library exists for. external-dns
// holds A/AAAA at the gateway names v4.<host> and v6.<host>; gateway-dns
// wants CNAMEs to the apex at the same names. The CNAMEs are blocked before
// PowerDNS sees them, so no 422 is ever answered; external-dns respelling
// its owners writes nothing; one sync that lost names (a nameserver flap)
// deletes nothing; and no name ever holds a CNAME next to an address.
func TestIncident(t *testing.T) {
	forEachStore(t, func(t *testing.T, srv *pdnstest.Server, store reconcile.Option) {
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		// The writers' clock moves only when the test says so: for the
		// deletion gate, and for the zone lock each keeps after a write.
		clock := backofftest.NewClock(time.Now())
		extFrees := newFreeLocks()
		extDNS, extRec := newWriter(t, srv, "external-dns", store, reconcile.WithClock(clock), reconcile.WithObserver(extFrees))
		gwDNS, gwRec := newWriter(t, srv, "gateway-dns", store, reconcile.WithClock(clock))

		hosts := []string{"gw1", "gw2"}
		addresses := func(fqdn bool) []rrset.RRset {
			var out []rrset.RRset
			for i, h := range hosts {
				v4, v6 := "v4."+h, "v6."+h
				if fqdn {
					v4, v6 = v4+"."+zone, v6+"."+zone
				}
				out = append(out,
					pdnstest.MustRRset(t, zone, v4, "A", 300, fmt.Sprintf("192.0.2.%d", i+1)),
					pdnstest.MustRRset(t, zone, v6, "AAAA", 300, fmt.Sprintf("2001:db8::%d", i+1)))
			}
			return out
		}
		res, err := extDNS.Sync(ctx, zone, addresses(true))
		require.NoError(t, err)
		require.Len(t, res.Applied, 4)
		require.True(t, res.Condition().Programmed, res.Condition().Message)
		// external-dns keeps the zone lock after its creates until its hold
		// runs out: gateway-dns's create would wait for it.
		clock.Advance(reconcile.DefaultLockHold)
		require.NoError(t, extFrees.next(t).Err)

		// gateway-dns wants CNAMEs at the gateway names, and its own host.
		var cnames []rrset.RRset
		for _, h := range hosts {
			cnames = append(cnames,
				pdnstest.MustRRset(t, zone, "v4."+h, "CNAME", 300, "@"),
				pdnstest.MustRRset(t, zone, "v6."+h, "CNAME", 300, "@"))
		}
		cnames = append(cnames, pdnstest.MustRRset(t, zone, "gateway", "A", 300, "192.0.2.100"))
		res, err = gwDNS.Sync(ctx, zone, cnames)
		require.NoError(t, err)
		require.Len(t, res.Blocked, 4, "every CNAME next to external-dns's addresses is blocked")
		for _, c := range res.Blocked {
			assert.Equal(t, conflict.CNAMEAndOtherData, c.Kind, c.String())
			assert.Equal(t, []string{"external-dns"}, c.Writers(), c.String())
		}
		require.Len(t, res.Applied, 1, "gateway-dns's own host is written")
		assert.Equal(t, reconcile.ReasonConflict, res.Condition().Reason)
		assert.Equal(t, 10*time.Minute, res.RequeueAfter, "a conflict waits the refusal interval, not a hot loop")
		assert.Zero(t, gwRec.refusals(), "PowerDNS never answered a refusal")
		for i, h := range hosts {
			assert.Equal(t, []string{fmt.Sprintf("192.0.2.%d", i+1)}, liveContents(t, srv, zone, "v4."+h+"."+zone, "A"))
		}
		requireNoCNAMEWithAddress(t, srv, zone)

		// Again: the blocked CNAMEs are not attempted, nothing is written.
		patches := gwRec.counts.Method(http.MethodPatch)
		res, err = gwDNS.Sync(ctx, zone, cnames)
		require.NoError(t, err)
		assert.Len(t, res.Blocked, 4)
		assert.Empty(t, res.Applied)
		assert.Equal(t, patches, gwRec.counts.Method(http.MethodPatch), "no PATCH for a blocked write")

		// external-dns respells its owners from FQDN to relative form.
		patches = extRec.counts.Method(http.MethodPatch)
		res, err = extDNS.Sync(ctx, zone, addresses(false))
		require.NoError(t, err)
		assert.Empty(t, res.Applied, "a respelling is no change")
		assert.Equal(t, patches, extRec.counts.Method(http.MethodPatch))

		// A nameserver flap: one sync sees only gw1's names.
		res, err = extDNS.Sync(ctx, zone, addresses(false)[:2])
		require.NoError(t, err)
		assert.Empty(t, res.Applied, "nothing deleted on one bad observation")
		assert.Len(t, res.Deferred, 2)
		assert.Equal(t, reconcile.ReasonPending, res.Condition().Reason)
		assert.Equal(t, []string{"192.0.2.2"}, liveContents(t, srv, zone, "v4.gw2."+zone, "A"))
		requireNoCNAMEWithAddress(t, srv, zone)

		// Authority is back: nothing is rewritten.
		clock.Advance(time.Minute)
		res, err = extDNS.Sync(ctx, zone, addresses(false))
		require.NoError(t, err)
		assert.Empty(t, res.Applied)
		assert.Empty(t, res.Deferred)
		assert.Equal(t, patches, extRec.counts.Method(http.MethodPatch), "no write in the whole respell and flap")
		assert.Zero(t, extRec.refusals()+gwRec.refusals(), "no refusal from PowerDNS at any point")
		requireNoCNAMEWithAddress(t, srv, zone)
	})
}

// TestRaceIsolated: another writer changes the zone between a Sync's read and
// its PATCH, so PowerDNS refuses one RRset of the PATCH. The refused RRset is
// isolated, the rest applied; the next Sync sees the other writer's RRset
// and blocks the write instead of sending it again.
func TestRaceIsolated(t *testing.T) {
	forEachStore(t, func(t *testing.T, srv *pdnstest.Server, store reconcile.Option) {
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		w, rec := newWriter(t, srv, "gateway-dns", store)
		var want []rrset.RRset
		for i := range 20 {
			want = append(want, pdnstest.MustRRset(t, zone, fmt.Sprintf("host%02d", i), "A", 300, fmt.Sprintf("192.0.2.%d", i+1)))
		}
		want = append(want, pdnstest.MustRRset(t, zone, "v4", "CNAME", 300, "@"))
		rec.onNextPatch(func() {
			// Another writer takes v4 with an address meanwhile.
			err := srv.Client.Records.Add(context.Background(), zone, "v4."+zone, powerdns.RRTypeA, 300, []string{"192.0.2.200"})
			require.NoError(t, err)
		})
		res, err := w.Sync(ctx, zone, want)
		require.NoError(t, err)
		require.Len(t, res.Refused, 1, "the raced RRset is refused")
		refused := res.Refused[0]
		assert.Equal(t, rrset.Key{Name: "v4." + zone, Type: "CNAME"}, refused.Change.Key())
		require.NotEmpty(t, refused.Problems)
		assert.Equal(t, pdnserrors.Conflict, refused.Problems[0].Reason, refused.String())
		assert.Len(t, res.Applied, 20, "the rest is applied")
		assert.LessOrEqual(t, res.Patches, 3, "isolation costs a few PATCHes, not one per RRset")
		assert.Equal(t, reconcile.ReasonPDNSError, res.Condition().Reason)
		requireNoCNAMEWithAddress(t, srv, zone)

		patches := rec.counts.Method(http.MethodPatch)
		res, err = w.Sync(ctx, zone, want)
		require.NoError(t, err)
		assert.Empty(t, res.Refused)
		require.Len(t, res.Blocked, 1, "the race is now seen before PowerDNS")
		assert.Equal(t, conflict.CNAMEAndOtherData, res.Blocked[0].Kind)
		assert.Equal(t, patches, rec.counts.Method(http.MethodPatch))
	})
}

// TestRefusalRemembered: a change PowerDNS refuses is not sent again while
// neither it nor the zone at its name changes. LMDB before 5.1 refuses RRset
// comments, so forcing the comment store there gives a refusal on demand.
func TestRefusalRemembered(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		if srv.Backend != pdnstest.LMDB || srv.AtLeast(5, 1) {
			t.Skip("only LMDB before 5.1 refuses RRset comments")
		}
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		w, rec := newWriter(t, srv, "external-dns", reconcile.WithOwnershipStore(reconcile.OwnershipComments))
		want := []rrset.RRset{pdnstest.MustRRset(t, zone, "www", "A", 300, "192.0.2.1")}
		res, err := w.Sync(ctx, zone, want)
		require.NoError(t, err)
		require.Len(t, res.Refused, 1)
		assert.Equal(t, pdnserrors.InvalidRequest, res.Refused[0].Problems[0].Reason)
		assert.False(t, res.Refused[0].Remembered)
		assert.Equal(t, 10*time.Minute, res.RequeueAfter)

		patches := rec.patches()
		res, err = w.Sync(ctx, zone, want)
		require.NoError(t, err)
		require.Len(t, res.Refused, 1)
		assert.True(t, res.Refused[0].Remembered)
		assert.Equal(t, patches, rec.patches(), "a refused change is not sent again")

		want[0] = pdnstest.MustRRset(t, zone, "www", "A", 300, "192.0.2.2")
		_, err = w.Sync(ctx, zone, want)
		require.NoError(t, err)
		assert.Equal(t, patches+1, rec.patches(), "a changed RRset is tried again")
	})
}

// TestWritersConverge: two writers with overlapping desired sets sync in
// alternation. They converge: after a couple of rounds no round changes
// anything, every key has one writer, and no name holds a CNAME next to an
// address at any point.
func TestWritersConverge(t *testing.T) {
	// Two rounds to converge, then quiet ones that show it stays so.
	rounds := depth.Of(4, 8)
	forEachStore(t, func(t *testing.T, srv *pdnstest.Server, store reconcile.Option) {
		ctx := pdnstest.Context(t)
		for seed := range uint64(4) {
			zone := srv.NewZone(t)
			rnd := rand.New(rand.NewPCG(seed, 7))
			a, _ := newWriter(t, srv, "writer-a", store)
			b, _ := newWriter(t, srv, "writer-b", store)
			wantA, wantB := randomDesired(t, rnd, zone), randomDesired(t, rnd, zone)
			quiet := 0
			for round := range rounds {
				resA, err := a.Sync(ctx, zone, wantA)
				require.NoError(t, err)
				requireNoCNAMEWithAddress(t, srv, zone)
				resB, err := b.Sync(ctx, zone, wantB)
				require.NoError(t, err)
				requireNoCNAMEWithAddress(t, srv, zone)
				assert.Empty(t, resA.Refused, "round %d", round)
				assert.Empty(t, resB.Refused, "round %d", round)
				if len(resA.Applied)+len(resB.Applied) == 0 && resA.Patches+resB.Patches == 0 {
					quiet++
				} else {
					require.Zero(t, quiet, "seed %d round %d: a change after a quiet round: %v %v", seed, round, resA.Applied, resB.Applied)
				}
			}
			assert.GreaterOrEqual(t, quiet, rounds-2, "seed %d converges within two rounds", seed)
			requireOneWriterPerKey(t, ctx, zone, wantA, wantB, a, b)
		}
	})
}

// requireOneWriterPerKey checks that every key both writers want is held
// by exactly one of them: the other sees it as another writer's (NotOwner),
// and never do both.
func requireOneWriterPerKey(t *testing.T, ctx context.Context, zone string, wantA, wantB []rrset.RRset, a, b *reconcile.Reconciler) {
	t.Helper()
	resA, err := a.Sync(ctx, zone, wantA)
	require.NoError(t, err)
	resB, err := b.Sync(ctx, zone, wantB)
	require.NoError(t, err)
	notOwnerA, notOwnerB := notOwnerKeys(resA.Blocked), notOwnerKeys(resB.Blocked)
	wantedByB := make(map[rrset.Key]bool)
	for _, rr := range wantB {
		wantedByB[rr.Key()] = true
	}
	for _, rr := range wantA {
		k := rr.Key()
		if !wantedByB[k] {
			continue
		}
		assert.False(t, notOwnerA[k] && notOwnerB[k], "%s: each writer sees the other as its owner", k)
	}
}

func notOwnerKeys(cs []conflict.Conflict) map[rrset.Key]bool {
	out := make(map[rrset.Key]bool)
	for _, c := range cs {
		if c.Kind == conflict.NotOwner {
			out[c.Key] = true
		}
	}
	return out
}

// randomDesired draws a desired set over a small pool of names and types.
func randomDesired(t *testing.T, rnd *rand.Rand, zone string) []rrset.RRset {
	t.Helper()
	names := []string{"a", "b", "c", "d", "e", "f"}
	seen := make(map[rrset.Key]bool)
	var out []rrset.RRset
	for range 6 {
		name := names[rnd.IntN(len(names))]
		var rr rrset.RRset
		switch rnd.IntN(6) {
		case 0:
			rr = pdnstest.MustRRset(t, zone, name, "A", 300, fmt.Sprintf("192.0.2.%d", rnd.IntN(250)+1))
		case 1:
			rr = pdnstest.MustRRset(t, zone, name, "AAAA", 300, fmt.Sprintf("2001:db8::%x", rnd.IntN(250)+1))
		case 2:
			rr = pdnstest.MustRRset(t, zone, name, "CNAME", 300, "target.example.net.")
		case 3:
			rr = pdnstest.MustRRset(t, zone, name, "ALIAS", 300, "target.example.net.")
		case 4:
			rr = pdnstest.MustRRset(t, zone, name, "TXT", 300, fmt.Sprintf(`"v=%d"`, rnd.IntN(9)))
		default:
			rr = pdnstest.MustRRset(t, zone, name, "MX", 300, fmt.Sprintf("%d mail.example.net.", rnd.IntN(9)))
		}
		if !seen[rr.Key()] {
			seen[rr.Key()] = true
			out = append(out, rr)
		}
	}
	return out
}

// TestDeletionGate: an RRset of the writer's that leaves the desired state is
// deleted only after it was absent on three syncs spanning two minutes.
func TestDeletionGate(t *testing.T) {
	forEachStore(t, func(t *testing.T, srv *pdnstest.Server, store reconcile.Option) {
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		clock := backofftest.NewClock(time.Now())
		w, _ := newWriter(t, srv, "external-dns", store, reconcile.WithClock(clock))
		keep := pdnstest.MustRRset(t, zone, "keep", "A", 300, "192.0.2.1")
		gone := pdnstest.MustRRset(t, zone, "gone", "TXT", 300, `"bye"`)
		_, err := w.Sync(ctx, zone, []rrset.RRset{keep, gone})
		require.NoError(t, err)

		for i := range 2 {
			res, err := w.Sync(ctx, zone, []rrset.RRset{keep})
			require.NoError(t, err)
			require.Len(t, res.Deferred, 1, "sync %d", i+1)
			assert.Equal(t, reconcile.DeferGate, res.Deferred[0].Reason)
			assert.Equal(t, time.Minute, res.RequeueAfter, "syncs are paced so the gate opens on time")
			assert.NotNil(t, liveContents(t, srv, zone, "gone."+zone, "TXT"))
			clock.Advance(time.Minute)
		}
		res, err := w.Sync(ctx, zone, []rrset.RRset{keep})
		require.NoError(t, err)
		require.Len(t, res.Applied, 1)
		assert.Equal(t, rrset.OpDelete, res.Applied[0].Op)
		assert.Nil(t, liveContents(t, srv, zone, "gone."+zone, "TXT"))
		assert.True(t, res.Condition().Programmed)
	})
}

// TestDeleteGuard: a sync that would delete more than 30% of the writer's
// RRsets deletes none of them unless forced; an upsert-only writer never
// deletes.
func TestDeleteGuard(t *testing.T) {
	forEachStore(t, func(t *testing.T, srv *pdnstest.Server, store reconcile.Option) {
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		w, _ := newWriter(t, srv, "external-dns", store, reconcile.WithDeletionGate(1, 0))
		upsert, _ := newWriter(t, srv, "external-dns", store, reconcile.WithDeletionGate(1, 0), reconcile.WithUpsertOnly())
		var all []rrset.RRset
		for i := range 20 {
			all = append(all, pdnstest.MustRRset(t, zone, fmt.Sprintf("h%02d", i), "A", 300, fmt.Sprintf("192.0.2.%d", i+1)))
		}
		_, err := w.Sync(ctx, zone, all)
		require.NoError(t, err)

		res, err := upsert.Sync(ctx, zone, all[:5])
		require.NoError(t, err)
		assert.Empty(t, res.Applied)
		assert.Len(t, res.Deferred, 15)
		assert.True(t, res.Condition().Programmed, "an upsert-only writer waits for nothing")

		res, err = w.Sync(ctx, zone, all[:10])
		require.NoError(t, err)
		assert.Empty(t, res.Applied, "50% is over the guard")
		require.Len(t, res.Deferred, 10)
		assert.Equal(t, reconcile.DeferGuard, res.Deferred[0].Reason)

		res, err = w.Sync(ctx, zone, all[:10], reconcile.ForceDeletes())
		require.NoError(t, err)
		assert.Len(t, res.Applied, 10)
		assert.Nil(t, liveContents(t, srv, zone, "h19."+zone, "A"))
	})
}

// TestTakeoverAndAdoption: a writer changing its own name from A to CNAME is
// blocked by its own A while the deletion gate holds it, unless it takes
// over; an RRset nobody owns is adopted only when asked.
func TestTakeoverAndAdoption(t *testing.T) {
	forEachStore(t, func(t *testing.T, srv *pdnstest.Server, store reconcile.Option) {
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		refuse, _ := newWriter(t, srv, "gateway-dns", store)
		takeover, rec := newWriter(t, srv, "gateway-dns", store, reconcile.WithTakeover())
		_, err := refuse.Sync(ctx, zone, []rrset.RRset{pdnstest.MustRRset(t, zone, "api", "A", 300, "192.0.2.1")})
		require.NoError(t, err)

		toCNAME := []rrset.RRset{pdnstest.MustRRset(t, zone, "api", "CNAME", 300, "lb.example.net.")}
		res, err := refuse.Sync(ctx, zone, toCNAME)
		require.NoError(t, err)
		require.Len(t, res.Blocked, 1)
		assert.Equal(t, []string{"gateway-dns"}, res.Blocked[0].Writers())

		patches := rec.patches()
		res, err = takeover.Sync(ctx, zone, toCNAME)
		require.NoError(t, err)
		assert.Empty(t, res.Blocked)
		assert.Len(t, res.Applied, 2, "DELETE A and REPLACE CNAME")
		assert.Equal(t, patches+1, rec.patches(), "in one PATCH")
		assert.Equal(t, []string{"lb.example.net."}, liveContents(t, srv, zone, "api."+zone, "CNAME"))
		assert.Nil(t, liveContents(t, srv, zone, "api."+zone, "A"))

		// An RRset written by hand has no writer.
		rawWrite(t, func(ctx context.Context) error {
			return srv.Client.Records.Add(ctx, zone, "legacy."+zone, powerdns.RRTypeA, 300, []string{"192.0.2.9"})
		})
		legacy := []rrset.RRset{pdnstest.MustRRset(t, zone, "legacy", "A", 300, "192.0.2.9")}
		res, err = refuse.Sync(ctx, zone, legacy)
		require.NoError(t, err)
		require.Len(t, res.Blocked, 1)
		assert.Equal(t, conflict.Unowned, res.Blocked[0].Kind)
		assert.Equal(t, reconcile.ReasonNotOwner, res.Condition().Reason)

		adopter, _ := newWriter(t, srv, "gateway-dns", store, reconcile.WithAdoption())
		res, err = adopter.Sync(ctx, zone, legacy)
		require.NoError(t, err)
		assert.Empty(t, res.Blocked)
		assert.Len(t, res.Applied, 1, "adopting records the writer")
		res, err = refuse.Sync(ctx, zone, legacy)
		require.NoError(t, err)
		assert.Empty(t, res.Blocked, "adopted: now the writer's own")
		assert.Empty(t, res.Applied)
	})
}

// TestSyncOccluded: a Sync that would write below another writer's
// delegation is blocked (conflict.Occluded) and sends nothing for it, the
// rest of the Sync going through; so is a delegation over another writer's
// data; with WithAllowed(conflict.Occluded) the write goes.
func TestSyncOccluded(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		delegator, _ := newWriter(t, srv, "delegator")
		hosts, rec := newWriter(t, srv, "hosts")

		delegation := pdnstest.MustRRset(t, zone, "sub", "NS", 3600, "ns1.example.net.")
		_, err := delegator.Sync(ctx, zone, []rrset.RRset{delegation})
		require.NoError(t, err)

		below := pdnstest.MustRRset(t, zone, "x.sub", "A", 300, "192.0.2.1")
		patches := rec.counts.Method(http.MethodPatch)
		res, err := hosts.Sync(ctx, zone, []rrset.RRset{below})
		require.NoError(t, err)
		require.Len(t, res.Blocked, 1, "data below a delegation is never served")
		assert.Equal(t, conflict.Occluded, res.Blocked[0].Kind)
		assert.Equal(t, []string{"delegator"}, res.Blocked[0].Writers())
		assert.Empty(t, res.Applied)
		assert.Equal(t, patches, rec.counts.Method(http.MethodPatch), "nothing sent")
		assert.Equal(t, reconcile.ReasonConflict, res.Condition().Reason)

		www := pdnstest.MustRRset(t, zone, "www", "A", 300, "192.0.2.80")
		other := pdnstest.MustRRset(t, zone, "y.other", "A", 300, "192.0.2.2")
		res, err = hosts.Sync(ctx, zone, []rrset.RRset{below, www, other})
		require.NoError(t, err)
		require.Len(t, res.Blocked, 1)
		assert.Equal(t, below.Key(), res.Blocked[0].Key)
		assert.Len(t, res.Applied, 2, "the rest goes")
		assert.Nil(t, liveContents(t, srv, zone, "x.sub."+zone, "A"))

		res, err = delegator.Sync(ctx, zone, []rrset.RRset{delegation, pdnstest.MustRRset(t, zone, "other", "NS", 3600, "ns1.example.net.")})
		require.NoError(t, err)
		require.Len(t, res.Blocked, 1, "a delegation over another writer's data")
		assert.Equal(t, conflict.Occluded, res.Blocked[0].Kind)
		assert.Nil(t, liveContents(t, srv, zone, "other."+zone, "NS"))

		allowing, _ := newWriter(t, srv, "hosts", reconcile.WithAllowed(conflict.Occluded))
		res, err = allowing.Sync(ctx, zone, []rrset.RRset{below, www, other})
		require.NoError(t, err)
		assert.Empty(t, res.Blocked)
		require.Len(t, res.Applied, 1, "allowed")
		assert.Equal(t, []string{"192.0.2.1"}, liveContents(t, srv, zone, "x.sub."+zone, "A"))
	})
}

// TestSplitUnderBodyLimit: changes larger than the server's body limit go in
// several PATCHes and the zone converges.
func TestSplitUnderBodyLimit(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		w, _ := newWriter(t, srv, "bulk", reconcile.WithMaxPatchBytes(8<<10))
		var want []rrset.RRset
		for i := range 300 {
			want = append(want, pdnstest.MustRRset(t, zone, fmt.Sprintf("n%03d", i), "TXT", 300, fmt.Sprintf(`"record number %d"`, i)))
		}
		res, err := w.Sync(ctx, zone, want)
		require.NoError(t, err)
		assert.Len(t, res.Applied, 300)
		assert.Greater(t, res.Patches, 3, "split under 8 KiB")
		res, err = w.Sync(ctx, zone, want)
		require.NoError(t, err)
		assert.Empty(t, res.Applied)
		assert.Zero(t, res.Patches)
	})
}

// TestClaimsUnderBodyLimit: with ownership in zone metadata, a Sync that
// creates more RRsets than one claim record can hold within the body limit
// posts several claim records, each within it (a server refuses a larger
// body, 400), and every RRset reads back as the writer's.
func TestClaimsUnderBodyLimit(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		const limit = 8 << 10
		w, _ := newWriter(t, srv, "bulk", reconcile.WithMaxPatchBytes(limit), reconcile.WithOwnershipStore(reconcile.OwnershipMetadata))
		var want []rrset.RRset
		for i := range 300 {
			want = append(want, pdnstest.MustRRset(t, zone, fmt.Sprintf("n%03d", i), "A", 300, "192.0.2.1"))
		}
		_, err := w.Sync(ctx, zone, want)
		require.NoError(t, err)
		md, err := srv.Client.Metadata.List(ctx, zone)
		require.NoError(t, err)
		records, values := 0, 0
		for _, m := range md {
			if !strings.HasPrefix(string(*m.Kind), "X-PDNSKIT-O-") {
				continue
			}
			records++
			values += len(m.Metadata)
			body, err := json.Marshal(m)
			require.NoError(t, err)
			assert.LessOrEqual(t, len(body), limit, "%s", *m.Kind)
		}
		assert.Greater(t, records, 1, "300 claims of some 50 bytes each fill more than one record of 8 KiB")
		// A value is a row of the backend, and LMDB before 5.1 reads every
		// row for each kind it looks up: claims share values.
		assert.LessOrEqual(t, values, 3*records, "300 claims in %d records", records)
		live, err := w.Live(ctx, zone)
		require.NoError(t, err)
		owned := 0
		for _, rr := range live {
			if rr.ManagedBy == "bulk" {
				owned++
			}
		}
		assert.Equal(t, 300, owned)
	})
}

// TestVerify: Verify queries the DNS port and reports what was deleted or
// changed behind the Reconciler's back.
func TestVerify(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		w, _ := newWriter(t, srv, "external-dns")
		want := []rrset.RRset{
			pdnstest.MustRRset(t, zone, "www", "A", 300, "192.0.2.1", "192.0.2.2"),
			pdnstest.MustRRset(t, zone, "mail", "MX", 300, "10 mx1.example.net."),
			pdnstest.MustRRset(t, zone, "txt", "TXT", 300, `"hello world"`),
			pdnstest.MustRRset(t, zone, "v6", "AAAA", 300, "2001:db8::1"),
			pdnstest.MustRRset(t, zone, "alias", "ALIAS", 300, "lb.example.net."),
		}
		_, err := w.Sync(ctx, zone, want)
		require.NoError(t, err)
		vr, err := w.Verify(ctx, zone, want)
		require.NoError(t, err)
		assert.Equal(t, 4, vr.Checked)
		assert.Empty(t, vr.Drift)
		assert.Equal(t, []rrset.Key{{Name: "alias." + zone, Type: "ALIAS"}}, vr.Skipped)

		rawWrite(t, func(ctx context.Context) error {
			return srv.Client.Records.Delete(ctx, zone, "www."+zone, powerdns.RRTypeA)
		})
		rawWrite(t, func(ctx context.Context) error {
			return srv.Client.Records.Change(ctx, zone, "v6."+zone, powerdns.RRTypeAAAA, 300, []string{"2001:db8::1", "2001:db8::2"})
		})
		vr, err = w.Verify(ctx, zone, want)
		require.NoError(t, err)
		require.Len(t, vr.Drift, 2)
		assert.Equal(t, reconcile.DriftExtra, vr.Drift[0].Kind, vr.Drift[0].String())
		assert.Equal(t, "v6."+zone, vr.Drift[0].Want.Name)
		assert.Equal(t, reconcile.DriftMissing, vr.Drift[1].Kind, vr.Drift[1].String())
		assert.Equal(t, "www."+zone, vr.Drift[1].Want.Name)
	})
}

// TestBadInputWritesNothing: two spellings of one key with different data,
// or a name outside the zone, are an *InputError and nothing is sent.
func TestBadInputWritesNothing(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		w, rec := newWriter(t, srv, "external-dns")
		cases := map[string][]rrset.RRset{
			"two spellings": {
				{Name: "api", Type: "A", TTL: 300, Records: []string{"192.0.2.1"}},
				{Name: "API." + zone, Type: "a", TTL: 300, Records: []string{"192.0.2.2"}},
			},
			"out of zone": {{Name: "api.elsewhere.example.", Type: "A", TTL: 300, Records: []string{"192.0.2.1"}}},
			"bad content": {{Name: "api", Type: "A", TTL: 300, Records: []string{"2001:db8::1"}}},
		}
		for name, desired := range cases {
			t.Run(name, func(t *testing.T) {
				_, err := w.Sync(ctx, zone, desired)
				var in *reconcile.InputError
				require.ErrorAs(t, err, &in)
				assert.Zero(t, rec.counts.Method(http.MethodPatch))
			})
		}
		// Equal data under two spellings is one RRset.
		res, err := w.Sync(ctx, zone, []rrset.RRset{
			{Name: "api", Type: "A", TTL: 300, Records: []string{"192.0.2.1"}},
			{Name: "API." + zone, Type: "a", TTL: 300, Records: []string{"192.0.2.1"}},
		})
		require.NoError(t, err)
		assert.Len(t, res.Applied, 1)

		_, err = w.Sync(ctx, "missing.pdnstest.example.", nil)
		require.Error(t, err)
		assert.True(t, pdnserrors.IsZoneNotFound(err), err.Error())
		assert.False(t, pdnserrors.IsRetryable(err))
		assert.False(t, errors.Is(err, context.Canceled))
	})
}
