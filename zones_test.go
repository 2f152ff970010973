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
