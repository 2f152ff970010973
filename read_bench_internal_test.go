package reconcile

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/internal/pdnsapi"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// BenchmarkZoneReads times, on each server of the matrix, the reads a
// create may be decided on, in zones of 100, 1,000 and 3,000 RRsets: the
// whole zone, one name (a filtered GET), and two names (a new name and
// the apex above it) one after the other and at once. They are what
// readCosts' defaults stand for.
func BenchmarkZoneReads(b *testing.B) {
	for _, srv := range pdnstest.Servers(b) {
		for _, size := range []int{100, 1000, 3000} {
			b.Run(fmt.Sprintf("%s/%d", srv.Name(), size), func(b *testing.B) { benchZoneReads(b, srv, size) })
		}
	}
}

func benchZoneReads(b *testing.B, srv *pdnstest.Server, size int) {
	b.Helper()
	ctx := pdnstest.Context(b)
	zone := srv.NewZone(b)
	r, err := New(srv.URL, WithAPIKey(srv.APIKey), WithManagedBy("bench"), WithMaxPatchBytes(1<<20))
	require.NoError(b, err)
	desired := make([]rrset.RRset, 0, size)
	for i := range size {
		desired = append(desired, pdnstest.MustRRset(b, zone, fmt.Sprintf("h%05d", i), "A", 300, "192.0.2.1"))
	}
	_, err = r.Sync(ctx, zone, desired)
	require.NoError(b, err)
	var t tally
	s := r.server.session(&t)
	read := func(q pdnsapi.ZoneQuery) {
		if _, err := s.zone(ctx, zone, q); err != nil {
			b.Fatal(err)
		}
	}
	name := "new." + zone
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			read(pdnsapi.ZoneQuery{})
		}
	})
	b.Run("one-name", func(b *testing.B) {
		for b.Loop() {
			read(pdnsapi.ZoneQuery{RRsetName: name})
		}
	})
	b.Run("two-names-in-turn", func(b *testing.B) {
		for b.Loop() {
			read(pdnsapi.ZoneQuery{RRsetName: name})
			read(pdnsapi.ZoneQuery{RRsetName: zone})
		}
	})
	b.Run("two-names-at-once", func(b *testing.B) {
		for b.Loop() {
			var wg sync.WaitGroup
			for _, n := range []string{name, zone} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					read(pdnsapi.ZoneQuery{RRsetName: n})
				}()
			}
			wg.Wait()
		}
	})
}
