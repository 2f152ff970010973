package reliability_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"path"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/internal/testing/faultproxy"
	"github.com/pdnskit/reconcile/internal/testing/reliability"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// killMoment says when a killSwitch kills the server.
type killMoment int

const (
	// beforePatch kills it just before the nth PATCH goes out.
	beforePatch killMoment = iota + 1
	// afterZoneRead kills it once the zone's GET was answered, before the
	// Sync writes anything.
	afterZoneRead
	// patchInFlight kills it, in the background, as soon as the PATCH's
	// body has been sent: the PATCH may be committed or not.
	patchInFlight
)

// killSwitch is the HTTP transport of a Reconciler whose server is killed
// (SIGKILL, or a container stopped without grace) at one moment of a Sync.
type killSwitch struct {
	base http.RoundTripper
	kill func()

	mu      sync.Mutex
	moment  killMoment
	nth     int // for beforePatch
	patches int
	armed   bool
	// met: a Sync reached the moment since the last arm.
	met    bool
	killed chan struct{}
}

// arm makes the next Sync kill the server at moment.
func (k *killSwitch) arm(moment killMoment, nth int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.moment, k.nth, k.patches, k.armed, k.met = moment, nth, 0, true, false
	k.killed = make(chan struct{})
}

// reached reports whether a Sync reached the moment since the last arm:
// the server was killed, or (patchInFlight) is being killed.
func (k *killSwitch) reached() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.met
}

// fire kills the server once per arm.
func (k *killSwitch) fire() {
	k.mu.Lock()
	armed := k.armed
	k.armed = false
	done := k.killed
	k.mu.Unlock()
	if armed {
		k.kill()
		close(done)
	}
}

// wait returns once the server was killed.
func (k *killSwitch) wait() {
	k.mu.Lock()
	done := k.killed
	k.mu.Unlock()
	<-done
}

func (k *killSwitch) RoundTrip(req *http.Request) (*http.Response, error) {
	k.mu.Lock()
	moment, armed := k.moment, k.armed
	isPatch := req.Method == http.MethodPatch
	if isPatch {
		k.patches++
	}
	nth := k.patches == k.nth
	if armed && isPatch && (moment == beforePatch && nth || moment == patchInFlight) {
		k.met = true
	}
	k.mu.Unlock()

	if armed && isPatch {
		switch {
		case moment == beforePatch && nth:
			k.fire()
		case moment == patchInFlight && req.Body != nil:
			req = req.Clone(req.Context())
			req.Body = &onSent{ReadCloser: req.Body, sent: func() { go k.fire() }}
		}
	}
	resp, err := k.base.RoundTrip(req)
	if armed && moment == afterZoneRead && req.Method == http.MethodGet && err == nil &&
		faultproxy.ZonePath.MatchString(req.URL.Path) {
		// Keep the answer, then take the server away before the Sync
		// goes on.
		body, readErr := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if readErr != nil {
			return nil, readErr
		}
		k.mu.Lock()
		k.met = true
		k.mu.Unlock()
		k.fire()
	}
	return resp, err
}

// onSent calls sent once the request body has been read to its end.
type onSent struct {
	io.ReadCloser
	once sync.Once
	sent func()
}

func (b *onSent) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.once.Do(b.sent)
	}
	return n, err
}

func (b *onSent) Close() error {
	b.once.Do(b.sent)
	return b.ReadCloser.Close()
}

// targetName names a target before its server reports a version, e.g.
// "pdns-auth:5.1-lmdb".
func targetName(tg pdnstest.Target) string {
	return path.Base(targetSource(tg)) + "-" + string(tg.Backend)
}

