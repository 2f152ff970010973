package reconcile_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/conflict"
	"github.com/pdnskit/reconcile/internal/testing/depth"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// TestApplyIncident replays the incident through per-object writes: an
// object's CNAME next to another writer's A and AAAA is blocked, never
// sent, reported as Conflict with a long requeue, and requeues send
// nothing.
func TestApplyIncident(t *testing.T) {
	forEachStore(t, func(t *testing.T, srv *pdnstest.Server, store reconcile.Option) {
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		ext, _ := newWriter(t, srv, "external-dns", store)
		op, opRec := newWriter(t, srv, "dns-operator", store)

		for _, rr := range []rrset.RRset{
			pdnstest.MustRRset(t, zone, "v4.gw", "A", 300, "192.0.2.1"),
			pdnstest.MustRRset(t, zone, "v6.gw", "AAAA", 300, "2001:db8::1"),
		} {
			res, err := ext.Apply(ctx, zone, rr)
			require.NoError(t, err)
			require.Len(t, res.Applied, 1)
		}
		for _, name := range []string{"v4.gw", "v6.gw"} {
			cname := pdnstest.MustRRset(t, zone, name, "CNAME", 300, "@")
			for range 3 {
				res, err := op.Apply(ctx, zone, cname, reconcile.WithOwner("default/gateway"))
				require.NoError(t, err)
				require.Len(t, res.Blocked, 1)
				assert.Equal(t, conflict.CNAMEAndOtherData, res.Blocked[0].Kind)
				assert.Equal(t, []string{"external-dns"}, res.Blocked[0].Writers())
				cond := reconcile.ConditionFor(res, err)
				assert.Equal(t, reconcile.ReasonConflict, cond.Reason)
				assert.Equal(t, "False", cond.Status())
				assert.Equal(t, 10*time.Minute, res.RequeueAfter)
				assert.Zero(t, res.Patches)
			}
		}
		assert.Zero(t, opRec.counts.Method(http.MethodPatch), "a blocked write is never sent")
		assert.Zero(t, opRec.refusals())
		requireNoCNAMEWithAddress(t, srv, zone)
	})
}

// TestApplyCost: an Apply that finds its RRset as asked makes one request
// (two where ownership lives in zone metadata) and no PATCH; an update of
// the writer's own RRset makes a read and a PATCH (and the metadata read),
// without the zone lock. The lock the create kept stays kept (its clock
// does not move): its release is not sent while the test counts.
func TestApplyCost(t *testing.T) {
	forEachStoreKind(t, func(t *testing.T, srv *pdnstest.Server, kind reconcile.OwnershipStore) {
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		w, rec, _ := newHoldingWriter(t, srv, "dns-operator", reconcile.WithOwnershipStore(kind))
		meta := readsOfOneName(srv, kind) - 1
		rr := pdnstest.MustRRset(t, zone, "www", "A", 300, "192.0.2.1")
		res, err := w.Apply(ctx, zone, rr, reconcile.WithOwner("default/www"))
		require.NoError(t, err)
		require.Len(t, res.Applied, 1)

		for range 3 {
			m := rec.mark()
			res, err = w.Apply(ctx, zone, rr, reconcile.WithOwner("default/www"))
			require.NoError(t, err)
			assert.Empty(t, res.Applied)
			rec.assertRequests(t, m, 1+meta, res.Requests, "steady state")
			assert.Zero(t, res.Patches)
			assert.True(t, res.Condition().Programmed)
		}

		rec.counts.Reset()
		m := rec.mark()
		changed := pdnstest.MustRRset(t, zone, "www", "A", 300, "192.0.2.2")
		res, err = w.Apply(ctx, zone, changed, reconcile.WithOwner("default/www"))
		require.NoError(t, err)
		require.Len(t, res.Applied, 1)
		rec.assertRequests(t, m, 2+meta, res.Requests, "own update: read and PATCH")
		assert.Equal(t, 1, res.Patches)
		assert.Zero(t, rec.counts.Method(http.MethodPost), "no lock for an update of the writer's own RRset")
		assert.Equal(t, []string{"192.0.2.2"}, liveContents(t, srv, zone, "www."+zone, "A"))
	})
}

