package metrics_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/metrics"
	"github.com/pdnskit/reconcile/pdnstest"
	"github.com/pdnskit/reconcile/rrset"
)

// Three lines give a Reconciler's metrics to a registry: make them,
// register them, and pass them to reconcile.New. The program then serves
// the registry, as it does its other metrics.
func ExampleNew_powerDNS() {
	// The server and zone a controller is configured with; here, a real
	// PowerDNS started for the examples.
	srv, zone, done, err := exampleZone("metrics.example.")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	registry := prometheus.NewRegistry()

	m := metrics.New()
	registry.MustRegister(m)
	r, err := reconcile.New(srv.URL,
		reconcile.WithAPIKey(srv.APIKey),
		reconcile.WithManagedBy("zonesync"),
		reconcile.WithObserver(m))
	if err != nil {
		fmt.Println(err)
		return
	}

	www, _ := rrset.New(zone, "www", "A", 300, "192.0.2.1")
	mail, _ := rrset.New(zone, "@", "MX", 3600, "10 mail.example.org.")
	if _, err := r.Sync(context.Background(), zone, []rrset.RRset{www, mail}); err != nil {
		fmt.Println(err)
		return
	}
	printFamilies(registry, "pdnskit_operations_total", "pdnskit_changes_total")
	// Output:
	// pdnskit_operations_total{operation="sync",reason="Programmed"} 1
	// pdnskit_changes_total{op="create"} 2
	// pdnskit_changes_total{op="delete"} 0
	// pdnskit_changes_total{op="update"} 0
}

// printFamilies prints the series of the named families, as a scrape
// shows them.
func printFamilies(g prometheus.Gatherer, names ...string) {
	families, err := g.Gather()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range names {
		for _, f := range families {
			if f.GetName() != name {
				continue
			}
			for _, m := range f.GetMetric() {
				var labels []string
				for _, l := range m.GetLabel() {
					labels = append(labels, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
				}
				sort.Strings(labels)
				fmt.Printf("%s{%s} %g\n", name, strings.Join(labels, ","), m.GetCounter().GetValue())
			}
		}
	}
}

// exampleZone creates zone on the first shared server, and returns a
// function that deletes it.
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
