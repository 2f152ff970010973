package reconcile_test

import (
	"context"
	"fmt"
	"time"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// Two writers share a zone: external-dns holds an address at v4, and
// gateway-dns wants a CNAME there. The CNAME is blocked before PowerDNS sees
// it, gateway-dns's other host is written, and gateway-dns is told to come
// back in ten minutes rather than retry at once.
func ExampleReconciler_Sync_powerDNS() {
	// The server and zone a controller is configured with; here, a real
	// PowerDNS started for the examples.
	srv, zone, done, err := exampleZone("example.com.")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	ctx := context.Background()

	externalDNS, err := reconcile.New(srv.URL,
		reconcile.WithAPIKey(srv.APIKey),
		reconcile.WithManagedBy("external-dns"))
	if err != nil {
		fmt.Println(err)
		return
	}
	v4, _ := rrset.New(zone, "v4", "A", 300, "192.0.2.1")
	res, err := externalDNS.Sync(ctx, zone, []rrset.RRset{v4})
	printSync("external-dns", res, err)

	gatewayDNS, err := reconcile.New(srv.URL,
		reconcile.WithAPIKey(srv.APIKey),
		reconcile.WithManagedBy("gateway-dns"))
	if err != nil {
		fmt.Println(err)
		return
	}
	cname, _ := rrset.New(zone, "v4", "CNAME", 300, "@")
	www, _ := rrset.New(zone, "www", "A", 300, "192.0.2.2")
	res, err = gatewayDNS.Sync(ctx, zone, []rrset.RRset{cname, www})
	printSync("gateway-dns", res, err)
	// Output:
	// external-dns: Programmed, resync in about 10m0s
	//   applied: + v4.example.com. 300 IN A 192.0.2.1
	// gateway-dns: Conflict, requeue after 10m0s
	//   applied: + www.example.com. 300 IN A 192.0.2.2
	//   blocked: v4.example.com. CNAME blocked: CNAME next to A held by external-dns
}

// Plan is a dry run: what Sync would do, with nothing written.
func ExampleReconciler_Plan_powerDNS() {
	srv, zone, done, err := exampleZone("example.org.")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	ctx := context.Background()

	r, err := reconcile.New(srv.URL,
		reconcile.WithAPIKey(srv.APIKey),
		reconcile.WithManagedBy("zonesync"))
	if err != nil {
		fmt.Println(err)
		return
	}
	www, _ := rrset.New(zone, "www", "A", 300, "192.0.2.1", "192.0.2.2")
	mail, _ := rrset.New(zone, "@", "MX", 3600, "10 mail.example.org.")
	plan, err := r.Plan(ctx, zone, []rrset.RRset{www, mail})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(plan.Plan)

	// Nothing was written: the same plan again.
	plan, _ = r.Plan(ctx, zone, []rrset.RRset{www, mail})
	fmt.Println(len(plan.Plan.Changes), "changes still to make")
	// Output:
	// Plan for example.org. by zonesync: 2 to create, 0 to update, 0 to delete.
	// + example.org. 3600 IN MX 10 mail.example.org.
	// + www.example.org. 300 IN A 192.0.2.1
	// + www.example.org. 300 IN A 192.0.2.2
	// 2 changes still to make
}

// A per-object controller applies one object's RRset and publishes what
// ConditionFor makes of the outcome; another writer's object asking for the
// same RRset is told NotOwner, and the object's finalizer removes it.
func ExampleReconciler_Apply_powerDNS() {
	srv, zone, done, err := exampleZone("example.net.")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	ctx := context.Background()
	newWriter := func(writer string) *reconcile.Reconciler {
		r, err := reconcile.New(srv.URL, reconcile.WithAPIKey(srv.APIKey), reconcile.WithManagedBy(writer))
		if err != nil {
			panic(err)
		}
		return r
	}
	dnsOperator, externalDNS := newWriter("dns-operator"), newWriter("external-dns")
	show := func(who string, res reconcile.Result, err error) {
		cond := reconcile.ConditionFor(res, err)
		fmt.Printf("%s: programmed=%t reason=%s changes=%d\n", who, cond.Programmed, cond.Reason, len(res.Applied))
	}

	www, _ := rrset.New(zone, "www", "A", 300, "192.0.2.1")
	res, err := dnsOperator.Apply(ctx, zone, www, reconcile.WithOwner("default/www"))
	show("apply default/www", res, err)

	res, err = externalDNS.Apply(ctx, zone, www)
	show("apply by external-dns", res, err)

	bad := rrset.RRset{Name: "www", Type: "A", TTL: 300, Records: []string{"not an address"}}
	res, err = dnsOperator.Apply(ctx, zone, bad, reconcile.WithOwner("default/bad"))
	show("apply default/bad", res, err)

	res, err = dnsOperator.Remove(ctx, zone, www.Key(), reconcile.WithOwner("default/www"))
	show("remove default/www", res, err)
	res, err = dnsOperator.Remove(ctx, zone, www.Key(), reconcile.WithOwner("default/www"))
	show("remove again", res, err)
	// Output:
	// apply default/www: programmed=true reason=Programmed changes=1
	// apply by external-dns: programmed=false reason=NotOwner changes=0
	// apply default/bad: programmed=false reason=InvalidInput changes=0
	// remove default/www: programmed=true reason=Programmed changes=1
	// remove again: programmed=true reason=Programmed changes=0
}

// Verify asks the server over DNS whether it serves what was written: a
// check for a controller's status, or for an operator after a migration.
func ExampleReconciler_Verify_powerDNS() {
	srv, zone, done, err := exampleZone("example.edu.")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	ctx := context.Background()

	r, err := reconcile.New(srv.URL,
		reconcile.WithAPIKey(srv.APIKey),
		reconcile.WithManagedBy("zonesync"),
		reconcile.WithDNSAddr(srv.DNSAddr)) // where the server answers DNS
	if err != nil {
		fmt.Println(err)
		return
	}
	www, _ := rrset.New(zone, "www", "A", 300, "192.0.2.1")
	if _, err := r.Sync(ctx, zone, []rrset.RRset{www}); err != nil {
		fmt.Println(err)
		return
	}
	res, err := r.Verify(ctx, zone, []rrset.RRset{www})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("checked %d, drift %d, pending %d\n", res.Checked, len(res.Drift), len(res.Pending))

	// What is not served is drift, unless it may only be cached.
	gone, _ := rrset.New(zone, "old", "A", 300, "192.0.2.9")
	res, err = r.Verify(ctx, zone, []rrset.RRset{gone})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("checked %d, drift %d, pending %d\n", res.Checked, len(res.Drift), len(res.Pending))
	// Output:
	// checked 1, drift 0, pending 0
	// checked 1, drift 1, pending 0
}

func printSync(writer string, res reconcile.Result, err error) {
	cond := reconcile.ConditionFor(res, err)
	if cond.Programmed {
		// In sync: come back at the resync interval, jittered by 10%.
		fmt.Printf("%s: %s, resync in about %s\n", writer, cond.Reason, res.RequeueAfter.Round(10*time.Minute))
	} else {
		fmt.Printf("%s: %s, requeue after %s\n", writer, cond.Reason, res.RequeueAfter)
	}
	for _, c := range res.Applied {
		fmt.Println("  applied:", c)
	}
	for _, c := range res.Blocked {
		fmt.Println("  blocked:", c)
	}
}

// exampleZone creates zone on a shared test server; done deletes it.
func exampleZone(zone string) (srv *pdnstest.Server, name string, done func(), err error) {
	srv, err = pdnstest.SharedServer()
	if err != nil {
		return nil, "", nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := srv.Client.Zones.AddNative(ctx, zone, false, "", false, "", "", false,
		[]string{"ns1.pdnstest.invalid."}); err != nil {
		return nil, "", nil, fmt.Errorf("create zone %s: %w", zone, err)
	}
	return srv, zone, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = srv.Client.Zones.Delete(ctx, zone)
	}, nil
}
