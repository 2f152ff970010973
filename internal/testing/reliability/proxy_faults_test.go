package reliability_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/backoff"
	"github.com/pdnskit/reconcile/backoff/backofftest"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/internal/pdnsapi"
	"github.com/pdnskit/reconcile/internal/testing/faultproxy"
	"github.com/pdnskit/reconcile/internal/testing/reliability"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// zoneWant is what a faulted Sync may leave in the zone.
type zoneWant int

const (
	// zoneUnchanged: nothing was written.
	zoneUnchanged zoneWant = iota
	// zoneConverged: the zone holds the desired state.
	zoneConverged
	// zoneNothingLost: every RRset written before still holds its data.
	zoneNothingLost
)

// proxyCase is one fault the proxy injects into a Sync.
type proxyCase struct {
	name  string
	rules []faultproxy.Rule
	// method and path are the requests whose attempts are counted.
	method string
	path   *regexp.Regexp
	// stores runs the case once per ownership store.
	stores bool
	// timeout is the Sync's context (a minute by default); clientTimeout
	// the http.Client's, per attempt.
	timeout, clientTimeout time.Duration
	opts                   []reconcile.Option

	err errClass
	// is checks the error further.
	is func(error) bool
	// attempts is the count of counted requests a Sync makes; slack
	// allows that many more (net/http replays an idempotent request once
	// when a reused connection fails), and so does each of PowerDNS's own
	// 5xx. When the Sync is requeued, each Sync is held to that bound and
	// the run to making attempts at least (see syncFaulted).
	attempts, slack int
	zone            zoneWant
	// refused: PowerDNS's answer refused every change (a 422).
	refused bool
	// maxElapsed is the time the fault may hold each Sync, from its
	// first counted request on (its whole time when none is counted), by
	// the Sync's own bounds (retry schedule, deadline). The test fails a
	// Sync held longer than that plus hangSlack: one that ignored its
	// bounds and waited on. How closely the bounds are kept is the retry
	// schedule's own tests' subject (backoff, on a fake clock); a wall
	// clock read here on a loaded machine could only flake.
	maxElapsed time.Duration
}

// faultDeadline is the context deadline of the cases whose request never
// answers. It is longer than the bound of a kept lock's release in the
// background (5 s): a Sync that ran out of time before the faulted request
// on a loaded machine is requeued, and the requeued one first waits for
// the release its predecessor left behind, which the lock release case
// hangs; with 3 s, two make tests at once on 2 cores met that wait on
// every requeue and never reached the PATCH. attemptTimeout is the
// http.Client.Timeout of the case that times out each attempt: with 1 s,
// an attempt under the same load ran out before the proxy saw it.
const (
	faultDeadline  = 10 * time.Second
	attemptTimeout = 3 * time.Second
)

// hangSlack is what a Sync may take over its bounds on a loaded machine
// before the test calls it hung: far more than load ever added (1.1 s
// seen at load average 36), far less than a Sync that waits out a hold,
// a rest or a request that never answers.
const hangSlack = 30 * time.Second

const (
	nginx502 = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
	html503  = "<!DOCTYPE html><html><body><h1>503 Service Unavailable</h1>No server is available to handle this request.</body></html>"
)

func patchRule(f faultproxy.Fault) faultproxy.Rule {
	return faultproxy.Rule{Method: http.MethodPatch, Path: faultproxy.ZonePath, Fault: f}
}

func zoneGetRule(f faultproxy.Fault) faultproxy.Rule {
	return faultproxy.Rule{Method: http.MethodGet, Path: faultproxy.ZonePath, Fault: f}
}

