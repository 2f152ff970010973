package reliability_test

import (
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/internal/pdnsapi"
	"github.com/pdnskit/reconcile/internal/testing/faultproxy"
	"github.com/pdnskit/reconcile/internal/testing/reliability"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// Answers that must not hurt the controller: error bodies of any size,
// writes answered with a redirect, refusals that quote the API key.

const mib = 1 << 20

// refusalFlood answers the first PATCH 422 with PowerDNS's refusal of the
// RRset a.<zone> A followed by n bytes of filler, as contentType.
func refusalFlood(zone, contentType string, n int) faultproxy.Rule {
	refusal := `{"error": "RRset a.` + zone + ` IN A: Conflicts with pre-existing RRset"}`
	return faultproxy.Rule{Method: http.MethodPatch, Path: faultproxy.ZonePath, Times: 1,
		Fault: faultproxy.Flood(422, contentType, []byte(refusal), n)}
}

// TestProxyHugeAnswers: a 256 MiB 500 answer to the zone read, and a 256
// MiB 422 answer to the PATCH (a refusal naming one RRset, then 256 MiB of
// filler, as JSON and as text), from the fault proxy in front of every
// PowerDNS. What the Sync
// costs the process is measured: TotalAlloc (every byte allocated during
// the Sync, from runtime.MemStats) and the peak of the live heap
// (runtime/metrics /memory/classes/heap/objects:bytes, sampled every
// millisecond) above what it held before. The test runs alone (no
// t.Parallel, one server at a time), so the figures are the Sync's; the
// proxy writes the filler from one buffer of its own and allocates nothing
// per byte.
func TestProxyHugeAnswers(t *testing.T) {
	const size = 256 * mib
	for _, srv := range pdnstest.Servers(t) {
		t.Run(srv.Name(), func(t *testing.T) {
			cases := []struct {
				name string
				rule func(zone string) faultproxy.Rule
				// refused: the PATCH refusal named one RRset, the rest
				// was written.
				refused bool
			}{
				{"zone GET answers 500 with a 256 MiB body", func(string) faultproxy.Rule {
					return zoneGetRule(faultproxy.Flood(500, "text/html", []byte("<html><head><title>500 Internal Server Error</title></head><body>"), size))
				}, false},
				{"PATCH answers 422 with a 256 MiB body (JSON)", func(zone string) faultproxy.Rule {
					return refusalFlood(zone, "application/json", size)
				}, true},
				{"PATCH answers 422 with a 256 MiB body (text/plain)", func(zone string) faultproxy.Rule {
					return refusalFlood(zone, "text/plain", size)
				}, true},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					ctx := pdnstest.Context(t)
					zone := srv.NewZone(t)
					before, after, dropped := faultScenario(t, zone)
					seed := writer(t, srv, srv.URL, "external-dns")
					syncRequeued(ctx, t, seed, zone, before)
					require.NoError(t, seed.Close(ctx)) // its kept lock freed before the Sync measured
					p := startProxy(t, srv)
					w := writer(t, srv, p.URL, "external-dns", reconcile.WithDeletionGate(1, 0), reconcile.WithDeleteGuard(1, 0), fastRetry())
					// A Sync with nothing to do first: the store is detected,
					// the measured Sync does only its own work.
					syncRequeued(ctx, t, w, zone, before)
					p.Inject(c.rule(zone))

					runtime.GC()
					var m0, m1 runtime.MemStats
					runtime.ReadMemStats(&m0)
					sampler := reliability.StartMemorySampler(time.Millisecond)
					began := time.Now()
					res, err := w.Sync(ctx, zone, after)
					elapsed := time.Since(began)
					peak := sampler.Stop()
					runtime.ReadMemStats(&m1)
					allocated := m1.TotalAlloc - m0.TotalAlloc
					peakAbove := int64(peak) - int64(m0.HeapAlloc)
					if err != nil {
						t.Logf("Sync error: %v", err)
					}
					requireNoKey(t, srv.APIKey, "the Sync's error", err)
					state := readState(t, srv, zone)

					heapSysGrew := max(float64(m1.HeapSys)-float64(m0.HeapSys), 0)
					outcome := fmt.Sprintf("%s; the Sync allocated %.1f MiB in all (TotalAlloc), live heap peaked %.1f MiB above its start, HeapSys grew %.1f MiB",
						summary(ctx, err), float64(allocated)/mib, float64(max(peakAbove, 0))/mib, heapSysGrew/mib)
					if c.refused {
						outcome += fmt.Sprintf("; %d change(s) refused, %d applied", len(res.Refused), len(res.Applied))
					}
					reliability.Record(t, reliability.Outcome{Group: "proxy", Fault: c.name, Server: srv.Name(),
						Result: outcome, Attempts: p.Faulted(), Elapsed: elapsed})

					assert.Less(t, allocated, uint64(32*mib), "a 256 MiB answer costs the Sync no more than what it keeps of it")
					assert.Less(t, peakAbove, int64(32*mib))
					assert.Less(t, elapsed, 30*time.Second, "the rest of the body is never read")
					if c.refused {
						require.NoError(t, err)
						require.Len(t, res.Refused, 1)
						assert.Equal(t, rrset.Key{Name: "a." + zone, Type: "A"}, res.Refused[0].Change.Key())
						require.NotEmpty(t, res.Refused[0].Problems)
						assert.Equal(t, pdnserrors.Conflict, res.Refused[0].Problems[0].Reason, "the refusal is classified")
						// a's update refused; g created, d, e and f deleted.
						assert.Len(t, res.Applied, 4, "the rest is written")
						assert.True(t, state.holdsNone(dropped))
					} else {
						assert.True(t, pdnserrors.IsServerError(err), "%v", err)
						assert.True(t, pdnserrors.IsRetryable(err))
						apiErr, ok := pdnserrors.AsAPIError(err)
						require.True(t, ok)
						assert.True(t, apiErr.Truncated, "the body held more than was kept")
						assert.Equal(t, "500 Internal Server Error", apiErr.Message)
						assert.True(t, state.holds(before), "nothing written after a failed read")
					}
				})
			}
		})
	}
}

