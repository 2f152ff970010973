package reconcile

import (
	"context"
	"fmt"
	"path"
	"testing"
	"time"

	"github.com/joeig/go-powerdns/v3"
	"github.com/miekg/dns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile/backoff/backofftest"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

func TestWriteLog(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := rrset.Key{Name: "a.example.com.", Type: "A"}
	b := rrset.Key{Name: "b.example.com.", Type: "TXT"}
	var l writeLog

	_, ok := l.written("example.com.", a)
	assert.False(t, ok, "an empty log knows nothing")
	assert.False(t, l.knows("example.com."))

	l.noteWritten("example.com.", []rrset.Key{a}, t0)
	l.noteWritten("example.com.", []rrset.Key{a, b}, t0.Add(time.Second))
	l.noteWritten("example.com.", []rrset.Key{a}, t0.Add(-time.Minute)) // late, out of order
	at, ok := l.written("example.com.", a)
	require.True(t, ok)
	assert.Equal(t, t0.Add(time.Second), at, "the latest write counts")
	first, ok := l.firstWrite("example.com.")
	require.True(t, ok)
	assert.Equal(t, t0.Add(-time.Minute), first, "the earliest write into the zone counts")
	_, ok = l.written("other.com.", a)
	assert.False(t, ok, "zones apart")

	// Past the horizon, old writes go; the zone's first write stays.
	later := t0.Add(writeLogHorizon + time.Hour)
	l.noteWritten("example.com.", []rrset.Key{b}, later)
	_, ok = l.written("example.com.", a)
	assert.False(t, ok, "swept")
	at, ok = l.written("example.com.", b)
	require.True(t, ok)
	assert.Equal(t, later, at)
	first, _ = l.firstWrite("example.com.")
	assert.Equal(t, t0.Add(-time.Minute), first)

	l.noteWritten("example.com.", nil, later.Add(time.Second))
	assert.True(t, l.knows("example.com."))
	l.forget("example.com.")
	assert.False(t, l.knows("example.com."))
}

// TestJudge: what Verify found is pending while the server's caches may
// still hold what came before the Reconciler's write, and drift after.
func TestJudge(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	const zone = "example.com."
	www := pdnstest.MustRRset(t, zone, "www", "A", 300, "192.0.2.1")
	other := pdnstest.MustRRset(t, zone, "other", "A", 300, "192.0.2.2")
	caches := CacheLifetimes{Packet: 20 * time.Second, Query: 20 * time.Second, NegQuery: 60 * time.Second, ZoneCache: 300 * time.Second}
	cases := []struct {
		name      string
		found     Drift
		caches    CacheLifetimes
		written   time.Duration // how long before now www was written; 0: never
		pending   bool
		visibleBy time.Time
	}{
		{name: "never written", found: Drift{Kind: DriftDifferent, Want: www}, caches: caches},
		// The lifetime of an RRset: cache-ttl and negquery-cache-ttl, a
		// second more each for PowerDNS's whole-second expiry: 82 s.
		{name: "written within the lifetime", found: Drift{Kind: DriftDifferent, Want: www}, caches: caches,
			written: 30 * time.Second, pending: true, visibleBy: t0.Add(52 * time.Second)},
		{name: "written within the lifetime, missing", found: Drift{Kind: DriftMissing, Want: www}, caches: caches,
			written: 81 * time.Second, pending: true, visibleBy: t0.Add(time.Second)},
		{name: "written before the lifetime", found: Drift{Kind: DriftMissing, Want: www}, caches: caches,
			written: 82 * time.Second},
		{name: "another RRset written", found: Drift{Kind: DriftMissing, Want: other}, caches: caches,
			written: time.Second},
		{name: "caches off", found: Drift{Kind: DriftDifferent, Want: www}, caches: CacheLifetimes{},
			written: time.Second},
		// The lifetime of a zone: zone-cache-refresh-interval and
		// cache-ttl, a second more each: 322 s.
		{name: "refused, zone written into within the zone cache's lifetime", found: Drift{Kind: DriftRefused, Want: other},
			caches: caches, written: 100 * time.Second, pending: true, visibleBy: t0.Add(222 * time.Second)},
		{name: "refused, zone written into before", found: Drift{Kind: DriftRefused, Want: www},
			caches: caches, written: 322 * time.Second},
		{name: "refused, no zone cache", found: Drift{Kind: DriftRefused, Want: www},
			caches: CacheLifetimes{Packet: 20 * time.Second}, written: time.Second},
		{name: "refused, zone never written into", found: Drift{Kind: DriftRefused, Want: www}, caches: caches},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			clock := backofftest.NewClock(t0)
			r, err := New("http://127.0.0.1:1", WithManagedBy("external-dns"), WithClock(clock))
			require.NoError(t, err)
			if c.written > 0 {
				r.writes.noteWritten(zone, []rrset.Key{www.Key()}, t0.Add(-c.written))
			}
			drift, pending := r.judge(zone, []Drift{c.found}, c.caches)
			if !c.pending {
				assert.Empty(t, pending)
				require.Len(t, drift, 1)
				assert.True(t, drift[0].VisibleBy.IsZero())
				return
			}
			assert.Empty(t, drift)
			require.Len(t, pending, 1)
			assert.Equal(t, c.visibleBy, pending[0].VisibleBy)
			assert.Contains(t, pending[0].String(), "may be cached until")
		})
	}
}

