package reliability_test

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/internal/testing/faultproxy"
	"github.com/pdnskit/reconcile/internal/testing/reliability"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// TestRedirectKeepsKeyHome: the server's address answers the zone GET with
// a 307 to another origin (another loopback port, or the same port under
// another host name) that passes requests on to PowerDNS and records their
// headers. The redirected request arrives there without the API key, so
// PowerDNS refuses it (401, not retried); a redirect to the server itself
// keeps the key and works.
func TestRedirectKeepsKeyHome(t *testing.T) {
	t.Parallel()
	eachServerAtOnce(t, func(t *testing.T, srv *pdnstest.Server) {
		home := startProxy(t, srv)
		elsewhere := startProxy(t, srv)
		u, err := url.Parse(home.URL)
		require.NoError(t, err)
		sameHostOtherName := "http://localhost:" + u.Port()

		cases := []struct {
			name, target string
			rec          *faultproxy.Proxy // where the redirected request lands
			works        bool
		}{
			{"to another port", elsewhere.URL, elsewhere, false},
			{"to the same port under another host name", sameHostOtherName, home, false},
			{"to the server itself", home.URL, home, true},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				ctx := pdnstest.Context(t)
				zone := srv.NewZone(t)
				home.Clear()
				home.Inject(faultproxy.Rule{Method: http.MethodGet, Path: faultproxy.ZonePath, Times: 1,
					Fault: faultproxy.Redirect(http.StatusTemporaryRedirect, c.target)})
				seenBefore := len(c.rec.Requests())
				w := writer(t, srv, home.URL, "external-dns", fastRetry())
				want := []rrset.RRset{pdnstest.MustRRset(t, zone, "www", "A", 300, "192.0.2.1")}
				_, err := w.Sync(ctx, zone, want)
				if err != nil {
					t.Logf("Sync error: %v", err)
				}
				requireNoKey(t, srv.APIKey, "the Sync's error", err)
				if c.works && pdnserrors.IsRetryable(err) {
					// PowerDNS's own 5xx after the redirect was followed
					// (4.7.3's "database is locked" under load): the Sync
					// is requeued, as a controller would, and judged where
					// the requeues end; the redirect is judged on the
					// first Sync's requests below.
					syncRequeued(ctx, t, w, zone, want)
					err = nil
				}

				redirected := c.rec.Requests()[seenBefore:]
				if c.rec == home {
					// The first request to home is the redirected-from one.
					redirected = nil
					for _, r := range c.rec.Requests()[seenBefore:] {
						if r.Method == http.MethodGet && faultproxy.ZonePath.MatchString(r.Path) && r.Fault == "" {
							redirected = append(redirected, r)
						}
					}
				}
				require.NotEmpty(t, redirected, "the redirect was followed")
				got := redirected[0].Header.Get("X-API-Key")
				carried := got != ""
				if c.works {
					require.NoError(t, err)
					assert.True(t, got == srv.APIKey, "the key goes to the server itself")
				} else {
					assert.False(t, carried, "no API key to another origin")
					assert.True(t, pdnserrors.IsUnauthorized(err), "%v", err)
					assert.False(t, pdnserrors.IsRetryable(err))
				}
				reliability.Record(t, reliability.Outcome{
					Group: "secrets", Fault: "zone GET redirected (307) " + c.name, Server: srv.Name(),
					Result: fmt.Sprintf("redirected request carried the API key: %t; Sync: %s", carried, summary(ctx, err)),
				})
			})
		}
	})
}

// countingTransport is a caller's own RoundTripper, which the library must
// wrap and never replace.
type countingTransport struct {
	base  http.RoundTripper
	calls atomic.Int32
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	c.calls.Add(1)
	return c.base.RoundTrip(req)
}

