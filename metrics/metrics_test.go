package metrics_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/conflict"
	pdnserrors "github.com/pdnskit/reconcile/errors"
	"github.com/pdnskit/reconcile/metrics"
	"github.com/pdnskit/reconcile/rrset"
)

// series is one series of a family: its labels, its value (a counter's, or
// a histogram's sample count) and, for a histogram, its sum.
type series struct {
	labels map[string]string
	value  float64
	sum    float64
}

// gather returns the series of the family name in m.
func gather(t *testing.T, m *metrics.Metrics, name string) []series {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(m))
	families, err := reg.Gather()
	require.NoError(t, err)
	var out []series
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, mt := range f.GetMetric() {
			s := series{labels: map[string]string{}}
			for _, l := range mt.GetLabel() {
				s.labels[l.GetName()] = l.GetValue()
			}
			switch {
			case mt.GetCounter() != nil:
				s.value = mt.GetCounter().GetValue()
			case mt.GetHistogram() != nil:
				s.value = float64(mt.GetHistogram().GetSampleCount())
				s.sum = mt.GetHistogram().GetSampleSum()
			}
			out = append(out, s)
		}
	}
	return out
}

func change(t *testing.T, op rrset.Op, name string) rrset.Change {
	t.Helper()
	rs, err := rrset.New("example.com.", name, "A", 300, "192.0.2.1")
	require.NoError(t, err)
	switch op {
	case rrset.OpCreate:
		return rrset.Change{Op: op, New: &rs}
	case rrset.OpDelete:
		return rrset.Change{Op: op, Old: &rs}
	default:
		return rrset.Change{Op: op, Old: &rs, New: &rs}
	}
}

func TestObserveRequest(t *testing.T) {
	tests := []struct {
		name   string
		method string
		status int
		code   string
	}{
		{name: "ok", method: "GET", status: 200, code: "200"},
		{name: "no content", method: "PATCH", status: 204, code: "204"},
		{name: "refused", method: "PATCH", status: 422, code: "422"},
		{name: "no answer", method: "GET", status: 0, code: "error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := metrics.New()
			m.ObserveRequest(reconcile.RequestEvent{Method: tt.method, Status: tt.status, Duration: 20 * time.Millisecond})
			m.ObserveRequest(reconcile.RequestEvent{Method: tt.method, Status: tt.status, Duration: 30 * time.Millisecond})

			got := gather(t, m, "pdnskit_requests_total")
			require.Len(t, got, 1)
			assert.Equal(t, map[string]string{"method": tt.method, "code": tt.code}, got[0].labels)
			assert.InDelta(t, 2, got[0].value, 0)

			d := gather(t, m, "pdnskit_request_duration_seconds")
			require.Len(t, d, 1)
			assert.Equal(t, map[string]string{"method": tt.method}, d[0].labels)
			assert.InDelta(t, 2, d[0].value, 0)
			assert.InDelta(t, 0.05, d[0].sum, 1e-9)
		})
	}
}

func TestObserveLock(t *testing.T) {
	m := metrics.New()
	m.ObserveLock(reconcile.LockEvent{Wait: 10 * time.Millisecond, Taken: true})
	m.ObserveLock(reconcile.LockEvent{Wait: 20 * time.Millisecond, Taken: true})
	m.ObserveLock(reconcile.LockEvent{Wait: 3 * time.Second, Taken: false})

	got := gather(t, m, "pdnskit_lock_wait_seconds")
	require.Len(t, got, 2)
	byTaken := map[string]series{}
	for _, s := range got {
		byTaken[s.labels["taken"]] = s
	}
	assert.InDelta(t, 2, byTaken["true"].value, 0)
	assert.InDelta(t, 0.03, byTaken["true"].sum, 1e-9)
	assert.InDelta(t, 1, byTaken["false"].value, 0, "give-ups")
	assert.InDelta(t, 3, byTaken["false"].sum, 1e-9)
}

