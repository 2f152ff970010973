package reconcile_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/pdnstest"
)

// TestEnsureZoneUpdates: with UpdateZone, EnsureZone changes a live zone's
// account, SOA-EDIT-API and catalog in one PUT, its nameservers in one PATCH
// while the apex NS are the writer's for the same owner, its kind only with
// UpdateZoneKind; a zone that already matches costs no write. Every server
// of the matrix (4.7 on) takes a catalog.
func TestEnsureZoneUpdates(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := "upd-" + srv.NewZone(t)
		w, rec := newWriter(t, srv, "zones")
		owner := reconcile.WithOwner("zone/example")
		spec := reconcile.ZoneSpec{Nameservers: []string{"ns1.example.net."}, SOAEditAPI: "DEFAULT", Account: "team-a"}
		res, err := w.EnsureZone(ctx, zone, spec, owner)
		require.NoError(t, err)
		require.True(t, res.Created)
		// The maker's record is a PUT of the zone's metadata.
		created := rec.counts.Method(http.MethodPut)
		t.Cleanup(func() { _ = w.DeleteZone(ctx, zone) })

		fields := func(ds []reconcile.ZoneDifference) []string {
			out := []string{}
			for _, d := range ds {
				out = append(out, d.Field)
			}
			return out
		}
		spec = reconcile.ZoneSpec{Kind: "Master", Nameservers: []string{"ns1.example.net.", "ns2.example.net."},
			SOAEditAPI: "EPOCH", Account: "team-b"}

		// Without the option nothing changes.
		res, err = w.EnsureZone(ctx, zone, spec, owner)
		require.NoError(t, err)
		assert.Equal(t, []string{"kind", "nameservers", "soa_edit_api", "account"}, fields(res.Differences))
		assert.Empty(t, res.Changed)
		assert.Equal(t, created, rec.counts.Method(http.MethodPut))

		puts, patches := rec.counts.Method(http.MethodPut), rec.counts.Method(http.MethodPatch)
		res, err = w.EnsureZone(ctx, zone, spec, owner, reconcile.UpdateZone())
		require.NoError(t, err)
		assert.Equal(t, []string{"soa_edit_api", "account", "nameservers"}, fields(res.Changed))
		assert.Equal(t, []string{"kind"}, fields(res.Differences), "kind only with UpdateZoneKind")
		assert.Equal(t, puts+1, rec.counts.Method(http.MethodPut), "one PUT")
		assert.Equal(t, patches+1, rec.counts.Method(http.MethodPatch), "one PATCH, of the NS")
		z := readZone(t, srv, zone)
		assert.Equal(t, "team-b", *z.Account)
		assert.Equal(t, "EPOCH", *z.SOAEditAPI)
		assert.Equal(t, "Native", string(*z.Kind))
		assert.Equal(t, []string{"ns1.example.net.", "ns2.example.net."}, liveContents(t, srv, zone, zone, "NS"))
		live, err := w.Live(ctx, zone)
		require.NoError(t, err)
		for _, rr := range live {
			if rr.Type == "NS" {
				assert.Equal(t, [2]string{"zones", "zone/example"}, [2]string{rr.ManagedBy, rr.Owner}, "the NS stay the writer's")
			}
		}

		res, err = w.EnsureZone(ctx, zone, spec, owner, reconcile.UpdateZoneKind())
		require.NoError(t, err)
		assert.Equal(t, []string{"kind"}, fields(res.Changed))
		assert.Empty(t, res.Differences)
		assert.Equal(t, "Master", string(*readZone(t, srv, zone).Kind))

		puts, patches = rec.counts.Method(http.MethodPut), rec.counts.Method(http.MethodPatch)
		res, err = w.EnsureZone(ctx, zone, spec, owner, reconcile.UpdateZoneKind())
		require.NoError(t, err)
		assert.Empty(t, res.Changed)
		assert.Empty(t, res.Differences)
		assert.Equal(t, puts, rec.counts.Method(http.MethodPut), "a zone that matches: no PUT")
		assert.Equal(t, patches, rec.counts.Method(http.MethodPatch), "a zone that matches: no PATCH")

		// Another object of the writer changes nothing of a zone it did
		// not make: the differences are reported, and the refusal says whose
		// the zone is.
		other := spec
		other.Nameservers = []string{"ns3.example.net."}
		other.Account = "team-c"
		res, err = w.EnsureZone(ctx, zone, other, reconcile.WithOwner("zone/other"), reconcile.UpdateZone())
		var inUse *reconcile.ZoneInUseError
		require.ErrorAs(t, err, &inUse)
		assert.True(t, inUse.NotOwner())
		assert.Equal(t, "zone/example", inUse.MadeBy)
		assert.Empty(t, res.Changed)
		assert.False(t, res.Mine)
		assert.Equal(t, "zone/example", res.MadeBy)
		assert.Equal(t, []string{"nameservers", "account"}, fields(res.Differences))
		assert.Equal(t, patches, rec.counts.Method(http.MethodPatch))
		assert.Equal(t, puts, rec.counts.Method(http.MethodPut))
		assert.Equal(t, "team-b", *readZone(t, srv, zone).Account)

		withCatalog := spec
		catalog := "cat-" + srv.NewZone(t)
		_, err = w.EnsureZone(ctx, catalog, reconcile.ZoneSpec{Kind: "Producer", Nameservers: []string{"ns1.example.net."}})
		require.NoError(t, err)
		t.Cleanup(func() { _ = w.DeleteZone(ctx, catalog) })
		withCatalog.Catalog = catalog
		puts = rec.counts.Method(http.MethodPut)
		res, err = w.EnsureZone(ctx, zone, withCatalog, owner, reconcile.UpdateZone())
		require.NoError(t, err)
		assert.Equal(t, []string{"catalog"}, fields(res.Changed))
		assert.Equal(t, puts+1, rec.counts.Method(http.MethodPut))
		assert.Equal(t, catalog, *readZone(t, srv, zone).Catalog)
		res, err = w.EnsureZone(ctx, zone, withCatalog, owner, reconcile.UpdateZone())
		require.NoError(t, err)
		assert.Empty(t, res.Changed)
		assert.Equal(t, puts+1, rec.counts.Method(http.MethodPut))
	})
}
