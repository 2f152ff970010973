package pdnsapi_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
	"time"

	powerdns "github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/internal/pdnsapi"
	"github.com/pdnskit/reconcile/pdnstest"
)

func TestMain(m *testing.M) { pdnstest.Main(m) }

func replace(name string, typ powerdns.RRType, contents ...string) powerdns.RRset {
	rs := powerdns.RRset{
		Name:       powerdns.String(name),
		Type:       powerdns.RRTypePtr(typ),
		TTL:        powerdns.Uint32(300),
		ChangeType: powerdns.ChangeTypePtr(powerdns.ChangeTypeReplace),
	}
	for _, c := range contents {
		rs.Records = append(rs.Records, powerdns.Record{Content: powerdns.String(c), Disabled: powerdns.Bool(false)})
	}
	return rs
}

// patch sends one PATCH through the library's client and returns the
// library's error.
func patch(ctx context.Context, c *powerdns.Client, zone string, sets ...powerdns.RRset) error {
	return pdnsapi.Call(ctx, func(ctx context.Context) error {
		return c.Records.Patch(ctx, zone, &powerdns.RRsets{Sets: sets})
	})
}

// problem is the part of a Problem a server decides, without the message.
type problem struct {
	Reason              pdnserrors.Reason
	Name, Type, Content string
}

func apiError(t *testing.T, err error) *pdnserrors.APIError {
	t.Helper()
	apiErr, ok := pdnserrors.AsAPIError(err)
	require.True(t, ok, "want an APIError, got %v", err)
	return apiErr
}

func problemsOf(t *testing.T, err error) []problem {
	t.Helper()
	apiErr := apiError(t, err)
	var out []problem
	for _, p := range apiErr.Problems {
		out = append(out, problem{p.Reason, p.Name, p.Type, p.Content})
	}
	return out
}