func proxyCases() []proxyCase {
	get, patch := http.MethodGet, http.MethodPatch
	zoneGet := func(c proxyCase) proxyCase { c.method, c.path = get, faultproxy.ZonePath; return c }
	patchC := func(c proxyCase) proxyCase { c.method, c.path = patch, faultproxy.ZonePath; return c }
	cases := []proxyCase{
		zoneGet(proxyCase{name: "zone GET answers 503 (HTML)", rules: []faultproxy.Rule{zoneGetRule(faultproxy.Status(503, "text/html", []byte(html503)))},
			err: errRetryable, is: pdnserrors.IsServerError, attempts: attempts}),
		zoneGet(proxyCase{name: "zone GET answers 502 (nginx) once", rules: []faultproxy.Rule{{Method: get, Path: faultproxy.ZonePath, Times: 1, Fault: faultproxy.Status(502, "text/html", []byte(nginx502))}},
			// The Sync writes: its Reconciler never read the zone, so it
			// expects to create, takes the zone lock and reads under it;
			// that read is answered 502, then tried again.
			err: errNone, attempts: 2, slack: 1, zone: zoneConverged}),
		zoneGet(proxyCase{name: "zone GET: 503 until the retry time bound (WithMaxAttempts(0), WithMaxElapsedTime(300ms))",
			rules: []faultproxy.Rule{zoneGetRule(faultproxy.Status(503, "", nil))},
			opts:  []reconcile.Option{reconcile.WithRetry(backoff.WithMaxAttempts(0), backoff.WithMaxElapsedTime(300*time.Millisecond), backoff.WithMaxInterval(50*time.Millisecond))},
			err:   errRetryable, is: pdnserrors.IsServerError, maxElapsed: 2 * time.Second}),
		// net/http sends a GET again by itself when a reused connection is
		// reset: any attempt on a connection that carried an earlier
		// request (the zone lock's, before a read under the lock) may
		// count twice.
		zoneGet(proxyCase{name: "zone GET: connection reset", rules: []faultproxy.Rule{zoneGetRule(faultproxy.Reset())},
			err: errRetryable, attempts: attempts, slack: attempts}),
		zoneGet(proxyCase{name: "zone GET: body cut short (Content-Length not met)", rules: []faultproxy.Rule{zoneGetRule(faultproxy.Truncate(64))},
			err: errRetryable, attempts: attempts}),
		zoneGet(proxyCase{name: "zone GET: body larger than WithMaxResponseBytes (1 MiB)", rules: []faultproxy.Rule{zoneGetRule(faultproxy.Pad(4 << 20))},
			opts: []reconcile.Option{reconcile.WithMaxResponseBytes(1 << 20)},
			err:  errPermanent, is: isTooLarge, attempts: 1}),
		zoneGet(proxyCase{name: "zone GET answers 200 {}", rules: []faultproxy.Rule{zoneGetRule(faultproxy.Status(200, "application/json", []byte(`{}`)))},
			err: errPermanent, is: isIncomplete, attempts: 1}),
		zoneGet(proxyCase{name: `zone GET answers 200 {"rrsets": []}`, rules: []faultproxy.Rule{zoneGetRule(faultproxy.Status(200, "application/json", []byte(`{"rrsets": []}`)))},
			err: errPermanent, is: isIncomplete, attempts: 1}),
		zoneGet(proxyCase{name: "zone GET answers 200 null", rules: []faultproxy.Rule{zoneGetRule(faultproxy.Status(200, "application/json", []byte(`null`)))},
			err: errPermanent, is: isIncomplete, attempts: 1}),
		zoneGet(proxyCase{name: "zone GET answers 200 with JSON cut short", rules: []faultproxy.Rule{zoneGetRule(faultproxy.Status(200, "application/json", []byte(`{"name": "x.", "rrsets": [{"name": "a.`)))},
			err: errRetryable, attempts: attempts}),
		zoneGet(proxyCase{name: "zone GET answers 200 with an HTML page", rules: []faultproxy.Rule{zoneGetRule(faultproxy.Status(200, "text/html", []byte(html503)))},
			err: errPermanent, attempts: 1}),
		zoneGet(proxyCase{name: `zone GET answers 422 {"errors": 5}`, rules: []faultproxy.Rule{zoneGetRule(faultproxy.Status(422, "application/json", []byte(`{"errors": 5}`)))},
			err: errPermanent, attempts: 1}),
		// A new Reconciler expects to create, so it reads the server's
		// version and launch, takes the zone lock and reads the metadata
		// before its zone GET: four requests that gpgsql under load once
		// took the whole of a 1 s deadline over (see faultDeadline).
		zoneGet(proxyCase{name: "zone GET never answers (context deadline 10s)", rules: []faultproxy.Rule{zoneGetRule(faultproxy.Hang())},
			timeout: faultDeadline, err: errDeadline, attempts: 1, maxElapsed: faultDeadline}),
		zoneGet(proxyCase{name: "zone GET never answers (http.Client.Timeout 3s per attempt)", rules: []faultproxy.Rule{zoneGetRule(faultproxy.Hang())},
			clientTimeout: attemptTimeout, err: errRetryable, attempts: attempts, maxElapsed: attempts * attemptTimeout}), // each attempt's timeout, and the retry waits
		{name: "metadata read answers 503", rules: []faultproxy.Rule{{Method: get, Path: faultproxy.MetadataPath, Fault: faultproxy.Status(503, "", nil)}},
			method: get, path: faultproxy.MetadataPath, stores: true, err: errRetryable, is: pdnserrors.IsServerError, attempts: attempts},
		{name: "metadata read answers 200 [] (locks and claims unseen)", rules: []faultproxy.Rule{{Method: get, Path: faultproxy.MetadataPath, Fault: faultproxy.Status(200, "application/json", []byte(`[]`))}},
			stores: true, err: errNone, zone: zoneNothingLost},
		{name: "server description answers 503 (store detection)", rules: []faultproxy.Rule{{Method: get, Path: faultproxy.ServerPath, Fault: faultproxy.Status(503, "", nil)}},
			method: get, path: faultproxy.ServerPath, err: errRetryable, attempts: attempts},
		// The lock is taken by creating a metadata kind (POST); a lock never
		// taken is not released, so only the attempts to take it count.
		{name: "zone lock write answers 503", rules: []faultproxy.Rule{{Method: http.MethodPost, Path: faultproxy.MetadataPath, Fault: faultproxy.Status(503, "", nil)}},
			method: http.MethodPost, path: faultproxy.MetadataPath, stores: true, err: errRetryable, attempts: attempts},
		patchC(proxyCase{name: "PATCH answers 503", rules: []faultproxy.Rule{patchRule(faultproxy.Status(503, "text/html", []byte(html503)))},
			stores: true, err: errRetryable, is: pdnserrors.IsServerError, attempts: attempts}),
		patchC(proxyCase{name: "PATCH answers 503 once", rules: []faultproxy.Rule{{Method: patch, Path: faultproxy.ZonePath, Times: 1, Fault: faultproxy.Status(503, "", nil)}},
			stores: true, err: errNone, attempts: 2, zone: zoneConverged}),
		patchC(proxyCase{name: "PATCH: connection reset before PowerDNS sees it", rules: []faultproxy.Rule{patchRule(faultproxy.Reset())},
			err: errRetryable, attempts: attempts}),
		patchC(proxyCase{name: "PATCH committed, answer lost (reset) once", rules: []faultproxy.Rule{{Method: patch, Path: faultproxy.ZonePath, Times: 1, Fault: faultproxy.Reset().AfterForwarding()}},
			stores: true, err: errNone, attempts: 2, zone: zoneConverged}),
		patchC(proxyCase{name: "PATCH committed, answer lost (502) every time", rules: []faultproxy.Rule{patchRule(faultproxy.Status(502, "text/html", []byte(nginx502)).AfterForwarding())},
			err: errRetryable, attempts: attempts, zone: zoneConverged}),
		patchC(proxyCase{name: "PATCH answers 401 (HTML)", rules: []faultproxy.Rule{patchRule(faultproxy.Status(401, "text/html", []byte("<h1>Unauthorized</h1>")))},
			err: errPermanent, is: pdnserrors.IsUnauthorized, attempts: 1}),
		// Before its PATCH the Sync takes the zone lock and, with the
		// metadata store, posts its claims: the deadline leaves those
		// requests room on a loaded machine (LMDB 4.9 once spent a whole
		// second on them), so that the PATCH is reached.
		patchC(proxyCase{name: "PATCH never answers (context deadline 10s)", rules: []faultproxy.Rule{patchRule(faultproxy.Hang())},
			timeout: faultDeadline, err: errDeadline, attempts: 1, maxElapsed: faultDeadline}),
		// The Sync creates (g), so it takes the zone lock (a POST) before
		// its PATCH and frees it (a DELETE of its kind) after: the first
		// DELETE of a metadata kind is the release.
		patchC(proxyCase{name: "PATCH and the lock release never answer (context deadline 10s)",
			rules:   []faultproxy.Rule{patchRule(faultproxy.Hang()), {Method: http.MethodDelete, Path: faultproxy.MetadataPath, Fault: faultproxy.Hang()}},
			timeout: faultDeadline, err: errDeadline, attempts: 1, maxElapsed: faultDeadline}),
	}
	// A refusal in shapes PowerDNS never wrote: never retried, isolated
	// by bisection (five names: 2×5−1 distinct PATCHes), remembered.
	for _, b := range []struct{ name, ct, body string }{
		{`{"errors": 5}`, "application/json", `{"errors": 5}`},
		{`{"error": {"nested": true}}`, "application/json", `{"error": {"nested": true}}`},
		{"an HTML page", "text/html", "<html><body><h1>Unprocessable</h1></body></html>"},
		{"binary", "application/octet-stream", "\x00\xff\xfe\x01PK\x03\x04\x1b[31m"},
		{"an empty body", "", ""},
		{"JSON cut short", "application/json", `{"error": "RRset a.`},
		{"1.1 MiB of garbage (over the 64 KiB read)", "application/json", `{"error": "` + strings.Repeat("\xf0garbage", 9<<14)},
	} {
		cases = append(cases, patchC(proxyCase{
			name:  "PATCH answers 422 with " + b.name,
			rules: []faultproxy.Rule{patchRule(faultproxy.Status(422, b.ct, []byte(b.body)))},
			err:   errNone, refused: true, attempts: 2*5 - 1,
		}))
	}
	return cases
}

