package reconcile_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/conflict"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// TestCreateReadsItsNames: in a zone of 2,000 RRsets, a create under a
// kept zone lock reads its name and the names above it up to the apex,
// one filtered GET each, rather than the whole zone; and that read sees
// everything that blocks the create: another writer's RRset at the key,
// a CNAME beside an address, an address beside an ALIAS, and a DNAME
// above. A create of an NS below the apex reads the whole zone, for what
// it would hide.
func TestCreateReadsItsNames(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		// The other writer frees the lock after each write: w never waits.
		// Its one PATCH of 2,003 RRsets gets two minutes: 5.1.5 on gpgsql
		// beside another make test on 2 cores took more than the 30 s the
		// test writers' client allows a request.
		other, _ := newWriter(t, srv, "other", reconcile.WithLockHold(0),
			reconcile.WithHTTPClient(&http.Client{Timeout: 2 * time.Minute}))
		seed := make([]rrset.RRset, 0, 2000)
		for i := range 2000 {
			seed = append(seed, pdnstest.MustRRset(t, zone, fmt.Sprintf("seed%04d", i), "A", 300, "192.0.2.1"))
		}
		seed = append(seed,
			pdnstest.MustRRset(t, zone, "taken", "A", 300, "192.0.2.9"),
			pdnstest.MustRRset(t, zone, "alias", "A", 300, "192.0.2.9"),
			pdnstest.MustRRset(t, zone, "dn", "DNAME", 300, "example.net."))
		_, err := other.Sync(ctx, zone, seed)
		require.NoError(t, err)

		w, rec, _ := newHoldingWriter(t, srv, "hosts")
		meta := readsOfOneName(srv, reconcile.OwnershipAuto) - 1
		res, err := w.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "first", "A", 300, "192.0.2.1"))
		require.NoError(t, err)
		require.Len(t, res.Applied, 1)
		require.Equal(t, 1, rec.wholeReads(), "a zone never read whole is read whole under the lock")

		for i := range 3 {
			name := fmt.Sprintf("new%d", i)
			m := rec.mark()
			res, err := w.Apply(ctx, zone, pdnstest.MustRRset(t, zone, name, "A", 300, "192.0.2.1"))
			require.NoError(t, err)
			require.Len(t, res.Applied, 1, name)
			assert.Equal(t, 1, rec.wholeReads(), "%s: no whole read", name)
			assert.Equal(t, 1, rec.reads(name+"."+zone), name)
			assert.Equal(t, 1+i, rec.reads(zone), "%s: the apex above it", name)
			// With ownership in zone metadata: the claims read with the
			// names, and the create's claim posted after the PATCH.
			rec.assertRequests(t, m, 2+1+2*meta, res.Requests, name+": its name and the apex, the PATCH")
		}

		// Another writer's data, written after the whole read, once w
		// has freed the lock it kept (from then on, it frees the lock
		// after each write; it reads under it as before).
		require.NoError(t, w.Close(ctx))
		res, err = other.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "cname", "CNAME", 300, "example.net."))
		require.NoError(t, err)
		require.Len(t, res.Applied, 1)
		for _, c := range []struct {
			rr   rrset.RRset
			kind conflict.Kind
		}{
			{pdnstest.MustRRset(t, zone, "taken", "A", 300, "192.0.2.1"), conflict.NotOwner},
			{pdnstest.MustRRset(t, zone, "cname", "A", 300, "192.0.2.1"), conflict.CNAMEAndOtherData},
			{pdnstest.MustRRset(t, zone, "alias", "ALIAS", 300, "example.net."), conflict.ALIASAndAddress},
			{pdnstest.MustRRset(t, zone, "x.dn", "A", 300, "192.0.2.1"), conflict.Occluded},
		} {
			res, err := w.Apply(ctx, zone, c.rr)
			require.NoError(t, err, c.rr.Name)
			require.Len(t, res.Blocked, 1, c.rr.Name)
			assert.Equal(t, c.kind, res.Blocked[0].Kind, c.rr.Name)
			assert.Zero(t, res.Patches, c.rr.Name)
		}
		assert.Equal(t, 1, rec.wholeReads(), "blocked creates read their names")

		res, err = w.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "deleg", "NS", 3600, "ns.example.net."))
		require.NoError(t, err)
		require.Len(t, res.Applied, 1)
		assert.Equal(t, 2, rec.wholeReads(), "a delegation reads the zone whole, for what it would hide")
	})
}
