package reliability_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/internal/reliability"
	"github.com/pdnskit/reconcile/pdnstest"
)

// TestLoadSmoke runs the load driver small, on every server, so that the
// command's figures come from code CI runs: every zone is written in one
// PATCH, a resync writes nothing, and every zone reads back whole.
func TestLoadSmoke(t *testing.T) {
	t.Parallel()
	eachServerAtOnce(t, func(t *testing.T, srv *pdnstest.Server) {
		res, err := reliability.Load(testContext(t), reliability.LoadConfig{
			ServerURL: srv.URL, APIKey: srv.APIKey,
			Zones: 3, RRsets: 50, Concurrency: 2,
			Prefix: fmt.Sprintf("smoke%d-", time.Now().UnixNano()),
		})
		require.NoError(t, err)
		assert.Equal(t, 3, res.Patches, "one PATCH per zone")
		assert.Zero(t, res.ResyncPatches, "a resync writes nothing")
		assert.Equal(t, 3, res.Verified)
		assert.NotZero(t, res.PeakHeap)
	})
}