// serverOwn notes the 5xx answers PowerDNS gave of itself.
func serverOwn(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d of the attempts answered 5xx by PowerDNS itself, retried)", n)
}

// serverOwnErrors counts the 5xx answers among reqs that PowerDNS gave
// itself, not the proxy.
func serverOwnErrors(reqs []faultproxy.Request) int {
	n := 0
	for _, r := range reqs {
		if r.ServerError() {
			n++
		}
	}
	return n
}

// requeuedNote says how often a Sync was requeued after PowerDNS's own 5xx.
func requeuedNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (requeued %d time(s) after PowerDNS's own 5xx used up its attempts, as a controller would)", n)
}

// faultedRun is a Sync run with a proxy's faults in place, and the Syncs it
// was requeued as, the judged one last.
type faultedRun struct {
	ctx   context.Context
	res   reconcile.Result
	err   error
	syncs []faultedSync
}

// faultedSync is one Sync of a faultedRun: the requests it made at the
// proxy, when it began and when it returned.
type faultedSync struct {
	reqs       []faultproxy.Request
	began, end time.Time
}

// syncFaulted syncs want through p, whose faults are in place, as a
// controller reconciles, and returns the run for judging.
//
// PowerDNS's own 5xx (4.7.3 on gsqlite3 answers writes that meet other
// tests' with 500 "database is locked", the more often the busier the
// machine) can use up a Sync's attempts on any request, or keep a PATCH
// whose answer a fault replaces from being committed. A Sync that gave up
// with a retryable error after meeting one is requeued, at once and with
// the faults still in place, while ctx lasts and at most requeues times,
// until a Sync meets none.
//
// A run is judged as a controller judges where its requeues end, by the
// Sync that ended them: its error (see endsAs) and the zone it leaves. Each
// Sync of the run is held to the fault's bounds (its attempts at the
// faulted request, its time once it met the fault); the run as a whole
// makes at least the fault's attempts; the context bounds the run.
func syncFaulted(ctx context.Context, t *testing.T, w *reconcile.Reconciler, p *faultproxy.Proxy, zone string, want []rrset.RRset) faultedRun {
	t.Helper()
	run := faultedRun{ctx: ctx}
	for {
		mark := len(p.Requests())
		s := faultedSync{began: time.Now()}
		run.res, run.err = w.Sync(ctx, zone, want)
		s.end = time.Now()
		s.reqs = p.Requests()[mark:]
		run.syncs = append(run.syncs, s)
		if run.err != nil {
			t.Logf("Sync error: %v", run.err)
		}
		if !pdnserrors.IsRetryable(run.err) || ctx.Err() != nil ||
			serverOwnErrors(s.reqs) == 0 || run.requeued() == requeues {
			return run
		}
		t.Logf("requeued after PowerDNS's own 5xx")
	}
}

