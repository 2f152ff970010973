package main

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/go-logr/logr/testr"
	"github.com/joeig/go-powerdns/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pdnsreconcile "github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/pdnstest"
)

// TestMigration follows the migration steps of docs/migrating.md. Records the
// controller wrote with its own client carry no owner: without adoption the
// library refuses them (NotOwner, nothing sent); a run with WithAdoption
// takes exactly the keys the objects name; report (Live) shows who holds
// what, the apex SOA and NS and a record written by hand still nobody's;
// once adoption is dropped the adopted RRsets are in sync, and a record
// nobody claims is refused again.
func TestMigration(t *testing.T) {
	pdnstest.ForEachServer(t, func(t *testing.T, srv *pdnstest.Server) {
		t.Parallel()
		e := newEnv(t, srv)
		legacy := func(name, typ, content string) {
			t.Helper()
			require.NoError(t, srv.Client.Records.Add(e.ctx(), e.zone, name+"."+e.zone, powerdns.RRType(typ), 300, []string{content}))
		}
		legacy("www", "A", "192.0.2.1")
		legacy("api", "TXT", `"v=1"`)
		legacy("by-hand", "A", "192.0.2.9")
		www := e.recordSet("www", DNSRecordSetSpec{Zone: e.zone, Name: "www", Type: "A", TTL: 300, Records: []string{"192.0.2.1"}})
		api := e.recordSet("api", DNSRecordSetSpec{Zone: e.zone, Name: "api", Type: "TXT", TTL: 300, Records: []string{`"v=2"`}})
		objs := []*DNSRecordSet{www, api}

		// Before: nobody's, so refused.
		for _, obj := range objs {
			e.reconcile(e.records, obj.Name)
			cond := e.programmed(obj)
			assert.Equal(t, string(pdnsreconcile.ReasonNotOwner), cond.Reason, cond.Message)
		}
		assert.Zero(t, e.calls.count(http.MethodPatch), "nothing sent")

		// Step 1: run with WithAdoption until every object was reconciled.
		adopting, err := newPowerDNS(srv.URL, srv.APIKey, testr.New(t), pdnsreconcile.WithAdoption())
		require.NoError(t, err)
		migrating := NewRecordSetReconciler(e.k8s, adopting, e.events)
		for _, obj := range objs {
			e.reconcile(migrating, obj.Name)
			cond := e.programmed(obj)
			assert.Equal(t, metav1.ConditionTrue, cond.Status, cond.Message)
		}

		// Step 2: who holds what.
		var out bytes.Buffer
		require.NoError(t, report(e.ctx(), &out, e.pdns, e.zone))
		holders := make(map[string]string)
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n")[1:] {
			f := strings.Fields(line)
			require.Len(t, f, 4, line)
			holders[f[0]+" "+f[1]] = f[2] + " " + f[3]
		}
		assert.Equal(t, map[string]string{
			"www." + e.zone + " A":     "dns-operator default/www",
			"api." + e.zone + " TXT":   "dns-operator default/api",
			"by-hand." + e.zone + " A": "- -",
			e.zone + " SOA":            "- -",
			e.zone + " NS":             "- -",
		}, holders, "adopted exactly the keys the objects name:\n%s", out.String())
		assert.Equal(t, []string{`"v=2"`}, e.live(e.zone)[e.key("api", "TXT")].Records, "and wrote the object's data")

		// Step 3: without adoption again, the adopted RRsets are the
		// controller's, in sync; a record nobody claims is refused.
		patches := e.calls.count(http.MethodPatch)
		for _, obj := range objs {
			e.reconcile(e.records, obj.Name)
			assert.Equal(t, metav1.ConditionTrue, e.programmed(obj).Status)
		}
		assert.Equal(t, patches, e.calls.count(http.MethodPatch), "in sync")
		byHand := e.recordSet("by-hand", DNSRecordSetSpec{Zone: e.zone, Name: "by-hand", Type: "A", TTL: 300, Records: []string{"192.0.2.10"}})
		e.reconcile(e.records, byHand.Name)
		assert.Equal(t, string(pdnsreconcile.ReasonNotOwner), e.programmed(byHand).Reason)
		assert.Equal(t, []string{"192.0.2.9"}, e.live(e.zone)[e.key("by-hand", "A")].Records)
	})
}
