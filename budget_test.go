package reconcile_test

import (
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pdnskit/reconcile"
)

// budget is where the time of a benchmark's runs goes: the server's time
// per kind of request (from sending it to its answer's headers, which
// PowerDNS sends once it has done the work), this process's CPU time (the
// library's decoding, deciding and encoding; the benchmark's own is
// small), and the Reconciler's waits for the zone's turn and for the zone
// lock. The waits and the server's
// time add up over the workers; wall time is the benchmark's ns/op.
//
// It is the HTTP transport and the Observer of the Reconciler it measures,
// or the transport of a raw client's runs.
type budget struct {
	base http.RoundTripper

	mu    sync.Mutex
	kinds map[string]*spent
	lock  time.Duration
	cpu   time.Duration
	began time.Duration
	// waited is the schedule's waits when the budget was reset.
	waited scheduleWaits
}

// scheduleWaits is what reconcile.ScheduleWaits returns.
type scheduleWaits struct {
	turn             time.Duration
	batches, members int64
}

func waitsOf(r *reconcile.Reconciler, zone string) scheduleWaits {
	if r == nil {
		return scheduleWaits{}
	}
	var w scheduleWaits
	w.turn, w.batches, w.members = reconcile.ScheduleWaits(r, zone)
	return w
}

type spent struct {
	n int
	d time.Duration
}

func newBudget() *budget {
	return &budget{base: http.DefaultTransport, kinds: map[string]*spent{}}
}

func (b *budget) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := b.base.RoundTrip(req)
	took := time.Since(start)
	kind := requestKind(req)
	b.mu.Lock()
	s := b.kinds[kind]
	if s == nil {
		s = &spent{}
		b.kinds[kind] = s
	}
	s.n++
	s.d += took
	b.mu.Unlock()
	return resp, err
}

// requestKind names what a request to the PowerDNS API does.
func requestKind(req *http.Request) string {
	q := req.URL.Query()
	switch {
	case strings.Contains(req.URL.Path, "/metadata"):
		return strings.ToLower(req.Method) + "-metadata"
	case req.Method != http.MethodGet:
		return strings.ToLower(req.Method)
	case q.Get("rrset_name") != "":
		return "get-name"
	case q.Get("rrsets") == "false":
		return "get-serial"
	default:
		return "get-zone"
	}
}

func (*budget) ObserveRequest(reconcile.RequestEvent)     {}
func (*budget) ObserveOperation(reconcile.OperationEvent) {}
func (b *budget) ObserveLock(e reconcile.LockEvent) {
	b.mu.Lock()
	b.lock += e.Wait
	b.mu.Unlock()
}

// reset starts a new budget, for a sub-benchmark of r (nil for a raw
// client's) on zone.
func (b *budget) reset(r *reconcile.Reconciler, zone string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.kinds, b.lock, b.cpu = map[string]*spent{}, 0, 0
	b.waited = waitsOf(r, zone)
}

// start begins a measured stretch; stop ends it. CPU time counts only
// between them; the requests and waits of the whole benchmark count.
func (b *budget) start() { b.began = processCPU() }
func (b *budget) stop()  { b.cpu += processCPU() - b.began }

// reportBudget reports bud per op of b: server milliseconds per request
// kind, CPU and waits (the turn from r's schedule of zone, and the lock,
// when r is set), and requests.
func reportBudget(b *testing.B, bud *budget, r *reconcile.Reconciler, zone string) {
	b.Helper()
	n := float64(b.N)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / n }
	bud.mu.Lock()
	defer bud.mu.Unlock()
	kinds := make([]string, 0, len(bud.kinds))
	requests := 0
	for k, s := range bud.kinds {
		kinds = append(kinds, k)
		requests += s.n
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		b.ReportMetric(ms(bud.kinds[k].d), k+"-ms/op")
	}
	b.ReportMetric(float64(requests)/n, "requests/op")
	b.ReportMetric(ms(bud.cpu), "cpu-ms/op")
	if r != nil {
		w := waitsOf(r, zone)
		b.ReportMetric(ms(w.turn-bud.waited.turn), "turn-wait-ms/op")
		b.ReportMetric(ms(bud.lock), "lock-wait-ms/op")
		if batches := w.batches - bud.waited.batches; batches > 0 {
			b.ReportMetric(float64(w.members-bud.waited.members)/float64(batches), "applies/batch")
		}
	}
}
