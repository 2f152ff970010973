package reliability_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/internal/testing/reliability"
	"github.com/pdnskit/reconcile/pdnstest"
)

// frontendRounds is how many fresh names the writers race for while one
// frontend dies and comes back: a third before, a third while it is
// gone, a third after.
const frontendRounds = 12

// TestFrontendKilled: on a server of two frontends on one database
// (gpgsql, gmysql), one frontend is killed while two writers race to
// create at one fresh name (a CNAME against an A, as in TestCreatesRace),
// and started again later, each in the middle of a round. The writers go
// on through the other frontend: the round-robin's 502s are retried or
// the write requeued, and no round ends with a write PowerDNS refused,
// both writes or neither, or a CNAME next to an address. Each target has
// a server of its own: a frontend killed under the package's shared
// servers would fail the other tests' requests. It runs on the newest
// version of each backend (every version with depth.Full).
func TestFrontendKilled(t *testing.T) {
	t.Parallel()
	eachTargetAtOnce(t, fullOr(where(sqlBackend), newestOfEach(pdnstest.GPGSQL, pdnstest.GMySQL)), func(t *testing.T, tg pdnstest.Target) {
		srv := pdnstest.Start(t, pdnstest.WithTarget(tg))
		require.Len(t, srv.Frontends, 2)
		frontendKilled(t, srv, reconcile.OwnershipAuto)
	})
}

func frontendKilled(t *testing.T, srv *pdnstest.Server, store reconcile.OwnershipStore) {
	lost := srv.Frontends[1]
	var down, back time.Duration
	during := func(round int) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		// At a moment of the round's own: before, between or after the
		// writers' requests.
		time.Sleep(time.Duration(rand.IntN(40)) * time.Millisecond)
		switch round {
		case frontendRounds / 3:
			began := time.Now()
			assert.NoError(t, lost.Kill(ctx), "kill frontend 1")
			down = time.Since(began)
			_, err := lost.Client.Zones.List(ctx)
			assert.Error(t, err, "frontend 1 is gone")
		case 2 * frontendRounds / 3:
			began := time.Now()
			assert.NoError(t, lost.Restart(ctx), "restart frontend 1")
			back = time.Since(began)
		}
	}
	problems, requeued := createsRace(t, srv, store, frontendRounds, roundFault{during: during})
	for _, p := range problems {
		t.Error(p)
	}
	// Both frontends answer again, and serve what the writers wrote.
	ctx := pdnstest.Context(t)
	for i, f := range srv.Frontends {
		_, err := f.Client.Zones.List(ctx)
		assert.NoError(t, err, "frontend %d answers", i)
	}
	reliability.Record(t, reliability.Outcome{
		Group: "writers", Fault: fmt.Sprintf("one of two frontends killed while two writers create at one fresh name at once, a CNAME and an A (%d rounds: a third before, a third while it is gone, a third after)", frontendRounds),
		Server: srv.Name(), Store: storeName(srv, store),
		Result: fmt.Sprintf("%d problem(s) (a write PowerDNS refused, not one applied and one blocked, or a CNAME next to an address); %d write(s) postponed or given up on 502s and transient failures, and tried again; killed in %s, back in %s",
			len(problems), requeued, down.Round(time.Millisecond), back.Round(time.Millisecond)),
	})
}
