package pdnsapi_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	powerdns "github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/internal/pdnsapi"
)

// TestWriteRedirected: a write answered with any redirect net/http follows
// is an error, never a success, and nothing is sent where it points; a
// read still follows it.
func TestWriteRedirected(t *testing.T) {
	target, seen := okServer(t)
	for _, status := range []int{301, 302, 303, 307, 308} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, target.URL+r.URL.Path+"?api-key="+testKey, status)
			}))
			t.Cleanup(redirect.Close)
			c, err := pdnsapi.New(redirect.URL, testKey, "", nil)
			require.NoError(t, err)
			seen.mu.Lock()
			before := len(seen.reqs)
			seen.mu.Unlock()

			err = c.PatchZone(context.Background(), "example.com.", []powerdns.RRset{})
			require.Error(t, err, "a redirected PATCH is no success")
			assert.ErrorIs(t, err, pdnsapi.ErrWriteRedirected)
			var re *pdnsapi.RedirectError
			require.True(t, errors.As(err, &re))
			assert.Equal(t, http.MethodPatch, re.Method)
			assert.Equal(t, status, re.StatusCode)
			apiErr, ok := pdnserrors.AsAPIError(err)
			require.True(t, ok, "%v", err)
			assert.Equal(t, status, apiErr.StatusCode)
			assert.Equal(t, pdnserrors.InvalidRequest, apiErr.Reason())
			assert.False(t, pdnserrors.IsRetryable(err), "a redirect is configuration: trying again changes nothing")
			assert.NotContains(t, err.Error(), testKey, "the Location is scrubbed")
			for _, write := range []func() error{
				func() error { return c.AddMetadata(context.Background(), "example.com.", "X-A", []string{"1"}) },
				func() error { return c.SetMetadata(context.Background(), "example.com.", "X-A", []string{"1"}) },
				func() error { return c.DeleteMetadata(context.Background(), "example.com.", "X-A") },
				func() error { return c.DeleteZone(context.Background(), "example.com.") },
			} {
				assert.ErrorIs(t, write(), pdnsapi.ErrWriteRedirected)
			}
			seen.mu.Lock()
			after := len(seen.reqs)
			seen.mu.Unlock()
			assert.Equal(t, before, after, "no write reached the redirect's target")

			_, err = c.ListMetadata(context.Background(), "example.com.")
			assert.NoError(t, err, "a read follows the redirect")
		})
	}
}
