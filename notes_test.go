package reconcile_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// TestNotes: an RRset's note is written next to its ownership record, read
// back by Live, and compared: a changed note is one update, the same note
// no PATCH, a change of records keeps it, and another client's comments
// stay. Where ownership is kept in zone metadata, a note is refused before
// anything is written.
func TestNotes(t *testing.T) {
	forEachStoreKind(t, func(t *testing.T, srv *pdnstest.Server, kind reconcile.OwnershipStore) {
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		w, rec := newWriter(t, srv, "notes", reconcile.WithOwnershipStore(kind))
		store, err := w.OwnershipStore(ctx)
		require.NoError(t, err)
		www := pdnstest.MustRRset(t, zone, "www", "A", 300, "192.0.2.1")
		www.Comment = "moved to the new balancer\nticket 42: ✓"

		if store == reconcile.OwnershipMetadata {
			_, err := w.Apply(ctx, zone, www)
			var input *reconcile.InputError
			require.ErrorAs(t, err, &input)
			var notStored *reconcile.NoteNotStoredError
			require.ErrorAs(t, err, &notStored)
			assert.Equal(t, srv.Version, notStored.Version)
			assert.Zero(t, rec.counts.Method(http.MethodPatch), "refused before anything is written")
			assert.Nil(t, liveContents(t, srv, zone, www.Name, "A"))
			return
		}

		res, err := w.Apply(ctx, zone, www)
		require.NoError(t, err)
		require.Len(t, res.Applied, 1)
		requireNote(t, w, zone, www.Key(), www.Comment)

		// Another client adds a comment of its own, keeping the others.
		z := readZone(t, srv, zone)
		var kept []powerdns.Comment
		for _, rr := range z.RRsets {
			if *rr.Name == www.Name && *rr.Type == "A" {
				kept = rr.Comments
			}
		}
		require.Len(t, kept, 2, "the ownership record and the note")
		kept = append(kept, powerdns.Comment{Content: powerdns.String("keep me"), Account: powerdns.String("ops")})
		rawWrite(t, func(ctx context.Context) error {
			return srv.Client.Records.Patch(ctx, zone, &powerdns.RRsets{Sets: []powerdns.RRset{{
				Name: powerdns.String(www.Name), Type: powerdns.RRTypePtr("A"), TTL: powerdns.Uint32(300),
				ChangeType: powerdns.ChangeTypePtr(powerdns.ChangeTypeReplace),
				Records:    []powerdns.Record{{Content: powerdns.String("192.0.2.1"), Disabled: powerdns.Bool(false)}},
				Comments:   kept,
			}}})
		})
		requireNote(t, w, zone, www.Key(), www.Comment)

		patches := rec.patches()
		res, err = w.Apply(ctx, zone, www)
		require.NoError(t, err)
		assert.Empty(t, res.Applied)
		assert.Equal(t, patches, rec.patches(), "the same note: no PATCH")

		www.Comment = "ticket 43"
		res, err = w.Apply(ctx, zone, www)
		require.NoError(t, err)
		require.Len(t, res.Applied, 1)
		assert.Equal(t, rrset.OpUpdate, res.Applied[0].Op)
		assert.Equal(t, patches+1, rec.patches(), "a changed note: one PATCH")
		requireNote(t, w, zone, www.Key(), "ticket 43")

		moved := pdnstest.MustRRset(t, zone, "www", "A", 300, "192.0.2.2")
		moved.Comment = www.Comment
		_, err = w.Sync(ctx, zone, []rrset.RRset{moved})
		require.NoError(t, err)
		requireNote(t, w, zone, www.Key(), "ticket 43")
		assert.Equal(t, []string{"192.0.2.2"}, liveContents(t, srv, zone, www.Name, "A"))
		assert.Equal(t, map[string]string{"ops": "keep me"}, foreignComments(t, srv, zone, www.Name, "A"),
			"another client's comment stays through every write")

		bad := moved
		bad.Comment = "nul\x00"
		_, err = w.Apply(ctx, zone, bad)
		var input *reconcile.InputError
		require.ErrorAs(t, err, &input)
	})
}

// requireNote fails unless Live reads the RRset at key with note.
func requireNote(t *testing.T, w *reconcile.Reconciler, zone string, key rrset.Key, note string) {
	t.Helper()
	live, err := w.Live(pdnstest.Context(t), zone)
	require.NoError(t, err)
	for _, rr := range live {
		if rr.Key() == key {
			assert.Equal(t, note, rr.Comment)
			assert.Equal(t, "notes", rr.ManagedBy, "a note is never read as ownership")
			return
		}
	}
	t.Fatalf("%s not live", key)
}

// foreignComments reads the comments of an RRset whose account is not the
// library's, by account.
func foreignComments(t *testing.T, srv *pdnstest.Server, zone, name, typ string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, rr := range readZone(t, srv, zone).RRsets {
		if *rr.Name != name || string(*rr.Type) != typ {
			continue
		}
		for _, c := range rr.Comments {
			if a := *c.Account; a != "pdnskit/reconcile" && a != "pdnskit/reconcile note" {
				out[a] = *c.Content
			}
		}
	}
	return out
}