// TestKillMidSync: PowerDNS is killed in the middle of a Sync and started
// again with its data, on the newest server of each backend of the matrix
// (every server with depth.Full). The Sync returns an
// error that is retryable; the zone holds all or nothing of each PATCH
// (what PowerDNS committed stays, nothing half-written); the next Sync
// converges.
func TestKillMidSync(t *testing.T) {
	t.Parallel()
	eachTargetAtOnce(t, fullOr(everyTarget, newestOfEach(pdnstest.GSQLite3, pdnstest.LMDB, pdnstest.GPGSQL, pdnstest.GMySQL)), func(t *testing.T, tg pdnstest.Target) {
		srv := pdnstest.Start(t, pdnstest.WithTarget(tg))
		for _, s := range stores(srv) {
			t.Run("before the PATCH/"+s.String(), func(t *testing.T) { killBeforePatch(t, srv, s) })
		}
		t.Run("after the zone GET", func(t *testing.T) { killAfterRead(t, srv) })
		t.Run("PATCH in flight", func(t *testing.T) { killInFlight(t, srv) })
		t.Run("split sync before its 4th PATCH", func(t *testing.T) { killSplit(t, srv) })
	})
}

// killable returns a Reconciler for srv whose transport can kill srv.
func killable(t *testing.T, srv *pdnstest.Server, opts ...reconcile.Option) (*reconcile.Reconciler, *killSwitch) {
	t.Helper()
	k := &killSwitch{
		base: http.DefaultTransport.(*http.Transport).Clone(),
		kill: func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := srv.Kill(ctx); err != nil {
				t.Errorf("kill %s: %v", srv.Name(), err)
			}
		},
	}
	all := append([]reconcile.Option{fastRetry(), reconcile.WithDeletionGate(1, 0), reconcile.WithDeleteGuard(1, 0)}, opts...)
	return writerWith(t, srv, srv.URL, "external-dns", &http.Client{Transport: k}, all...), k
}

func restart(t *testing.T, srv *pdnstest.Server) time.Duration {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	began := time.Now()
	require.NoError(t, srv.Restart(ctx))
	return time.Since(began)
}

// converge syncs want again and checks the zone holds it and that one more
// Sync has nothing to do; it returns the PATCHes of the first Sync.
func converge(t *testing.T, srv *pdnstest.Server, w *reconcile.Reconciler, zone string, want, gone []rrset.RRset) int {
	t.Helper()
	ctx := pdnstest.Context(t)
	res := syncRequeued(ctx, t, w, zone, want)
	require.Empty(t, res.Postponed, "the Reconciler's own lock never keeps it out")
	state := readState(t, srv, zone)
	assert.True(t, state.holds(want), "converged")
	assert.True(t, state.holdsNone(gone), "deletes done")
	again := syncRequeued(ctx, t, w, zone, want)
	assert.Empty(t, again.Applied)
	assert.Zero(t, again.Patches)
	return res.Patches
}

func requireRetryable(t *testing.T, srv *pdnstest.Server, err error) {
	t.Helper()
	require.Error(t, err, "the Sync reports the lost server")
	t.Logf("Sync error: %v", err)
	requireNoKey(t, srv.APIKey, "the Sync's error", err)
	assert.True(t, pdnserrors.IsRetryable(err), "retryable: %v", err)
}

// syncKilled syncs want with k armed at moment (nth for beforePatch) and
// returns the Sync the server was killed under, which is the one judged.
// A Sync that gave up on transient failures before it reached the moment
// (the server's own 5xx) left it unmet: it is requeued, as a controller
// would, with k armed again, so that the moment is the requeued Sync's
// own (its nth PATCH). The Result's Applied also holds what the Syncs
// before it applied, which the zone holds too.
func syncKilled(ctx context.Context, t *testing.T, w *reconcile.Reconciler, k *killSwitch, moment killMoment, nth int, zone string, want []rrset.RRset) (reconcile.Result, error) {
	t.Helper()
	var applied []rrset.Change
	for i := 0; ; i++ {
		k.arm(moment, nth)
		res, err := w.Sync(ctx, zone, want)
		if k.reached() || !pdnserrors.IsRetryable(err) || i == requeues {
			res.Applied = append(applied, res.Applied...)
			require.True(t, k.reached(), "the Sync reached the moment of the kill (requeued %d times): %v", i, err)
			return res, err
		}
		applied = append(applied, res.Applied...)
		t.Logf("requeued before the kill: %v", err)
	}
}