// TestApplyCostManyObjects: the per-object costs of TestApplyCost hold with
// many objects in the zone, each applied on its own (a controller's
// objects), as many as make the metadata store merge its claim records
// (twelve records at most: its creates delete some): once every object is
// applied, a no-op Apply and an update make no POST or DELETE; upkeep of
// the claims is paid when claims are written, not on every Apply after.
func TestApplyCostManyObjects(t *testing.T) {
	forEachStoreKind(t, func(t *testing.T, srv *pdnstest.Server, kind reconcile.OwnershipStore) {
		// Each Apply has its own time bound (pdnstest.Context): what is
		// measured is requests, and a loaded machine takes longer than one
		// bound for all of them.
		zone := srv.NewZone(t)
		w, rec, _ := newHoldingWriter(t, srv, "dns-operator", reconcile.WithOwnershipStore(kind))
		meta := readsOfOneName(srv, kind) - 1
		objects := depth.Of(16, 40)
		object := func(i int, content string) (rrset.RRset, reconcile.OwnerOption) {
			name := fmt.Sprintf("obj-%02d", i)
			return pdnstest.MustRRset(t, zone, name, "A", 300, content), reconcile.WithOwner("default/" + name)
		}
		for i := range objects {
			rr, owner := object(i, "192.0.2.1")
			res, err := w.Apply(pdnstest.Context(t), zone, rr, owner)
			require.NoError(t, err)
			require.Len(t, res.Applied, 1)
		}
		if meta > 0 {
			assert.Positive(t, rec.counts.Method(http.MethodDelete), "the creates merged claim records")
		}
		// The zone lock kept after the creates stays kept: its clock does
		// not move, so nothing is freed behind the counts.

		for _, phase := range []struct {
			name     string
			content  string
			requests int
			patches  int
		}{
			{"no-op", "192.0.2.1", 1 + meta, 0},
			{"update", "192.0.2.2", 2 + meta, 1},
			{"no-op after update", "192.0.2.2", 1 + meta, 0},
		} {
			rec.counts.Reset()
			for i := range objects {
				rr, owner := object(i, phase.content)
				m := rec.mark()
				res, err := w.Apply(pdnstest.Context(t), zone, rr, owner)
				require.NoError(t, err)
				rec.assertRequests(t, m, phase.requests, res.Requests, fmt.Sprintf("%s of object %d", phase.name, i))
				assert.Equal(t, phase.patches, res.Patches, "%s of object %d", phase.name, i)
			}
			assert.Zero(t, rec.counts.Method(http.MethodPost), "%s: POSTs", phase.name)
			assert.Zero(t, rec.counts.Method(http.MethodDelete), "%s: DELETEs", phase.name)
		}
	})
}

// TestApplyOwners: within one writer, another object may take an RRset
// over (the controller arbitrates: the oldest object owns it), which is
// reported; another writer stays blocked, and the conflict names writer and
// owner.
func TestApplyOwners(t *testing.T) {
	forEachStore(t, func(t *testing.T, srv *pdnstest.Server, store reconcile.Option) {
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		w, _ := newWriter(t, srv, "dns-operator", store)
		other, _ := newWriter(t, srv, "external-dns", store)
		rr := pdnstest.MustRRset(t, zone, "api", "A", 300, "192.0.2.1")

		res, err := w.Apply(ctx, zone, rr, reconcile.WithOwner("team-a/api"))
		require.NoError(t, err)
		require.Len(t, res.Applied, 1)
		assert.Empty(t, res.Handovers)

		// The same data, another object of the writer: a handover.
		res, err = w.Apply(ctx, zone, rr, reconcile.WithOwner("team-b/api"))
		require.NoError(t, err)
		require.Equal(t, []reconcile.Handover{{Key: rr.Key(), From: "team-a/api", To: "team-b/api"}}, res.Handovers)
		assert.True(t, res.Condition().Programmed)
		// Recorded: the next Apply by team-b finds nothing to do.
		res, err = w.Apply(ctx, zone, rr, reconcile.WithOwner("team-b/api"))
		require.NoError(t, err)
		assert.Empty(t, res.Handovers)
		assert.Empty(t, res.Applied)

		res, err = other.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "api", "A", 300, "192.0.2.9"))
		require.NoError(t, err)
		require.Len(t, res.Blocked, 1)
		assert.Equal(t, conflict.NotOwner, res.Blocked[0].Kind)
		assert.Contains(t, res.Blocked[0].String(), "dns-operator")
		assert.Contains(t, res.Blocked[0].String(), "team-b/api")
		assert.Equal(t, reconcile.ReasonNotOwner, res.Condition().Reason)
		assert.Equal(t, []string{"192.0.2.1"}, liveContents(t, srv, zone, "api."+zone, "A"))
	})
}

