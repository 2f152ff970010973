package reconcile_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// TestStoredAtTheLimits: every value the library stores, exactly at the
// limit it checks, is stored and read back unchanged on every backend: a
// writer of 200 bytes of Latin-1, an owner of 253, a note of 4,096 bytes
// of the Basic Multilingual Plane, a record content of 64,000 bytes, zone
// metadata kinds of 32 characters, a zone account of 40 characters and
// primaries of 128. One past each limit is refused with a
// *reconcile.StorageError (a *rrset.RecordError for the note) before any
// request.
func TestStoredAtTheLimits(t *testing.T) {
	writer := strings.Repeat("ÿé", 50)                            // 200 bytes, 100 characters
	owner := "ns/" + strings.Repeat("é", 125)                     // 253 bytes
	note := strings.Repeat("Пётр € ", 314) + "ticket 42:\uffff\n" // 4,096 bytes
	require.Equal(t, 200, len(writer))
	require.Equal(t, 253, len(owner))
	require.Equal(t, rrset.MaxCommentSize, len(note))

	forEachStoreKind(t, func(t *testing.T, srv *pdnstest.Server, kind reconcile.OwnershipStore) {
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		// The lock freed within each operation: a kept one is freed by a
		// request of its own, later, which would count among the refusals'.
		w, rec := newWriter(t, srv, writer, reconcile.WithOwnershipStore(kind), reconcile.WithLockHold(0))
		reconcile.LongestKinds(w)
		store, err := w.OwnershipStore(ctx)
		require.NoError(t, err)

		txt := pdnstest.MustRRset(t, zone, "txt", "TXT", 300, reconcile.TXTOfLength(t, zone, 64000))
		if store == reconcile.OwnershipComments {
			txt.Comment = note
		}
		res, err := w.Apply(ctx, zone, txt, reconcile.WithOwner(owner))
		require.NoError(t, err)
		require.Len(t, res.Applied, 1)
		live, err := w.Live(ctx, zone)
		require.NoError(t, err)
		got := findRRset(t, live, txt.Key())
		assert.Equal(t, writer, got.ManagedBy)
		assert.Equal(t, owner, got.Owner)
		assert.Equal(t, txt.Comment, got.Comment)
		assert.Equal(t, txt.Records, got.Records, "64,000 bytes read back")
		if store == reconcile.OwnershipMetadata {
			md, err := srv.Client.Metadata.List(ctx, zone)
			require.NoError(t, err)
			var claims []string
			for _, m := range md {
				if m.Kind != nil && strings.HasPrefix(string(*m.Kind), "X-PDNSKIT-O-") {
					claims = append(claims, string(*m.Kind))
				}
			}
			require.Len(t, claims, 1, "the claim record")
			assert.Len(t, claims[0], 32, "a kind of 32 characters stored")
		}

		// One past each limit: refused, nothing sent.
		sent := rec.counts.Total()
		refuse := func(t *testing.T, field string, err error) {
			t.Helper()
			var input *reconcile.InputError
			require.ErrorAs(t, err, &input)
			var se *reconcile.StorageError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, field, se.Field)
			assert.Equal(t, sent, rec.counts.Total(), "refused before any request")
		}
		long := pdnstest.MustRRset(t, zone, "long", "TXT", 300, reconcile.TXTOfLength(t, zone, 64001))
		_, err = w.Apply(ctx, zone, long)
		refuse(t, "RRset.Records", err)
		_, err = w.Sync(ctx, zone, []rrset.RRset{txt, long})
		refuse(t, "RRset.Records", err)
		_, err = w.Apply(ctx, zone, txt, reconcile.WithOwner("ns/Пётр"))
		refuse(t, "WithOwner", err)
		_, err = w.Remove(ctx, zone, txt.Key(), reconcile.WithOwner("ns/🦀"))
		refuse(t, "WithOwner", err)
		emoji := txt
		emoji.Comment = "deployed 🚀"
		_, err = w.Apply(ctx, zone, emoji)
		var re *rrset.RecordError
		require.ErrorAs(t, err, &re)
		assert.Equal(t, rrset.ReasonInvalidComment, re.Reason)
		assert.Equal(t, sent, rec.counts.Total(), "refused before any request")
		_, err = reconcile.New(srv.URL, reconcile.WithManagedBy("Пётр"))
		var se *reconcile.StorageError
		require.ErrorAs(t, err, &se)
		assert.Equal(t, "WithManagedBy", se.Field)

		if kind != reconcile.OwnershipAuto {
			return // the zone's fields do not depend on the ownership store
		}
		// A zone of its own, deleted at the end (except on LMDB, which
		// hands a deleted zone's comments to the next zone of its id).
		slave := "limits-" + zone
		if srv.Backend != pdnstest.LMDB {
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				_ = srv.Client.Zones.Delete(ctx, slave)
			})
		}
		// Three primaries as PowerDNS spells them, 128 characters joined
		// by ", ".
		masters := []string{
			"[2001:db8:ffff:ffff:ffff:ffff:ffff:fff1]:5300",
			"[2001:db8:ffff:ffff:ffff:ffff:ffff:fff2]:5300",
			"[2001:db8::ffff:fff:fff:fff3]:5300",
		}
		require.Equal(t, 128, len(strings.Join(masters, ", ")))
		spec := reconcile.ZoneSpec{Kind: "Slave", Masters: masters, Account: strings.Repeat("é€", 20)}
		zr, err := w.EnsureZone(ctx, slave, spec)
		require.NoError(t, err)
		require.True(t, zr.Created)
		zr, err = w.EnsureZone(ctx, slave, spec)
		require.NoError(t, err)
		assert.Empty(t, zr.Differences, "read back unchanged")

		sent = rec.counts.Total()
		for _, tc := range []struct {
			field string
			spec  reconcile.ZoneSpec
		}{
			{"ZoneSpec.Account", reconcile.ZoneSpec{Kind: "Slave", Masters: masters, Account: spec.Account + "x"}},
			{"ZoneSpec.Account", reconcile.ZoneSpec{Kind: "Slave", Masters: masters, Account: "team 🦀"}},
			{"ZoneSpec.Masters", reconcile.ZoneSpec{Kind: "Slave", Masters: append([]string{"192.0.2.1"}, masters...)}},
			{"ZoneSpec.SOAEditAPI", reconcile.ZoneSpec{Kind: "Slave", Masters: masters, SOAEditAPI: "ЕПОХА"}},
		} {
			zr, err := w.EnsureZone(ctx, "past-"+zone, tc.spec)
			refuse(t, tc.field, err)
			assert.Zero(t, zr.Requests)
		}
	})
}

// findRRset returns the RRset of key in live.
func findRRset(t *testing.T, live []rrset.RRset, key rrset.Key) rrset.RRset {
	t.Helper()
	for _, rr := range live {
		if rr.Key() == key {
			return rr
		}
	}
	t.Fatalf("%s not live", key)
	return rrset.RRset{}
}