// TestTLSSettingsKept: in front of PowerDNS, a TLS proxy whose certificate
// is signed by an authority of its own. A Reconciler whose http.Client
// trusts that authority syncs through it, every request passing through the
// caller's own RoundTripper; one with the default client is refused by the
// certificate check, once, without retries. So the caller's transport was
// wrapped, not replaced.
func TestTLSSettingsKept(t *testing.T) {
	t.Parallel()
	eachServerAtOnce(t, func(t *testing.T, srv *pdnstest.Server) {
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		p := startProxy(t, srv, faultproxy.WithTLS())
		want := []rrset.RRset{pdnstest.MustRRset(t, zone, "www", "A", 300, "192.0.2.1")}

		own := &countingTransport{base: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: p.CertPool(), MinVersion: tls.VersionTLS12}}}
		// Frees the zone lock when each Sync ends, so that the Result
		// counts every request the proxy sees.
		trusting := writerWith(t, srv, p.URL, "external-dns", &http.Client{Transport: own}, fastRetry(), reconcile.WithLockHold(0))
		// Requeued on PowerDNS's own 5xx (4.7.3 under load); the Result
		// counts the requests of every Sync of the requeues.
		res := syncRequeued(ctx, t, trusting, zone, want)
		assert.Len(t, res.Applied, 1)
		assert.Equal(t, int(own.calls.Load()), len(p.Requests()), "every request went through the caller's transport")
		assert.Equal(t, res.Requests, len(p.Requests()))

		before := len(p.Requests())
		plain := writerWith(t, srv, p.URL, "external-dns", &http.Client{}, fastRetry())
		_, err := plain.Sync(ctx, zone, want)
		require.Error(t, err)
		t.Logf("Sync error: %v", err)
		requireNoKey(t, srv.APIKey, "the Sync's error", err)
		assert.Equal(t, "unknown certificate authority", cause(err))
		assert.False(t, pdnserrors.IsRetryable(err), "a certificate error is configuration, not weather")
		assert.Equal(t, before, len(p.Requests()), "no request got through")

		reliability.Record(t, reliability.Outcome{
			Group: "secrets", Fault: "TLS proxy with its own certificate authority", Server: srv.Name(),
			Result: fmt.Sprintf("client trusting it: %d request(s) through the caller's transport, Sync applied %d; default client: %s, no request reached the proxy",
				own.calls.Load(), len(res.Applied), summary(ctx, err)),
		})
	})
}

// TestKeyNeverPrinted: whatever a Reconciler hands back, printed in every
// way, holds no API key: Results, plans, conditions, refusals and errors,
// after a refusal and after a 401.
func TestKeyNeverPrinted(t *testing.T) {
	t.Parallel()
	eachServerAtOnce(t, func(t *testing.T, srv *pdnstest.Server) {
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		p := startProxy(t, srv)
		w := writer(t, srv, p.URL, "external-dns", fastRetry())
		want := []rrset.RRset{
			pdnstest.MustRRset(t, zone, "www", "A", 300, "192.0.2.1"),
			pdnstest.MustRRset(t, zone, "api", "CNAME", 300, "lb.example.net."),
		}
		plan, err := w.Plan(ctx, zone, want)
		require.NoError(t, err)
		requireNoKey(t, srv.APIKey, "the plan", plan)
		requireNoKey(t, srv.APIKey, "the plan's rendering", plan.Plan.String())

		p.Inject(patchRule(faultproxy.Status(422, "application/json", []byte(`{"error": "RRset www.`+zone+` IN A: Conflicts with pre-existing RRset"}`))))
		res := syncRequeued(ctx, t, w, zone, want)
		require.NotEmpty(t, res.Refused)
		for _, v := range []any{res, res.Condition(), reconcile.ConditionFor(res, nil), res.Refused[0].String()} {
			requireNoKey(t, srv.APIKey, "a refused Sync's result", v)
		}

		p.Clear()
		p.Inject(faultproxy.Rule{Fault: faultproxy.Status(401, "text/plain", []byte("Unauthorized"))})
		res, err = w.Sync(ctx, zone, want)
		require.Error(t, err)
		for _, v := range []any{err, res, reconcile.ConditionFor(res, err)} {
			requireNoKey(t, srv.APIKey, "an unauthorized Sync's result", v)
		}
	})
}
