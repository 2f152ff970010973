package reconcile_test

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// TestConcurrentWriters: two writers with overlapping names sync the same
// zone at the same time, over and over. No key is ever written by both (the
// zone lock keeps one writer's read-then-write from overwriting the other's
// fresh RRset), every key one of them wants ends up held by one of them, and
// they converge.
func TestConcurrentWriters(t *testing.T) {
	forEachStore(t, func(t *testing.T, srv *pdnstest.Server, store reconcile.Option) {
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		rnd := rand.New(rand.NewPCG(11, 12))
		writers := []string{"writer-a", "writer-b"}
		wants := make([][]rrset.RRset, len(writers))
		for i := range writers {
			// Same names, different data: every name is contested.
			for n := range 12 {
				wants[i] = append(wants[i], pdnstest.MustRRset(t, zone, fmt.Sprintf("n%02d", n), "A", 300, fmt.Sprintf("192.0.2.%d", 10*i+rnd.IntN(9)+1)))
			}
		}
		var (
			mu        sync.Mutex
			writtenBy = make(map[rrset.Key]map[string]bool)
			wg        sync.WaitGroup
		)
		for i, w := range writers {
			rec, _ := newWriter(t, srv, w, store)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 15 {
					res, err := rec.Sync(ctx, zone, wants[i])
					if !assert.NoError(t, err) {
						return
					}
					mu.Lock()
					for _, c := range res.Applied {
						if writtenBy[c.Key()] == nil {
							writtenBy[c.Key()] = make(map[string]bool)
						}
						writtenBy[c.Key()][w] = true
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		for k, ws := range writtenBy {
			assert.Len(t, ws, 1, "%s written by %v", k, ws)
		}
		// Converged: both writers find nothing to write.
		for i, w := range writers {
			rec, _ := newWriter(t, srv, w, store)
			res, err := rec.Sync(ctx, zone, wants[i])
			require.NoError(t, err)
			assert.Empty(t, res.Applied)
			assert.Empty(t, res.Postponed)
		}
		for n := range 12 {
			assert.NotNil(t, liveContents(t, srv, zone, fmt.Sprintf("n%02d.%s", n, zone), "A"))
		}
	})
}
