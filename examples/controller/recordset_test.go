package main

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	pdnsreconcile "github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// TestRecordSetsProgrammed: objects in any spelling are written, each as
// the controller's RRset owned by its object, and published Programmed;
// a second pass sends no PATCH and requeues for the resync.
func TestRecordSetsProgrammed(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		e := newEnv(t, srv)
		objs := map[string]DNSRecordSetSpec{
			"www":  {Zone: e.zone, Name: "WWW", Type: "a", TTL: 300, Records: []string{"192.0.2.2", "192.0.2.1"}},
			"apex": {Zone: e.zone, Name: "@", Type: "TXT", TTL: 300, Records: []string{`"v=spf1 -all"`}},
			"mail": {Zone: e.zone, Name: "mail." + e.zone, Type: "MX", TTL: 300, Records: []string{"10 mx.example.net"}},
			"api":  {Zone: e.zone, Name: "api", Type: "CNAME", TTL: 300, Records: []string{"www." + e.zone}},
		}
		for name, spec := range objs {
			obj := e.recordSet(name, spec)
			res := e.reconcile(e.records, name)
			assert.InDelta(t, float64(pdnsreconcile.DefaultResync), float64(res.RequeueAfter), float64(pdnsreconcile.DefaultResync/10),
				"%s: in sync, the resync requeue", name)
			cond := e.programmed(obj)
			assert.Equal(t, metav1.ConditionTrue, cond.Status, "%s: %s", name, cond.Message)
			assert.Equal(t, string(pdnsreconcile.ReasonProgrammed), cond.Reason)
			assert.True(t, controllerutil.ContainsFinalizer(obj, recordSetFinalizer), name)
		}

		live := e.live(e.zone)
		for key, want := range map[rrset.Key]struct {
			owner   string
			records []string
		}{
			e.key("www", "A"):     {"default/www", []string{"192.0.2.1", "192.0.2.2"}},
			e.key("@", "TXT"):     {"default/apex", []string{`"v=spf1 -all"`}},
			e.key("mail", "MX"):   {"default/mail", []string{"10 mx.example.net."}},
			e.key("api", "CNAME"): {"default/api", []string{"www." + e.zone}},
		} {
			rr, ok := live[key]
			require.True(t, ok, "%s not written", key)
			assert.Equal(t, Writer, rr.ManagedBy, "%s", key)
			assert.Equal(t, want.owner, rr.Owner, "%s", key)
			assert.Equal(t, want.records, rr.Records, "%s", key)
		}

		patches := e.calls.count(http.MethodPatch)
		for name := range objs {
			e.reconcile(e.records, name)
			assert.Equal(t, metav1.ConditionTrue, e.programmed(&DNSRecordSet{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}).Status)
		}
		assert.Equal(t, patches, e.calls.count(http.MethodPatch), "in sync: nothing sent")
	})
}

// TestRecordSetConflict replays the incident: a CNAME object next to
// another writer's A and AAAA is Conflict, requeued after the refusal
// interval with no error, and never sent, however often it is reconciled.
func TestRecordSetConflict(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		e := newEnv(t, srv)
		ext := e.otherWriter("external-dns")
		for _, rr := range []rrset.RRset{
			{Name: "v4.gw", Type: "A", TTL: 300, Records: []string{"192.0.2.1"}},
			{Name: "v6.gw", Type: "AAAA", TTL: 300, Records: []string{"2001:db8::1"}},
		} {
			res, err := ext.Apply(e.ctx(), e.zone, rr)
			require.NoError(t, err)
			require.Len(t, res.Applied, 1)
		}

		for _, host := range []string{"v4.gw", "v6.gw"} {
			obj := e.recordSet(host, DNSRecordSetSpec{Zone: e.zone, Name: host, Type: "CNAME", TTL: 300, Records: []string{"gw." + e.zone}})
			for range 3 {
				res := e.reconcile(e.records, host)
				assert.GreaterOrEqual(t, res.RequeueAfter, 10*time.Minute, "a conflict waits the refusal interval")
				cond := e.programmed(obj)
				assert.Equal(t, metav1.ConditionFalse, cond.Status)
				assert.Equal(t, string(pdnsreconcile.ReasonConflict), cond.Reason)
				assert.Contains(t, cond.Message, "external-dns", "the message names the other writer")
			}
		}
		assert.Zero(t, e.calls.count(http.MethodPatch), "a blocked write is never sent")

		live := e.live(e.zone)
		for _, host := range []string{"v4.gw", "v6.gw"} {
			assert.NotContains(t, live, e.key(host, "CNAME"))
		}
		assert.Equal(t, "external-dns", live[e.key("v4.gw", "A")].ManagedBy)
		assert.Equal(t, "external-dns", live[e.key("v6.gw", "AAAA")].ManagedBy)
	})
}