// requeued counts the Syncs requeued.
func (r faultedRun) requeued() int { return len(r.syncs) - 1 }

// elapsed is the run's wall time, requeues included.
func (r faultedRun) elapsed() time.Duration {
	return r.syncs[len(r.syncs)-1].end.Sub(r.syncs[0].began)
}

// count counts the run's requests of method to path, and among them those
// PowerDNS itself answered 5xx.
func (r faultedRun) count(method string, path *regexp.Regexp) (n, ownErrors int) {
	for _, s := range r.syncs {
		sn, so := s.count(method, path)
		n, ownErrors = n+sn, ownErrors+so
	}
	return n, ownErrors
}

// endsAs reports whether the run ended as a case expecting the error class
// want and the zone zone accepts. Without requeues that is its one Sync's
// class. After requeues it is what a controller accepts at the end of
// them: a Sync that returns no error, the zone converged, is as good as
// the retryable error the case expects with the zone converged (an
// earlier Sync's PATCH was committed, its answer lost to the fault, and
// the requeued Sync found nothing left to send). The zone itself is
// checked apart.
func (r faultedRun) endsAs(want errClass, zone zoneWant) bool {
	got := classOf(r.ctx, r.err)
	if got == want {
		return true
	}
	return r.requeued() > 0 && want == errRetryable && zone == zoneConverged && got == errNone
}

