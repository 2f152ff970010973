package reconcile_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// makerKind is the metadata kind EnsureZone records a zone's maker in.
const makerKind = "X-PDNSKIT-ZONE-MAKER"

// createdZoneRequests is the most an EnsureZone that creates a zone may
// cost on srv, its server's facts already learned: the read that finds no
// zone, the creation and the maker's record; where ownership lives in
// comments the creation carries the apex's ownership, and where it lives
// in metadata (LMDB before 5.1) one claim record holds the apex.
func createdZoneRequests(srv *pdnstest.Server) int {
	if srv.Backend == pdnstest.LMDB && !srv.AtLeast(5, 1) {
		return 4
	}
	return 3
}

// TestZoneAnswersToItsMaker: the zone's maker, not the holder of its apex,
// decides who changes and deletes it. Record-set objects of the writer take
// the apex SOA and NS over and the zone stays its maker's; a second object
// of the zone's name changes nothing and deletes nothing; the maker deletes
// it. A created zone costs what createdZoneRequests says, a zone as
// specified two requests, and the Result counts every request sent.
func TestZoneAnswersToItsMaker(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := "maker-" + srv.NewZone(t)
		w, rec := newWriter(t, srv, "zones")
		// The server's facts (version, backend) are learned once per
		// Reconciler, by its first operation: not a cost of the zone.
		_, err := w.Live(ctx, srv.NewZone(t))
		require.NoError(t, err)
		mine := reconcile.WithOwner("dnszone/team-a/example")
		spec := reconcile.ZoneSpec{Nameservers: []string{"ns1.example.net."}, SOAEditAPI: "DEFAULT", Account: "team-a"}

		sent := rec.counts.Total()
		res, err := w.EnsureZone(ctx, zone, spec, mine, reconcile.UpdateZone())
		require.NoError(t, err)
		require.True(t, res.Created)
		assert.True(t, res.Mine)
		assert.Equal(t, [2]string{"zones", "dnszone/team-a/example"}, [2]string{res.MadeByWriter, res.MadeBy})
		assert.Equal(t, rec.counts.Total()-sent, res.Requests, "every request counted")
		assert.LessOrEqual(t, res.Requests, createdZoneRequests(srv))
		t.Logf("%s: a created zone cost %d requests", srv.Name(), res.Requests)
		for _, rr := range mustLive(t, w, zone) {
			if rr.Type == "SOA" || rr.Type == "NS" {
				assert.Equal(t, [2]string{"zones", "dnszone/team-a/example"}, [2]string{rr.ManagedBy, rr.Owner}, rr.Type)
			}
		}

		sent = rec.counts.Total()
		res, err = w.EnsureZone(ctx, zone, spec, mine, reconcile.UpdateZone())
		require.NoError(t, err)
		assert.True(t, res.Mine)
		assert.Empty(t, res.Differences)
		assert.Equal(t, rec.counts.Total()-sent, res.Requests)
		assert.LessOrEqual(t, res.Requests, 2, "a zone as specified")

		// The zone's "soa" and "ns" record-set objects take the apex over.
		soa := liveRRset(t, w, zone, "SOA")
		soa.ManagedBy, soa.Owner = "", ""
		applied, err := w.Apply(ctx, zone, soa, reconcile.WithOwner("dnsrecordset/team-a/soa"))
		require.NoError(t, err)
		require.Len(t, applied.Handovers, 1)
		ns := pdnstest.MustRRset(t, zone, "@", "NS", 3600, "ns1.example.net.", "ns2.example.net.")
		applied, err = w.Apply(ctx, zone, ns, reconcile.WithOwner("dnsrecordset/team-a/ns"))
		require.NoError(t, err)
		require.Len(t, applied.Handovers, 1)

		// ZoneStatus reads the maker, not the apex's holder, in 2 requests.
		st, err := w.ZoneStatus(ctx, zone)
		require.NoError(t, err)
		assert.Equal(t, [2]string{"zones", "dnszone/team-a/example"}, [2]string{st.MadeByWriter, st.MadeBy})
		assert.Equal(t, 2, st.Requests)

		// LiveZone too, beside the RRsets, each held by its record-set
		// object: one read of the zone and, where ownership is in
		// comments, one of the maker's kind.
		sent = rec.counts.Total()
		live, err := w.LiveZone(ctx, zone)
		require.NoError(t, err)
		assert.Equal(t, [2]string{"zones", "dnszone/team-a/example"}, [2]string{live.MadeByWriter, live.MadeBy})
		assert.Equal(t, rec.counts.Total()-sent, live.Requests)
		assert.LessOrEqual(t, live.Requests, 2)
		apex := map[string]string{}
		for _, rr := range live.RRsets {
			if rr.Name == zone {
				apex[rr.Type] = rr.Owner
			}
		}
		assert.Equal(t, map[string]string{"SOA": "dnsrecordset/team-a/soa", "NS": "dnsrecordset/team-a/ns"}, apex)

		// The zone stays its maker's: its account changes.
		spec.Account = "team-b"
		spec.Nameservers = ns.Records
		res, err = w.EnsureZone(ctx, zone, spec, mine, reconcile.UpdateZone())
		require.NoError(t, err)
		assert.True(t, res.Mine)
		require.Len(t, res.Changed, 1)
		assert.Equal(t, "account", res.Changed[0].Field)

		// A second object of the zone's name changes and deletes nothing.
		twin := reconcile.WithOwner("dnszone/team-b/example")
		twinSpec := spec
		twinSpec.Account = "team-c"
		res, err = w.EnsureZone(ctx, zone, twinSpec, twin, reconcile.UpdateZone())
		var inUse *reconcile.ZoneInUseError
		require.ErrorAs(t, err, &inUse)
		assert.True(t, inUse.NotOwner())
		assert.False(t, res.Mine)
		assert.Equal(t, "dnszone/team-a/example", res.MadeBy)
		assert.Equal(t, "team-b", *readZone(t, srv, zone).Account)

		err = w.DeleteZone(ctx, zone, twin)
		require.ErrorAs(t, err, &inUse)
		assert.True(t, inUse.NotOwner())
		assert.Equal(t, "dnszone/team-a/example", inUse.MadeBy)
		err = w.DeleteZone(ctx, zone, reconcile.WithOwner("dnsrecordset/team-a/soa"))
		require.ErrorAs(t, err, &inUse, "holding the SOA is not making the zone")
		readZone(t, srv, zone)

		require.NoError(t, w.DeleteZone(ctx, zone, mine), "the maker deletes it")
		_, err = srv.Client.Zones.Get(ctx, zone)
		require.Error(t, err, "the zone is gone")
	})
}