// TestRemove: Remove deletes the writer's RRset at once (no deletion gate),
// is idempotent, and never deletes another writer's RRset or one no writer
// holds unless the Reconciler adopts.
func TestRemove(t *testing.T) {
	forEachStore(t, func(t *testing.T, srv *pdnstest.Server, store reconcile.Option) {
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		w, _ := newWriter(t, srv, "dns-operator", store)
		other, _ := newWriter(t, srv, "external-dns", store)
		mine := pdnstest.MustRRset(t, zone, "mine", "TXT", 300, `"x"`)
		theirs := pdnstest.MustRRset(t, zone, "theirs", "A", 300, "192.0.2.7")
		_, err := w.Apply(ctx, zone, mine)
		require.NoError(t, err)
		_, err = other.Apply(ctx, zone, theirs)
		require.NoError(t, err)

		res, err := w.Remove(ctx, zone, rrset.Key{Name: "MINE", Type: "txt"})
		require.NoError(t, err)
		require.Len(t, res.Applied, 1)
		assert.Equal(t, rrset.OpDelete, res.Applied[0].Op)
		assert.Nil(t, liveContents(t, srv, zone, "mine."+zone, "TXT"))
		assert.True(t, res.Condition().Programmed)

		res, err = w.Remove(ctx, zone, mine.Key())
		require.NoError(t, err)
		assert.Empty(t, res.Applied)
		assert.Zero(t, res.Patches)
		assert.True(t, res.Condition().Programmed, "removing what is gone is done")

		res, err = w.Remove(ctx, zone, theirs.Key())
		require.NoError(t, err)
		require.Len(t, res.Blocked, 1)
		assert.Equal(t, conflict.NotOwner, res.Blocked[0].Kind)
		assert.Equal(t, reconcile.ReasonNotOwner, res.Condition().Reason)
		assert.NotNil(t, liveContents(t, srv, zone, "theirs."+zone, "A"))

		// Written before the library: nobody's.
		legacy(t, srv, zone, "legacy", "A", "192.0.2.50")
		res, err = w.Remove(ctx, zone, rrset.Key{Name: "legacy." + zone, Type: "A"})
		require.NoError(t, err)
		require.Len(t, res.Blocked, 1)
		assert.Equal(t, conflict.Unowned, res.Blocked[0].Kind)
		assert.NotNil(t, liveContents(t, srv, zone, "legacy."+zone, "A"))

		adopter, _ := newWriter(t, srv, "dns-operator", store, reconcile.WithAdoption())
		res, err = adopter.Remove(ctx, zone, rrset.Key{Name: "legacy", Type: "A"})
		require.NoError(t, err)
		require.Len(t, res.Applied, 1)
		assert.Nil(t, liveContents(t, srv, zone, "legacy."+zone, "A"))
	})
}

// TestAdoptionOnlyWhereAsked: a Reconciler that adopts takes exactly the
// keys it writes; the apex SOA and NS, and other legacy records, stay
// unowned.
func TestAdoptionOnlyWhereAsked(t *testing.T) {
	forEachStore(t, func(t *testing.T, srv *pdnstest.Server, store reconcile.Option) {
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		legacy(t, srv, zone, "app", "A", "192.0.2.10")
		legacy(t, srv, zone, "other", "A", "192.0.2.11")

		plain, _ := newWriter(t, srv, "dns-operator", store)
		app := pdnstest.MustRRset(t, zone, "app", "A", 300, "192.0.2.10")
		res, err := plain.Apply(ctx, zone, app)
		require.NoError(t, err)
		require.Len(t, res.Blocked, 1)
		assert.Equal(t, conflict.Unowned, res.Blocked[0].Kind)

		adopter, _ := newWriter(t, srv, "dns-operator", store, reconcile.WithAdoption())
		res, err = adopter.Apply(ctx, zone, app)
		require.NoError(t, err)
		require.Len(t, res.Applied, 1)
		// Adopted: the writer without adoption now finds it its own.
		res, err = plain.Apply(ctx, zone, app)
		require.NoError(t, err)
		assert.Empty(t, res.Blocked)
		assert.Empty(t, res.Applied)

		owners := ownersOf(t, plain, zone)
		assert.Equal(t, "dns-operator", owners[rrset.Key{Name: "app." + zone, Type: "A"}])
		for _, k := range []rrset.Key{{Name: "other." + zone, Type: "A"}, {Name: zone, Type: "SOA"}, {Name: zone, Type: "NS"}} {
			assert.Empty(t, owners[k], "%s stays unowned", k)
		}
	})
}