// TestIntegrationProblems drives real refusals through the library's
// go-powerdns client on every PowerDNS version and checks that every
// problem comes back classified, although go-powerdns itself keeps only the
// "error" field (and for a 401 not even that).
func TestIntegrationProblems(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		zone := srv.NewZone(t)
		var counts pdnsapi.Counts
		c, err := pdnsapi.NewClient(srv.URL, srv.APIKey, "", nil, pdnsapi.WithObserver(counts.Observe))
		require.NoError(t, err)

		t.Run("422 conflict", func(t *testing.T) {
			name := "v4." + zone
			require.NoError(t, patch(ctx, c, zone, replace(name, powerdns.RRTypeA, "192.0.2.1")))
			err := patch(ctx, c, zone, replace(name, powerdns.RRTypeCNAME, zone))
			assert.True(t, pdnserrors.IsConflict(err), "%v", err)
			assert.False(t, pdnserrors.IsRetryable(err))
			assert.Equal(t, []problem{{pdnserrors.Conflict, name, "CNAME", ""}}, problemsOf(t, err))
			assert.Equal(t, "RRset "+name+" IN CNAME: Conflicts with pre-existing RRset", apiError(t, err).Message)

			var pdnsErr *powerdns.Error
			require.ErrorAs(t, err, &pdnsErr, "go-powerdns's own error stays reachable")
			assert.Equal(t, http.StatusUnprocessableEntity, pdnsErr.StatusCode)
		})

		t.Run("422 several problems", func(t *testing.T) {
			name := "d." + zone
			err := patch(ctx, c, zone, replace(name, powerdns.RRTypeA, "192.0.2.1", "192.0.2.1", "192.0.2.2", "192.0.2.2"))
			want := []problem{{pdnserrors.DuplicateRecord, name, "A", "192.0.2.1"}}
			if srv.AtLeast(5, 1) {
				// 5.1 reports every duplicate, in the "errors" array.
				want = append(want, problem{pdnserrors.DuplicateRecord, name, "A", "192.0.2.2"})
			}
			assert.Equal(t, want, problemsOf(t, err))
			assert.Equal(t, []pdnserrors.Key{{Name: name, Type: "A"}}, apiError(t, err).Keys())
		})

		t.Run("422 conflict inside several", func(t *testing.T) {
			suffix := make([]byte, 4)
			_, _ = rand.Read(suffix)
			newZone := "c" + hex.EncodeToString(suffix) + ".pdnstest.example."
			err := pdnsapi.Call(ctx, func(ctx context.Context) error {
				_, err := c.Zones.Add(ctx, &powerdns.Zone{
					Name:        powerdns.String(newZone),
					Kind:        powerdns.ZoneKindPtr(powerdns.NativeZoneKind),
					Nameservers: []string{"ns1.pdnstest.invalid."},
					RRsets: []powerdns.RRset{
						replace("v4."+newZone, powerdns.RRTypeA, "192.0.2.1"),
						replace("v4."+newZone, powerdns.RRTypeCNAME, newZone),
						replace("v6."+newZone, powerdns.RRTypeAAAA, "2001:db8::1"),
						replace("v6."+newZone, powerdns.RRTypeCNAME, newZone),
					},
				})
				return err
			})
			if err == nil {
				_ = c.Zones.Delete(context.Background(), newZone)
				t.Fatal("PowerDNS created a zone with a CNAME next to other data")
			}
			assert.True(t, pdnserrors.IsConflict(err), "%v", err)
			problems := problemsOf(t, err)
			if srv.AtLeast(5, 1) {
				assert.Len(t, problems, 2, "%v", err)
				assert.Equal(t, "Multiple errors found in RRset", apiError(t, err).Message)
			}
			for _, p := range problems {
				assert.Equal(t, pdnserrors.Conflict, p.Reason)
				assert.True(t, strings.HasSuffix(p.Name, "."+newZone), p.Name)
			}
		})

		t.Run("422 comments on LMDB 4.x", func(t *testing.T) {
			if srv.Backend != pdnstest.LMDB || srv.AtLeast(5, 1) {
				t.Skip("only LMDB before 5.1 refuses comments")
			}
			rs := replace("note."+zone, powerdns.RRTypeTXT, `"x"`)
			rs.Comments = []powerdns.Comment{{Content: powerdns.String("managed"), Account: powerdns.String("test")}}
			err := patch(ctx, c, zone, rs)
			assert.True(t, pdnserrors.IsInvalidRequest(err), "%v", err)
			assert.Equal(t, []problem{{Reason: pdnserrors.InvalidRequest}}, problemsOf(t, err))
		})

		t.Run("401", func(t *testing.T) {
			wrongKey := "wrong-" + srv.APIKey + "-key"
			bad, err := pdnsapi.NewClient(srv.URL, wrongKey, "", nil)
			require.NoError(t, err)
			ctx, capture := pdnsapi.WithCapture(ctx)
			_, err = bad.Zones.Get(ctx, zone)
			err = capture.Err(err)
			assert.True(t, pdnserrors.IsUnauthorized(err), "%v", err)
			assert.False(t, pdnserrors.IsRetryable(err))
			assert.Equal(t, []problem{{Reason: pdnserrors.Unauthorized}}, problemsOf(t, err))
			assert.Equal(t, "Unauthorized", apiError(t, err).Message)
			_, body, _ := capture.Response()
			assert.JSONEq(t, `{"error": "Unauthorized"}`, string(body), "Accept: application/json was sent")
			assert.NotContains(t, err.Error(), wrongKey)
		})

		t.Run("404", func(t *testing.T) {
			ctx, capture := pdnsapi.WithCapture(ctx)
			_, err := c.Zones.Get(ctx, "missing-"+zone)
			err = capture.Err(err)
			assert.True(t, pdnserrors.IsZoneNotFound(err), "%v", err)
			assert.False(t, pdnserrors.IsRetryable(err))
			assert.Equal(t, []problem{{Reason: pdnserrors.ZoneNotFound}}, problemsOf(t, err))
			assert.Equal(t, "Not Found", apiError(t, err).Message)
			_, body, _ := capture.Response()
			assert.JSONEq(t, `{"error": "Not Found"}`, string(body), "Accept: application/json was sent")
		})

		t.Run("success", func(t *testing.T) {
			err := pdnsapi.Call(ctx, func(ctx context.Context) error {
				_, err := c.Zones.Get(ctx, zone)
				return err
			})
			assert.NoError(t, err)
		})

		assert.GreaterOrEqual(t, counts.Get(http.MethodPatch, http.StatusUnprocessableEntity), 2, counts.String())
		assert.GreaterOrEqual(t, counts.Get(http.MethodGet, http.StatusNotFound), 1, counts.String())
		assert.NotContains(t, counts.String(), srv.APIKey)
	})
}
