package reliability_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/pdnskit/reconcile"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/internal/testing/depth"
	"github.com/pdnskit/reconcile/internal/testing/reliability"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// createRounds is how many fresh names two writers race for, per server
// and ownership store: 10, or 30 with depth.Full.
func createRounds() int { return depth.Of(10, 30) }

// TestCreatesRace: two writers create at one fresh name at the same moment,
// one a CNAME and one an A, round after round. Both creates take the zone
// lock, and the one that takes it second reads, under it, what the first
// wrote: it is blocked before PowerDNS sees it. PowerDNS refusing either
// write (422 "Conflicts with pre-existing RRset") means a write left on a
// read that missed the other's; on gpgsql, where PowerDNS does not keep
// concurrent PATCHes apart, the same miss can leave a CNAME next to an A.
func TestCreatesRace(t *testing.T) {
	t.Parallel()
	eachServerAtOnce(t, func(t *testing.T, srv *pdnstest.Server) {
		for _, s := range stores(srv) {
			t.Run(s.String(), func(t *testing.T) {
				problems, requeued := createsRace(t, srv, s, createRounds(), roundFault{})
				for _, p := range problems {
					t.Error(p)
				}
				reliability.Record(t, reliability.Outcome{
					Group: "writers", Fault: fmt.Sprintf("two writers create at one fresh name at once, a CNAME and an A, %d rounds", createRounds()),
					Server: srv.Name(), Store: storeName(srv, s),
					Result: fmt.Sprintf("%d problem(s) (a write PowerDNS refused, not one applied and one blocked, or a CNAME next to an address); %d write(s) postponed for the other's lock or given up on transient failures, and tried again", len(problems), requeued),
				})
			})
		}
	})
}

// roundFault is a fault createsRace brings about in its rounds.
type roundFault struct {
	// before, when not nil, runs before the writers of each round start.
	before func(round int)
	// during, when not nil, runs beside the writers of each round (at a
	// moment of its own), and the round ends when it has returned too.
	during func(round int)
}

// createsRace races the two writers for rounds fresh names, with fault,
// and returns what went wrong and how many writes were tried again.
func createsRace(t *testing.T, srv *pdnstest.Server, store reconcile.OwnershipStore, rounds int, fault roundFault) (problems []string, requeued int) {
	zone := srv.NewZone(t)
	names := [2]string{"cname-writer", "address-writer"}
	// The CNAME writer's metadata reads are slow, as on a loaded server:
	// the answer that says whether another writer holds the lock comes
	// well after its zone read, and the address writer, which starts a
	// little earlier, may take the lock, write and free it in between.
	slow := &slowMetadata{base: http.DefaultTransport.(*http.Transport).Clone(), delay: 100 * time.Millisecond}
	writers := [2]*reconcile.Reconciler{
		writerWith(t, srv, srv.URL, names[0], &http.Client{Transport: slow}, reconcile.WithOwnershipStore(store)),
		writer(t, srv, srv.URL, names[1], reconcile.WithOwnershipStore(store)),
	}
	var mu sync.Mutex
	for round := range rounds {
		// A round's own time bound: on a loaded machine thirty rounds
		// take longer than one bound, and a round that ran out of it would
		// look like a race lost.
		ctx := pdnstest.Context(t)
		name := fmt.Sprintf("r%02d", round)
		want := [2]rrset.RRset{
			pdnstest.MustRRset(t, zone, name, "CNAME", 300, "lb.example.net."),
			pdnstest.MustRRset(t, zone, name, "A", 300, "192.0.2.1"),
		}
		var (
			wg      sync.WaitGroup
			start   = make(chan struct{})
			results [2]reconcile.Result
		)
		for i, w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				if i == 0 {
					time.Sleep(time.Duration(rand.IntN(30)) * time.Millisecond)
				}
				// A write postponed for the other's lock, or given up on
				// transient failures, is tried again, as a controller
				// requeues it. The round is judged on where the tries
				// end, with what every try applied or had refused: one
				// that wrote and then gave up has nothing left to apply
				// when tried again.
				var applied []rrset.Change
				var refused []reconcile.Refusal
				for try := 0; try < 20; try++ {
					res, err := w.Apply(ctx, zone, want[i])
					applied, refused = append(applied, res.Applied...), append(refused, res.Refused...)
					if err != nil && !pdnserrors.IsRetryable(err) {
						assert.NoError(t, err, "round %d: %s", round, names[i])
						return
					}
					if err == nil && len(res.Postponed) == 0 {
						res.Applied, res.Refused = applied, refused
						results[i] = res
						return
					}
					mu.Lock()
					requeued++
					mu.Unlock()
					time.Sleep(10 * time.Millisecond)
				}
			}()
		}
		if fault.during != nil {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				fault.during(round)
			}()
		}
		if fault.before != nil {
			fault.before(round)
		}
		close(start)
		wg.Wait()
		for i, res := range results {
			for _, r := range res.Refused {
				problems = append(problems, fmt.Sprintf("round %d: PowerDNS refused %s's write: %s", round, names[i], r))
			}
		}
		applied := len(results[0].Applied) + len(results[1].Applied)
		blocked := len(results[0].Blocked) + len(results[1].Blocked)
		if applied != 1 || blocked != 1 {
			problems = append(problems, fmt.Sprintf("round %d: %d applied, %d blocked; want one of each", round, applied, blocked))
		}
		snap := takeSnapshot(t, srv, zone)
		if n := snap.cnameNextToAddress(); n != "" {
			problems = append(problems, fmt.Sprintf("round %d: %s holds a CNAME next to an address", round, n))
		}
	}
	return problems, requeued
}

// slowMetadata delays every read of a zone's metadata by delay before it
// is sent.
type slowMetadata struct {
	base  http.RoundTripper
	delay time.Duration
}

func (s *slowMetadata) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/metadata") {
		select {
		case <-time.After(s.delay):
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
	}
	return s.base.RoundTrip(req)
}