// TestApplyRepairsDrift: an RRset deleted behind the controller's back is
// written again by the next Apply, which the resync requeue brings.
func TestApplyRepairsDrift(t *testing.T) {
	forEachStore(t, func(t *testing.T, srv *pdnstest.Server, store reconcile.Option) {
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		w, _ := newWriter(t, srv, "dns-operator", store, reconcile.WithResync(time.Hour))
		rr := pdnstest.MustRRset(t, zone, "www", "A", 300, "192.0.2.1")
		res, err := w.Apply(ctx, zone, rr)
		require.NoError(t, err)
		assert.InDelta(t, float64(time.Hour), float64(res.RequeueAfter), float64(6*time.Minute), "in sync: resync, jittered by 10%")

		rawWrite(t, func(ctx context.Context) error {
			return srv.Client.Records.Delete(ctx, zone, "www."+zone, powerdns.RRTypeA)
		})
		assert.Nil(t, liveContents(t, srv, zone, "www."+zone, "A"))
		res, err = w.Apply(ctx, zone, rr)
		require.NoError(t, err)
		require.Len(t, res.Applied, 1)
		assert.Equal(t, []string{"192.0.2.1"}, liveContents(t, srv, zone, "www."+zone, "A"))
	})
}

// TestConditionsForBadInputAndMissingZone: bad input is InvalidInput with
// no requeue and no request; a zone the server lacks is ZoneNotFound.
func TestConditionsForBadInputAndMissingZone(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		w, rec := newWriter(t, srv, "dns-operator")

		bad := rrset.RRset{Name: "www", Type: "A", TTL: 300, Records: []string{"192.0.2.300"}}
		res, err := w.Apply(ctx, zone, bad)
		var input *reconcile.InputError
		require.ErrorAs(t, err, &input)
		cond := reconcile.ConditionFor(res, err)
		assert.Equal(t, reconcile.ReasonInvalidInput, cond.Reason)
		assert.Zero(t, res.RequeueAfter, "bad input is not retried")
		_, err = w.Sync(ctx, zone, []rrset.RRset{bad})
		assert.Equal(t, reconcile.ReasonInvalidInput, reconcile.ConditionFor(reconcile.Result{}, err).Reason)
		_, err = w.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "www", "A", 300, "192.0.2.1"), reconcile.WithOwner("has space"))
		require.ErrorAs(t, err, &input)
		assert.Zero(t, rec.counts.Total(), "no request for bad input")

		// Two CNAME records: well-formed data that no zone can hold. The
		// object must change, so the condition says InvalidInput, and
		// PowerDNS never sees it.
		twoCNAMEs := pdnstest.MustRRset(t, zone, "alias", "CNAME", 300, "a.example.net.", "b.example.net.")
		res, err = w.Apply(ctx, zone, twoCNAMEs)
		require.NoError(t, err)
		require.Len(t, res.Blocked, 1)
		assert.Equal(t, conflict.SingleRecordType, res.Blocked[0].Kind)
		assert.Equal(t, reconcile.ReasonInvalidInput, reconcile.ConditionFor(res, err).Reason)
		assert.Zero(t, rec.counts.Method(http.MethodPatch), "a blocked write is never sent")

		res, err = w.Apply(ctx, "absent-"+zone, pdnstest.MustRRset(t, "absent-"+zone, "www", "A", 300, "192.0.2.1"))
		require.Error(t, err)
		assert.Equal(t, reconcile.ReasonZoneNotFound, reconcile.ConditionFor(res, err).Reason)
	})
}

// TestTeardown: a finalizer's Teardown deletes every RRset of the writer
// absent from desired at once, on a fresh Reconciler, past the gate and the
// guard.
func TestTeardown(t *testing.T) {
	forEachStore(t, func(t *testing.T, srv *pdnstest.Server, store reconcile.Option) {
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		w, _ := newWriter(t, srv, "dns-operator", store)
		other, _ := newWriter(t, srv, "external-dns", store)
		var all []rrset.RRset
		for _, n := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"} {
			all = append(all, pdnstest.MustRRset(t, zone, n, "A", 300, "192.0.2.1"))
		}
		_, err := w.Sync(ctx, zone, all)
		require.NoError(t, err)
		_, err = other.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "theirs", "A", 300, "192.0.2.2"))
		require.NoError(t, err)

		fresh, _ := newWriter(t, srv, "dns-operator", store)
		res, err := fresh.Sync(ctx, zone, nil, reconcile.Teardown())
		require.NoError(t, err)
		assert.Len(t, res.Applied, len(all))
		assert.Empty(t, res.Deferred)
		assert.True(t, res.Condition().Programmed)
		types := liveTypes(t, srv, zone)
		assert.Equal(t, []string{"A"}, types["theirs."+zone], "another writer's RRset stays")
		for _, rr := range all {
			assert.Nil(t, types[rr.Name])
		}
	})
}

