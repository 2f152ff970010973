//go:build !race

package pdnsapi_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	powerdns "github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/internal/pdnsapi"
	"github.com/pdnskit/reconcile/pdnstest"
)

// countingBody counts the bytes read of an answer's body.
type countingTransport struct {
	base http.RoundTripper
	read atomic.Int64
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(req)
	if err == nil {
		resp.Body = &countedBody{ReadCloser: resp.Body, n: &c.read}
	}
	return resp, err
}

type countedBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// largeZoneRRsets is a zone of n RRsets as a controller writes one: A,
// AAAA, CNAME, TXT and MX in a real zone's proportions, and, when owned,
// the ownership comment the Reconciler keeps on each (the comments store)
// and an external-dns-style TXT registry record beside each name.
func largeZoneRRsets(zone string, n int, owned bool) []powerdns.RRset {
	sets := make([]powerdns.RRset, 0, 2*n)
	for i := range n {
		name := fmt.Sprintf("host-%06d.%s", i, zone)
		var rs powerdns.RRset
		switch i % 10 {
		case 0, 1, 2, 3:
			rs = replace(name, powerdns.RRTypeA, fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255))
		case 4, 5:
			rs = replace(name, powerdns.RRTypeAAAA, fmt.Sprintf("2001:db8::%x:%x", i>>16, i&0xffff))
		case 6, 7:
			rs = replace(name, powerdns.RRTypeCNAME, fmt.Sprintf("host-%06d.%s", i-1, zone))
		case 8:
			rs = replace(name, powerdns.RRTypeTXT, fmt.Sprintf(`"v=spf1 ip4:10.0.%d.0/24 -all"`, i&255))
		default:
			rs = replace(name, powerdns.RRTypeMX, fmt.Sprintf("10 mx-%d.%s", i, zone))
		}
		if owned {
			rs.Comments = []powerdns.Comment{{Content: powerdns.String("managed-by=external-dns owner=default/ingress-" + fmt.Sprint(i)), Account: powerdns.String("pdnskit/reconcile")}}
			sets = append(sets, replace("a-"+name, powerdns.RRTypeTXT, `"heritage=external-dns,external-dns/owner=default,external-dns/resource=ingress/default/app-`+fmt.Sprint(i)+`"`))
		}
		sets = append(sets, rs)
	}
	return sets
}

// TestIntegrationLargeZoneRead writes 100,000-RRset zones and reads them
// through Client.GetZone, measuring the answer's size and what reading it
// costs the client, against DefaultMaxResponseBytes: a plain zone on every
// gsqlite3 server, and on the newest one also a zone of 100,000 owned names
// (an ownership comment on each and an external-dns TXT registry record
// beside each: 200,000 RRsets). It takes minutes, so it is left out of
// -short and -race runs (make test); run it with
//
//	go test -run TestIntegrationLargeZoneRead ./internal/pdnsapi
func TestIntegrationLargeZoneRead(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100,000-RRset zones")
	}
	const n = 100000
	servers := pdnstest.Servers(t)
	newest := ""
	for _, srv := range servers {
		if srv.Backend == pdnstest.GSQLite3 {
			newest = srv.Name() // the matrix lists versions oldest first
		}
	}
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		if srv.Backend != pdnstest.GSQLite3 {
			t.Skip("the answer's size is the server's JSON, the same on both backends")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		for _, owned := range []bool{false, true} {
			if owned && srv.Name() != newest {
				continue
			}
			t.Run(fmt.Sprintf("owned=%t", owned), func(t *testing.T) {
				zone := srv.NewZone(t)
				counting := &countingTransport{base: http.DefaultTransport.(*http.Transport).Clone()}
				c, err := pdnsapi.New(srv.URL, srv.APIKey, "", &http.Client{Transport: counting})
				require.NoError(t, err)
				sets := largeZoneRRsets(zone, n, owned)
				// 5,000 RRsets per PATCH stay under webserver-max-bodysize (2 MB).
				for start := 0; start < len(sets); start += 5000 {
					require.NoError(t, c.PatchZone(ctx, zone, sets[start:min(start+5000, len(sets))]))
				}
				sets = nil

				counting.read.Store(0)
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				z, err := c.GetZone(ctx, zone, pdnsapi.ZoneQuery{})
				runtime.ReadMemStats(&after)
				require.NoError(t, err)
				body := counting.read.Load()
				allocated := after.TotalAlloc - before.TotalAlloc
				t.Logf("PowerDNS %s, %d RRsets (owned %t): answer %.1f MiB (%d bytes per RRset), reading and decoding it allocated %.1f MiB; default bound %d MiB is %.0f× the answer",
					srv.Name(), len(z.RRsets), owned, float64(body)/(1<<20), body/int64(len(z.RRsets)), float64(allocated)/(1<<20),
					pdnsapi.DefaultMaxResponseBytes>>20, float64(pdnsapi.DefaultMaxResponseBytes)/float64(body))
				assert.GreaterOrEqual(t, len(z.RRsets), len(sets))
				assert.GreaterOrEqual(t, float64(pdnsapi.DefaultMaxResponseBytes), 2.4*float64(body), "the default bound reads the largest measured zone with room to grow")
				runtime.KeepAlive(z)
			})
		}
	})
}