// TestWriteRedirected: the PATCH is answered with a redirect to the
// server's own address (an ingress that moves the API, say). net/http would
// follow a 301, 302 or 303 with a GET, which PowerDNS answers 200, and a
// 307 or 308 with the PATCH again; the library follows none: the Sync fails
// with a permanent error, nothing was written, and no request went to
// where the redirect pointed. Each status runs on one server of the
// matrix, in turn (on every one with depth.Full).
func TestWriteRedirected(t *testing.T) {
	t.Parallel()
	eachServerSharing(t, func(t *testing.T, srv *pdnstest.Server, sh share) {
		for i, status := range []int{301, 302, 303, 307, 308} {
			if !sh.has(i) {
				continue
			}
			t.Run(fmt.Sprint(status), func(t *testing.T) {
				ctx := pdnstest.Context(t)
				zone := srv.NewZone(t)
				before, after, _ := faultScenario(t, zone)
				seed := writer(t, srv, srv.URL, "external-dns")
				syncRequeued(ctx, t, seed, zone, before)
				require.NoError(t, seed.Close(ctx)) // its kept lock freed before the Sync measured
				initial := readState(t, srv, zone)

				p := startProxy(t, srv)
				target := startProxy(t, srv)
				w := writer(t, srv, p.URL, "external-dns", reconcile.WithDeletionGate(1, 0), reconcile.WithDeleteGuard(1, 0), fastRetry())
				for _, to := range []struct {
					name string
					url  string
					seen *faultproxy.Proxy
				}{{"itself", p.URL, p}, {"another origin", target.URL, target}} {
					p.Clear()
					p.Inject(patchRule(faultproxy.Redirect(status, to.url)))
					mark := len(to.seen.Requests())
					// Requeued after PowerDNS's own 5xx, which can end a
					// Sync before its PATCH (4.7.3 on gsqlite3 under load).
					run := syncFaulted(ctx, t, w, p, zone, after)
					res, err := run.res, run.err
					requireNoKey(t, srv.APIKey, "the Sync's error", err)
					var followed []string
					patched := false
					for _, r := range to.seen.Requests()[mark:] {
						if r.Fault != "" {
							patched = true
							continue
						}
						if patched && faultproxy.ZonePath.MatchString(r.Path) {
							followed = append(followed, r.Method)
						}
					}
					state := readState(t, srv, zone)
					reliability.Record(t, reliability.Outcome{Group: "secrets",
						Fault: fmt.Sprintf("PATCH answered %d %s, to %s", status, http.StatusText(status), to.name), Server: srv.Name(),
						Result: fmt.Sprintf("Sync: %s, condition %s; requests sent where the redirect pointed: %d; %d change(s) reported applied; zone unchanged: %t",
							summary(ctx, err), reconcile.ConditionFor(res, err).Reason, len(followed), len(res.Applied), state.equal(initial)),
					})
					require.Error(t, err, "a redirected PATCH is never a success")
					assert.ErrorIs(t, err, pdnsapi.ErrWriteRedirected)
					assert.False(t, pdnserrors.IsRetryable(err), "a redirect is configuration: trying again changes nothing")
					assert.Empty(t, res.Applied)
					assert.False(t, reconcile.ConditionFor(res, err).Programmed)
					assert.Empty(t, followed, "the write was not sent where the redirect pointed")
					assert.True(t, state.equal(initial), "nothing written: %v", state)
				}
			})
		}
	})
}

