package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	pdnsreconcile "github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// TestZoneLifecycle: a DNSZone creates its zone; its deletion is refused
// (ZoneInUse, the object kept) while another writer's RRsets remain, the
// controller's own do not hold it back, and once they are gone the zone is
// deleted and the object released.
func TestZoneLifecycle(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		e := newEnv(t, srv)
		zone := "ctl-" + e.zone
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_ = srv.Client.Zones.Delete(ctx, zone) // left by a failed test; absent otherwise
		})
		z := &DNSZone{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "example"},
			// Spelled as a user might: the library canonicalises.
			Spec: DNSZoneSpec{DomainName: strings.ToUpper(strings.TrimSuffix(zone, ".")), Nameservers: []string{"ns1.example.net"}},
		}
		require.NoError(t, e.k8s.Create(e.ctx(), z))

		res := e.reconcile(e.zones, z.Name)
		assert.Zero(t, res.RequeueAfter)
		cond := e.programmed(z)
		assert.Equal(t, metav1.ConditionTrue, cond.Status, cond.Message)
		assert.Equal(t, "zone created", cond.Message)
		_, err := srv.Client.Zones.Get(e.ctx(), zone)
		require.NoError(t, err, "the zone exists")
		e.reconcile(e.zones, z.Name)
		assert.Equal(t, "zone exists", e.programmed(z).Message)

		e.recordSet("www", DNSRecordSetSpec{Zone: zone, Name: "www", Type: "A", TTL: 300, Records: []string{"192.0.2.1"}})
		e.reconcile(e.records, "www")
		ext := e.otherWriter("external-dns")
		theirs := rrset.RRset{Name: "theirs", Type: "A", TTL: 300, Records: []string{"192.0.2.2"}}
		_, err = ext.Apply(e.ctx(), zone, theirs)
		require.NoError(t, err)

		require.NoError(t, e.k8s.Delete(e.ctx(), z))
		res = e.reconcile(e.zones, z.Name)
		assert.GreaterOrEqual(t, res.RequeueAfter, 10*time.Minute)
		assert.False(t, e.gone(z), "kept while the zone is in use")
		cond = e.programmed(z)
		assert.Equal(t, metav1.ConditionFalse, cond.Status)
		assert.Equal(t, string(pdnsreconcile.ReasonZoneInUse), cond.Reason)
		assert.Contains(t, cond.Message, "external-dns")
		_, err = srv.Client.Zones.Get(e.ctx(), zone)
		require.NoError(t, err, "the zone stays")

		k, err := rrset.CanonicalName(zone, "theirs")
		require.NoError(t, err)
		_, err = ext.Remove(e.ctx(), zone, rrset.Key{Name: k, Type: "A"})
		require.NoError(t, err)
		res = e.reconcile(e.zones, z.Name)
		assert.Zero(t, res.RequeueAfter)
		assert.True(t, e.gone(z), "released once the zone is deleted")
		_, err = srv.Client.Zones.Get(e.ctx(), zone)
		assert.Error(t, err, "the zone is deleted")
	})
}