// testCacheTTL is the packet cache lifetime of the servers of
// TestVerifyThroughFrontends: long enough for a Sync and a Verify to run
// within it, short enough to wait out.
const testCacheTTL = 4 * time.Second

// TestVerifyThroughFrontends: on two frontends of one database, a change
// written through one and read over DNS from the other, which still serves
// its cached answer, is reported as pending, not drift, and WaitForCaches
// waits until it is served; a record deleted behind the Reconciler's back is
// drift once the caches let go of it; a zone created through one frontend,
// which the other refuses until its zone cache refreshes, is pending, then
// drift once the refresh interval (read from the server) has passed.
func TestVerifyThroughFrontends(t *testing.T) {
	targets, err := pdnstest.Targets()
	if err != nil || len(targets) == 0 {
		pdnstest.Servers(t) // skips, or fails where PowerDNS is required
		return
	}
	ran := false
	for _, tg := range targets {
		if tg.Backend != pdnstest.GPGSQL && tg.Backend != pdnstest.GMySQL {
			continue
		}
		ran = true
		src := tg.Image
		if tg.Provider == pdnstest.Process {
			src = tg.Root
		}
		t.Run(path.Base(src)+"-"+string(tg.Backend), func(t *testing.T) {
			t.Parallel()
			srv := pdnstest.Start(t, pdnstest.WithTarget(tg), pdnstest.WithArgs(
				fmt.Sprintf("--cache-ttl=%d", int(testCacheTTL.Seconds())),
				"--zone-cache-refresh-interval=300"))
			t.Run("cached answer", func(t *testing.T) { verifyCachedAnswer(t, srv) })
			t.Run("zone not yet in the zone cache", func(t *testing.T) { verifyRefusedZone(t, srv) })
		})
	}
	if !ran {
		t.Skip("no gpgsql or gmysql target configured (" + pdnstest.EnvGPGSQLImages + ", " + pdnstest.EnvGPGSQLRoots + ", " +
			pdnstest.EnvGMySQLImages + ", " + pdnstest.EnvGMySQLRoots + ")")
	}
}

// zoneThrough creates a fresh zone through one frontend, whose zone cache
// knows it at once; the other's does once it refreshes.
func zoneThrough(t *testing.T, f pdnstest.Frontend) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	zone := fmt.Sprintf("v%d.pdnstest.example.", time.Now().UnixNano())
	_, err := f.Client.Zones.AddNative(ctx, zone, false, "", false, "", "", false, []string{"ns1.pdnstest.invalid."})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = f.Client.Zones.Delete(ctx, zone)
	})
	return zone
}

// crossWriter writes through frontend 0's API and verifies against frontend
// 1's DNS port: a change through one instance, an answer from the other.
func crossWriter(t *testing.T, srv *pdnstest.Server, opts ...Option) *Reconciler {
	t.Helper()
	all := append([]Option{
		WithAPIKey(srv.APIKey),
		WithManagedBy("external-dns"),
		WithDNSAddr(srv.Frontends[1].DNSAddr),
	}, opts...)
	r, err := New(srv.Frontends[0].URL, all...)
	require.NoError(t, err)
	return r
}