// TestAllowedALIAS: ALIAS next to A at one name is blocked unless the
// Reconciler allows it (dns-operator's own tests write ALIAS @ beside A @).
func TestAllowedALIAS(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		a := pdnstest.MustRRset(t, zone, "@", "A", 300, "192.0.2.1")
		alias := pdnstest.MustRRset(t, zone, "@", "ALIAS", 300, "lb.example.net.")

		strict, _ := newWriter(t, srv, "dns-operator")
		_, err := strict.Apply(ctx, zone, a)
		require.NoError(t, err)
		res, err := strict.Apply(ctx, zone, alias)
		require.NoError(t, err)
		require.Len(t, res.Blocked, 1)
		assert.Equal(t, conflict.ALIASAndAddress, res.Blocked[0].Kind)

		lenient, _ := newWriter(t, srv, "dns-operator", reconcile.WithAllowed(conflict.ALIASAndAddress))
		res, err = lenient.Apply(ctx, zone, alias)
		require.NoError(t, err)
		require.Len(t, res.Applied, 1)
		assert.Equal(t, []string{"lb.example.net."}, liveContents(t, srv, zone, zone, "ALIAS"))

		_, err = reconcile.New(srv.URL, reconcile.WithManagedBy("w"), reconcile.WithAllowed(conflict.CNAMEAndOtherData))
		var cfgErr *reconcile.ConfigError
		assert.ErrorAs(t, err, &cfgErr, "a rule PowerDNS enforces cannot be allowed")
	})
}

// TestZoneLifecycle: EnsureZone creates a zone once and reports how an
// existing one differs; DeleteZone refuses while another writer's RRsets
// remain, unless forced, and is idempotent.
func TestZoneLifecycle(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := "lifecycle-" + srv.NewZone(t)
		w, _ := newWriter(t, srv, "dns-operator")
		other, _ := newWriter(t, srv, "external-dns")
		spec := reconcile.ZoneSpec{Nameservers: []string{"ns1.example.net", "NS2.example.net."}, SOAEditAPI: "DEFAULT"}

		res, err := w.EnsureZone(ctx, zone, spec)
		require.NoError(t, err)
		assert.True(t, res.Created)
		res, err = w.EnsureZone(ctx, zone, spec)
		require.NoError(t, err)
		assert.False(t, res.Created)
		assert.Empty(t, res.Differences, "%v", res.Differences)
		assert.Equal(t, []string{"ns1.example.net.", "ns2.example.net."}, liveContents(t, srv, zone, zone, "NS"))

		changed := spec
		changed.Nameservers = []string{"ns3.example.net."}
		res, err = w.EnsureZone(ctx, zone, changed)
		require.NoError(t, err)
		require.Len(t, res.Differences, 1)
		assert.Equal(t, "nameservers", res.Differences[0].Field)
		assert.Equal(t, []string{"ns1.example.net.", "ns2.example.net."}, liveContents(t, srv, zone, zone, "NS"), "reported, not changed")

		_, err = w.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "mine", "A", 300, "192.0.2.1"))
		require.NoError(t, err)
		_, err = other.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "theirs", "A", 300, "192.0.2.2"))
		require.NoError(t, err)
		err = w.DeleteZone(ctx, zone)
		var inUse *reconcile.ZoneInUseError
		require.ErrorAs(t, err, &inUse)
		assert.Equal(t, []string{"external-dns"}, inUse.Writers)

		require.NoError(t, w.DeleteZone(ctx, zone, reconcile.ForceDeleteZone()))
		require.NoError(t, w.DeleteZone(ctx, zone), "deleting a deleted zone is done")
		_, err = srv.Client.Zones.Get(ctx, zone)
		require.Error(t, err)
	})
}

// legacy writes an RRset through the API with no ownership recorded, as a
// controller did before it used this library.
func legacy(t *testing.T, srv *pdnstest.Server, zone, name, typ, content string) {
	t.Helper()
	rawWrite(t, func(ctx context.Context) error {
		return srv.Client.Records.Add(ctx, zone, name+"."+zone, powerdns.RRType(typ), 300, []string{content})
	})
}

// ownersOf reads who holds each RRset of zone, as r sees it.
func ownersOf(t *testing.T, r *reconcile.Reconciler, zone string) map[rrset.Key]string {
	t.Helper()
	live, err := r.Live(pdnstest.Context(t), zone)
	require.NoError(t, err)
	out := make(map[rrset.Key]string)
	for _, rr := range live {
		out[rr.Key()] = rr.ManagedBy
	}
	return out
}