// TestOldestObjectOwns: of two objects asking for one RRset, in two
// spellings, the oldest owns it, whichever is reconciled first; the younger
// is NotOwner, set by the controller from the objects' ages, with nothing
// sent and no requeue.
func TestOldestObjectOwns(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		e := newEnv(t, srv)
		older := e.recordSet("www-a", DNSRecordSetSpec{Zone: e.zone, Name: "www", Type: "A", TTL: 300, Records: []string{"192.0.2.1"}})
		younger := e.recordSet("www-b", DNSRecordSetSpec{Zone: e.zone, Name: "WWW." + e.zone, Type: "A", TTL: 300, Records: []string{"192.0.2.2"}})

		res := e.reconcile(e.records, younger.Name)
		assert.Zero(t, res.RequeueAfter, "the owner's change or deletion wakes the younger object")
		assert.Zero(t, e.calls.count(""), "the controller arbitrates without asking PowerDNS")
		notOwner := func() {
			t.Helper()
			cond := e.programmed(younger)
			assert.Equal(t, metav1.ConditionFalse, cond.Status)
			assert.Equal(t, string(pdnsreconcile.ReasonNotOwner), cond.Reason)
			assert.Contains(t, cond.Message, "default/www-a")
		}
		notOwner()

		e.reconcile(e.records, older.Name)
		assert.Equal(t, metav1.ConditionTrue, e.programmed(older).Status)
		patches := e.calls.count(http.MethodPatch)
		e.reconcile(e.records, younger.Name)
		notOwner()
		assert.Equal(t, patches, e.calls.count(http.MethodPatch))

		rr := e.live(e.zone)[e.key("www", "A")]
		assert.Equal(t, []string{"192.0.2.1"}, rr.Records, "the older object's data")
		assert.Equal(t, "default/www-a", rr.Owner)
	})
}

// TestDeletingTheOwnerHandsOver: when the owning object goes, its RRset
// stays in PowerDNS (no delete is sent) and the next oldest object, woken
// by the watch, takes it over: a handover (Result.Handovers, published as
// an event), with its own data.
func TestDeletingTheOwnerHandsOver(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		e := newEnv(t, srv)
		owner := e.recordSet("www-a", DNSRecordSetSpec{Zone: e.zone, Name: "www", Type: "A", TTL: 300, Records: []string{"192.0.2.1"}})
		next := e.recordSet("www-b", DNSRecordSetSpec{Zone: e.zone, Name: "www", Type: "A", TTL: 300, Records: []string{"192.0.2.2"}})
		e.recordSet("api", DNSRecordSetSpec{Zone: e.zone, Name: "api", Type: "A", TTL: 300, Records: []string{"192.0.2.9"}})
		for _, name := range []string{"www-a", "www-b", "api"} {
			e.reconcile(e.records, name)
		}
		assert.Equal(t, string(pdnsreconcile.ReasonNotOwner), e.programmed(next).Reason)

		require.NoError(t, e.k8s.Delete(e.ctx(), owner))
		assert.Equal(t, []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: namespace, Name: "www-b"}}},
			e.claims.otherClaimants(e.ctx(), owner), "the deletion wakes the other object of the RRset, and only it")
		patches := e.calls.count(http.MethodPatch)
		e.reconcile(e.records, owner.Name)
		assert.True(t, e.gone(owner), "the finalizer is released")
		assert.Equal(t, patches, e.calls.count(http.MethodPatch), "nothing deleted")
		rr := e.live(e.zone)[e.key("www", "A")]
		assert.Equal(t, []string{"192.0.2.1"}, rr.Records, "still served")
		e.drainEvents()

		e.reconcile(e.records, next.Name)
		cond := e.programmed(next)
		assert.Equal(t, metav1.ConditionTrue, cond.Status, cond.Message)
		assert.Contains(t, cond.Message, "handed over from default/www-a to default/www-b")
		assert.Equal(t, []string{"Normal HandedOver www." + e.zone + " A handed over from default/www-a to default/www-b"}, e.drainEvents())
		rr = e.live(e.zone)[e.key("www", "A")]
		assert.Equal(t, []string{"192.0.2.2"}, rr.Records, "the new owner's data")
		assert.Equal(t, "default/www-b", rr.Owner)
	})
}

// TestDeletingTheLastRemoves: the finalizer of the last object asking for
// an RRset removes it, and then releases the object; other RRsets stay.
func TestDeletingTheLastRemoves(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		e := newEnv(t, srv)
		www := e.recordSet("www", DNSRecordSetSpec{Zone: e.zone, Name: "www", Type: "A", TTL: 300, Records: []string{"192.0.2.1"}})
		txt := e.recordSet("www-txt", DNSRecordSetSpec{Zone: e.zone, Name: "www", Type: "TXT", TTL: 300, Records: []string{`"hello"`}})
		e.reconcile(e.records, www.Name)
		e.reconcile(e.records, txt.Name)
		require.Contains(t, e.live(e.zone), e.key("www", "A"))

		require.NoError(t, e.k8s.Delete(e.ctx(), www))
		assert.False(t, e.gone(www), "held by the finalizer until the RRset is removed")
		res := e.reconcile(e.records, www.Name)
		assert.Zero(t, res.RequeueAfter)
		assert.True(t, e.gone(www))
		live := e.live(e.zone)
		assert.NotContains(t, live, e.key("www", "A"))
		assert.Contains(t, live, e.key("www", "TXT"), "another object's RRset at the name stays")
	})
}

