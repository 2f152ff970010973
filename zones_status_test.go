package reconcile_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/internal/pdnsapi"
	"github.com/pdnskit/reconcile/pdnstest"
)

// byteCounter is an HTTP transport that counts the body bytes of the
// answers read through it.
type byteCounter struct {
	base  http.RoundTripper
	bytes atomic.Int64
}

func (b *byteCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := b.base.RoundTrip(req)
	if err == nil {
		resp.Body = &countingBody{ReadCloser: resp.Body, n: &b.bytes}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// statusZoneRRsets is the size of the zone the status read is measured on:
// the zone of the report that a status cost a 279 KB zone read.
const statusZoneRRsets = 2000

// TestZoneStatus: ZoneStatus reads a zone's properties and apex NS in one
// request and its maker in another (the server's version once before), a
// small fraction of the bytes of a whole read of a zone of 2,000 RRsets,
// and finds no maker in a zone made without the library. Every version
// narrows a zone read by rrset_name and rrset_type, 4.7.3 included: the
// test pins it, since a server that ignored them would answer the status
// read with the whole zone.
func TestZoneStatus(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		sets := make([]powerdns.RRset, 0, statusZoneRRsets)
		for i := range statusZoneRRsets {
			sets = append(sets, powerdns.RRset{
				Name: powerdns.String(fmt.Sprintf("host-%04d.%s", i, zone)), Type: powerdns.RRTypePtr(powerdns.RRTypeA),
				TTL: powerdns.Uint32(300), ChangeType: powerdns.ChangeTypePtr(powerdns.ChangeTypeReplace),
				Records: []powerdns.Record{{Content: powerdns.String(fmt.Sprintf("192.0.2.%d", i%250+1)), Disabled: powerdns.Bool(false)}},
			})
		}
		rawWrite(t, func(ctx context.Context) error {
			return srv.Client.Records.Patch(ctx, zone, &powerdns.RRsets{Sets: sets})
		})

		counter := &byteCounter{base: http.DefaultTransport}
		w, err := reconcile.New(srv.URL, reconcile.WithAPIKey(srv.APIKey), reconcile.WithManagedBy("status"),
			reconcile.WithHTTPClient(&http.Client{Transport: counter, Timeout: 30 * time.Second}))
		require.NoError(t, err)

		first, err := w.ZoneStatus(ctx, zone)
		require.NoError(t, err)
		assert.Greater(t, first.Requests, 1, "the server first, then the zone")

		before := counter.bytes.Load()
		st, err := w.ZoneStatus(ctx, zone)
		require.NoError(t, err)
		status := counter.bytes.Load() - before
		assert.Equal(t, 2, st.Requests, "the zone, its maker")
		assert.Equal(t, zone, st.Zone)
		assert.Empty(t, st.MadeByWriter+st.MadeBy, "a zone made without the library has no maker")
		z := readZone(t, srv, zone)
		assert.Equal(t, "Native", st.Kind)
		assert.Equal(t, *z.Serial, st.Serial)
		assert.Equal(t, *z.EditedSerial, st.EditedSerial)
		assert.Equal(t, *z.SOAEditAPI, st.SOAEditAPI)
		assert.Equal(t, []string{"ns1.pdnstest.invalid."}, st.Nameservers)

		get := func(q url.Values) (rrsets int, bytes int64) {
			t.Helper()
			u := srv.URL + "/api/v1/servers/localhost/zones/" + pdnsapi.ZoneID(zone) + "?" + q.Encode()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
			require.NoError(t, err)
			req.Header.Set("X-API-Key", srv.APIKey)
			before := counter.bytes.Load()
			resp, err := counter.RoundTrip(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode)
			var z struct {
				RRsets []json.RawMessage `json:"rrsets"`
			}
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&z))
			_, _ = io.Copy(io.Discard, resp.Body)
			return len(z.RRsets), counter.bytes.Load() - before
		}
		all, full := get(nil)
		require.Greater(t, all, statusZoneRRsets)
		filtered, _ := get(url.Values{"rrset_name": {zone}, "rrset_type": {"NS"}})
		assert.Equal(t, 1, filtered, "rrset_name and rrset_type narrow the read")
		apex, _ := get(url.Values{"rrset_name": {zone}})
		assert.Equal(t, 2, apex, "rrset_name alone: the apex SOA and NS")
		_, bare := get(url.Values{"rrsets": {"false"}})
		t.Logf("PowerDNS %s: %d RRsets; whole zone read %d bytes, status read %d bytes (%.2f%%), properties alone %d bytes",
			srv.Name(), all, full, status, 100*float64(status)/float64(full), bare)
		assert.Less(t, status*50, full, "the status read is under 2%% of a whole read")

		_, err = w.ZoneStatus(ctx, "missing-"+zone)
		assert.True(t, pdnserrors.IsZoneNotFound(err), "%v", err)
	})
}

