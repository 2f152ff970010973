package main

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	pdnsreconcile "github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

func TestMain(m *testing.M) { pdnstest.Main(m) }

// namespace holds every object of the tests.
const namespace = "default"

// env is one test's cluster (controller-runtime's fake client, with the
// index and status subresources a manager would have) and its controllers,
// writing into a real PowerDNS server.
type env struct {
	t      *testing.T
	srv    *pdnstest.Server
	zone   string
	k8s    client.Client
	pdns   *pdnsreconcile.Reconciler
	calls  *calls
	events *record.FakeRecorder

	records reconcile.Reconciler
	zones   reconcile.Reconciler
	claims  *RecordSetReconciler
	created time.Time
}

func newEnv(t *testing.T, srv *pdnstest.Server) *env {
	t.Helper()
	scheme := runtime.NewScheme()
	require.NoError(t, AddToScheme(scheme))
	k8s := fake.NewClientBuilder().
		WithScheme(scheme).
		WithStatusSubresource(&DNSRecordSet{}, &DNSZone{}).
		WithIndex(&DNSRecordSet{}, rrsetKeyField, indexRRsetKey).
		Build()

	c := &calls{base: http.DefaultTransport, byMethod: make(map[string]int)}
	pdns, err := newPowerDNS(srv.URL, srv.APIKey, testr.New(t),
		pdnsreconcile.WithHTTPClient(&http.Client{Transport: c, Timeout: 30 * time.Second}))
	require.NoError(t, err)
	events := record.NewFakeRecorder(100)
	records := NewRecordSetReconciler(k8s, pdns, events)
	return &env{
		t: t, srv: srv, zone: srv.NewZone(t), k8s: k8s, pdns: pdns, calls: c, events: events,
		records: records, zones: NewZoneReconciler(k8s, pdns), claims: records,
		// Object ages a minute apart, as the API server would stamp them
		// (the fake client stamps none).
		created: time.Date(2025, 8, 1, 12, 0, 0, 0, time.UTC),
	}
}

// ctx is a context for one step, carrying the test's logger as
// controller-runtime hands one to Reconcile.
func (e *env) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	e.t.Cleanup(cancel)
	return log.IntoContext(ctx, testr.New(e.t))
}

// recordSet creates a DNSRecordSet, a minute younger than the one before.
func (e *env) recordSet(name string, spec DNSRecordSetSpec) *DNSRecordSet {
	e.t.Helper()
	e.created = e.created.Add(time.Minute)
	obj := &DNSRecordSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, CreationTimestamp: metav1.NewTime(e.created)},
		Spec:       spec,
	}
	require.NoError(e.t, e.k8s.Create(e.ctx(), obj))
	return obj
}

// reconcile runs r for the object name, as the manager would; it never
// hands back an error in these tests (PowerDNS's errors go to the
// condition, and the fake API server does not fail).
func (e *env) reconcile(r reconcile.Reconciler, name string) reconcile.Result {
	e.t.Helper()
	res, err := r.Reconcile(e.ctx(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: namespace, Name: name}})
	require.NoError(e.t, err)
	return res
}

// programmed reads the object's Programmed condition.
func (e *env) programmed(obj client.Object) metav1.Condition {
	e.t.Helper()
	require.NoError(e.t, e.k8s.Get(e.ctx(), client.ObjectKeyFromObject(obj), obj))
	var conds []metav1.Condition
	switch o := obj.(type) {
	case *DNSRecordSet:
		conds = o.Status.Conditions
	case *DNSZone:
		conds = o.Status.Conditions
	}
	c := meta.FindStatusCondition(conds, pdnsreconcile.ConditionType)
	require.NotNil(e.t, c, "%s has no Programmed condition", obj.GetName())
	return *c
}

// gone reports whether the object has left the cluster.
func (e *env) gone(obj client.Object) bool {
	e.t.Helper()
	err := e.k8s.Get(e.ctx(), client.ObjectKeyFromObject(obj), obj)
	if err == nil {
		return false
	}
	require.True(e.t, client.IgnoreNotFound(err) == nil, "get %s: %v", obj.GetName(), err)
	return true
}

// live reads what the zone holds, with writer and owner, by key.
func (e *env) live(zone string) map[rrset.Key]rrset.RRset {
	e.t.Helper()
	rrs, err := e.pdns.Live(e.ctx(), zone)
	require.NoError(e.t, err)
	out := make(map[rrset.Key]rrset.RRset, len(rrs))
	for _, rr := range rrs {
		out[rr.Key()] = rr
	}
	return out
}

// key spells a key of the test's zone.
func (e *env) key(name, typ string) rrset.Key {
	e.t.Helper()
	n, err := rrset.CanonicalName(e.zone, name)
	require.NoError(e.t, err)
	return rrset.Key{Name: n, Type: typ}
}

// otherWriter is a second writer on the same server, such as external-dns.
func (e *env) otherWriter(name string) *pdnsreconcile.Reconciler {
	e.t.Helper()
	r, err := pdnsreconcile.New(e.srv.URL, pdnsreconcile.WithAPIKey(e.srv.APIKey), pdnsreconcile.WithManagedBy(name))
	require.NoError(e.t, err)
	return r
}

// drainEvents returns the events recorded so far.
func (e *env) drainEvents() []string {
	var out []string
	for {
		select {
		case ev := <-e.events.Events:
			out = append(out, ev)
		default:
			return out
		}
	}
}

// calls is the transport of the controllers' Reconciler: it counts the
// requests sent to PowerDNS, by method.
type calls struct {
	base     http.RoundTripper
	mu       sync.Mutex
	byMethod map[string]int
}

func (c *calls) RoundTrip(req *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.byMethod[req.Method]++
	c.mu.Unlock()
	return c.base.RoundTrip(req)
}

// count returns the requests sent with method, or all of them for "".
func (c *calls) count(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if method != "" {
		return c.byMethod[method]
	}
	n := 0
	for _, v := range c.byMethod {
		n += v
	}
	return n
}