// TestZoneWithNoMakerRecorded: a zone an earlier release created (its apex
// SOA the writer's, no maker recorded) is its SOA owner's, and the first
// EnsureZone of that owner records it; a zone made by hand is no object's:
// EnsureZone takes it only where the writer allows adoption, and DeleteZone
// given an owner never deletes it.
func TestZoneWithNoMakerRecorded(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		// A writer of its own: LMDB hands a zone made after a deletion
		// the comments of the deleted zone, ownership among them.
		writer := "zones-" + strings.TrimSuffix(srv.NewZone(t), ".")
		w, _ := newWriter(t, srv, writer)
		owner := reconcile.WithOwner("dnszone/team-a/example")
		spec := reconcile.ZoneSpec{Nameservers: []string{"ns1.example.net."}}
		// Made first: LMDB gives a zone made after a deletion the deleted
		// zone's id, and with it what remained of its metadata.
		byHand := srv.NewZone(t)

		t.Run("earlier release", func(t *testing.T) {
			zone := "old-" + srv.NewZone(t)
			_, err := w.EnsureZone(ctx, zone, spec, owner)
			require.NoError(t, err)
			// What an earlier release left: the apex held, no maker.
			require.NoError(t, srv.Client.Metadata.Delete(ctx, zone, makerKind))

			err = w.DeleteZone(ctx, zone, reconcile.WithOwner("dnszone/team-b/example"))
			var inUse *reconcile.ZoneInUseError
			require.ErrorAs(t, err, &inUse)
			assert.Equal(t, "dnszone/team-a/example", inUse.MadeBy, "the SOA's owner")
			st, err := w.ZoneStatus(ctx, zone)
			require.NoError(t, err)
			assert.Empty(t, st.MadeByWriter+st.MadeBy, "ZoneStatus reads the maker recorded alone")
			live, err := w.LiveZone(ctx, zone)
			require.NoError(t, err)
			assert.Empty(t, live.MadeByWriter+live.MadeBy, "LiveZone reads the maker recorded alone")
			assert.NotEmpty(t, live.RRsets)

			res, err := w.EnsureZone(ctx, zone, spec, owner)
			require.NoError(t, err)
			assert.True(t, res.Mine)
			assert.False(t, res.Adopted)
			md, err := srv.Client.Metadata.Get(ctx, zone, makerKind)
			require.NoError(t, err)
			assert.ElementsMatch(t, []string{"zone=" + zone, "managed-by=" + writer, "owner=dnszone/team-a/example"}, md.Metadata, "recorded on the way")
			st, err = w.ZoneStatus(ctx, zone)
			require.NoError(t, err)
			assert.Equal(t, [2]string{writer, "dnszone/team-a/example"}, [2]string{st.MadeByWriter, st.MadeBy})
			require.NoError(t, w.DeleteZone(ctx, zone, owner))
		})

		t.Run("by hand", func(t *testing.T) {
			zone := byHand
			res, err := w.EnsureZone(ctx, zone, spec, owner, reconcile.UpdateZone())
			var inUse *reconcile.ZoneInUseError
			require.ErrorAs(t, err, &inUse, "the nameservers differ, and the zone is no one's")
			assert.True(t, inUse.NoMaker)
			assert.False(t, res.Mine)

			err = w.DeleteZone(ctx, zone, owner)
			require.ErrorAs(t, err, &inUse)
			assert.True(t, inUse.NoMaker)

			adopting, _ := newWriter(t, srv, writer, reconcile.WithAdoption())
			res, err = adopting.EnsureZone(ctx, zone, spec, owner, reconcile.UpdateZone())
			require.NoError(t, err)
			assert.True(t, res.Mine)
			assert.True(t, res.Adopted)
			st, err := w.ZoneStatus(ctx, zone)
			require.NoError(t, err)
			assert.Equal(t, [2]string{writer, "dnszone/team-a/example"}, [2]string{st.MadeByWriter, st.MadeBy})
			require.NoError(t, w.DeleteZone(ctx, zone, owner), "now its maker's")
		})
	})
}

