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
		assert.Equal(t, string(ReasonZoneInUse), cond.Reason)
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
// first creates it and its apex is recorded for it; the second finds it
// existing, and its deletion releases the object and leaves the zone,
// which the first one's deletion then deletes.
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
		assert.Equal(t, "zone exists", e.programmed(teamA).Message)
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