// TestZoneSharedName: two DNSZones in two namespaces name one zone. The
// first creates it and is recorded as its maker; the second finds it
// another's (NotOwner), and its deletion releases the object and leaves
// the zone, which the first one's deletion then deletes.
func TestZoneSharedName(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		e := newEnv(t, srv)
		zone := "shared-" + e.zone
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_ = srv.Client.Zones.Delete(ctx, zone) // left by a failed test; absent otherwise
		})
		spec := DNSZoneSpec{DomainName: zone, Nameservers: []string{"ns1.example.net"}}
		clusterWide := &DNSZone{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "example"}, Spec: spec}
		teamA := &DNSZone{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "example"}, Spec: spec}
		require.NoError(t, e.k8s.Create(e.ctx(), clusterWide))
		require.NoError(t, e.k8s.Create(e.ctx(), teamA))
		reconcileZone := func(z *DNSZone) reconcile.Result {
			t.Helper()
			res, err := e.zones.Reconcile(e.ctx(), reconcile.Request{NamespacedName: client.ObjectKeyFromObject(z)})
			require.NoError(t, err)
			return res
		}

		reconcileZone(clusterWide)
		assert.Equal(t, "zone created", e.programmed(clusterWide).Message)
		reconcileZone(teamA)
		cond := e.programmed(teamA)
		assert.Equal(t, string(pdnsreconcile.ReasonNotOwner), cond.Reason, cond.Message)
		assert.Contains(t, cond.Message, clusterWide.Ref())
		live, err := e.pdns.Live(e.ctx(), zone)
		require.NoError(t, err)
		for _, rr := range live {
			assert.Equal(t, clusterWide.Ref(), rr.Owner, "%s %s is recorded for the object that created the zone", rr.Name, rr.Type)
		}

		require.NoError(t, e.k8s.Delete(e.ctx(), teamA))
		res := reconcileZone(teamA)
		assert.Zero(t, res.RequeueAfter)
		assert.True(t, e.gone(teamA), "released without deleting the zone")
		_, err = srv.Client.Zones.Get(e.ctx(), zone)
		require.NoError(t, err, "the zone stays: another object created it")

		require.NoError(t, e.k8s.Delete(e.ctx(), clusterWide))
		res = reconcileZone(clusterWide)
		assert.Zero(t, res.RequeueAfter)
		assert.True(t, e.gone(clusterWide))
		_, err = srv.Client.Zones.Get(e.ctx(), zone)
		assert.Error(t, err, "deleted by the object that created it")
	})
}

// TestZoneInvalidInput: a spec that cannot be created is InvalidInput with
// no requeue, and the object is released at once when deleted.
func TestZoneInvalidInput(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		e := newEnv(t, srv)
		z := &DNSZone{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "bad"},
			Spec:       DNSZoneSpec{DomainName: "ctl-" + e.zone, Kind: "Primary"},
		}
		require.NoError(t, e.k8s.Create(e.ctx(), z))
		res := e.reconcile(e.zones, z.Name)
		assert.Zero(t, res.RequeueAfter)
		cond := e.programmed(z)
		assert.Equal(t, metav1.ConditionFalse, cond.Status)
		assert.Equal(t, string(pdnsreconcile.ReasonInvalidInput), cond.Reason, cond.Message)
		assert.Zero(t, e.calls.count(""), "nothing sent")

		require.NoError(t, e.k8s.Delete(e.ctx(), z))
		e.reconcile(e.zones, z.Name)
		assert.True(t, e.gone(z))
	})
}

