package reconcile_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/backoff/backofftest"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// BenchmarkAppliesAtOnce is a per-object controller with eight workers
// and 400 objects in one zone, next to what a controller without the
// library sends for the same work; one op is all 400 objects, 8 at a time:
//
//   - steady-apply: 400 Applies with nothing to change, one Reconciler;
//     filtered-get: 400 GETs of one RRset (rrset_name and rrset_type);
//   - create-apply: 400 Applies of RRsets not there yet; blind-patch: 400
//     PATCHes of one RRset each, nothing read.
//
// Each reports its time budget (see budget). Run it with a fixed count,
// e.g. -bench AppliesAtOnce -benchtime 1x -count 5.
func BenchmarkAppliesAtOnce(b *testing.B) {
	const objects, workers = 400, 8
	for _, srv := range pdnstest.Servers(b) {
		b.Run(srv.Name(), func(b *testing.B) {
			zone := srv.NewZone(b)
			bud, rawBud := newBudget(), newBudget()
			w, err := reconcile.New(srv.URL, reconcile.WithAPIKey(srv.APIKey), reconcile.WithManagedBy("bench"),
				reconcile.WithHTTPClient(&http.Client{Transport: bud}), reconcile.WithObserver(bud))
			require.NoError(b, err)
			raw := powerdns.New(srv.URL, "localhost", powerdns.WithAPIKey(srv.APIKey),
				powerdns.WithHTTPClient(&http.Client{Transport: rawBud}))
			objs := func(prefix string) []rrset.RRset {
				rrs := make([]rrset.RRset, objects)
				for i := range rrs {
					rrs[i] = pdnstest.MustRRset(b, zone, fmt.Sprintf("%s%03d", prefix, i), "A", 300, "192.0.2.1")
				}
				return rrs
			}
			apply := func(ctx context.Context, rr rrset.RRset, wantApplied int) error {
				res, err := w.Apply(ctx, zone, rr)
				if err == nil && len(res.Applied) != wantApplied {
					err = fmt.Errorf("%s: %d applied, want %d (%s)", rr.Name, len(res.Applied), wantApplied, res.Condition().Message)
				}
				return err
			}
			// measured runs op in each iteration, within bud's budget of r.
			measured := func(b *testing.B, bud *budget, r *reconcile.Reconciler, op func() error) {
				b.Helper()
				bud.reset(r, zone)
				for b.Loop() {
					bud.start()
					err := op()
					bud.stop()
					if err != nil {
						b.Fatal(err)
					}
				}
				reportBudget(b, bud, r, zone)
			}
			steady := objs("steady")
			require.NoError(b, atOnce(pdnstest.Context(b), workers, steady, func(ctx context.Context, rr rrset.RRset) error {
				return apply(ctx, rr, 1)
			}))
			b.Run("steady-apply", func(b *testing.B) {
				measured(b, bud, w, func() error {
					return atOnce(pdnstest.Context(b), workers, steady, func(ctx context.Context, rr rrset.RRset) error {
						return apply(ctx, rr, 0)
					})
				})
			})
			typ := powerdns.RRTypeA
			b.Run("filtered-get", func(b *testing.B) {
				var requeues atomic.Int64
				measured(b, rawBud, nil, func() error {
					return atOnce(pdnstest.Context(b), workers, steady, func(ctx context.Context, rr rrset.RRset) error {
						return requeued(ctx, &requeues, func() error {
							_, err := raw.Records.Get(ctx, zone, rr.Name, &typ)
							return err
						})
					})
				})
				b.ReportMetric(float64(requeues.Load())/float64(b.N), "requeues/op")
			})
			round := 0
			b.Run("create-apply", func(b *testing.B) {
				measured(b, bud, w, func() error {
					round++
					return atOnce(pdnstest.Context(b), workers, objs(fmt.Sprintf("c%d-", round)), func(ctx context.Context, rr rrset.RRset) error {
						return apply(ctx, rr, 1)
					})
				})
			})
			b.Run("blind-patch", func(b *testing.B) {
				var requeues atomic.Int64
				measured(b, rawBud, nil, func() error {
					round++
					return atOnce(pdnstest.Context(b), workers, objs(fmt.Sprintf("b%d-", round)), func(ctx context.Context, rr rrset.RRset) error {
						return requeued(ctx, &requeues, func() error {
							return raw.Records.Change(ctx, zone, rr.Name, typ, rr.TTL, rr.Records)
						})
					})
				})
				b.ReportMetric(float64(requeues.Load())/float64(b.N), "requeues/op")
			})
			require.NoError(b, w.Close(pdnstest.Context(b)))
		})
	}
}