// TestApplyOccluded: an Apply that would write below a delegation, or a
// delegation over another writer's data, is blocked (conflict.Occluded)
// although it reads by name; glue for the delegation's own nameservers is
// not; and an Apply with nothing to write still reads one name only.
func TestApplyOccluded(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		delegator, _ := newWriter(t, srv, "delegator")
		// The reads counted are the Apply's own: a lock kept past its
		// one-second cap (a loaded machine) adds a metadata read.
		hosts, rec := newWriter(t, srv, "hosts", reconcile.WithLockHold(0))

		ns := pdnstest.MustRRset(t, zone, "sub", "NS", 3600, "ns1.sub."+zone)
		res, err := delegator.Apply(ctx, zone, ns)
		require.NoError(t, err)
		require.Len(t, res.Applied, 1)

		below := pdnstest.MustRRset(t, zone, "x.sub", "A", 300, "192.0.2.1")
		res, err = hosts.Apply(ctx, zone, below)
		require.NoError(t, err)
		require.Len(t, res.Blocked, 1, "data below a delegation is never served")
		assert.Equal(t, conflict.Occluded, res.Blocked[0].Kind)
		assert.Zero(t, res.Patches)
		assert.Empty(t, liveContents(t, srv, zone, "x.sub."+zone, "A"))

		glue := pdnstest.MustRRset(t, zone, "ns1.sub", "A", 300, "192.0.2.53")
		res, err = hosts.Apply(ctx, zone, glue)
		require.NoError(t, err)
		assert.Empty(t, res.Blocked, "glue of the delegation's own nameserver")
		require.Len(t, res.Applied, 1)

		mine := pdnstest.MustRRset(t, zone, "y.other", "A", 300, "192.0.2.2")
		_, err = hosts.Apply(ctx, zone, mine)
		require.NoError(t, err)
		res, err = delegator.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "other", "NS", 3600, "ns.example.net."))
		require.NoError(t, err)
		require.Len(t, res.Blocked, 1, "a delegation over another writer's data")
		assert.Equal(t, conflict.Occluded, res.Blocked[0].Kind)
		assert.Empty(t, liveContents(t, srv, zone, "other."+zone, "NS"))

		reads := readsOfOneName(srv, reconcile.OwnershipAuto)
		before := rec.counts.Total()
		res, err = hosts.Apply(ctx, zone, mine)
		require.NoError(t, err)
		assert.Empty(t, res.Applied)
		assert.Equal(t, reads, rec.counts.Total()-before, "a steady-state Apply reads its one name")
	})
}

// TestApplyReadsAboveOnce: a create the Reconciler did not expect (it never
// read the name) reads its name, then the zone whole under the zone lock:
// the names above it are in that one read, not read before the lock and
// again under it. The next create of a new name goes straight to the lock:
// the lock, one read, the PATCH. A create blocked as Occluded is then
// retried from its reads alone, without the lock.
func TestApplyReadsAboveOnce(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		// Each operation takes the lock and frees it (the counts below).
		hosts, rec := newWriter(t, srv, "hosts", reconcile.WithLockHold(0))
		delegator, _ := newWriter(t, srv, "delegator")

		res, err := hosts.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "x.sub", "A", 300, "192.0.2.1"))
		require.NoError(t, err)
		require.Len(t, res.Applied, 1)
		assert.Equal(t, 1, rec.reads("x.sub."+zone), "the name, read before the lock")
		assert.Zero(t, rec.reads("sub."+zone), "the name above a create, in the whole read under the lock")
		assert.Zero(t, rec.reads(zone), "the apex above a create, in the whole read under the lock")

		// The lock (create a kind, read the metadata), the zone, the PATCH,
		// the lock freed; and where ownership lives in metadata, the claim.
		m := rec.mark()
		res, err = hosts.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "z.sub", "A", 300, "192.0.2.1"))
		require.NoError(t, err)
		require.Len(t, res.Applied, 1)
		assert.Zero(t, rec.reads("z.sub."+zone), "a create the whole read expected is not read before the lock")
		rec.assertRequests(t, m, 4+readsOfOneName(srv, reconcile.OwnershipAuto), res.Requests, "a create alone")

		_, err = delegator.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "del", "NS", 3600, "ns.example.net."))
		require.NoError(t, err)
		below := pdnstest.MustRRset(t, zone, "y.del", "A", 300, "192.0.2.2")
		for try := range 3 {
			posts := rec.counts.Method(http.MethodPost)
			m := rec.mark()
			res, err = hosts.Apply(ctx, zone, below)
			require.NoError(t, err)
			require.Len(t, res.Blocked, 1, "try %d", try)
			assert.Equal(t, conflict.Occluded, res.Blocked[0].Kind)
			assert.Zero(t, res.Patches)
			if try > 0 {
				assert.Zero(t, rec.counts.Method(http.MethodPost)-posts, "a retried blocked create takes no lock")
				// The names above are del and the apex, where a DNAME
				// would hide it too.
				rec.assertRequests(t, m, readsOfOneName(srv, reconcile.OwnershipAuto)+2, res.Requests, "its name and the names above")
			}
		}
	})
}

