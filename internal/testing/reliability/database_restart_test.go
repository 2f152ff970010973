package reliability_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/joeig/go-powerdns/v3"
	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/internal/testing/reliability"
	"github.com/pdnskit/reconcile/pdnstest"
)

// databaseRounds is how many fresh names the writers race for while the
// database restarts: half before, the rest from the moment it is gone.
const databaseRounds = 12

// TestDatabaseRestarted: on a server of two frontends on one database
// (gpgsql, gmysql), the database server itself (PostgreSQL and its
// PgBouncer, MariaDB) is shut down and started again while two writers
// race, round after round, to create at one fresh name (a CNAME against an
// A, as in TestCreatesRace): the writers of the middle round start once it
// is gone. The frontends answer 500 while it is away; the writers retry or
// requeue, and no round ends with a write PowerDNS refused, both writes or
// neither, or a CNAME next to an address. Both frontends serve again
// afterwards, over the API and over DNS.
//
// Each server has a database server of its own, as restarting the shared
// one would fail every other test's requests; so that a run pays for two
// servers only, it runs on the newest version of each backend.
func TestDatabaseRestarted(t *testing.T) {
	t.Parallel()
	eachTargetAtOnce(t, newestOfEach(pdnstest.GPGSQL, pdnstest.GMySQL), func(t *testing.T, tg pdnstest.Target) {
		srv := pdnstest.Start(t, pdnstest.WithTarget(tg), pdnstest.WithOwnDatabase())
		require.Len(t, srv.Frontends, 2)
		databaseRestarted(t, srv, reconcile.OwnershipAuto)
	})
}

func databaseRestarted(t *testing.T, srv *pdnstest.Server, store reconcile.OwnershipStore) {
	// The writers and the harness's reads go through a proxy that faults
	// nothing and counts PowerDNS's answers.
	p := startProxy(t, srv)
	via := *srv
	via.URL = p.URL
	var (
		took      time.Duration
		err       error
		restarted = make(chan struct{})
	)
	// The restart begins before the middle round, and the round's writers
	// start once the database is seen gone: they meet it gone whatever
	// the restart waits for first (a Docker engine busy with other tests'
	// containers can take seconds to send the signal).
	before := func(round int) {
		if round != databaseRounds/2 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		go func() {
			defer close(restarted)
			defer cancel()
			began := time.Now()
			err = srv.RestartDatabase(ctx)
			took = time.Since(began)
		}()
		waitDatabaseGone(ctx, srv, restarted)
	}
	problems, requeued := createsRace(t, &via, store, databaseRounds, roundFault{before: before})
	<-restarted
	require.NoError(t, err, "restart the database")
	// 5xx answers only: a request not answered yet when the race ends
	// (the release of a lock kept after the last write) has no status.
	failed, answers := 0, make(map[string]int)
	for _, r := range p.Requests() {
		if r.ServerError() {
			failed++
			answers[fmt.Sprintf("%s %d", r.Method, r.Status)]++
		}
	}
	t.Logf("answered 5xx, by method and status: %v", answers)
	assert.Positive(t, failed, "the writers met the database gone")
	for _, p := range problems {
		t.Error(p)
	}

	// Both frontends serve again, through the API and over DNS, what the
	// writers wrote in the race's zone, the server's only one: the last
	// round's name, one of its two writes.
	ctx := pdnstest.Context(t)
	zones, err := srv.Client.Zones.List(ctx)
	require.NoError(t, err)
	require.Len(t, zones, 1)
	zone := *zones[0].Name
	name := fmt.Sprintf("r%02d.%s", databaseRounds-1, zone)
	for i, f := range srv.Frontends {
		z, err := f.Client.Zones.Get(ctx, zone)
		if assert.NoError(t, err, "frontend %d answers through its API", i) {
			assert.True(t, holdsName(z, name), "frontend %d's API has %s", i, name)
		}
		c := &dns.Client{Net: "udp", Timeout: 5 * time.Second}
		resp, _, err := c.ExchangeContext(ctx, new(dns.Msg).SetQuestion(name, dns.TypeA), f.DNSAddr)
		if assert.NoError(t, err, "frontend %d answers over DNS", i) {
			assert.Equal(t, "NOERROR", dns.RcodeToString[resp.Rcode], "frontend %d answers %s", i, name)
			assert.NotEmpty(t, resp.Answer, "frontend %d serves %s", i, name)
		}
	}
	reliability.Record(t, reliability.Outcome{
		Group: "writers", Fault: fmt.Sprintf("the database server (%s) shut down and started again while two writers create at one fresh name at once, a CNAME and an A (%d rounds, the restart in the middle of one)", databaseOf(srv), databaseRounds),
		Server: srv.Name(), Store: storeName(srv, store),
		Result: fmt.Sprintf("%d problem(s) (a write PowerDNS refused, not one applied and one blocked, or a CNAME next to an address); %d request(s) of %d answered 5xx, retried; %d write(s) postponed or given up on transient failures, and tried again; database back in %s",
			len(problems), failed, len(p.Requests()), requeued, took.Round(time.Millisecond)),
	})
}

// waitDatabaseGone returns once a frontend of srv cannot list its zones,
// which it reads from the database, or once the restart is over.
func waitDatabaseGone(ctx context.Context, srv *pdnstest.Server, restarted <-chan struct{}) {
	for {
		if _, err := srv.Frontends[0].Client.Zones.List(ctx); err != nil {
			return
		}
		select {
		case <-restarted:
			return
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// holdsName reports whether z has an RRset at name.
func holdsName(z *powerdns.Zone, name string) bool {
	for _, rr := range z.RRsets {
		if rr.Name != nil && *rr.Name == name {
			return true
		}
	}
	return false
}

// databaseOf names the database server of a gpgsql or gmysql server.
func databaseOf(srv *pdnstest.Server) string {
	if srv.Backend == pdnstest.GMySQL {
		return "MariaDB"
	}
	return "PostgreSQL with its PgBouncer"
}
