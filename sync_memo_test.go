package reconcile_test

import (
	"fmt"
	"net/http"
	"slices"
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

// queryCounter counts the requests whose query holds query, leaving out
// those that met a server fault (see answered).
type queryCounter struct {
	base  http.RoundTripper
	query string
	n     atomic.Int64
}

func (c *queryCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(req)
	if strings.Contains(req.URL.RawQuery, c.query) && answered(resp, err) {
		c.n.Add(1)
	}
	return resp, err
}

// TestNoOpSyncReadsTheSerial: where PowerDNS raises the serial on every API
// write and ownership lives in comments, a Sync with nothing to do after
// one that read the whole zone and found nothing to do asks for the zone
// without its RRsets, one request; a change through the API by another
// writer, or a change of what the Sync asks for, brings the full read back.
func TestNoOpSyncReadsTheSerial(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := "memo-" + srv.NewZone(t)
		serialReads := &queryCounter{base: http.DefaultTransport, query: "rrsets=false"}
		w, _ := newWriter(t, srv, "zonesync", reconcile.WithHTTPClient(&http.Client{Transport: serialReads, Timeout: 30 * time.Second}))
		other, _ := newWriter(t, srv, "external-dns")
		_, err := w.EnsureZone(ctx, zone, reconcile.ZoneSpec{Nameservers: []string{"ns1.example.net."}, SOAEditAPI: "DEFAULT"})
		require.NoError(t, err)
		t.Cleanup(func() { _ = w.DeleteZone(pdnstest.Context(t), zone, reconcile.ForceDeleteZone()) })
		memo := srv.Backend != pdnstest.LMDB || srv.AtLeast(5, 1) // comments hold ownership

		var desired []rrset.RRset
		for i := range 20 {
			desired = append(desired, pdnstest.MustRRset(t, zone, fmt.Sprintf("h%02d", i), "A", 300, "192.0.2.1"))
		}
		res, err := w.Sync(ctx, zone, desired)
		require.NoError(t, err)
		require.Len(t, res.Applied, 20)
		full, err := w.Sync(ctx, zone, desired)
		require.NoError(t, err)
		require.Empty(t, full.Applied)

		res, err = w.Sync(ctx, zone, desired)
		require.NoError(t, err)
		assert.Empty(t, res.Applied)
		if memo {
			assert.Equal(t, 1, res.Requests, "the serial alone")
			assert.Equal(t, int64(1), serialReads.n.Load(), "the zone without its RRsets")
		} else {
			assert.Equal(t, full.Requests, res.Requests, "claims in metadata move no serial: a full read")
			assert.Zero(t, serialReads.n.Load())
		}

		_, err = other.Apply(ctx, zone, pdnstest.MustRRset(t, zone, "h00", "TXT", 300, `"theirs"`))
		require.NoError(t, err)
		res, err = w.Sync(ctx, zone, desired)
		require.NoError(t, err)
		live, err := w.Live(ctx, zone)
		require.NoError(t, err)
		assert.Len(t, live, 20+3, "the other writer's TXT is seen and kept")
		if memo {
			assert.Equal(t, 1+full.Requests, res.Requests, "the serial moved: a full read after it")
		}

		res, err = w.Sync(ctx, zone, desired[:19])
		require.NoError(t, err)
		require.Len(t, res.Deferred, 1, "another desired state is decided on a full read")
		assert.Equal(t, "h19."+zone, res.Deferred[0].RRset.Name, "never the apex SOA or NS the writer holds")

		everyTime := &queryCounter{base: http.DefaultTransport, query: "rrsets=false"}
		fresh, _ := newWriter(t, srv, "zonesync", reconcile.WithFullRead(0),
			reconcile.WithHTTPClient(&http.Client{Transport: everyTime, Timeout: 30 * time.Second}))
		for range 3 {
			_, err = fresh.Sync(ctx, zone, desired)
			require.NoError(t, err)
		}
		assert.Zero(t, everyTime.n.Load(), "WithFullRead(0): every Sync reads the zone whole")
	})
}

// BenchmarkNoOpSync compares, on each server of the matrix, a Sync of a
// zone of 10,000 and of 100,000 RRsets with nothing to do (the serial read
// standing for the zone) with one raw GET of the whole zone, the floor of a
// Sync that reads it. go test -run '^$' -bench NoOpSync reports both; their
// ratio is what the memo saves. -bench 'NoOpSync/.*/10000' runs one size.
func BenchmarkNoOpSync(b *testing.B) {
	for _, srv := range pdnstest.Servers(b) {
		for _, size := range []int{10_000, 100_000} {
			b.Run(fmt.Sprintf("%s/%d", srv.Name(), size), func(b *testing.B) { benchNoOpSync(b, srv, size) })
		}
	}
}

// benchNoOpSync is BenchmarkNoOpSync at one server and zone size.
func benchNoOpSync(b *testing.B, srv *pdnstest.Server, size int) {
	b.Helper()
	ctx := pdnstest.Context(b)
	zone := "bench-" + srv.NewZone(b)
	w, err := reconcile.New(srv.URL, reconcile.WithAPIKey(srv.APIKey), reconcile.WithManagedBy("bench"),
		reconcile.WithMaxPatchBytes(1<<20))
	require.NoError(b, err)
	_, err = w.EnsureZone(ctx, zone, reconcile.ZoneSpec{Nameservers: []string{"ns1.example.net."}, SOAEditAPI: "DEFAULT"})
	require.NoError(b, err)
	b.Cleanup(func() { _ = w.DeleteZone(pdnstest.Context(b), zone, reconcile.ForceDeleteZone()) })
	desired := make([]rrset.RRset, 0, size)
	for i := range size {
		desired = append(desired, pdnstest.MustRRset(b, zone, fmt.Sprintf("h%06d", i), "A", 300, "192.0.2.1"))
	}
	for range 2 { // write, then a no-op Sync that reads the whole zone
		_, err = w.Sync(ctx, zone, desired)
		require.NoError(b, err)
	}
	b.Run("sync", func(b *testing.B) {
		for b.Loop() {
			if _, err := w.Sync(ctx, zone, desired); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The first no-op Sync after a write reads the zone whole (its serial
	// moved): each iteration writes one RRset, untimed, then times the
	// Sync that finds nothing more to do.
	b.Run("sync-after-write", func(b *testing.B) {
		changed := slices.Clone(desired)
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			changed[0] = pdnstest.MustRRset(b, zone, "h000000", "A", 300, fmt.Sprintf("192.0.2.%d", 2+i%200))
			if _, err := w.Sync(ctx, zone, changed); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			res, err := w.Sync(ctx, zone, changed)
			if err != nil {
				b.Fatal(err)
			}
			if len(res.Applied) > 0 {
				b.Fatalf("a no-op Sync applied %d changes", len(res.Applied))
			}
		}
		desired = changed
	})
	b.Run("raw-get", func(b *testing.B) {
		for b.Loop() {
			if _, err := srv.Client.Zones.Get(ctx, zone); err != nil {
				b.Fatal(err)
			}
		}
	})
}