// TestApplyOccludedNSUpdate: an Apply that updates a delegation reads the
// whole zone when it drops a target, and is blocked (conflict.Occluded)
// when another writer's address below it was glue for that target; an
// update that keeps every target reads its one name, and WithAllowed lets
// the hiding update through.
func TestApplyOccludedNSUpdate(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		// The reads counted below are the Apply's own: a zone lock kept
		// between the Applies would, once kept for a second (a loaded
		// machine), add a read of the zone's metadata to the next.
		delegator, rec := newWriter(t, srv, "delegator", reconcile.WithLockHold(0))
		hosts, _ := newWriter(t, srv, "hosts")

		both := pdnstest.MustRRset(t, zone, "sub", "NS", 3600, "ns1.sub."+zone, "ns2.sub."+zone)
		_, err := delegator.Apply(ctx, zone, both)
		require.NoError(t, err)
		res, err := hosts.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "ns2.sub", "A", 300, "192.0.2.54"))
		require.NoError(t, err)
		require.Len(t, res.Applied, 1, "glue of the delegation's nameserver")

		one := pdnstest.MustRRset(t, zone, "sub", "NS", 3600, "ns1.sub."+zone)
		res, err = delegator.Apply(ctx, zone, one)
		require.NoError(t, err)
		require.Len(t, res.Blocked, 1, "ns2.sub would no longer be glue, and never be served")
		assert.Equal(t, conflict.Occluded, res.Blocked[0].Kind)
		assert.Contains(t, res.Blocked[0].String(), "ns2.sub."+zone)
		assert.Zero(t, res.Patches)
		assert.Equal(t, []string{"ns1.sub." + zone, "ns2.sub." + zone}, liveContents(t, srv, zone, "sub."+zone, "NS"))

		// A target added drops none: the read stays one name wide.
		more := pdnstest.MustRRset(t, zone, "sub", "NS", 3600, "ns1.sub."+zone, "ns2.sub."+zone, "ns.example.net.")
		rec.counts.Reset()
		m := rec.mark()
		res, err = delegator.Apply(ctx, zone, more)
		require.NoError(t, err)
		require.Len(t, res.Applied, 1)
		// A read PowerDNS answered 500 (4.7.3 on gsqlite3: "database is
		// locked", with the other tests writing) is made again.
		rec.assertRequests(t, m, readsOfOneName(srv, reconcile.OwnershipAuto)+res.Patches, res.Requests,
			"an update that keeps its targets reads its one name")

		allowing, _ := newWriter(t, srv, "delegator", reconcile.WithAllowed(conflict.Occluded))
		res, err = allowing.Apply(ctx, zone, one)
		require.NoError(t, err)
		assert.Empty(t, res.Blocked)
		require.Len(t, res.Applied, 1, "allowed")
		assert.Equal(t, []string{"ns1.sub." + zone}, liveContents(t, srv, zone, "sub."+zone, "NS"))
	})
}

