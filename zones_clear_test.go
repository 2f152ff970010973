package reconcile_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/pdnstest"
)

// TestEnsureZoneClears: ZoneSpec.Clear empties the zone's account, catalog,
// SOA-EDIT and SOA-EDIT-API, read back from the server: with UpdateZone in
// one PUT on a zone that holds them, at creation in the POST (where
// PowerDNS would give SOA-EDIT-API a value); a zone already cleared costs
// no write; a field both set and cleared is refused before any request.
func TestEnsureZoneClears(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		w, rec := newWriter(t, srv, "zones")
		owner := reconcile.WithOwner("zone/example")
		catalog := "cat-" + srv.NewZone(t)
		_, err := w.EnsureZone(ctx, catalog, reconcile.ZoneSpec{Kind: "Producer", Nameservers: []string{"ns1.example.net."}})
		require.NoError(t, err)
		t.Cleanup(func() { _ = w.DeleteZone(ctx, catalog) })

		zone := "clr-" + srv.NewZone(t)
		full := reconcile.ZoneSpec{Nameservers: []string{"ns1.example.net."}, Account: "team-a", Catalog: catalog,
			SOAEdit: "INCEPTION-INCREMENT", SOAEditAPI: "EPOCH"}
		_, err = w.EnsureZone(ctx, zone, full, owner)
		require.NoError(t, err)
		t.Cleanup(func() { _ = w.DeleteZone(ctx, zone) })
		z := readZone(t, srv, zone)
		require.Equal(t, "team-a", *z.Account)
		require.Equal(t, catalog, *z.Catalog)

		all := []reconcile.ZoneField{reconcile.ZoneCatalog, reconcile.ZoneAccount, reconcile.ZoneSOAEdit, reconcile.ZoneSOAEditAPI}
		empty := reconcile.ZoneSpec{Nameservers: []string{"ns1.example.net."}, Clear: all}
		res, err := w.EnsureZone(ctx, zone, empty, owner)
		require.NoError(t, err)
		assert.Equal(t, []reconcile.ZoneDifference{
			{Field: "soa_edit_api", Want: "", Got: "EPOCH"}, {Field: "soa_edit", Want: "", Got: "INCEPTION-INCREMENT"},
			{Field: "account", Want: "", Got: "team-a"}, {Field: "catalog", Want: "", Got: catalog},
		}, res.Differences, "reported without UpdateZone")

		puts := rec.counts.Method(http.MethodPut)
		res, err = w.EnsureZone(ctx, zone, empty, owner, reconcile.UpdateZone())
		require.NoError(t, err)
		assert.Len(t, res.Changed, 4)
		assert.Empty(t, res.Differences)
		assert.Equal(t, puts+1, rec.counts.Method(http.MethodPut), "one PUT")
		z = readZone(t, srv, zone)
		for field, got := range map[string]*string{"account": z.Account, "catalog": z.Catalog, "soa_edit": z.SOAEdit, "soa_edit_api": z.SOAEditAPI} {
			if got != nil {
				assert.Empty(t, *got, "%s read back", field)
			}
		}

		writes := rec.counts.Method(http.MethodPut) + rec.counts.Method(http.MethodPatch) + rec.counts.Method(http.MethodPost)
		res, err = w.EnsureZone(ctx, zone, empty, owner, reconcile.UpdateZone())
		require.NoError(t, err)
		assert.Empty(t, res.Changed)
		assert.Empty(t, res.Differences)
		assert.Equal(t, writes, rec.counts.Method(http.MethodPut)+rec.counts.Method(http.MethodPatch)+rec.counts.Method(http.MethodPost),
			"a zone already cleared costs no write")

		// Created cleared: PowerDNS would give it an SOA-EDIT-API.
		fresh := "clr2-" + srv.NewZone(t)
		res, err = w.EnsureZone(ctx, fresh, empty, owner)
		require.NoError(t, err)
		require.True(t, res.Created)
		t.Cleanup(func() { _ = w.DeleteZone(ctx, fresh) })
		if got := readZone(t, srv, fresh).SOAEditAPI; got != nil {
			assert.Empty(t, *got, "soa_edit_api at creation")
		}
		writes = rec.counts.Method(http.MethodPut) + rec.counts.Method(http.MethodPatch)
		res, err = w.EnsureZone(ctx, fresh, empty, owner, reconcile.UpdateZone())
		require.NoError(t, err)
		assert.Empty(t, res.Differences)
		assert.Equal(t, writes, rec.counts.Method(http.MethodPut)+rec.counts.Method(http.MethodPatch), "created as asked")

		requests := rec.counts.Total()
		both := reconcile.ZoneSpec{Account: "team-b", Clear: []reconcile.ZoneField{reconcile.ZoneAccount}}
		_, err = w.EnsureZone(ctx, zone, both, owner, reconcile.UpdateZone())
		var input *reconcile.InputError
		require.True(t, errors.As(err, &input), "%v", err)
		assert.Contains(t, err.Error(), "account is both set")
		assert.Equal(t, requests, rec.counts.Total(), "no request")
		if got := readZone(t, srv, zone).Account; got != nil {
			assert.Empty(t, *got, "unchanged")
		}
	})
}
