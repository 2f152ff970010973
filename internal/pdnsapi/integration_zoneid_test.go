package pdnsapi_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"testing"
	"time"

	powerdns "github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/internal/pdnsapi"
	"github.com/pdnskit/reconcile/internal/zonejson"
	"github.com/pdnskit/reconcile/pdnstest"
)

func randomLabel(t *testing.T) string {
	t.Helper()
	b := make([]byte, 4)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return hex.EncodeToString(b)
}

// contentsOf returns the enabled contents of name/typ in z.
func contentsOf(z zonejson.Zone, name, typ string) []string {
	var out []string
	for _, rr := range z.RRsets {
		if rr.Name != name || rr.Type != typ {
			continue
		}
		for _, r := range rr.Records {
			if !r.Disabled {
				out = append(out, r.Content)
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestIntegrationZoneIDs creates zones whose ids differ from their names
// (RFC 2317 classless reverse zones, a leading underscore, upper case) on
// every server and both backends, and drives every call of Client on
// them: create, PATCH with PTR records, read whole and narrowed by a name
// holding '/', metadata added, replaced, listed and deleted, zone deleted.
// Every call must address the zone named, in one request.
func TestIntegrationZoneIDs(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		var counts pdnsapi.Counts
		c, err := pdnsapi.New(srv.URL, srv.APIKey, "", nil, pdnsapi.WithObserver(counts.Observe))
		require.NoError(t, err)
		suffix := randomLabel(t)
		zones := []struct{ name, spelled string }{
			{"0/26.2.0.192.in-addr.arpa.", ""}, // one per server: LMDB keeps deleted zones' ids
			{"64/27." + suffix + ".10.in-addr.arpa.", "64/27." + suffix + ".10.IN-ADDR.ARPA"},
			{"_x" + suffix + ".pdnstest.example.", ""},
			{"up" + suffix + ".pdnstest.example.", "UP" + suffix + ".PdnsTest.Example"},
		}
		if srv.Backend == pdnstest.LMDB {
			zones[0].name = "0/26." + randomLabel(t)[:2] + ".0.192.in-addr.arpa."
		}
		for _, z := range zones {
			t.Run(z.name, func(t *testing.T) {
				name := z.name
				spelled := z.spelled
				if spelled == "" {
					spelled = name
				}
				counts.Reset()
				require.NoError(t, c.CreateZone(ctx, powerdns.Zone{
					Name: powerdns.String(name), Kind: powerdns.ZoneKindPtr(powerdns.NativeZoneKind),
					Nameservers: []string{"ns1.pdnstest.invalid."},
				}))
				t.Cleanup(func() { _ = c.DeleteZone(context.Background(), name) })

				ptr := "a/b." + name
				owner := "5." + name
				require.NoError(t, c.PatchZone(ctx, spelled, []powerdns.RRset{
					replace(owner, powerdns.RRTypePTR, "host5.example.net."),
					replace(ptr, powerdns.RRTypePTR, "host6.example.net.", "host7.example.net."),
				}))

				got, err := c.GetZone(ctx, spelled, pdnsapi.ZoneQuery{})
				require.NoError(t, err)
				assert.Equal(t, name, got.Name)
				assert.Equal(t, []string{"host5.example.net."}, contentsOf(got, owner, "PTR"))
				assert.Equal(t, []string{"host6.example.net.", "host7.example.net."}, contentsOf(got, ptr, "PTR"))

				narrow, err := c.GetZone(ctx, spelled, pdnsapi.ZoneQuery{RRsetName: ptr, RRsetType: "PTR"})
				require.NoError(t, err)
				require.Len(t, narrow.RRsets, 1, "rrset_name with a '/' narrows the read")
				assert.Equal(t, ptr, narrow.RRsets[0].Name)

				bare, err := c.GetZone(ctx, spelled, pdnsapi.ZoneQuery{NoRRsets: true})
				require.NoError(t, err)
				assert.Equal(t, name, bare.Name)
				assert.Empty(t, bare.RRsets)
				assert.NotEmpty(t, bare.SOAEditAPI, "the zone's soa_edit_api is read")

				require.NoError(t, c.AddMetadata(ctx, spelled, "X-PDNSKIT-TEST", []string{"one"}))
				require.NoError(t, c.AddMetadata(ctx, spelled, "X-PDNSKIT-TEST", []string{"two"}))
				require.NoError(t, c.SetMetadata(ctx, spelled, "X-PDNSKIT-OTHER", []string{"three"}))
				md, err := c.ListMetadata(ctx, spelled)
				require.NoError(t, err)
				kinds := map[string][]string{}
				for _, m := range md {
					if m.Kind != nil {
						kinds[string(*m.Kind)] = m.Metadata
					}
				}
				assert.ElementsMatch(t, []string{"one", "two"}, kinds["X-PDNSKIT-TEST"])
				assert.Equal(t, []string{"three"}, kinds["X-PDNSKIT-OTHER"])
				require.NoError(t, c.DeleteMetadata(ctx, spelled, "X-PDNSKIT-TEST"))
				md, err = c.ListMetadata(ctx, spelled)
				require.NoError(t, err)
				for _, m := range md {
					assert.NotEqual(t, "X-PDNSKIT-TEST", string(*m.Kind), "deleted")
				}

				if srv.Backend != pdnstest.LMDB {
					require.NoError(t, c.DeleteZone(ctx, spelled))
				}
				assert.Zero(t, counts.Statuses(300, 600), "no call was refused: %s", counts.String())
				assert.Zero(t, counts.Statuses(0, 1), "no call failed: %s", counts.String())
				if srv.Backend != pdnstest.LMDB {
					_, err = c.GetZone(ctx, name, pdnsapi.ZoneQuery{NoRRsets: true})
					assert.True(t, pdnserrors.IsZoneNotFound(err), "deleted: %v", err)
				}
			})
		}

		// The classless zone's name put raw into a path, as a client that
		// does not use the id would: PowerDNS reads the '/' as a path
		// separator (4.9, 5.1: 404) or finds another zone.
		name := "0/26." + randomLabel(t)[:2] + ".1.192.in-addr.arpa."
		require.NoError(t, c.CreateZone(ctx, powerdns.Zone{Name: powerdns.String(name),
			Kind: powerdns.ZoneKindPtr(powerdns.NativeZoneKind), Nameservers: []string{"ns1.pdnstest.invalid."}}))
		t.Cleanup(func() { _ = c.DeleteZone(context.Background(), name) })
		rawErr := pdnsapi.Call(ctx, func(ctx context.Context) error {
			_, err := c.Metadata.List(ctx, name)
			return err
		})
		t.Logf("PowerDNS %s, metadata of %q by name instead of id: %v", srv.Version, name, rawErr)
		assert.Error(t, rawErr, "a path built from the name does not address the zone")
		_, err = c.ListMetadata(ctx, name)
		assert.NoError(t, err, "the id does")
	})
}

// TestIntegrationUnaddressableZones: names PowerDNS's API cannot hold as a
// zone are refused by every server, and by Client before any request.
func TestIntegrationUnaddressableZones(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var counts pdnsapi.Counts
		c, err := pdnsapi.New(srv.URL, srv.APIKey, "", nil, pdnsapi.WithObserver(counts.Observe))
		require.NoError(t, err)
		for _, name := range []string{"a%b", "a?b", "a#b", "a=2Fb", `a\.b`, "*.w", "a@b"} {
			zone := fmt.Sprintf("%s.%s.pdnstest.example.", name, randomLabel(t))
			// Straight to the server, as a client without the check would.
			_, err := srv.Client.Zones.Add(ctx, &powerdns.Zone{Name: powerdns.String(zone),
				Kind: powerdns.ZoneKindPtr(powerdns.NativeZoneKind), Nameservers: []string{"ns1.pdnstest.invalid."}})
			assert.Error(t, err, "PowerDNS %s creates zone %q", srv.Version, zone)
			t.Logf("PowerDNS %s refuses zone %q: %v", srv.Version, zone, err)

			counts.Reset()
			err = c.CreateZone(ctx, powerdns.Zone{Name: powerdns.String(zone)})
			var ze *pdnsapi.ZoneError
			assert.ErrorAs(t, err, &ze)
			_, err = c.GetZone(ctx, zone, pdnsapi.ZoneQuery{})
			assert.ErrorAs(t, err, &ze)
			assert.ErrorAs(t, c.PatchZone(ctx, zone, nil), &ze)
			assert.Zero(t, counts.Total(), "no request for %q", zone)
		}
	})
}
