package metrics

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/pdnskit/reconcile"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/rrset"
)

// Metrics counts what the Reconcilers it is given to do. It is a
// prometheus.Collector and a reconcile.Observer, safe for concurrent use;
// make one with New (one not made by New counts and collects nothing).
type Metrics struct {
	requests          *prometheus.CounterVec
	requestDuration   *prometheus.HistogramVec
	operations        *prometheus.CounterVec
	operationDuration *prometheus.HistogramVec
	changes           *prometheus.CounterVec
	blocked           *prometheus.CounterVec
	refused           *prometheus.CounterVec
	deferred          *prometheus.CounterVec
	postponed         prometheus.Counter
	lockWait          *prometheus.HistogramVec
}

var (
	_ prometheus.Collector = (*Metrics)(nil)
	_ reconcile.Observer   = (*Metrics)(nil)
)

// The buckets of the histograms, in seconds; the package documentation
// says why.
var (
	requestBuckets   = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30}
	operationBuckets = []float64{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120}
	lockWaitBuckets  = []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10}
)

// Option configures New.
type Option func(*options)

type options struct {
	constLabels prometheus.Labels
}

// WithConstLabels adds labels with fixed values to every series, to tell
// apart the Metrics of Reconcilers that write to different PowerDNS servers
// but share a registry. The label names must differ from those of the
// families (method, code, operation, reason, op, kind, taken): the
// registry's Register returns an error otherwise.
func WithConstLabels(labels prometheus.Labels) Option {
	return func(o *options) {
		o.constLabels = make(prometheus.Labels, len(labels))
		for k, v := range labels {
			o.constLabels[k] = v
		}
	}
}

// New returns a Metrics with nothing counted yet.
func New(opts ...Option) *Metrics {
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: name, Help: help, ConstLabels: o.constLabels,
		}, labels)
	}
	histogram := func(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: name, Help: help, ConstLabels: o.constLabels, Buckets: buckets,
		}, labels)
	}
	m := &Metrics{
		requests: counter("pdnskit_requests_total",
			"HTTP requests to the PowerDNS API, retries included, by method and status (error: no answer).",
			"method", "code"),
		requestDuration: histogram("pdnskit_request_duration_seconds",
			"Time from sending a request to the PowerDNS API to its answer's headers or its failure.",
			requestBuckets, "method"),
		operations: counter("pdnskit_operations_total",
			"Reconciler operations that returned, by operation and the condition reason of their outcome.",
			"operation", "reason"),
		operationDuration: histogram("pdnskit_operation_duration_seconds",
			"Time from a Reconciler operation's call to its return.",
			operationBuckets, "operation"),
		changes: counter("pdnskit_changes_total",
			"RRset changes PowerDNS accepted, by op (create, update, delete).",
			"op"),
		blocked: counter("pdnskit_blocked_total",
			"Writes blocked before PowerDNS saw them, by conflict kind, counted by every operation that reports them.",
			"kind"),
		refused: counter("pdnskit_refused_total",
			"Changes PowerDNS refused, by the reason of their first problem, counted by every operation that reports them.",
			"reason"),
		deferred: counter("pdnskit_deferred_total",
			"Deletes held back on purpose, by reason, counted by every operation that reports them.",
			"reason"),
		postponed: prometheus.NewCounter(prometheus.CounterOpts{
			Name:        "pdnskit_postponed_total",
			Help:        "Changes not sent because another writer held the zone lock.",
			ConstLabels: o.constLabels,
		}),
		lockWait: histogram("pdnskit_lock_wait_seconds",
			"Waits for a zone lock, by taken: true when the operation took the lock, false when it did not (another writer held it past the lock wait, the attempt failed, or the context ended).",
			lockWaitBuckets, "taken"),
	}
	// The ops are known: their series exist from the start, so that a
	// rate over them is defined before the first change.
	for _, op := range []rrset.Op{rrset.OpCreate, rrset.OpUpdate, rrset.OpDelete} {
		m.changes.WithLabelValues(op.String())
	}
	return m
}

// collectors lists every family, or none for a Metrics not made by New.
func (m *Metrics) collectors() []prometheus.Collector {
	if m == nil || m.requests == nil {
		return nil
	}
	return []prometheus.Collector{
		m.requests, m.requestDuration, m.operations, m.operationDuration,
		m.changes, m.blocked, m.refused, m.deferred, m.postponed, m.lockWait,
	}
}

// Describe sends the descriptions of every family to ch.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range m.collectors() {
		c.Describe(ch)
	}
}

// Collect sends the current value of every series to ch.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	for _, c := range m.collectors() {
		c.Collect(ch)
	}
}

// ObserveRequest counts one HTTP request to PowerDNS and its duration.
func (m *Metrics) ObserveRequest(e reconcile.RequestEvent) {
	if m.collectors() == nil {
		return
	}
	code := "error"
	if e.Status != 0 {
		code = strconv.Itoa(e.Status)
	}
	m.requests.WithLabelValues(e.Method, code).Inc()
	m.requestDuration.WithLabelValues(e.Method).Observe(e.Duration.Seconds())
}

// ObserveLock records one wait for a zone lock.
func (m *Metrics) ObserveLock(e reconcile.LockEvent) {
	if m.collectors() == nil {
		return
	}
	m.lockWait.WithLabelValues(strconv.FormatBool(e.Taken)).Observe(e.Wait.Seconds())
}

// ObserveOperation counts one operation, its duration and, for Sync, Apply
// and Remove, the outcome its Result reports.
func (m *Metrics) ObserveOperation(e reconcile.OperationEvent) {
	if m.collectors() == nil {
		return
	}
	m.operations.WithLabelValues(string(e.Operation), string(e.Reason)).Inc()
	m.operationDuration.WithLabelValues(string(e.Operation)).Observe(e.Duration.Seconds())
	switch e.Operation {
	case reconcile.OperationSync, reconcile.OperationApply, reconcile.OperationRemove:
		m.outcome(e.Result)
	}
}

// outcome counts what a Result of a writing operation reports.
func (m *Metrics) outcome(res reconcile.Result) {
	for _, c := range res.Applied {
		if c.Op.Valid() {
			m.changes.WithLabelValues(c.Op.String()).Inc()
		}
	}
	for _, c := range res.Blocked {
		m.blocked.WithLabelValues(string(c.Kind)).Inc()
	}
	for _, r := range res.Refused {
		m.refused.WithLabelValues(string(refusedReason(r))).Inc()
	}
	for _, d := range res.Deferred {
		m.deferred.WithLabelValues(string(d.Reason)).Inc()
	}
	if n := len(res.Postponed); n > 0 {
		m.postponed.Add(float64(n))
	}
}

// refusedReason is the reason a refused change is counted under: that of
// its first problem, so that a change counts once however many problems
// PowerDNS found in it, or Unknown when it has none.
func refusedReason(r reconcile.Refusal) pdnserrors.Reason {
	if len(r.Problems) == 0 || r.Problems[0].Reason == "" {
		return pdnserrors.Unknown
	}
	return r.Problems[0].Reason
}
