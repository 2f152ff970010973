package reconcile_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// patchCounter is an HTTP transport counting the PATCHes that go out.
type patchCounter struct {
	base    http.RoundTripper
	patches atomic.Int32
}

func (c *patchCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPatch {
		c.patches.Add(1)
	}
	return c.base.RoundTrip(req)
}

// TestSyncClasslessReverseZone syncs PTR records into an RFC 2317
// classless reverse zone ("0/26.<n>.<n>.10.in-addr.arpa."), whose API id
// differs from its name, on every server and both backends: the Sync
// writes them, they read back unchanged, and a second Sync sends no PATCH.
func TestSyncClasslessReverseZone(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		a, err := rand.Int(rand.Reader, big.NewInt(250))
		require.NoError(t, err)
		b, err := rand.Int(rand.Reader, big.NewInt(250))
		require.NoError(t, err)
		zone := fmt.Sprintf("0/26.%d.%d.10.in-addr.arpa.", a.Int64(), b.Int64())
		// PowerDNS's id of the zone, for the test's own cleanup.
		id := strings.ReplaceAll(zone, "/", "=2F")
		_, err = srv.Client.Zones.AddNative(ctx, zone, false, "", false, "", "", false, []string{"ns1.pdnstest.invalid."})
		require.NoError(t, err)
		if srv.Backend != pdnstest.LMDB {
			t.Cleanup(func() { _ = srv.Client.Zones.Delete(context.Background(), id) })
		}

		counter := &patchCounter{base: http.DefaultTransport.(*http.Transport).Clone()}
		r, err := reconcile.New(srv.URL, reconcile.WithAPIKey(srv.APIKey), reconcile.WithManagedBy("reverse-dns"),
			reconcile.WithHTTPClient(&http.Client{Transport: counter}), reconcile.WithDNSAddr(srv.DNSAddr))
		require.NoError(t, err)
		var desired []rrset.RRset
		for _, host := range []int{1, 2, 62} {
			rr, err := rrset.New(zone, fmt.Sprint(host), "PTR", 300, fmt.Sprintf("host%d.example.net", host))
			require.NoError(t, err)
			desired = append(desired, rr)
		}

		res, err := r.Sync(ctx, zone, desired)
		require.NoError(t, err, "PowerDNS %s", srv.Version)
		assert.Len(t, res.Applied, len(desired))
		assert.True(t, res.Condition().Programmed, "%+v", res.Condition())

		z, err := srv.Client.Zones.Get(ctx, id)
		require.NoError(t, err)
		for _, want := range desired {
			var got []string
			for _, set := range z.RRsets {
				if set.Name != nil && *set.Name == want.Name && set.Type != nil && string(*set.Type) == want.Type {
					for _, rec := range set.Records {
						got = append(got, *rec.Content)
					}
				}
			}
			assert.Equal(t, want.Records, got, "%s read back", want.Key())
		}

		before := counter.patches.Load()
		res, err = r.Sync(ctx, zone, desired)
		require.NoError(t, err)
		assert.Empty(t, res.Applied)
		assert.Equal(t, before, counter.patches.Load(), "a second Sync sends no PATCH")
	})
}