// TestFaultedRunEndsAs: the rule a requeued faulted Sync is judged by.
func TestFaultedRunEndsAs(t *testing.T) {
	retryable, permanent := pdnserrors.Parse(502, nil), pdnserrors.Parse(401, nil)
	for _, c := range []struct {
		name     string
		requeued int
		err      error
		want     errClass
		zone     zoneWant
		ok       bool
	}{
		{"one Sync, the expected retryable error", 0, retryable, errRetryable, zoneConverged, true},
		{"one Sync, no error where a retryable one is expected", 0, nil, errRetryable, zoneConverged, false},
		{"requeued, then converged with no error: the PATCH was committed", 1, nil, errRetryable, zoneConverged, true},
		{"requeued, still the expected retryable error", 2, retryable, errRetryable, zoneConverged, true},
		{"requeued, no error where the zone must stay unchanged", 1, nil, errRetryable, zoneUnchanged, false},
		{"requeued, no error where a permanent one is expected", 1, nil, errPermanent, zoneUnchanged, false},
		{"requeued, a permanent error where a retryable one is expected", 1, permanent, errRetryable, zoneConverged, false},
		{"requeued, a retryable error where none is expected", 1, retryable, errNone, zoneConverged, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := faultedRun{ctx: context.Background(), err: c.err, syncs: make([]faultedSync, c.requeued+1)}
			assert.Equal(t, c.ok, run.endsAs(c.want, c.zone))
		})
	}
}

// count counts the Sync's requests of method to path, and among them those
// PowerDNS itself answered 5xx.
func (s faultedSync) count(method string, path *regexp.Regexp) (n, ownErrors int) {
	for _, r := range s.reqs {
		if r.Method == method && (path == nil || path.MatchString(r.Path)) {
			n++
			if r.ServerError() {
				ownErrors++
			}
		}
	}
	return n, ownErrors
}

