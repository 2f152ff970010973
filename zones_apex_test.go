package reconcile_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/backoff"
	"github.com/pdnskit/reconcile/conflict"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// TestApexIsKept: the apex SOA and NS of a zone EnsureZone made are never
// deleted through the library. A Remove of either, by the zone's object or
// by the record-set object that took it over, is blocked as ApexRequired
// with no PATCH, InvalidInput and the refusal interval (no hot loop); a
// Sync of nothing and a Teardown leave them; their contents still change
// through Apply; and DeleteZone removes the zone, apex and all.
func TestApexIsKept(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := "apex-" + srv.NewZone(t)
		w, rec := newWriter(t, srv, "zones")
		_, err := w.EnsureZone(ctx, zone, reconcile.ZoneSpec{Nameservers: []string{"ns1.example.net."}}, reconcile.WithOwner("zone/a"))
		require.NoError(t, err)
		t.Cleanup(func() { _ = w.DeleteZone(ctx, zone) })
		refusals := rec.refusals() // the read that found no zone

		// An "ns" object takes the apex NS over and changes them.
		ns, err := rrset.New(zone, "@", "NS", 3600, "ns1.example.net.", "ns2.example.net.")
		require.NoError(t, err)
		res, err := w.Apply(ctx, zone, ns, reconcile.WithOwner("rrset/ns"))
		require.NoError(t, err)
		require.Len(t, res.Applied, 1, "%s", res.Condition().Message)
		assert.Equal(t, []string{"ns1.example.net.", "ns2.example.net."}, liveContents(t, srv, zone, zone, "NS"))

		for _, c := range []struct {
			typ, owner string
		}{{"SOA", "zone/a"}, {"SOA", ""}, {"NS", "rrset/ns"}, {"NS", ""}} {
			patches := rec.counts.Method(http.MethodPatch)
			var opts []reconcile.RemoveOption
			if c.owner != "" {
				opts = append(opts, reconcile.WithOwner(c.owner))
			}
			res, err := w.Remove(ctx, zone, rrset.Key{Name: zone, Type: c.typ}, opts...)
			require.NoError(t, err)
			require.Len(t, res.Blocked, 1, "%s by %q", c.typ, c.owner)
			assert.Equal(t, conflict.ApexRequired, res.Blocked[0].Kind)
			cond := reconcile.ConditionFor(res, err)
			assert.Equal(t, reconcile.ReasonInvalidInput, cond.Reason)
			assert.Contains(t, cond.Message, "the zone needs its apex "+c.typ)
			assert.Greater(t, res.RequeueAfter, backoff.DefaultRefusalInterval/2, "the refusal interval, not a hot loop")
			assert.Equal(t, patches, rec.counts.Method(http.MethodPatch), "nothing sent")
		}

		res, err = w.Sync(ctx, zone, nil, reconcile.ForceDeletes())
		require.NoError(t, err)
		assert.Empty(t, res.Applied, "a Sync of nothing leaves the apex")
		res, err = w.Sync(ctx, zone, nil, reconcile.Teardown())
		require.NoError(t, err)
		assert.Empty(t, res.Applied, "a Teardown leaves the apex")
		assert.Len(t, liveContents(t, srv, zone, zone, "SOA"), 1)
		assert.Equal(t, []string{"ns1.example.net.", "ns2.example.net."}, liveContents(t, srv, zone, zone, "NS"))
		assert.Equal(t, refusals, rec.refusals(), "nothing refused")

		require.NoError(t, w.DeleteZone(ctx, zone, reconcile.WithOwner("zone/a")))
	})
}