func killBeforePatch(t *testing.T, srv *pdnstest.Server, store reconcile.OwnershipStore) {
	ctx := pdnstest.Context(t)
	zone := srv.NewZone(t)
	before, after, dropped := faultScenario(t, zone)
	w, k := killable(t, srv, reconcile.WithOwnershipStore(store))
	syncRequeued(ctx, t, w, zone, before)
	initial := readState(t, srv, zone)

	_, syncErr := syncKilled(ctx, t, w, k, beforePatch, 1, zone, after)
	requireRetryable(t, srv, syncErr)
	took := restart(t, srv)
	assert.Equal(t, initial, readState(t, srv, zone), "nothing of the PATCH was written")

	// Another replica of the writer, started meanwhile, creates, so it
	// takes the zone lock, finds the one the killed Sync could not free,
	// and is postponed (for DefaultLockTTL at most). The Reconciler that
	// left it ignores its own lock kinds and goes on; after it wrote, the
	// other replica finds nothing to write, which needs no lock.
	other := writer(t, srv, srv.URL, "external-dns", reconcile.WithOwnershipStore(store), reconcile.WithDeletionGate(1, 0), reconcile.WithDeleteGuard(1, 0))
	res := syncRequeued(ctx, t, other, zone, after)
	postponed := len(res.Postponed) > 0
	patches := converge(t, srv, w, zone, after, dropped)
	res = syncRequeued(ctx, t, other, zone, after)
	assert.Empty(t, res.Postponed, "nothing left to write, so no lock to wait for")
	assert.Empty(t, res.Applied)

	reliability.Record(t, reliability.Outcome{
		Group: "kill", Fault: "killed just before the PATCH", Server: srv.Name(), Store: storeName(srv, store),
		Result: fmt.Sprintf("%s; after restart (%s) the zone held nothing of the PATCH; a new replica was postponed: %t; next Sync converged with %d PATCH(es)",
			summary(ctx, syncErr), took.Round(100*time.Millisecond), postponed, patches),
	})
}

func killAfterRead(t *testing.T, srv *pdnstest.Server) {
	ctx := pdnstest.Context(t)
	zone := srv.NewZone(t)
	before, after, dropped := faultScenario(t, zone)
	w, k := killable(t, srv)
	syncRequeued(ctx, t, w, zone, before)
	initial := readState(t, srv, zone)

	_, syncErr := syncKilled(ctx, t, w, k, afterZoneRead, 0, zone, after)
	requireRetryable(t, srv, syncErr)
	took := restart(t, srv)
	assert.Equal(t, initial, readState(t, srv, zone), "nothing written")
	patches := converge(t, srv, w, zone, after, dropped)
	reliability.Record(t, reliability.Outcome{
		Group: "kill", Fault: "killed between the zone GET and the PATCH", Server: srv.Name(), Store: storeName(srv, reconcile.OwnershipAuto),
		Result: fmt.Sprintf("%s; after restart (%s) the zone was unchanged; next Sync converged with %d PATCH(es)",
			summary(ctx, syncErr), took.Round(100*time.Millisecond), patches),
	})
}

