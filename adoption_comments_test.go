package reconcile_test

import (
	"context"
	"testing"

	"github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// previousTool is the comment account of the tool a writer replaces, as
// PowerDNS-Operator records its ownership in a comment of its own.
const previousTool = "powerdns-operator"

// TestAdoptionReplacesComments: a writer that adopts RRsets from a tool it
// names (WithAdoptionReplacing) replaces that tool's comments with its own
// ownership record, in the adopting PATCH and in every write after, and
// keeps every other client's comments; a writer that adopts without naming
// a tool keeps them all. Where ownership lives in zone metadata no comment
// is written, so the tool's stay, and the adoption sends no PATCH; LMDB
// before 5.1 keeps no comments at all, so there is none to replace.
func TestAdoptionReplacesComments(t *testing.T) {
	forEachStoreKind(t, func(t *testing.T, srv *pdnstest.Server, kind reconcile.OwnershipStore) {
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		commentsKept := srv.Backend != pdnstest.LMDB || srv.AtLeast(5, 1)
		written := func(name, content string, comments ...powerdns.Comment) rrset.RRset {
			t.Helper()
			if !commentsKept {
				comments = nil // the backend refuses any comment
			}
			rawWrite(t, func(ctx context.Context) error {
				return srv.Client.Records.Patch(ctx, zone, &powerdns.RRsets{Sets: []powerdns.RRset{{
					Name: powerdns.String(name + "." + zone), Type: powerdns.RRTypePtr("A"), TTL: powerdns.Uint32(300),
					ChangeType: powerdns.ChangeTypePtr(powerdns.ChangeTypeReplace),
					Records:    []powerdns.Record{{Content: powerdns.String(content), Disabled: powerdns.Bool(false)}},
					Comments:   comments,
				}}})
			})
			return pdnstest.MustRRset(t, zone, name, "A", 300, content)
		}
		comment := func(account, content string) powerdns.Comment {
			return powerdns.Comment{Account: powerdns.String(account), Content: powerdns.String(content)}
		}
		toolNote := comment(previousTool, "managed by "+previousTool)
		opsNote := comment("ops", "keep me")
		app := written("app", "192.0.2.10", toolNote, opsNote)
		other := written("other", "192.0.2.11", toolNote, opsNote)

		adopter, rec := newWriter(t, srv, "dns-operator", reconcile.WithOwnershipStore(kind), reconcile.WithAdoptionReplacing(previousTool))
		store, err := adopter.OwnershipStore(ctx)
		require.NoError(t, err)
		patches := rec.patches()
		res, err := adopter.Apply(ctx, zone, app)
		require.NoError(t, err)
		require.Len(t, res.Applied, 1, "adopted")
		assert.Empty(t, res.Blocked)
		assert.Equal(t, "dns-operator", ownersOf(t, adopter, zone)[app.Key()])

		both := map[string]string{previousTool: "managed by " + previousTool, "ops": "keep me"}
		switch {
		case !commentsKept:
			assert.Empty(t, foreignComments(t, srv, zone, app.Name, "A"), "no comment on this backend")
		case store == reconcile.OwnershipComments:
			assert.Equal(t, patches+1, rec.patches(), "the ownership record written")
			assert.Equal(t, map[string]string{"ops": "keep me"}, foreignComments(t, srv, zone, app.Name, "A"),
				"the tool's comment replaced, the others' kept")
		default:
			assert.Equal(t, patches, rec.patches(), "a claim in metadata: no PATCH")
			assert.Equal(t, both, foreignComments(t, srv, zone, app.Name, "A"), "no comment written, none replaced")
		}

		// Adopting without naming the tool replaces no comment.
		plain, _ := newWriter(t, srv, "gateway-dns", reconcile.WithOwnershipStore(kind), reconcile.WithAdoption())
		res, err = plain.Apply(ctx, zone, other)
		require.NoError(t, err)
		require.Len(t, res.Applied, 1, "adopted")
		if commentsKept {
			assert.Equal(t, both, foreignComments(t, srv, zone, other.Name, "A"))
		}

		if store != reconcile.OwnershipComments {
			return
		}
		// The tool writes its comment again beside the writer's: the
		// writer's next write of the RRset drops it again.
		var kept []powerdns.Comment
		for _, rr := range readZone(t, srv, zone).RRsets {
			if *rr.Name == app.Name && *rr.Type == "A" {
				kept = append(rr.Comments, toolNote)
			}
		}
		require.Len(t, kept, 3, "ops, the ownership record, the tool's again")
		rawWrite(t, func(ctx context.Context) error {
			return srv.Client.Records.Patch(ctx, zone, &powerdns.RRsets{Sets: []powerdns.RRset{{
				Name: powerdns.String(app.Name), Type: powerdns.RRTypePtr("A"), TTL: powerdns.Uint32(300),
				ChangeType: powerdns.ChangeTypePtr(powerdns.ChangeTypeReplace),
				Records:    []powerdns.Record{{Content: powerdns.String("192.0.2.10"), Disabled: powerdns.Bool(false)}},
				Comments:   kept,
			}}})
		})
		moved := pdnstest.MustRRset(t, zone, "app", "A", 300, "192.0.2.20")
		res, err = adopter.Apply(ctx, zone, moved)
		require.NoError(t, err)
		require.Len(t, res.Applied, 1)
		assert.Equal(t, map[string]string{"ops": "keep me"}, foreignComments(t, srv, zone, app.Name, "A"))
		assert.Equal(t, "dns-operator", ownersOf(t, adopter, zone)[app.Key()])
	})
}