// TestZoneWholeLife is dns-operator's life of a zone: a DNSZone with an
// account, and its "soa" and "ns" DNSRecordSets, which hold the apex SOA and
// NS without taking the zone. The DNSZone changes the zone's account (its
// nameservers go through its "ns" object, as dns-operator replicates them);
// a second DNSZone of the same name in another namespace changes and
// deletes nothing; the record sets' deletion lets the apex go, and the
// DNSZone's deletion deletes the zone: nothing is left.
func TestZoneWholeLife(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		e := newEnv(t, srv)
		zone := "life-" + e.zone
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_ = srv.Client.Zones.Delete(ctx, zone) // left by a failed test; absent otherwise
		})
		reconcileZone := func(z *DNSZone) reconcile.Result {
			t.Helper()
			res, err := e.zones.Reconcile(e.ctx(), reconcile.Request{NamespacedName: client.ObjectKeyFromObject(z)})
			require.NoError(t, err)
			return res
		}
		z := &DNSZone{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: "example"},
			Spec:       DNSZoneSpec{DomainName: zone, Nameservers: []string{"ns1.example.net."}, Account: "team-a"},
		}
		require.NoError(t, e.k8s.Create(e.ctx(), z))
		reconcileZone(z)
		cond := e.programmed(z)
		require.Equal(t, metav1.ConditionTrue, cond.Status, cond.Message)
		assert.Equal(t, "zone created", cond.Message)

		// The zone's "soa" and "ns" objects, as dns-operator makes them.
		soa := e.recordSet("soa", DNSRecordSetSpec{Zone: zone, Name: "@", Type: "SOA", TTL: 3600,
			Records: []string{"ns1.example.net. hostmaster.example.net. 1 10800 3600 604800 3600"}})
		ns := e.recordSet("ns", DNSRecordSetSpec{Zone: zone, Name: "@", Type: "NS", TTL: 3600, Records: []string{"ns1.example.net."}})
		for _, obj := range []*DNSRecordSet{soa, ns} {
			e.reconcile(e.records, obj.Name)
			cond := e.programmed(obj)
			assert.Equal(t, metav1.ConditionTrue, cond.Status, "%s: %s", obj.Name, cond.Message)
		}
		live := e.live(zone)
		assert.Equal(t, soa.Ref(), live[rrset.Key{Name: zone, Type: "SOA"}].Owner)
		assert.Equal(t, ns.Ref(), live[rrset.Key{Name: zone, Type: "NS"}].Owner)

		// New nameservers and account: the "ns" object writes the NS, the
		// DNSZone, still the zone's maker, its account.
		nameservers := []string{"ns1.example.net.", "ns2.example.net."}
		ns.Spec.Records = nameservers
		require.NoError(t, e.k8s.Update(e.ctx(), ns))
		e.reconcile(e.records, ns.Name)
		z.Spec.Nameservers, z.Spec.Account = nameservers, "team-b"
		require.NoError(t, e.k8s.Update(e.ctx(), z))
		reconcileZone(z)
		cond = e.programmed(z)
		assert.Equal(t, metav1.ConditionTrue, cond.Status, cond.Message)
		assert.Equal(t, "zone exists; changed: account", cond.Message)
		pz, err := srv.Client.Zones.Get(e.ctx(), zone)
		require.NoError(t, err)
		assert.Equal(t, "team-b", *pz.Account)
		assert.Equal(t, nameservers, e.live(zone)[rrset.Key{Name: zone, Type: "NS"}].Records)

		// A second DNSZone of the name, in another namespace: NotOwner,
		// nothing changed, and its deletion leaves the zone.
		twin := &DNSZone{
			ObjectMeta: metav1.ObjectMeta{Namespace: "team-c", Name: "example"},
			Spec:       DNSZoneSpec{DomainName: zone, Nameservers: []string{"ns3.example.net."}, Account: "team-c"},
		}
		require.NoError(t, e.k8s.Create(e.ctx(), twin))
		reconcileZone(twin)
		cond = e.programmed(twin)
		assert.Equal(t, string(pdnsreconcile.ReasonNotOwner), cond.Reason, cond.Message)
		pz, err = srv.Client.Zones.Get(e.ctx(), zone)
		require.NoError(t, err)
		assert.Equal(t, "team-b", *pz.Account)
		assert.Equal(t, nameservers, e.live(zone)[rrset.Key{Name: zone, Type: "NS"}].Records)
		require.NoError(t, e.k8s.Delete(e.ctx(), twin))
		reconcileZone(twin)
		assert.True(t, e.gone(twin))
		_, err = srv.Client.Zones.Get(e.ctx(), zone)
		require.NoError(t, err, "the zone stays: the twin did not make it")

		// The record sets go: the apex stays as long as its zone.
		for _, obj := range []*DNSRecordSet{soa, ns} {
			require.NoError(t, e.k8s.Delete(e.ctx(), obj))
			e.reconcile(e.records, obj.Name)
			assert.True(t, e.gone(obj), obj.Name)
		}
		live = e.live(zone)
		assert.Contains(t, live, rrset.Key{Name: zone, Type: "SOA"})
		assert.Contains(t, live, rrset.Key{Name: zone, Type: "NS"})

		// The DNSZone goes, and its zone with it.
		require.NoError(t, e.k8s.Delete(e.ctx(), z))
		res := reconcileZone(z)
		assert.Zero(t, res.RequeueAfter)
		assert.True(t, e.gone(z))
		_, err = srv.Client.Zones.Get(e.ctx(), zone)
		assert.Error(t, err, "the zone is deleted, nothing left behind")
	})
}