// TestBlockedCreateRetry: a create that another writer's data blocks is
// decided from a read, without the zone lock, on every retry: one request
// (two where ownership lives in zone metadata), no POST.
func TestBlockedCreateRetry(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		// w's clock moves only when the test says so: the lock it keeps
		// after a create is freed where the test says, never behind a
		// count.
		frees := newFreeLocks()
		w, rec, clock := newHoldingWriter(t, srv, "dns-operator", reconcile.WithObserver(frees))
		other, _ := newWriter(t, srv, "external-dns")
		reads := readsOfOneName(srv, reconcile.OwnershipAuto)

		// w has read api: a key there it has not seen is one it expects to
		// create, under the lock taken before the read.
		txt := pdnstest.MustRRset(t, zone, "api", "TXT", 300, `"v=1"`)
		_, err := w.Apply(ctx, zone, txt)
		require.NoError(t, err)
		_, err = w.Remove(ctx, zone, txt.Key())
		require.NoError(t, err)
		// The other writer's create needs the zone lock w kept.
		clock.Advance(reconcile.DefaultLockHold)
		require.NoError(t, frees.next(t).Err)
		_, err = other.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "api", "A", 300, "192.0.2.1"))
		require.NoError(t, err)

		cname := pdnstest.MustRRset(t, zone, "api", "CNAME", 300, "www."+zone)
		rec.counts.Reset()
		res, err := w.Apply(ctx, zone, cname)
		require.NoError(t, err)
		require.Len(t, res.Blocked, 1)
		assert.Positive(t, rec.counts.Method(http.MethodPost), "the first attempt expected a create")

		for range 3 {
			rec.counts.Reset()
			m := rec.mark()
			res, err = w.Apply(ctx, zone, cname)
			require.NoError(t, err)
			require.Len(t, res.Blocked, 1)
			rec.assertRequests(t, m, reads, res.Requests, "a blocked create, retried")
			assert.Zero(t, rec.counts.Method(http.MethodPost), "no lock")
		}

		// Once the other writer's data goes, the create goes through.
		_, err = other.Remove(ctx, zone, rrset.Key{Name: "api." + zone, Type: "A"})
		require.NoError(t, err)
		res, err = w.Apply(ctx, zone, cname)
		require.NoError(t, err)
		assert.Empty(t, res.Blocked)
		require.Len(t, res.Applied, 1)
		assert.Equal(t, []string{"www." + zone}, liveContents(t, srv, zone, "api."+zone, "CNAME"))
	})
}

// TestSteadyApplyDoesNotWait: while one Apply of the zone is in the middle
// of its write (its PATCH held back), an Apply of another key that has
// nothing to change ends at once, with its one read, and so does one that
// another writer blocks; an Apply that changes something waits for the
// write in progress and goes through after it.
func TestSteadyApplyDoesNotWait(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		w, rec := newWriter(t, srv, "dns-operator")
		other, _ := newWriter(t, srv, "external-dns")
		reads := readsOfOneName(srv, reconcile.OwnershipAuto)
		a := pdnstest.MustRRset(t, zone, "a", "A", 300, "192.0.2.1")
		steady := pdnstest.MustRRset(t, zone, "steady", "A", 300, "192.0.2.1")
		changed := pdnstest.MustRRset(t, zone, "changed", "A", 300, "192.0.2.1")
		// The other writer's RRset is there before w reads the zone: a key
		// w read absent would be expected to be created, and its Apply
		// would wait for the turn to take the lock.
		_, err := other.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "theirs", "A", 300, "192.0.2.9"))
		require.NoError(t, err)
		for _, rr := range []rrset.RRset{a, steady, changed} {
			_, err := w.Apply(ctx, zone, rr)
			require.NoError(t, err)
		}
		blocked := pdnstest.MustRRset(t, zone, "theirs", "A", 300, "192.0.2.1")

		// The update of a stops just before its PATCH, in its turn.
		release, first := applyHeld(ctx, w, rec, zone, pdnstest.MustRRset(t, zone, "a", "A", 300, "192.0.2.2"), nil)

		// Were they to wait for the write, they would wait for good.
		beside, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		m := rec.mark()
		res, err := w.Apply(beside, zone, steady)
		require.NoError(t, err)
		assert.True(t, res.Condition().Programmed)
		rec.assertRequests(t, m, reads, res.Requests, "a steady-state Apply beside a write")
		m = rec.mark()
		res, err = w.Apply(beside, zone, blocked)
		require.NoError(t, err)
		require.Len(t, res.Blocked, 1, "another writer's RRset, decided beside a write")
		rec.assertRequests(t, m, reads, res.Requests, "a blocked Apply beside a write")

		second := make(chan error, 1)
		var changedRes reconcile.Result
		go func() {
			var err error
			changedRes, err = w.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "changed", "A", 300, "192.0.2.2"))
			second <- err
		}()
		select {
		case err := <-second:
			t.Fatalf("an Apply that writes ended (%v) while another write of the zone was in progress", err)
		case <-time.After(200 * time.Millisecond):
		}
		release()
		require.NoError(t, <-first)
		require.NoError(t, <-second)
		require.Len(t, changedRes.Applied, 1)
		assert.Equal(t, []string{"192.0.2.2"}, liveContents(t, srv, zone, "a."+zone, "A"))
		assert.Equal(t, []string{"192.0.2.2"}, liveContents(t, srv, zone, "changed."+zone, "A"))
		assert.Equal(t, []string{"192.0.2.1"}, liveContents(t, srv, zone, "steady."+zone, "A"))
	})
}
