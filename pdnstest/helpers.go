package pdnstest

import (
	"context"
	"testing"
	"time"

	"github.com/joeig/go-powerdns/v3"

	"github.com/pdnskit/reconcile/backoff"
	"github.com/pdnskit/reconcile/rrset"
)

// DefaultTestTimeout bounds a test's Context.
const DefaultTestTimeout = 2 * time.Minute

// Context returns a context that ends with the test, or after
// DefaultTestTimeout: a test against a server that stops answering fails
// instead of hanging.
func Context(tb testing.TB) context.Context {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), DefaultTestTimeout)
	tb.Cleanup(cancel)
	return ctx
}

// MustRRset builds an RRset with rrset.New, failing the test when the data
// is refused.
func MustRRset(tb testing.TB, zone, name, typ string, ttl uint32, contents ...string) rrset.RRset {
	tb.Helper()
	rr, err := rrset.New(zone, name, typ, ttl, contents...)
	if err != nil {
		tb.Fatalf("pdnstest: %v", err)
	}
	return rr
}

// ReadZone reads zone straight from the server, with every RRset and
// comment, as PowerDNS answers, failing the test when it cannot. A read
// answered 5xx is tried again a few times: under concurrent writes
// PowerDNS sometimes answers one so (4.7 on sqlite, "database is locked";
// once seen on 4.9 with LMDB).
func (s *Server) ReadZone(tb testing.TB, zone string) *powerdns.Zone {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var z *powerdns.Zone
	err := backoff.Retry(ctx, func(ctx context.Context) error {
		var err error
		z, err = s.Client.Zones.Get(ctx, zone)
		return err
	}, backoff.WithRetryable(func(error) bool { return true }),
		backoff.WithMaxAttempts(5), backoff.WithInitialInterval(20*time.Millisecond))
	if err != nil {
		tb.Fatalf("pdnstest: read zone %s from %s: %v", zone, s.Name(), err)
	}
	return z
}