// TestRefusedDeleteZoneCounted: a refused DeleteZone reaches the Observer
// (and so pdnskit_operations_total, labelled by the event's reason) as the
// refusal it is, NotOwner or ZoneInUse, not PDNSError.
func TestRefusedDeleteZoneCounted(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := "refused-" + srv.NewZone(t)
		seen := &reasons{}
		w, _ := newWriter(t, srv, "zones", reconcile.WithObserver(seen))
		other, _ := newWriter(t, srv, "other")
		_, err := w.EnsureZone(ctx, zone, reconcile.ZoneSpec{Nameservers: []string{"ns1.example.net."}}, reconcile.WithOwner("zone/a"))
		require.NoError(t, err)
		t.Cleanup(func() { _ = w.DeleteZone(context.Background(), zone, reconcile.ForceDeleteZone()) })

		require.Error(t, w.DeleteZone(ctx, zone, reconcile.WithOwner("zone/b")))
		_, err = other.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "www", "A", 300, "192.0.2.1"))
		require.NoError(t, err)
		var inUse *reconcile.ZoneInUseError
		require.ErrorAs(t, w.DeleteZone(ctx, zone, reconcile.WithOwner("zone/a")), &inUse)
		assert.False(t, inUse.NotOwner())

		assert.Equal(t, []reconcile.ConditionReason{reconcile.ReasonNotOwner, reconcile.ReasonZoneInUse}, seen.of(reconcile.OperationDeleteZone))
	})
}

