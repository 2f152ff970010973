package reconcile_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// BenchmarkCreateUnderKeptLock is a create of one new RRset by Apply, one
// after another, in a zone of 800 or 1,000 RRsets another writer holds,
// the zone lock kept from one to the next (WithLockHold's default): what
// each create reads under the lock, its PATCH, and the lock's upkeep. It
// reports the requests of each create (requests/op). -bench
// 'CreateUnderKeptLock' -count 6 gives the medians to compare.
func BenchmarkCreateUnderKeptLock(b *testing.B) {
	for _, srv := range pdnstest.Servers(b) {
		for _, size := range []int{800, 1000} {
			b.Run(fmt.Sprintf("%s/%d", srv.Name(), size), func(b *testing.B) { benchCreateUnderKeptLock(b, srv, size) })
		}
	}
}

// benchCreateUnderKeptLock is BenchmarkCreateUnderKeptLock at one server
// and zone size.
func benchCreateUnderKeptLock(b *testing.B, srv *pdnstest.Server, size int) {
	b.Helper()
	ctx := pdnstest.Context(b)
	zone := srv.NewZone(b)
	seed, err := reconcile.New(srv.URL, reconcile.WithAPIKey(srv.APIKey), reconcile.WithManagedBy("seed"),
		reconcile.WithLockHold(0))
	require.NoError(b, err)
	rrs := make([]rrset.RRset, 0, size)
	for i := range size {
		rrs = append(rrs, pdnstest.MustRRset(b, zone, fmt.Sprintf("seed%04d", i), "A", 300, "192.0.2.1"))
	}
	_, err = seed.Sync(ctx, zone, rrs)
	require.NoError(b, err)
	w, err := reconcile.New(srv.URL, reconcile.WithAPIKey(srv.APIKey), reconcile.WithManagedBy("bench"))
	require.NoError(b, err)
	b.Cleanup(func() { _ = w.Close(pdnstest.Context(b)) })
	n := 0
	create := func() int {
		n++
		res, err := w.Apply(ctx, zone, pdnstest.MustRRset(b, zone, fmt.Sprintf("new%06d", n), "A", 300, "192.0.2.2"))
		if err == nil && len(res.Applied) != 1 {
			err = fmt.Errorf("%d applied (%s)", len(res.Applied), res.Condition().Message)
		}
		if err != nil {
			b.Fatal(err)
		}
		return res.Requests
	}
	create() // the first reads the zone whole, and takes the lock
	requests := 0
	for b.Loop() {
		requests += create()
	}
	b.ReportMetric(float64(requests)/float64(b.N), "requests/op")
}