// TestEchoedKey: the proxy answers with a refusal that quotes the request
// line and headers, API key included, as a misconfigured proxy might. The
// key reaches no error, result, refusal, condition or log line; the
// refusal still says what was refused, with "[redacted]" in the key's
// place.
func TestEchoedKey(t *testing.T) {
	t.Parallel()
	eachServerAtOnce(t, func(t *testing.T, srv *pdnstest.Server) {
		cases := []struct {
			name string
			rule faultproxy.Rule
		}{
			{"zone GET refused (401) quoting the API key", zoneGetRule(faultproxy.Echo(401))},
			{"zone GET failing (500) quoting the API key", zoneGetRule(faultproxy.Echo(500))},
			{"PATCH refused (422) quoting the API key", patchRule(faultproxy.Echo(422))},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				ctx := pdnstest.Context(t)
				zone := srv.NewZone(t)
				before, after, _ := faultScenario(t, zone)
				p := startProxy(t, srv)
				w := writer(t, srv, p.URL, "external-dns", fastRetry())
				syncRequeued(ctx, t, w, zone, before)
				p.Inject(c.rule)
				// Requeued after PowerDNS's own 5xx, which can end a Sync
				// before the faulted request (4.7.3 on gsqlite3 under
				// load): the echo must arrive.
				run := syncFaulted(ctx, t, w, p, zone, after)
				res, err := run.res, run.err
				cond := reconcile.ConditionFor(res, err)
				for what, v := range map[string]any{"error": err, "result": res, "condition": cond, "condition message": cond.Message} {
					requireNoKey(t, srv.APIKey, "the "+what, v)
				}
				// The echo arrived: what the library reports quotes it, the
				// key redacted.
				var said []string
				if err != nil {
					said = append(said, err.Error())
				}
				for _, r := range res.Refused {
					for _, pr := range r.Problems {
						said = append(said, pr.Message)
					}
				}
				quoted := strings.Join(said, "\n")
				assert.Contains(t, quoted, "X-Api-Key: [redacted]")
				reliability.Record(t, reliability.Outcome{Group: "secrets", Fault: c.name, Server: srv.Name(),
					Result: fmt.Sprintf("Sync: %s, %d refused; the API key in the answer: redacted in every error, refusal, condition and log line (%q)",
						summary(ctx, err), len(res.Refused), excerpt(quoted, "X-Api-Key"))})
			})
		}
	})
}

// excerpt returns the part of s around the first occurrence of marker.
func excerpt(s, marker string) string {
	i := strings.Index(s, marker)
	if i < 0 {
		return ""
	}
	end := min(len(s), i+len(marker)+14)
	return s[i:end]
}