func verifyCachedAnswer(t *testing.T, srv *pdnstest.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	zone := zoneThrough(t, srv.Frontends[1])
	r := crossWriter(t, srv)
	txt := pdnstest.MustRRset(t, zone, "txt", "TXT", 300, `"one"`)

	// Frontend 1 caches www's answer when Verify asks it; the next change
	// and Verify must come within testCacheTTL of that to find the cached
	// answer, which a busy machine may miss: a few attempts.
	var (
		want  []rrset.RRset
		vr    VerifyResult
		wrote time.Time
	)
	for attempt := 1; attempt <= 3; attempt++ {
		old := pdnstest.MustRRset(t, zone, "www", "A", 300, fmt.Sprintf("192.0.2.%d", 2*attempt))
		_, err := r.Sync(ctx, zone, []rrset.RRset{old, txt})
		require.NoError(t, err)
		require.NoError(t, waitServed(ctx, r, zone, []rrset.RRset{old, txt}))
		primed := time.Now()

		want = []rrset.RRset{pdnstest.MustRRset(t, zone, "www", "A", 300, fmt.Sprintf("192.0.2.%d", 2*attempt+1)), txt,
			pdnstest.MustRRset(t, zone, fmt.Sprintf("new%d", attempt), "AAAA", 300, "2001:db8::1")}
		_, err = r.Sync(ctx, zone, want)
		require.NoError(t, err)
		wrote = time.Now()
		vr, err = r.Verify(ctx, zone, want)
		require.NoError(t, err)
		if len(vr.Pending) > 0 || time.Since(primed) < testCacheTTL {
			break
		}
		t.Logf("attempt %d: the change and Verify took %s, longer than frontend 1 caches an answer", attempt, time.Since(primed))
	}
	assert.Equal(t, 3, vr.Checked)
	assert.Empty(t, vr.Drift, "a cached answer is not drift")
	require.Len(t, vr.Pending, 1, "www is served from frontend 1's cache: %v", vr.Pending)
	p := vr.Pending[0]
	t.Logf("pending: %s", p)
	assert.Equal(t, DriftDifferent, p.Kind)
	assert.Equal(t, "www."+zone, p.Want.Name)
	assert.NotEqual(t, want[0].Records, p.Got.Records, "the answer frontend 1 cached")
	assert.WithinDuration(t, wrote.Add(testCacheTTL+time.Second), p.VisibleBy, 2*time.Second)
	assert.Equal(t, CacheLifetimes{Packet: testCacheTTL, ZoneCache: 300 * time.Second}, vr.Caches, "read from the server")

	began := time.Now()
	vr, err := r.Verify(ctx, zone, want, WaitForCaches())
	require.NoError(t, err)
	took := time.Since(began)
	assert.Empty(t, vr.Drift)
	assert.Empty(t, vr.Pending, "waited until served")
	t.Logf("WaitForCaches returned in sync after %s (cache-ttl %s)", took.Round(10*time.Millisecond), testCacheTTL)

	// A record deleted behind the Reconciler's back: frontend 1 may serve
	// it from its cache a while yet, and then it is drift, not pending: the
	// Reconciler's own write is older than the caches' lifetime.
	require.NoError(t, srv.Frontends[0].Client.Records.Delete(ctx, zone, "www."+zone, powerdns.RRTypeA))
	deleted := time.Now()
	for {
		vr, err = r.Verify(ctx, zone, want)
		require.NoError(t, err)
		if len(vr.Drift) > 0 || time.Since(deleted) > 3*testCacheTTL {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	require.Len(t, vr.Drift, 1, "the delete is drift once the caches let go (pending: %v)", vr.Pending)
	assert.Equal(t, DriftMissing, vr.Drift[0].Kind)
	assert.Equal(t, "www."+zone, vr.Drift[0].Want.Name)
	assert.True(t, vr.Drift[0].VisibleBy.IsZero())
	assert.Empty(t, vr.Pending)
	t.Logf("drift reported %s after the delete", time.Since(deleted).Round(10*time.Millisecond))
}

// waitServed waits until the server serves want as desired (Verify with
// WaitForCaches). The answer that ends the wait is one the server has just
// made from its database, and now caches.
func waitServed(ctx context.Context, r *Reconciler, zone string, want []rrset.RRset) error {
	vr, err := r.Verify(ctx, zone, want, WaitForCaches())
	if err != nil {
		return err
	}
	if len(vr.Drift) > 0 {
		return fmt.Errorf("drift: %v", vr.Drift)
	}
	return nil
}

func verifyRefusedZone(t *testing.T, srv *pdnstest.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	zone := zoneThrough(t, srv.Frontends[0])
	for i, want := range []int{dns.RcodeSuccess, dns.RcodeRefused} {
		c := &dns.Client{Net: "udp", Timeout: 5 * time.Second}
		resp, _, err := c.ExchangeContext(ctx, new(dns.Msg).SetQuestion(zone, dns.TypeSOA), srv.Frontends[i].DNSAddr)
		require.NoError(t, err)
		require.Equal(t, dns.RcodeToString[want], dns.RcodeToString[resp.Rcode],
			"frontend %d, for a zone created through frontend 0", i)
	}

	// The zone-cache lifetime is 300 s: a fake clock stands in for it.
	// An automatic clock fires a timer as it is made and moves by its
	// duration: the zone lock's hold, kept after the Sync's write, would
	// move it by the hold at a moment of its own, so the lock is freed
	// at once and the clock moves only by what Verify waits for.
	clock := backofftest.NewAutoClock(time.Now())
	r := crossWriter(t, srv, WithClock(clock), WithLockHold(0))
	want := []rrset.RRset{pdnstest.MustRRset(t, zone, "www", "A", 300, "192.0.2.1")}
	_, err := r.Sync(ctx, zone, want)
	require.NoError(t, err)
	first := clock.Now()

	vr, err := r.Verify(ctx, zone, want)
	require.NoError(t, err)
	assert.Equal(t, 1, vr.Checked)
	assert.Empty(t, vr.Drift, "a zone the other frontend does not know yet is not drift")
	require.Len(t, vr.Pending, 1)
	assert.Equal(t, DriftRefused, vr.Pending[0].Kind)
	assert.Equal(t, first.Add(301*time.Second+testCacheTTL+time.Second), vr.Pending[0].VisibleBy)
	t.Logf("pending: %s", vr.Pending[0])

	clock.Advance(301*time.Second + testCacheTTL + time.Second)
	vr, err = r.Verify(ctx, zone, want)
	require.NoError(t, err)
	assert.Empty(t, vr.Pending)
	require.Len(t, vr.Drift, 1, "refused past the zone cache's refresh interval: drift")
	assert.Equal(t, DriftRefused, vr.Drift[0].Kind)
}