// TestFilteredReadComments pins what docs/powerdns-behaviour.md says of a
// zone read narrowed by rrset_name and rrset_type: 4.9 and 5.1 answer the
// RRset asked for alone; 4.7 adds every other RRset of the zone that has a
// comment, with its comments and no records.
func TestFilteredReadComments(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		if srv.Backend == pdnstest.LMDB && !srv.AtLeast(5, 1) {
			t.Skip("LMDB before 5.1 stores no comments")
		}
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		rrset := func(name, comment string) powerdns.RRset {
			rr := powerdns.RRset{
				Name: powerdns.String(name + "." + zone), Type: powerdns.RRTypePtr(powerdns.RRTypeA),
				TTL: powerdns.Uint32(300), ChangeType: powerdns.ChangeTypePtr(powerdns.ChangeTypeReplace),
				Records: []powerdns.Record{{Content: powerdns.String("192.0.2.1"), Disabled: powerdns.Bool(false)}},
			}
			if comment != "" {
				rr.Comments = []powerdns.Comment{{Content: powerdns.String(comment), Account: powerdns.String("ops")}}
			}
			return rr
		}
		rawWrite(t, func(ctx context.Context) error {
			return srv.Client.Records.Patch(ctx, zone, &powerdns.RRsets{Sets: []powerdns.RRset{rrset("asked", ""), rrset("other", "a note")}})
		})

		u := srv.URL + "/api/v1/servers/localhost/zones/" + pdnsapi.ZoneID(zone) + "?" +
			url.Values{"rrset_name": {"asked." + zone}, "rrset_type": {"A"}}.Encode()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		require.NoError(t, err)
		req.Header.Set("X-API-Key", srv.APIKey)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		var z struct {
			RRsets []struct {
				Name    string            `json:"name"`
				Records []json.RawMessage `json:"records"`
			} `json:"rrsets"`
		}
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&z))
		answered := map[string]int{}
		for _, rr := range z.RRsets {
			answered[strings.TrimSuffix(rr.Name, "."+zone)] = len(rr.Records)
		}
		if srv.AtLeast(4, 9) {
			assert.Equal(t, map[string]int{"asked": 1}, answered, "the RRset asked for alone")
		} else {
			assert.Equal(t, map[string]int{"asked": 1, "other": 0}, answered, "4.7: every commented RRset too, without records")
		}
	})
}

// TestZoneStatusObserved: a status read reaches the Observer (and so
// pdnskit_operations_total) as an operation of its own, labelled by its
// outcome like the others.
func TestZoneStatusObserved(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		seen := &reasons{}
		w, _ := newWriter(t, srv, "status", reconcile.WithObserver(seen))

		st, err := w.ZoneStatus(ctx, zone)
		require.NoError(t, err)
		missing, err := w.ZoneStatus(ctx, "missing-"+zone)
		require.Error(t, err)
		_, err = w.ZoneStatus(ctx, "not a zone")
		require.Error(t, err)
		assert.Equal(t, []reconcile.ConditionReason{reconcile.ReasonProgrammed, reconcile.ReasonZoneNotFound, reconcile.ReasonInvalidInput},
			seen.of(reconcile.OperationZoneStatus))
		assert.Equal(t, []int{st.Requests, missing.Requests, 0}, seen.requestsOf(reconcile.OperationZoneStatus),
			"the event counts the requests the status counts")
		assert.Equal(t, 1, missing.Requests)
	})
}