// heldBy is how long the fault held the Sync: from the arrival of its
// first request of method to path at the proxy to that of the request it
// sent next, having given up on them (the zone lock's release), or to its
// return. What comes before (the server's version, the zone lock, the
// metadata) and after is left out: those requests have bounds of their
// own, which a loaded machine stretches (gpgsql under load average 30 took
// more than the 2 s slack over them). Its whole time when method is "" or
// the Sync made no such request.
func (s faultedSync) heldBy(method string, path *regexp.Regexp) time.Duration {
	first, last := -1, -1
	for i, r := range s.reqs {
		if method != "" && r.Method == method && (path == nil || path.MatchString(r.Path)) {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return s.end.Sub(s.began)
	}
	until := s.end
	if last+1 < len(s.reqs) {
		until = s.reqs[last+1].At
	}
	return until.Sub(s.reqs[first].At)
}

func isTooLarge(err error) bool {
	var e *pdnsapi.ResponseTooLargeError
	return errors.As(err, &e)
}

func isIncomplete(err error) bool { return errors.Is(err, reconcile.ErrIncompleteZone) }

// faultScenario is the zone a fault Sync runs on: before is written without
// faults; after updates one RRset, adds one and drops three, which a Sync
// that gets through deletes at once (deletion gate and guard off).
func faultScenario(t *testing.T, zone string) (before, after, dropped []rrset.RRset) {
	t.Helper()
	before = []rrset.RRset{
		pdnstest.MustRRset(t, zone, "a", "A", 300, "192.0.2.1"),
		pdnstest.MustRRset(t, zone, "b", "AAAA", 300, "2001:db8::1"),
		pdnstest.MustRRset(t, zone, "c", "TXT", 300, `"one"`),
		pdnstest.MustRRset(t, zone, "d", "MX", 300, "10 mail.example.net."),
		pdnstest.MustRRset(t, zone, "e", "CNAME", 300, "target.example.net."),
		pdnstest.MustRRset(t, zone, "f", "A", 300, "192.0.2.6"),
	}
	after = []rrset.RRset{
		pdnstest.MustRRset(t, zone, "a", "A", 300, "192.0.2.2"),
		before[1], before[2],
		pdnstest.MustRRset(t, zone, "g", "A", 300, "192.0.2.7"),
	}
	return before, after, before[3:]
}

// TestProxyFaults: a fault-injecting proxy between the library and every
// PowerDNS. The library retries only what is retryable (attempts are
// counted at the proxy), gives up within its bounds, returns by its
// context, never panics, and never writes, let alone deletes, after a read
// that failed. The proxy answers in PowerDNS's place, so a case shows the
// library's handling on any server: the cases are dealt out among the
// servers, each on one (on every one with depth.Full).
func TestProxyFaults(t *testing.T) {
	t.Parallel()
	eachServerSharing(t, func(t *testing.T, srv *pdnstest.Server, sh share) {
		for i, c := range proxyCases() {
			if !sh.has(i) {
				continue
			}
			t.Run(c.name, func(t *testing.T) {
				storeList := []reconcile.OwnershipStore{reconcile.OwnershipAuto}
				if c.stores {
					storeList = stores(srv)
				}
				for _, s := range storeList {
					t.Run(s.String(), func(t *testing.T) { runProxyCase(t, srv, s, c) })
				}
			})
		}
	})
}

func runProxyCase(t *testing.T, srv *pdnstest.Server, store reconcile.OwnershipStore, c proxyCase) {
	ctx := pdnstest.Context(t)
	zone := srv.NewZone(t)
	before, after, dropped := faultScenario(t, zone)
	seed := writer(t, srv, srv.URL, "external-dns", reconcile.WithOwnershipStore(store))
	syncRequeued(ctx, t, seed, zone, before)
	// The seed's zone lock, kept after its write, is freed now: the Sync
	// under test would otherwise find the zone locked by another
	// Reconciler and wait for it, with requests the case does not count.
	require.NoError(t, seed.Close(ctx))
	initial := readState(t, srv, zone)

	p := startProxy(t, srv)
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone(), Timeout: c.clientTimeout}
	opts := append([]reconcile.Option{
		reconcile.WithOwnershipStore(store),
		reconcile.WithDeletionGate(1, 0),
		reconcile.WithDeleteGuard(1, 0),
		fastRetry(),
	}, c.opts...)
	w := writerWith(t, srv, p.URL, "external-dns", hc, opts...)
	if c.timeout > 0 || c.clientTimeout > 0 {
		// A Sync with nothing to do first, so that the timed one spends
		// its context on the fault rather than on detecting the store.
		syncRequeued(ctx, t, w, zone, before)
	}
	p.Inject(c.rules...)

	// A timed run (a context deadline, or a client timeout per request)
	// that ran out of time before it reached the faulted request (on a
	// loaded machine the lock's requests can take the whole of it) is
	// requeued, with a fresh deadline, as a controller would; the run that
	// reached it is judged.
	var (
		run     faultedRun
		syncCtx context.Context
		cancels []context.CancelFunc
	)
	defer func() {
		for _, cancel := range cancels {
			cancel()
		}
	}()
	for try := 0; ; try++ {
		syncCtx = ctx
		if c.timeout > 0 {
			var cancel context.CancelFunc
			syncCtx, cancel = context.WithTimeout(ctx, c.timeout)
			cancels = append(cancels, cancel)
		}
		run = syncFaulted(syncCtx, t, w, p, zone, after)
		reached, _ := run.count(c.method, c.path)
		timed := c.timeout > 0 || c.clientTimeout > 0
		if !timed || c.method == "" || reached > 0 || !ranOutOfTime(syncCtx, run.err) || try == requeues {
			break
		}
		t.Logf("Sync ran out of time before %s %s (%v): requeued", c.method, c.path, run.err)
	}
	res, err := run.res, run.err
	requireNoKey(t, srv.APIKey, "the Sync's error", err)
	requireNoKey(t, srv.APIKey, "the Result", res)
	requireNoKey(t, srv.APIKey, "the plan", res.Applied)

	counted, ownErrors := 0, 0
	if c.method != "" {
		counted, ownErrors = run.count(c.method, c.path)
	}
	patchesSent, _ := run.count(http.MethodPatch, faultproxy.ZonePath)
	state := readState(t, srv, zone)
	verdict := "unchanged"
	switch {
	case state.equal(initial):
	case state.holds(after) && state.holdsNone(dropped):
		verdict = "converged"
	case state.holds(before):
		verdict = "kept every RRset written before"
	default:
		verdict = fmt.Sprintf("changed: %v", state)
	}
	reliability.Record(t, reliability.Outcome{
		Group: "proxy", Fault: c.name, Server: srv.Name(), Store: storeName(srv, store),
		Result: describe(syncCtx, err, counted, patchesSent, verdict, run.elapsed()) +
			fmt.Sprintf(", RequeueAfter %s", res.RequeueAfter.Round(time.Millisecond)) + serverOwn(ownErrors) + requeuedNote(run.requeued()),
		Attempts: counted, Elapsed: run.elapsed(),
	})

	assert.True(t, run.endsAs(c.err, c.zone), "ended with %s after %d requeue(s), want %s: %v", classOf(syncCtx, err), run.requeued(), c.err, err)
	if c.is != nil && err != nil {
		assert.True(t, c.is(err), "%v", err)
	}
	if c.attempts > 0 {
		assert.GreaterOrEqual(t, counted, c.attempts, "attempts at the proxy")
		for i, s := range run.syncs {
			n, own := s.count(c.method, c.path)
			if !assert.LessOrEqual(t, n, c.attempts+c.slack+own, "attempts of Sync %d at the proxy", i+1) {
				for _, r := range s.reqs {
					t.Logf("Sync %d sent %s %s: %d %s", i+1, r.Method, r.Path, r.Status, r.Fault)
				}
			}
		}
	}
	for i, s := range run.syncs {
		if c.maxElapsed > 0 {
			held := s.heldBy(c.method, c.path)
			assert.Less(t, held, c.maxElapsed+hangSlack, "Sync %d returns by its bounds once it meets the fault", i+1)
		}
	}
	if c.timeout > 0 {
		assert.Less(t, run.elapsed(), c.timeout+hangSlack, "the Sync returns by its context")
	}
	switch c.zone {
	case zoneUnchanged:
		assert.Equal(t, initial, state, "nothing written")
	case zoneConverged:
		assert.True(t, state.holds(after) && state.holdsNone(dropped), "converged: %v", state)
	case zoneNothingLost:
		assert.True(t, state.holds(before) || state.holds(after), "nothing lost: %v", state)
		for _, rr := range dropped {
			// Unseen claims make the writer's RRsets look unowned: kept.
			if storeName(srv, store) == "metadata" {
				assert.Contains(t, state, rr.Key(), "no RRset deleted after a read that hid its owner")
			}
		}
	}
	if c.refused {
		assert.Len(t, res.Refused, 5, "every change refused")
		assert.Empty(t, res.Applied)
		assert.Equal(t, reconcile.ReasonPDNSError, res.Condition().Reason)
		bodies := make(map[string]bool)
		for _, s := range run.syncs {
			for _, r := range s.reqs {
				if r.Method == http.MethodPatch {
					assert.False(t, bodies[r.BodyDigest], "a refused PATCH body sent twice")
					bodies[r.BodyDigest] = true
				}
			}
		}
		// Remembered: the next Sync sends nothing.
		patches := p.Count(http.MethodPatch, nil)
		res = syncRequeued(ctx, t, w, zone, after)
		assert.Equal(t, patches, p.Count(http.MethodPatch, nil), "a refused change is not sent again")
		assert.Len(t, res.Refused, 5)
	}

	// Whatever happened, once the faults stop the next Sync converges.
	p.Clear()
	if !c.refused {
		syncRequeued(ctx, t, w, zone, after)
		state = readState(t, srv, zone)
		assert.True(t, state.holds(after) && state.holdsNone(dropped), "converged once the faults stop: %v", state)
	}
}

