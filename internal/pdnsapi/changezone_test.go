package pdnsapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	powerdns "github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/internal/pdnsapi"
)

// TestChangeZone: ChangeZone is one PUT to the zone's id carrying only the
// properties it sets; a refusal is an APIError; a zone no request can
// address makes no request.
func TestChangeZone(t *testing.T) {
	var mu sync.Mutex
	var requests []*http.Request
	var bodies []map[string]any
	status := http.StatusNoContent
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(b, &body)
		mu.Lock()
		requests = append(requests, r)
		bodies = append(bodies, body)
		st := status
		mu.Unlock()
		if st != http.StatusNoContent {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(st)
			_, _ = io.WriteString(w, `{"error": "Catalog zone does not exist"}`)
			return
		}
		w.WriteHeader(st)
	}))
	t.Cleanup(srv.Close)
	c, err := pdnsapi.New(srv.URL, testKey, "", nil)
	require.NoError(t, err)
	ctx := context.Background()

	err = c.ChangeZone(ctx, "_tcp.example.com.", powerdns.Zone{
		Name:       powerdns.String("ignored."),
		Account:    powerdns.String("team-a"),
		SOAEditAPI: powerdns.String("EPOCH"),
		Catalog:    powerdns.String(""),
	})
	require.NoError(t, err)
	require.Len(t, requests, 1)
	assert.Equal(t, http.MethodPut, requests[0].Method)
	assert.Equal(t, "/api/v1/servers/localhost/zones/=5Ftcp.example.com.", requests[0].URL.Path)
	assert.Equal(t, map[string]any{"account": "team-a", "soa_edit_api": "EPOCH", "catalog": ""}, bodies[0])

	mu.Lock()
	status = http.StatusUnprocessableEntity
	mu.Unlock()
	err = c.ChangeZone(ctx, "example.com.", powerdns.Zone{Catalog: powerdns.String("nowhere.")})
	apiErr, ok := pdnserrors.AsAPIError(err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, http.StatusUnprocessableEntity, apiErr.StatusCode)

	err = c.ChangeZone(ctx, ".", powerdns.Zone{Account: powerdns.String("x")})
	var zoneErr *pdnsapi.ZoneError
	require.ErrorAs(t, err, &zoneErr)
	assert.Len(t, requests, 2, "no request for a zone no request can address")
}