// reasons is an Observer that keeps the reason of every operation, and
// the requests its Result counts.
type reasons struct {
	mu       sync.Mutex
	seen     map[reconcile.Operation][]reconcile.ConditionReason
	requests map[reconcile.Operation][]int
}

func (r *reasons) ObserveRequest(reconcile.RequestEvent) {}
func (r *reasons) ObserveLock(reconcile.LockEvent)       {}
func (r *reasons) ObserveOperation(e reconcile.OperationEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		r.seen = map[reconcile.Operation][]reconcile.ConditionReason{}
		r.requests = map[reconcile.Operation][]int{}
	}
	r.seen[e.Operation] = append(r.seen[e.Operation], e.Reason)
	r.requests[e.Operation] = append(r.requests[e.Operation], e.Result.Requests)
}

func (r *reasons) of(op reconcile.Operation) []reconcile.ConditionReason {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen[op]
}

func (r *reasons) requestsOf(op reconcile.Operation) []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests[op]
}

// TestCreatedZoneApexInMetadata: where ownership lives in zone metadata,
// EnsureZone holds the apex of the zone it creates with one claim record,
// no lock and no read: 4 requests on every server. The claim holds the
// apex against another writer that adopts, and the maker's "soa" object
// takes the SOA over as a handover.
func TestCreatedZoneApexInMetadata(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := "apexmd-" + srv.NewZone(t)
		store := reconcile.WithOwnershipStore(reconcile.OwnershipMetadata)
		w, rec := newWriter(t, srv, "zones", store)
		other, _ := newWriter(t, srv, "others", store, reconcile.WithAdoption())
		_, err := w.Live(ctx, srv.NewZone(t))
		require.NoError(t, err)

		sent := rec.counts.Total()
		res, err := w.EnsureZone(ctx, zone, reconcile.ZoneSpec{Nameservers: []string{"ns1.example.net."}},
			reconcile.WithOwner("dnszone/team-a/example"), reconcile.UpdateZone())
		require.NoError(t, err)
		require.True(t, res.Created)
		assert.Equal(t, rec.counts.Total()-sent, res.Requests)
		assert.Equal(t, 4, res.Requests, "the read, the creation, the maker, the apex's claim")
		for _, typ := range []string{"SOA", "NS"} {
			rr := liveRRset(t, w, zone, typ)
			assert.Equal(t, [2]string{"zones", "dnszone/team-a/example"}, [2]string{rr.ManagedBy, rr.Owner}, typ)
		}

		ns := pdnstest.MustRRset(t, zone, "@", "NS", 3600, "ns9.example.net.")
		applied, err := other.Apply(ctx, zone, ns)
		require.NoError(t, err)
		require.Len(t, applied.Blocked, 1, "another writer cannot adopt the apex")
		assert.Equal(t, []string{"ns1.example.net."}, liveRRset(t, w, zone, "NS").Records)

		soa := liveRRset(t, w, zone, "SOA")
		soa.ManagedBy, soa.Owner = "", ""
		applied, err = w.Apply(ctx, zone, soa, reconcile.WithOwner("dnsrecordset/team-a/soa"))
		require.NoError(t, err)
		require.Len(t, applied.Handovers, 1)
		got := liveRRset(t, w, zone, "SOA")
		assert.Equal(t, "dnsrecordset/team-a/soa", got.Owner)
	})
}

// mustLive reads the zone as w sees it.
func mustLive(t *testing.T, w *reconcile.Reconciler, zone string) []rrset.RRset {
	t.Helper()
	live, err := w.Live(pdnstest.Context(t), zone)
	require.NoError(t, err)
	return live
}

// liveRRset is the RRset of typ at the apex of zone, as w sees it.
func liveRRset(t *testing.T, w *reconcile.Reconciler, zone, typ string) rrset.RRset {
	t.Helper()
	for _, rr := range mustLive(t, w, zone) {
		if rr.Name == zone && rr.Type == typ {
			return rr
		}
	}
	t.Fatalf("no %s at the apex of %s", typ, zone)
	return rrset.RRset{}
}