// TestSyncBehindAHungSync: a Sync of a zone whose previous Sync is stuck on
// a server that answers neither its PATCH nor the release of the zone lock
// returns by its own context, and so does the stuck one, while the release
// goes on in the background, an OperationFreeLock of its own. What is
// judged is the order of events, not their time: the stuck Sync can only
// end by its context, which the test ends once the queued one returned;
// the Reconciler's clock moves only when told, so the zone lock the first
// Sync keeps stays kept, and the stuck Sync goes on with it.
func TestSyncBehindAHungSync(t *testing.T) {
	t.Parallel()
	eachServerAtOnce(t, func(t *testing.T, srv *pdnstest.Server) {
		ctx := pdnstest.Context(t)
		zone := srv.NewZone(t)
		p := startProxy(t, srv)
		frees := make(chan reconcile.OperationEvent, 16)
		w := writer(t, srv, p.URL, "external-dns", fastRetry(),
			reconcile.WithClock(backofftest.NewClock(time.Now())), reconcile.WithObserver(freeObserver(frees)))
		// A first Sync without faults, so that the stuck one goes
		// straight to its PATCH.
		syncRequeued(ctx, t, w, zone, []rrset.RRset{pdnstest.MustRRset(t, zone, "www", "A", 300, "192.0.2.1")})
		p.Inject(patchRule(faultproxy.Hang()))
		// A new name: the Sync creates, so it holds the zone lock while it
		// waits for its PATCH.
		want := []rrset.RRset{pdnstest.MustRRset(t, zone, "www", "A", 300, "192.0.2.2"), pdnstest.MustRRset(t, zone, "new", "A", 300, "192.0.2.3")}
		patches := p.Count(http.MethodPatch, faultproxy.ZonePath)

		type ended struct {
			err      error
			requeued int
		}
		stuck := make(chan ended, 1)
		var unstickMu sync.Mutex
		var unstick context.CancelFunc
		go func() {
			// The Sync that gets stuck on its PATCH is the one judged.
			// One that ended before its PATCH (4.7.3 on gsqlite3 under
			// load answers the zone lock's POST 500 "database is locked":
			// retries end the Sync) is requeued, as a controller would,
			// with a context of its own.
			for i := 0; ; i++ {
				attempt, cancel := context.WithCancel(ctx)
				unstickMu.Lock()
				unstick = cancel
				unstickMu.Unlock()
				sent := p.Count(http.MethodPatch, faultproxy.ZonePath)
				_, err := w.Sync(attempt, zone, want)
				reached := p.Count(http.MethodPatch, faultproxy.ZonePath) > sent
				if !reached && pdnserrors.IsRetryable(err) && i < requeues {
					cancel()
					t.Logf("Sync requeued before its PATCH: %v", err)
					continue
				}
				stuck <- ended{err, i}
				cancel()
				return
			}
		}()
		// A wait for the setting, not a bound: requeues can take seconds.
		require.Eventually(t, func() bool { return p.Count(http.MethodPatch, faultproxy.ZonePath) > patches },
			time.Minute, time.Millisecond, "the first Sync reaches its PATCH")
		// Then the release of the zone lock hangs too (a DELETE of the
		// lock's metadata kind). Not before: a requeued Sync would free
		// the lock in the background, and a hung release would keep the
		// zone's turn, and the lock, from every later attempt.
		releases := p.Count(http.MethodDelete, faultproxy.MetadataPath)
		p.Inject(faultproxy.Rule{Method: http.MethodDelete, Path: faultproxy.MetadataPath, Fault: faultproxy.Hang()})
		queuedCtx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		_, err := w.Sync(queuedCtx, zone, want)
		require.ErrorIs(t, err, context.DeadlineExceeded, "the queued Sync returns by its own context")
		select {
		case first := <-stuck:
			t.Fatalf("the stuck Sync ended before its context did: %v", first.err)
		default:
		}

		// The stuck Sync's caller gives up: it returns at once, and the
		// lock's release goes on in the background, where it hangs.
		unstickMu.Lock()
		unstick()
		unstickMu.Unlock()
		var first ended
		select {
		case first = <-stuck:
		case <-time.After(time.Minute):
			t.Fatal("the stuck Sync did not return when its context ended")
		}
		if first.requeued > 0 {
			t.Logf("the stuck Sync was requeued %d time(s) before it reached its PATCH", first.requeued)
		}
		freedBefore := len(frees)
		reliability.Record(t, reliability.Outcome{
			Group: "proxy", Fault: "a second Sync (context 200ms) queued behind a Sync stuck on PATCH and lock release, whose caller then gives up",
			Server: srv.Name(),
			Result: fmt.Sprintf("queued Sync: %s, before the stuck one; stuck Sync: %s once its context ended, its lock's release still hung (%d freed before)",
				classOf(queuedCtx, err), cause(first.err), freedBefore),
		})
		require.ErrorIs(t, first.err, context.Canceled)
		assert.Zero(t, freedBefore, "the stuck Sync returned while its lock's release hung")
		// The stuck Sync held the lock: its release, in the background,
		// reached the proxy and hangs there, until its bound.
		require.Eventually(t, func() bool { return p.Count(http.MethodDelete, faultproxy.MetadataPath) > releases },
			time.Minute, 10*time.Millisecond, "the lock's release was sent")
		select {
		case freed := <-frees:
			assert.Equal(t, 1, freed.Result.Requests)
			assert.Error(t, freed.Err, "the hung release gave up at its bound")
		case <-time.After(time.Minute):
			t.Fatal("the hung release never ended")
		}
	})
}

// freeObserver hands the zone locks a Reconciler frees outside its
// operations (reconcile.OperationFreeLock) to frees.
type freeObserver chan<- reconcile.OperationEvent

func (freeObserver) ObserveRequest(reconcile.RequestEvent) {}
func (freeObserver) ObserveLock(reconcile.LockEvent)       {}
func (f freeObserver) ObserveOperation(e reconcile.OperationEvent) {
	if e.Operation == reconcile.OperationFreeLock {
		f <- e
	}
}