// TestInvalidInput: data that cannot be written is InvalidInput, with no
// requeue (editing the object requeues it) and nothing sent; such an object
// is released at once when deleted.
func TestInvalidInput(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		e := newEnv(t, srv)
		for name, spec := range map[string]DNSRecordSetSpec{
			"bad-address": {Zone: e.zone, Name: "www", Type: "A", TTL: 300, Records: []string{"192.0.2.300"}},
			"bad-name":    {Zone: e.zone, Name: "a..b", Type: "A", TTL: 300, Records: []string{"192.0.2.1"}},
			"bad-type":    {Zone: e.zone, Name: "www", Type: "A B", TTL: 300, Records: []string{"192.0.2.1"}},
			"bad-mx":      {Zone: e.zone, Name: "mail", Type: "MX", TTL: 300, Records: []string{"mx.example.net."}},
			"bad-zone":    {Zone: "example..com", Name: "www", Type: "A", TTL: 300, Records: []string{"192.0.2.1"}},
		} {
			t.Run(name, func(t *testing.T) {
				obj := e.recordSet(name, spec)
				sent := e.calls.count("")
				res := e.reconcile(e.records, name)
				assert.Zero(t, res.RequeueAfter)
				assert.Equal(t, sent, e.calls.count(""), "nothing sent for bad data")
				cond := e.programmed(obj)
				assert.Equal(t, metav1.ConditionFalse, cond.Status)
				assert.Equal(t, string(pdnsreconcile.ReasonInvalidInput), cond.Reason, cond.Message)

				// Its key may hold data of an earlier, valid spec: the
				// finalizer removes whatever is there, then lets go.
				require.NoError(t, e.k8s.Delete(e.ctx(), obj))
				e.reconcile(e.records, name)
				assert.True(t, e.gone(obj))
			})
		}
	})
}

// TestWorkersAtOnce reconciles objects as the manager does with Workers
// workers: every object of a zone at once, three objects asking for each
// RRset, all reconciled twice in shuffled orders, then the oldest of each
// RRset deleted while the others are reconciled again. Every RRset ends
// with the oldest remaining object's data, each object Programmed or
// NotOwner, and no reconcile fails.
func TestWorkersAtOnce(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		e := newEnv(t, srv)
		const rrsets, claimants = 8, 3
		var objs []*DNSRecordSet
		for c := range claimants {
			for i := range rrsets {
				objs = append(objs, e.recordSet(fmt.Sprintf("host%d-%d", i, c), DNSRecordSetSpec{
					Zone: e.zone, Name: fmt.Sprintf("host%d", i), Type: "A", TTL: 300,
					Records: []string{fmt.Sprintf("192.0.2.%d", 10*c+i)},
				}))
			}
		}
		atOnce := func(names []string) {
			t.Helper()
			queue := make(chan string)
			errs := make(chan error, len(names))
			var wg sync.WaitGroup
			for range Workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for name := range queue {
						_, err := e.records.Reconcile(e.ctx(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: namespace, Name: name}})
						errs <- err
					}
				}()
			}
			for _, name := range names {
				queue <- name
			}
			close(queue)
			wg.Wait()
			close(errs)
			for err := range errs {
				require.NoError(t, err)
			}
		}
		// controller-runtime never reconciles one object twice at once.
		var names []string
		for _, o := range objs {
			names = append(names, o.Name)
		}
		for range 2 {
			rand.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
			atOnce(names)
		}
		for i := range rrsets {
			rr := e.live(e.zone)[e.key(fmt.Sprintf("host%d", i), "A")]
			assert.Equal(t, fmt.Sprintf("default/host%d-0", i), rr.Owner)
			assert.Equal(t, []string{fmt.Sprintf("192.0.2.%d", i)}, rr.Records)
		}

		// The oldest of each RRset goes; its finalizer and the others'
		// reconciles run at once, and the next oldest takes the RRset over.
		names = names[:0]
		for _, o := range objs {
			if strings.HasSuffix(o.Name, "-0") {
				require.NoError(t, e.k8s.Delete(e.ctx(), o))
			}
			names = append(names, o.Name)
		}
		rand.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
		atOnce(names)
		atOnce(names) // the watch's wake-ups
		for i := range rrsets {
			rr := e.live(e.zone)[e.key(fmt.Sprintf("host%d", i), "A")]
			assert.Equal(t, fmt.Sprintf("default/host%d-1", i), rr.Owner)
			assert.Equal(t, []string{fmt.Sprintf("192.0.2.%d", 10+i)}, rr.Records)
		}
		for _, o := range objs {
			if strings.HasSuffix(o.Name, "-0") {
				assert.True(t, e.gone(o), o.Name)
				continue
			}
			want := pdnsreconcile.ReasonNotOwner
			if strings.HasSuffix(o.Name, "-1") {
				want = pdnsreconcile.ReasonProgrammed
			}
			assert.Equal(t, string(want), e.programmed(o).Reason, o.Name)
		}
	})
}