func killInFlight(t *testing.T, srv *pdnstest.Server) {
	ctx := pdnstest.Context(t)
	zone := srv.NewZone(t)
	before, _, _ := faultScenario(t, zone)
	w, k := killable(t, srv)
	syncRequeued(ctx, t, w, zone, before)

	// One PATCH of 2,000 new RRsets and 3 deletes.
	after := append([]rrset.RRset(nil), before[:3]...)
	var created []rrset.RRset
	for i := range 2000 {
		created = append(created, pdnstest.MustRRset(t, zone, fmt.Sprintf("bulk%04d", i), "TXT", 300, fmt.Sprintf(`"record %d of a PATCH killed in flight"`, i)))
	}
	after = append(after, created...)
	dropped := before[3:]

	res, syncErr := syncKilled(ctx, t, w, k, patchInFlight, 0, zone, after)
	k.wait()
	if syncErr != nil {
		requireRetryable(t, srv, syncErr)
	}
	took := restart(t, srv)
	state := readState(t, srv, zone)
	present := 0
	for _, rr := range created {
		if _, ok := state[rr.Key()]; ok {
			present++
		}
	}
	deleted := state.holdsNone(dropped)
	var outcome string
	switch {
	case present == len(created) && deleted && syncErr == nil:
		outcome = "committed and answered before the kill"
	case present == len(created) && deleted:
		outcome = "committed, answer lost to the kill"
	case present == 0 && state.holds(before):
		outcome = "not committed"
	default:
		t.Errorf("half a PATCH: %d of %d RRsets created, deletes done: %t", present, len(created), deleted)
		outcome = fmt.Sprintf("HALF WRITTEN: %d of %d", present, len(created))
	}
	patches := converge(t, srv, w, zone, after, dropped)
	reliability.Record(t, reliability.Outcome{
		Group: "kill", Fault: "killed while a 2,003-RRset PATCH was in flight", Server: srv.Name(), Store: storeName(srv, reconcile.OwnershipAuto),
		Result: fmt.Sprintf("%s, %d PATCH(es) sent; PATCH %s; after restart (%s) the next Sync converged with %d PATCH(es)",
			summary(ctx, syncErr), res.Patches, outcome, took.Round(100*time.Millisecond), patches),
	})
}

func killSplit(t *testing.T, srv *pdnstest.Server) {
	ctx := pdnstest.Context(t)
	zone := srv.NewZone(t)
	w, k := killable(t, srv, reconcile.WithMaxPatchBytes(8<<10))
	var want []rrset.RRset
	for i := range 300 {
		want = append(want, pdnstest.MustRRset(t, zone, fmt.Sprintf("n%03d", i), "TXT", 300, fmt.Sprintf(`"record number %d"`, i)))
	}
	res, syncErr := syncKilled(ctx, t, w, k, beforePatch, 4, zone, want)
	requireRetryable(t, srv, syncErr)
	require.Equal(t, 4, res.Patches, "the Sync stopped at its 4th PATCH")
	took := restart(t, srv)

	// Exactly what the first three PATCHes carried is there.
	state := readState(t, srv, zone)
	applied := make(map[rrset.Key]bool)
	for _, c := range res.Applied {
		applied[c.Key()] = true
	}
	held := 0
	for _, rr := range want {
		_, ok := state[rr.Key()]
		assert.Equal(t, applied[rr.Key()], ok, "%s: present exactly when reported applied", rr.Key())
		if ok {
			held++
		}
	}
	require.NotZero(t, held)
	require.Less(t, held, len(want))

	res2 := syncRequeued(ctx, t, w, zone, want)
	assert.Len(t, res2.Applied, len(want)-held, "the next Sync sends only what is missing")
	assert.True(t, readState(t, srv, zone).holds(want))
	reliability.Record(t, reliability.Outcome{
		Group: "kill", Fault: "killed before the 4th PATCH of a 300-RRset Sync split under 8 KiB", Server: srv.Name(), Store: storeName(srv, reconcile.OwnershipAuto),
		Result: fmt.Sprintf("%s; after restart (%s) the zone held the %d RRsets of the 3 committed PATCHes, nothing else; next Sync wrote the other %d in %d PATCH(es)",
			summary(ctx, syncErr), took.Round(100*time.Millisecond), held, len(want)-held, res2.Patches),
	})
}
