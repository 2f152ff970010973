package metrics_test

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/metrics"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

func TestMain(m *testing.M) { pdnstest.Main(m) }

// counter is the HTTP transport of a test's Reconciler: it counts the
// round trips by method and code, as the metrics label them, and can run a
// hook just before the next PATCH goes out.
type counter struct {
	base http.RoundTripper

	mu          sync.Mutex
	counts      map[[2]string]int
	beforePatch func()
}

func (c *counter) RoundTrip(req *http.Request) (*http.Response, error) {
	c.mu.Lock()
	var hook func()
	if req.Method == http.MethodPatch {
		hook, c.beforePatch = c.beforePatch, nil
	}
	c.mu.Unlock()
	if hook != nil {
		hook()
	}
	resp, err := c.base.RoundTrip(req)
	code := "error"
	if err == nil {
		code = strconv.Itoa(resp.StatusCode)
	}
	c.mu.Lock()
	c.counts[[2]string{req.Method, code}]++
	c.mu.Unlock()
	return resp, err
}

func (c *counter) onNextPatch(hook func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.beforePatch = hook
}

func (c *counter) snapshot() map[[2]string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[[2]string]int, len(c.counts))
	for k, v := range c.counts {
		out[k] = v
	}
	return out
}

// tally adds up what the Results of a test's operations report, as the
// metrics should count it.
type tally struct {
	requests   int
	operations map[string]float64 // operation/reason
	changes    map[string]float64
	blocked    map[string]float64
	refused    map[string]float64
	deferred   map[string]float64
	postponed  float64
}

func newTally() *tally {
	return &tally{
		operations: map[string]float64{},
		changes:    map[string]float64{"create": 0, "update": 0, "delete": 0},
		blocked:    map[string]float64{}, refused: map[string]float64{}, deferred: map[string]float64{},
	}
}

func (tl *tally) add(op reconcile.Operation, res reconcile.Result, err error) {
	tl.requests += res.Requests
	tl.operations[string(op)+"/"+string(reconcile.ConditionFor(res, err).Reason)]++
	if op == reconcile.OperationPlan {
		return
	}
	for _, c := range res.Applied {
		tl.changes[c.Op.String()]++
	}
	for _, c := range res.Blocked {
		tl.blocked[string(c.Kind)]++
	}
	for _, r := range res.Refused {
		tl.refused[string(r.Problems[0].Reason)]++
	}
	for _, d := range res.Deferred {
		tl.deferred[string(d.Reason)]++
	}
	tl.postponed += float64(len(res.Postponed))
}

// frees is an Observer that hands every event to next and keeps the
// zone locks freed outside the test's operations (OperationFreeLock): a
// lock kept after a write, freed when its hold ran out or by Close.
type frees struct {
	reconcile.Observer

	mu     sync.Mutex
	events []reconcile.OperationEvent
}

func (f *frees) ObserveOperation(e reconcile.OperationEvent) {
	if e.Operation == reconcile.OperationFreeLock {
		f.mu.Lock()
		f.events = append(f.events, e)
		f.mu.Unlock()
	}
	f.Observer.ObserveOperation(e)
}

func (f *frees) all() []reconcile.OperationEvent {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]reconcile.OperationEvent(nil), f.events...)
}

// byLabel returns the series of family name in m as label value -> value,
// joining the values of labels with "/".
func byLabel(t *testing.T, m *metrics.Metrics, name string, labels ...string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, s := range gather(t, m, name) {
		key := ""
		for i, l := range labels {
			if i > 0 {
				key += "/"
			}
			key += s.labels[l]
		}
		out[key] += s.value
	}
	return out
}

