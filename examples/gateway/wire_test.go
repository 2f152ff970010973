package main

import (
	"net/http"
	"testing"

	"github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// TestWireCountsRefusals sends, around package reconcile, the write the
// incident was about: a CNAME next to an A. The wire counts PowerDNS's 422
// and the key the PATCH wrote, and the body still reaches the server whole
// (it answers 422 about the CNAME, not 400 about a broken body).
func TestWireCountsRefusals(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		w := newWire()
		client := powerdns.New(srv.URL, "localhost", powerdns.WithAPIKey(srv.APIKey),
			powerdns.WithHTTPClient(&http.Client{Transport: w}))

		require.NoError(t, client.Records.Add(ctx, zone, "v4."+zone, powerdns.RRTypeA, 300, []string{"192.0.2.1"}))
		err := client.Records.Add(ctx, zone, "v4."+zone, powerdns.RRTypeCNAME, 300, []string{zone})
		require.Error(t, err)

		assert.Equal(t, 2, w.Patches())
		assert.Equal(t, 1, w.Answers(http.StatusUnprocessableEntity), err.Error())
		assert.Equal(t, 1, w.Refusals())
		assert.Equal(t, 1, w.Writes(rrset.Key{Name: "v4." + zone, Type: "CNAME"}))
		assert.Equal(t, 1, w.Writes(rrset.Key{Name: "v4." + zone, Type: "A"}))
	})
}
