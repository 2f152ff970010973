package reconcile_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/conflict"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// TestEnsureZoneHoldsItsApex: the apex SOA and NS of a zone EnsureZone
// creates are its writer's, with its owner. Another writer's Apply of them
// is blocked and its DeleteZone refused while they remain; an object of the
// same writer takes the NS over as a handover; a zone that existed before
// is not taken.
func TestEnsureZoneHoldsItsApex(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := "apex-" + srv.NewZone(t)
		// Made first: LMDB hands a deleted zone's comments to the next zone
		// that gets its id.
		before := srv.NewZone(t)
		clusterWide, _ := newWriter(t, srv, "cluster-zones")
		namespaced, _ := newWriter(t, srv, "namespaced-zones")
		spec := reconcile.ZoneSpec{Nameservers: []string{"ns1.example.net."}, SOAEditAPI: "DEFAULT"}

		res, err := clusterWide.EnsureZone(ctx, zone, spec, reconcile.WithOwner("zone/example"))
		require.NoError(t, err)
		require.True(t, res.Created)

		owners := map[string][2]string{}
		live, err := clusterWide.Live(ctx, zone)
		require.NoError(t, err)
		for _, rr := range live {
			owners[rr.Type] = [2]string{rr.ManagedBy, rr.Owner}
		}
		assert.Equal(t, [2]string{"cluster-zones", "zone/example"}, owners["SOA"])
		assert.Equal(t, [2]string{"cluster-zones", "zone/example"}, owners["NS"])

		again, err := namespaced.EnsureZone(ctx, zone, spec, reconcile.WithOwner("team-a/example"))
		require.NoError(t, err)
		assert.False(t, again.Created)

		err = namespaced.DeleteZone(ctx, zone)
		var inUse *reconcile.ZoneInUseError
		require.ErrorAs(t, err, &inUse, "a zone another writer created is not deleted")
		assert.Equal(t, []string{"cluster-zones"}, inUse.Writers)

		ns := pdnstest.MustRRset(t, zone, "@", "NS", 3600, "ns1.example.net.", "ns2.example.net.")
		blocked, err := namespaced.Apply(ctx, zone, ns)
		require.NoError(t, err)
		require.Len(t, blocked.Blocked, 1)
		assert.Equal(t, conflict.NotOwner, blocked.Blocked[0].Kind)

		handed, err := clusterWide.Apply(ctx, zone, ns, reconcile.WithOwner("recordset/ns"))
		require.NoError(t, err)
		require.Len(t, handed.Handovers, 1)
		assert.Equal(t, reconcile.Handover{Key: rrset.Key{Name: zone, Type: "NS"}, From: "zone/example", To: "recordset/ns"}, handed.Handovers[0])
		assert.Equal(t, []string{"ns1.example.net.", "ns2.example.net."}, liveContents(t, srv, zone, zone, "NS"))

		require.NoError(t, clusterWide.DeleteZone(ctx, zone), "the zone's own writer deletes it")

		// A zone that existed before EnsureZone keeps an apex of no writer.
		existing, err := clusterWide.EnsureZone(ctx, before, reconcile.ZoneSpec{}, reconcile.WithOwner("zone/example"))
		require.NoError(t, err)
		assert.False(t, existing.Created)
		live, err = clusterWide.Live(ctx, before)
		require.NoError(t, err)
		for _, rr := range live {
			assert.Empty(t, rr.ManagedBy, "%s %s", rr.Name, rr.Type)
		}
	})
}

// TestDeleteZoneOfAnotherObject: given an owner, DeleteZone leaves a zone
// whose SOA the writer holds for another object (a namespaced zone object
// sharing a cluster-wide zone's name), and deletes one it holds for that
// owner, also after another object took the apex NS over.
func TestDeleteZoneOfAnotherObject(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := "owned-" + srv.NewZone(t)
		w, _ := newWriter(t, srv, "zones")
		spec := reconcile.ZoneSpec{Nameservers: []string{"ns1.example.net."}, SOAEditAPI: "DEFAULT"}

		res, err := w.EnsureZone(ctx, zone, spec, reconcile.WithOwner("cluster/example"))
		require.NoError(t, err)
		require.True(t, res.Created)
		res, err = w.EnsureZone(ctx, zone, spec, reconcile.WithOwner("team-a/example"))
		require.NoError(t, err)
		require.False(t, res.Created)

		err = w.DeleteZone(ctx, zone, reconcile.WithOwner("team-a/example"))
		var inUse *reconcile.ZoneInUseError
		require.ErrorAs(t, err, &inUse, "another object's zone")
		assert.Equal(t, "cluster/example", inUse.Owner)
		assert.Empty(t, inUse.Writers)
		_, err = srv.Client.Zones.Get(ctx, zone)
		require.NoError(t, err, "the zone stays")

		ns := pdnstest.MustRRset(t, zone, "@", "NS", 3600, "ns1.example.net.", "ns2.example.net.")
		handed, err := w.Apply(ctx, zone, ns, reconcile.WithOwner("recordset/ns"))
		require.NoError(t, err)
		require.Len(t, handed.Handovers, 1)

		require.NoError(t, w.DeleteZone(ctx, zone, reconcile.WithOwner("cluster/example")), "the object that holds the SOA deletes it")
		_, err = srv.Client.Zones.Get(ctx, zone)
		require.Error(t, err, "the zone is deleted")
	})
}