func TestObserveOperation(t *testing.T) {
	blocked := []conflict.Conflict{
		{Kind: conflict.CNAMEAndOtherData}, {Kind: conflict.CNAMEAndOtherData}, {Kind: conflict.NotOwner},
	}
	deferred := []reconcile.Deferral{{Reason: reconcile.DeferGate}, {Reason: reconcile.DeferGuard}, {Reason: reconcile.DeferGate}}
	tests := []struct {
		name   string
		event  func(t *testing.T) reconcile.OperationEvent
		counts map[string]map[string]float64 // family -> label value -> count
	}{{
		name: "sync applies, blocks, refuses and defers",
		event: func(t *testing.T) reconcile.OperationEvent {
			return reconcile.OperationEvent{
				Operation: reconcile.OperationSync, Reason: reconcile.ReasonConflict, Duration: time.Second,
				Result: reconcile.Result{
					Applied: []rrset.Change{
						change(t, rrset.OpCreate, "a"), change(t, rrset.OpCreate, "b"),
						change(t, rrset.OpUpdate, "c"), change(t, rrset.OpDelete, "d"),
					},
					Blocked: blocked,
					Refused: []reconcile.Refusal{
						{Change: change(t, rrset.OpCreate, "e"), Problems: []pdnserrors.Problem{
							{Reason: pdnserrors.InvalidContent}, {Reason: pdnserrors.DuplicateRecord},
						}},
						{Change: change(t, rrset.OpCreate, "f"), Problems: []pdnserrors.Problem{{Reason: pdnserrors.InvalidContent}}, Remembered: true},
						{Change: change(t, rrset.OpCreate, "g")},
					},
					Deferred: deferred,
				},
			}
		},
		counts: map[string]map[string]float64{
			"changes":   {"create": 2, "update": 1, "delete": 1},
			"blocked":   {"CNAMEAndOtherData": 2, "NotOwner": 1},
			"refused":   {"InvalidContent": 2, "Unknown": 1},
			"deferred":  {"AbsenceNotSustained": 2, "DeleteGuard": 1},
			"postponed": {"": 0},
		},
	}, {
		name: "apply postponed",
		event: func(t *testing.T) reconcile.OperationEvent {
			return reconcile.OperationEvent{
				Operation: reconcile.OperationApply, Reason: reconcile.ReasonPending,
				Result: reconcile.Result{
					Postponed:    []rrset.Change{change(t, rrset.OpCreate, "a"), change(t, rrset.OpUpdate, "b")},
					PostponedFor: []string{"other"},
				},
			}
		},
		counts: map[string]map[string]float64{
			"changes":   {"create": 0, "update": 0, "delete": 0},
			"postponed": {"": 2},
		},
	}, {
		name: "remove deletes",
		event: func(t *testing.T) reconcile.OperationEvent {
			return reconcile.OperationEvent{
				Operation: reconcile.OperationRemove, Reason: reconcile.ReasonProgrammed,
				Result: reconcile.Result{Applied: []rrset.Change{change(t, rrset.OpDelete, "a")}},
			}
		},
		counts: map[string]map[string]float64{
			"changes": {"create": 0, "update": 0, "delete": 1},
		},
	}, {
		name: "plan counts no outcome",
		event: func(t *testing.T) reconcile.OperationEvent {
			return reconcile.OperationEvent{
				Operation: reconcile.OperationPlan, Reason: reconcile.ReasonConflict,
				Result: reconcile.Result{
					Applied:   []rrset.Change{change(t, rrset.OpCreate, "a")},
					Blocked:   blocked,
					Refused:   []reconcile.Refusal{{Change: change(t, rrset.OpCreate, "e"), Remembered: true}},
					Deferred:  deferred,
					Postponed: []rrset.Change{change(t, rrset.OpCreate, "b")},
				},
			}
		},
		counts: map[string]map[string]float64{
			"changes":   {"create": 0, "update": 0, "delete": 0},
			"blocked":   {},
			"refused":   {},
			"deferred":  {},
			"postponed": {"": 0},
		},
	}, {
		name: "verify",
		event: func(*testing.T) reconcile.OperationEvent {
			return reconcile.OperationEvent{
				Operation: reconcile.OperationVerify, Reason: reconcile.ReasonPDNSError,
				Err: errors.New("verify: no answer"),
			}
		},
		counts: map[string]map[string]float64{
			"changes": {"create": 0, "update": 0, "delete": 0},
		},
	}}
	labelOf := map[string]string{"changes": "op", "blocked": "kind", "refused": "reason", "deferred": "reason"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := metrics.New()
			e := tt.event(t)
			m.ObserveOperation(e)

			ops := gather(t, m, "pdnskit_operations_total")
			require.Len(t, ops, 1)
			assert.Equal(t, map[string]string{"operation": string(e.Operation), "reason": string(e.Reason)}, ops[0].labels)
			assert.InDelta(t, 1, ops[0].value, 0)
			d := gather(t, m, "pdnskit_operation_duration_seconds")
			require.Len(t, d, 1)
			assert.Equal(t, map[string]string{"operation": string(e.Operation)}, d[0].labels)
			assert.InDelta(t, e.Duration.Seconds(), d[0].sum, 1e-9)

			for family, want := range tt.counts {
				name := "pdnskit_" + family + "_total"
				got := map[string]float64{}
				for _, s := range gather(t, m, name) {
					got[s.labels[labelOf[family]]] = s.value
				}
				assert.Equal(t, want, got, name)
			}
		})
	}
}

