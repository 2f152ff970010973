package reconcile_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/conflict"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// TestEmptyTXT: a TXT of empty content (dnscontrol's "a 0-byte TXT") is
// written as one empty character-string on every server and with every
// store, and the next Apply and Sync send nothing. One that a client
// without the library wrote raw, which 4.x stores, is read as that same
// data, not skipped as data the library cannot read: no writer's, it is
// blocked until adopted, and adopted with no change of data.
func TestEmptyTXT(t *testing.T) {
	forEachStore(t, func(t *testing.T, srv *pdnstest.Server, store reconcile.Option) {
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		w, rec := newWriter(t, srv, "dnscontrol", store)

		empty := pdnstest.MustRRset(t, zone, "empty", "TXT", 300, "")
		res, err := w.Apply(ctx, zone, empty)
		require.NoError(t, err)
		require.Len(t, res.Applied, 1, "%v", res.Refused)
		assert.Equal(t, []string{`""`}, liveContents(t, srv, zone, empty.Name, "TXT"))

		patches := rec.counts.Method(http.MethodPatch)
		res, err = w.Apply(ctx, zone, empty)
		require.NoError(t, err)
		assert.Empty(t, res.Applied)
		res, err = w.Sync(ctx, zone, []rrset.RRset{empty})
		require.NoError(t, err)
		assert.Empty(t, res.Applied)
		assert.Equal(t, patches, rec.counts.Method(http.MethodPatch), "read back equal: nothing sent again")

		if srv.AtLeast(5, 1) {
			return // 5.1 refuses an empty TXT content written raw (rrset's TestIntegrationEmptyTXT)
		}
		legacy(t, srv, zone, "raw", "TXT", "")
		raw := pdnstest.MustRRset(t, zone, "raw", "TXT", 300, "")
		res, err = w.Apply(ctx, zone, raw)
		require.NoError(t, err)
		require.Len(t, res.Blocked, 1, "the raw RRset is seen")
		assert.Equal(t, conflict.Unowned, res.Blocked[0].Kind)

		adopter, _ := newWriter(t, srv, "dnscontrol", store, reconcile.WithAdoption())
		res, err = adopter.Apply(ctx, zone, raw)
		require.NoError(t, err)
		require.Len(t, res.Applied, 1)
		assert.True(t, res.Applied[0].Old.EqualData(raw), "adopted as it was: %q", res.Applied[0].Old.Records)
		assert.Equal(t, "dnscontrol", ownersOf(t, w, zone)[raw.Key()])
		res, err = w.Apply(ctx, zone, raw)
		require.NoError(t, err)
		assert.Empty(t, res.Applied, "the writer's own, in sync")
		assert.Empty(t, res.Blocked)
	})
}