// BenchmarkAppliesInTurn is a per-object controller with one worker
// creating 1,000 objects in one zone, one after another, next to what a
// controller without the library sends for the same work: for each object
// a GET of its RRset (rrset_name and rrset_type), and a PATCH of it. One
// op is all 1,000 objects; each reports its time budget (see budget). Run
// it with a fixed count, e.g. -bench AppliesInTurn -benchtime 1x -count 5.
func BenchmarkAppliesInTurn(b *testing.B) {
	const objects = 1000
	for _, srv := range pdnstest.Servers(b) {
		b.Run(srv.Name(), func(b *testing.B) {
			zone := srv.NewZone(b)
			bud, rawBud := newBudget(), newBudget()
			w, err := reconcile.New(srv.URL, reconcile.WithAPIKey(srv.APIKey), reconcile.WithManagedBy("bench"),
				reconcile.WithHTTPClient(&http.Client{Transport: bud}), reconcile.WithObserver(bud))
			require.NoError(b, err)
			raw := powerdns.New(srv.URL, "localhost", powerdns.WithAPIKey(srv.APIKey),
				powerdns.WithHTTPClient(&http.Client{Transport: rawBud}))
			typ := powerdns.RRTypeA
			round := 0
			run := func(b *testing.B, bud *budget, r *reconcile.Reconciler, each func(ctx context.Context, rr rrset.RRset) error) {
				b.Helper()
				bud.reset(r, zone)
				for b.Loop() {
					round++
					rrs := make([]rrset.RRset, objects)
					for i := range rrs {
						rrs[i] = pdnstest.MustRRset(b, zone, fmt.Sprintf("s%d-%04d", round, i), "A", 300, "192.0.2.1")
					}
					ctx := pdnstest.Context(b)
					bud.start()
					for _, rr := range rrs {
						if err := each(ctx, rr); err != nil {
							b.Fatal(err)
						}
					}
					bud.stop()
				}
				reportBudget(b, bud, r, zone)
			}
			b.Run("create-apply", func(b *testing.B) {
				run(b, bud, w, func(ctx context.Context, rr rrset.RRset) error {
					res, err := w.Apply(ctx, zone, rr)
					if err == nil && len(res.Applied) != 1 {
						err = fmt.Errorf("%s: %d applied (%s)", rr.Name, len(res.Applied), res.Condition().Message)
					}
					return err
				})
			})
			b.Run("get-patch", func(b *testing.B) {
				var requeues atomic.Int64
				run(b, rawBud, nil, func(ctx context.Context, rr rrset.RRset) error {
					return requeued(ctx, &requeues, func() error {
						if _, err := raw.Records.Get(ctx, zone, rr.Name, &typ); err != nil {
							return err
						}
						return raw.Records.Change(ctx, zone, rr.Name, typ, rr.TTL, rr.Records)
					})
				})
				b.ReportMetric(float64(requeues.Load())/float64(b.N), "requeues/op")
			})
			require.NoError(b, w.Close(pdnstest.Context(b)))
		})
	}
}

// requeued calls fn until it succeeds or fails otherwise than by a 5xx
// answer, up to ten times, waiting 10 ms more each time, and counts the
// calls after the first in requeues: the requeues of a controller without
// the library, whose writes PowerDNS 4.7 on gsqlite3 answers with 500
// "database is locked" now and then, eight at once.
func requeued(ctx context.Context, requeues *atomic.Int64, fn func() error) error {
	for try := 1; ; try++ {
		err := fn()
		if err == nil || try == 10 || !serverFailed(err) {
			return err
		}
		requeues.Add(1)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(try) * 10 * time.Millisecond):
		}
	}
}