// TestExposition reads the counters as a scrape would, after events of
// every kind.
func TestExposition(t *testing.T) {
	m := metrics.New()
	m.ObserveRequest(reconcile.RequestEvent{Method: "GET", Status: 200})
	m.ObserveRequest(reconcile.RequestEvent{Method: "PATCH", Status: 204})
	m.ObserveRequest(reconcile.RequestEvent{Method: "GET", Status: 0})
	m.ObserveOperation(reconcile.OperationEvent{
		Operation: reconcile.OperationSync, Reason: reconcile.ReasonProgrammed,
		Result: reconcile.Result{Applied: []rrset.Change{change(t, rrset.OpCreate, "a")}},
	})
	m.ObserveOperation(reconcile.OperationEvent{
		Operation: reconcile.OperationEnsureZone, Reason: reconcile.ReasonProgrammed,
	})
	want := `
# HELP pdnskit_requests_total HTTP requests to the PowerDNS API, retries included, by method and status (error: no answer).
# TYPE pdnskit_requests_total counter
pdnskit_requests_total{code="200",method="GET"} 1
pdnskit_requests_total{code="204",method="PATCH"} 1
pdnskit_requests_total{code="error",method="GET"} 1
# HELP pdnskit_operations_total Reconciler operations that returned, by operation and the condition reason of their outcome.
# TYPE pdnskit_operations_total counter
pdnskit_operations_total{operation="ensure_zone",reason="Programmed"} 1
pdnskit_operations_total{operation="sync",reason="Programmed"} 1
# HELP pdnskit_changes_total RRset changes PowerDNS accepted, by op (create, update, delete).
# TYPE pdnskit_changes_total counter
pdnskit_changes_total{op="create"} 1
pdnskit_changes_total{op="delete"} 0
pdnskit_changes_total{op="update"} 0
# HELP pdnskit_postponed_total Changes not sent because another writer held the zone lock.
# TYPE pdnskit_postponed_total counter
pdnskit_postponed_total 0
`
	require.NoError(t, testutil.CollectAndCompare(m, strings.NewReader(want),
		"pdnskit_requests_total", "pdnskit_operations_total", "pdnskit_changes_total",
		"pdnskit_postponed_total", "pdnskit_blocked_total"))
	assert.Equal(t, 3+2+2+2+3+1, testutil.CollectAndCount(m), "series of every family")
}

// TestLint checks the families against Prometheus's naming conventions.
func TestLint(t *testing.T) {
	m := metrics.New()
	m.ObserveRequest(reconcile.RequestEvent{Method: "GET", Status: 200})
	m.ObserveLock(reconcile.LockEvent{Taken: true})
	m.ObserveOperation(reconcile.OperationEvent{
		Operation: reconcile.OperationSync, Reason: reconcile.ReasonConflict,
		Result: reconcile.Result{
			Blocked:   []conflict.Conflict{{Kind: conflict.NotOwner}},
			Refused:   []reconcile.Refusal{{}},
			Deferred:  []reconcile.Deferral{{Reason: reconcile.DeferGate}},
			Postponed: []rrset.Change{{}},
		},
	})
	problems, err := testutil.CollectAndLint(m)
	require.NoError(t, err)
	assert.Empty(t, problems)
	assert.Equal(t, 10, countFamilies(t, m), "every family has a series")
}

func countFamilies(t *testing.T, m *metrics.Metrics) int {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(m))
	families, err := reg.Gather()
	require.NoError(t, err)
	return len(families)
}

// TestInvalidChangeNotCounted: a change whose op is invalid has no label
// value to be counted under.
func TestInvalidChangeNotCounted(t *testing.T) {
	m := metrics.New()
	m.ObserveOperation(reconcile.OperationEvent{
		Operation: reconcile.OperationSync,
		Result:    reconcile.Result{Applied: []rrset.Change{{}}},
	})
	for _, s := range gather(t, m, "pdnskit_changes_total") {
		assert.Zero(t, s.value, s.labels)
	}
}

func TestZeroMetricsObservesNothing(t *testing.T) {
	for _, m := range []*metrics.Metrics{nil, {}} {
		m.ObserveRequest(reconcile.RequestEvent{Method: "GET", Status: 200})
		m.ObserveLock(reconcile.LockEvent{Taken: true})
		m.ObserveOperation(reconcile.OperationEvent{Operation: reconcile.OperationSync})
		assert.Zero(t, testutil.CollectAndCount(m))
	}
}

func TestConstLabels(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	a := metrics.New(metrics.WithConstLabels(prometheus.Labels{"server": "a"}))
	b := metrics.New(metrics.WithConstLabels(prometheus.Labels{"server": "b"}))
	require.NoError(t, reg.Register(a))
	require.NoError(t, reg.Register(b), "different const labels tell the two apart")
	a.ObserveRequest(reconcile.RequestEvent{Method: "GET", Status: 200})

	want := `
# HELP pdnskit_requests_total HTTP requests to the PowerDNS API, retries included, by method and status (error: no answer).
# TYPE pdnskit_requests_total counter
pdnskit_requests_total{code="200",method="GET",server="a"} 1
`
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(want), "pdnskit_requests_total"))

	err := reg.Register(metrics.New(metrics.WithConstLabels(prometheus.Labels{"server": "a"})))
	var already prometheus.AlreadyRegisteredError
	require.ErrorAs(t, err, &already, "the same const labels twice")

	err = prometheus.NewRegistry().Register(metrics.New(metrics.WithConstLabels(prometheus.Labels{"code": "x"})))
	require.Error(t, err, "a label name of a family")
}