// TestCountsAgreeWithResults runs Syncs, a Plan, an Apply and a Remove,
// with a blocked write, a refused one and a deferred delete among them, and
// compares what the metrics counted with the Results and with the requests
// the transport saw. The zone lock the Reconciler keeps after a write is
// freed outside those operations, when its hold runs out or by Close: each
// such free is an event of its own, whose requests are in no Result, and
// is counted as such.
func TestCountsAgreeWithResults(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)

		other, err := reconcile.New(srv.URL, reconcile.WithAPIKey(srv.APIKey), reconcile.WithManagedBy("other-dns"))
		require.NoError(t, err)
		_, err = other.Sync(ctx, zone, []rrset.RRset{pdnstest.MustRRset(t, zone, "v4", "A", 300, "192.0.2.1")})
		require.NoError(t, err)

		m := metrics.New()
		freed := &frees{Observer: m}
		transport := &counter{base: http.DefaultTransport, counts: map[[2]string]int{}}
		r, err := reconcile.New(srv.URL,
			reconcile.WithAPIKey(srv.APIKey),
			reconcile.WithManagedBy("gateway-dns"),
			reconcile.WithHTTPClient(&http.Client{Transport: transport, Timeout: 30 * time.Second}),
			reconcile.WithDNSAddr(srv.DNSAddr),
			reconcile.WithObserver(freed))
		require.NoError(t, err)
		want := newTally()

		cname := pdnstest.MustRRset(t, zone, "v4", "CNAME", 300, "@")
		www := pdnstest.MustRRset(t, zone, "www", "A", 300, "192.0.2.2")
		mail := pdnstest.MustRRset(t, zone, "mail", "A", 300, "192.0.2.3")

		res, err := r.Sync(ctx, zone, []rrset.RRset{cname, www, mail})
		require.NoError(t, err)
		require.Len(t, res.Blocked, 1, "the CNAME next to other-dns's address")
		require.Len(t, res.Applied, 2)
		want.add(reconcile.OperationSync, res, err)

		plan, err := r.Plan(ctx, zone, []rrset.RRset{cname, www})
		require.NoError(t, err)
		require.NotEmpty(t, plan.Blocked, "a Plan reports blocks it does not count")
		want.add(reconcile.OperationPlan, plan.Result, err)

		www = pdnstest.MustRRset(t, zone, "www", "A", 300, "192.0.2.2", "192.0.2.4")
		res, err = r.Apply(ctx, zone, www)
		require.NoError(t, err)
		require.Len(t, res.Applied, 1)
		want.add(reconcile.OperationApply, res, err)

		race := pdnstest.MustRRset(t, zone, "race", "CNAME", 300, "@")
		transport.onNextPatch(func() {
			// Another writer takes the name with an address meanwhile.
			err := srv.Client.Records.Add(context.Background(), zone, "race."+zone, powerdns.RRTypeA, 300, []string{"192.0.2.200"})
			require.NoError(t, err)
		})
		res, err = r.Sync(ctx, zone, []rrset.RRset{cname, www, mail, race})
		require.NoError(t, err)
		require.Len(t, res.Refused, 1, "the raced CNAME")
		want.add(reconcile.OperationSync, res, err)

		res, err = r.Sync(ctx, zone, []rrset.RRset{cname, www})
		require.NoError(t, err)
		require.Len(t, res.Deferred, 1, "mail's delete waits for the deletion gate")
		want.add(reconcile.OperationSync, res, err)

		res, err = r.Remove(ctx, zone, mail.Key())
		require.NoError(t, err)
		require.Len(t, res.Applied, 1)
		want.add(reconcile.OperationRemove, res, err)

		// Every lock kept is freed, by its hold or here, before counting.
		require.NoError(t, r.Close(ctx))
		freeLocks := freed.all()
		require.NotEmpty(t, freeLocks, "the lock kept after the creates is freed outside any operation")
		for _, e := range freeLocks {
			require.NoError(t, e.Err)
			want.add(reconcile.OperationFreeLock, e.Result, e.Err)
		}

		seen := transport.snapshot()
		sent := 0
		wantRequests := map[string]float64{}
		for k, n := range seen {
			sent += n
			wantRequests[k[0]+"/"+k[1]] = float64(n)
		}
		t.Logf("requests %d %v; operations %v; changes %v; blocked %v; refused %v; deferred %v; postponed %g",
			sent, wantRequests, want.operations, want.changes, want.blocked, want.refused, want.deferred, want.postponed)
		assert.Equal(t, want.requests, sent, "the Results' Requests and the transport")
		assert.Equal(t, wantRequests, byLabel(t, m, "pdnskit_requests_total", "method", "code"))
		durations := 0.0
		for _, n := range byLabel(t, m, "pdnskit_request_duration_seconds", "method") {
			durations += n
		}
		assert.InDelta(t, float64(sent), durations, 0, "one duration per request")

		assert.Equal(t, want.operations, byLabel(t, m, "pdnskit_operations_total", "operation", "reason"))
		assert.Equal(t, map[string]float64{"sync": 3, "plan": 1, "apply": 1, "remove": 1, "free_lock": float64(len(freeLocks))},
			byLabel(t, m, "pdnskit_operation_duration_seconds", "operation"))
		assert.Equal(t, want.changes, byLabel(t, m, "pdnskit_changes_total", "op"))
		assert.Equal(t, map[string]float64{"create": 2, "update": 1, "delete": 1}, want.changes,
			"the Plan's changes are not counted")
		assert.Equal(t, want.blocked, byLabel(t, m, "pdnskit_blocked_total", "kind"))
		assert.Equal(t, want.refused, byLabel(t, m, "pdnskit_refused_total", "reason"))
		assert.Equal(t, want.deferred, byLabel(t, m, "pdnskit_deferred_total", "reason"))
		assert.Equal(t, map[string]float64{"": want.postponed}, byLabel(t, m, "pdnskit_postponed_total"))
		waits := byLabel(t, m, "pdnskit_lock_wait_seconds", "taken")
		t.Logf("lock waits %v", waits)
		assert.GreaterOrEqual(t, waits["true"], 1.0, "creating an RRset takes the zone lock")
		assert.Zero(t, waits["false"], "no wait is given up with no other writer")
	})
}