// serverFailed reports whether err is a 5xx answer of PowerDNS.
func serverFailed(err error) bool {
	var pe *powerdns.Error
	return errors.As(err, &pe) && pe.StatusCode >= 500
}

// atOnce calls fn for every RRset of rrs, workers at a time, and returns
// the first error.
func atOnce(ctx context.Context, workers int, rrs []rrset.RRset, fn func(context.Context, rrset.RRset) error) error {
	next := make(chan rrset.RRset)
	errs := make(chan error, len(rrs))
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for rr := range next {
				errs <- fn(ctx, rr)
			}
		}()
	}
	for _, rr := range rrs {
		next <- rr
	}
	close(next)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkOperatorScenario is a per-object controller reconciling five
// objects one at a time, each the owner of one RRset: the five created,
// the five reconciled again with nothing to change, one changed, one
// removed. One op is the whole scenario on five new names; it reports the
// requests the Reconciler sent for each step (every request, the zone
// lock's included, its release after the hold too) per op. A controller without the library sends 13 for
// the same steps: five PATCHes, five filtered GETs, a filtered GET and a
// PATCH, and a PATCH.
func BenchmarkOperatorScenario(b *testing.B) {
	steps := []string{"create", "steady", "change", "remove", "lock-freed"}
	for _, srv := range pdnstest.Servers(b) {
		b.Run(srv.Name(), func(b *testing.B) {
			zone := srv.NewZone(b)
			// The zone lock kept after the creates is freed when the test
			// moves the Reconciler's clock past its hold, after the steps:
			// never behind a step's count.
			clock := backofftest.NewClock(time.Now())
			frees := newFreeLocks()
			w, rec := newWriter(b, srv, "bench", reconcile.WithClock(clock), reconcile.WithObserver(frees))
			sent := make([]int, len(steps))
			// step runs one call of the step s and checks how many changes it made.
			step := func(s int, wantApplied int, call func() (reconcile.Result, error)) {
				before := rec.counts.Total()
				res, err := call()
				if err == nil && len(res.Applied) != wantApplied {
					err = fmt.Errorf("%s: %d applied, want %d (%s)", steps[s], len(res.Applied), wantApplied, res.Condition().Message)
				}
				if err != nil {
					b.Fatal(err)
				}
				sent[s] += rec.counts.Total() - before
			}
			round := 0
			for b.Loop() {
				round++
				ctx := pdnstest.Context(b)
				rrs := make([]rrset.RRset, 5)
				owners := make([]reconcile.OwnerOption, 5)
				for i := range rrs {
					rrs[i] = pdnstest.MustRRset(b, zone, fmt.Sprintf("obj%d-%d", round, i), "A", 300, "192.0.2.1")
					owners[i] = reconcile.WithOwner(fmt.Sprintf("default/obj%d-%d", round, i))
				}
				for i, rr := range rrs {
					step(0, 1, func() (reconcile.Result, error) { return w.Apply(ctx, zone, rr, owners[i]) })
				}
				for i, rr := range rrs {
					step(1, 0, func() (reconcile.Result, error) { return w.Apply(ctx, zone, rr, owners[i]) })
				}
				changed := pdnstest.MustRRset(b, zone, rrs[0].Name, "A", 300, "192.0.2.2")
				step(2, 1, func() (reconcile.Result, error) { return w.Apply(ctx, zone, changed, owners[0]) })
				step(3, 1, func() (reconcile.Result, error) { return w.Remove(ctx, zone, rrs[1].Key(), owners[1]) })
				// The lock the creates kept is freed once the hold runs
				// out: a request of the scenario's, which the next one
				// would otherwise save.
				b.StopTimer()
				before := rec.counts.Total()
				clock.Advance(reconcile.DefaultLockHold)
				if freed := frees.next(b); freed.Err != nil {
					b.Fatal(freed.Err)
				}
				sent[4] += rec.counts.Total() - before
				b.StartTimer()
			}
			total := 0
			for s, n := range sent {
				b.ReportMetric(float64(n)/float64(b.N), steps[s]+"-requests/op")
				total += n
			}
			b.ReportMetric(float64(total)/float64(b.N), "requests/op")
		})
	}
}
