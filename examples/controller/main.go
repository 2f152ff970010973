// Command controller is a small controller-runtime program that programs
// DNS objects into PowerDNS through github.com/pdnskit/reconcile, the way a
// DNS operator would drop the library in:
//
//   - DNSRecordSet (one object per RRset, eight reconciled at a time, the
//     objects asking for one RRset in turns, the oldest owning it): Apply
//     on create and update, Remove from a finalizer (recordset.go);
//   - DNSZone: EnsureZone, and DeleteZone from a finalizer (zone.go);
//   - both publish the library's Programmed condition (status.go) and
//     requeue when the library says, never through the rate limiter;
//   - -adopt and -report serve a migration from a hand-written PowerDNS
//     client (migrate.go);
//   - what the library does to PowerDNS is counted (package
//     github.com/pdnskit/reconcile/metrics) on the manager's metrics
//     endpoint, next to controller-runtime's own metrics.
//
// It needs a Kubernetes API server with the two CRDs installed, and a
// PowerDNS API (-pdns-url, key in PDNS_API_KEY). Its tests run the same
// reconcilers on controller-runtime's fake client against real PowerDNS
// servers (package pdnstest).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	pdnsreconcile "github.com/pdnskit/reconcile"
	pdnsmetrics "github.com/pdnskit/reconcile/metrics"
)

// Writer is the writer the controller records as the owner of what it
// writes in PowerDNS (the owner object, namespace/name, goes next to it).
const Writer = "dns-operator"

func main() {
	ctrl.SetLogger(zap.New())
	if err := run(); err != nil {
		ctrl.Log.Error(err, "controller stopped")
		os.Exit(1)
	}
}

func run() error {
	pdnsURL := flag.String("pdns-url", os.Getenv("PDNS_API_URL"), "PowerDNS API base URL, e.g. http://pdns.dns.svc:8081 (default $PDNS_API_URL)")
	leaderElect := flag.Bool("leader-elect", true, "run one active replica: only it reconciles objects")
	adopt := flag.Bool("adopt", false, "take over the RRsets the objects name that no writer claims (written before this library); for a migration, then turn off")
	reportZone := flag.String("report", "", "print who holds each RRset of this zone, and exit")
	flag.Parse()
	if *pdnsURL == "" {
		return errors.New("-pdns-url or PDNS_API_URL is required")
	}
	// The library's metrics go to the registry the manager serves.
	m := pdnsmetrics.New()
	if err := metrics.Registry.Register(m); err != nil {
		return fmt.Errorf("register PowerDNS metrics: %w", err)
	}
	opts := []pdnsreconcile.Option{pdnsreconcile.WithObserver(m)}
	if *adopt {
		opts = append(opts, pdnsreconcile.WithAdoption())
	}
	// The API key comes from the environment, never a flag, which any
	// process on the node could read.
	pdns, err := newPowerDNS(*pdnsURL, os.Getenv("PDNS_API_KEY"), ctrl.Log.WithName("powerdns"), opts...)
	if err != nil {
		return err
	}
	if *reportZone != "" {
		return report(context.Background(), os.Stdout, pdns, *reportZone)
	}

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return fmt.Errorf("register core kinds: %w", err)
	}
	if err := AddToScheme(scheme); err != nil {
		return fmt.Errorf("register DNS kinds: %w", err)
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return fmt.Errorf("kubeconfig: %w", err)
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:           scheme,
		LeaderElection:   *leaderElect,
		LeaderElectionID: "powerdns.dns.example.com",
	})
	if err != nil {
		return fmt.Errorf("new manager: %w", err)
	}

	if err := NewRecordSetReconciler(mgr.GetClient(), pdns, mgr.GetEventRecorderFor("dnsrecordset")).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("set up DNSRecordSet controller: %w", err)
	}
	if err := NewZoneReconciler(mgr.GetClient(), pdns).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("set up DNSZone controller: %w", err)
	}
	err = mgr.Start(ctrl.SetupSignalHandler())
	// Free the zone locks the Reconciler keeps between writes: left
	// behind, they keep other writers' creates waiting until the lock TTL.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return errors.Join(err, pdns.Close(ctx))
}

// newPowerDNS returns the one Reconciler both controllers share: one per
// PowerDNS server and writer, safe for concurrent use.
func newPowerDNS(url, apiKey string, log logr.Logger, opts ...pdnsreconcile.Option) (*pdnsreconcile.Reconciler, error) {
	r, err := pdnsreconcile.New(url, append([]pdnsreconcile.Option{
		pdnsreconcile.WithAPIKey(apiKey),
		pdnsreconcile.WithManagedBy(Writer),
		// The library logs through log/slog, controller-runtime through
		// logr: ToSlogHandler bridges the two, so the library's lines go
		// to the manager's logger with its name and values.
		pdnsreconcile.WithLogger(slog.New(logr.ToSlogHandler(log))),
	}, opts...)...)
	if err != nil {
		return nil, fmt.Errorf("powerdns reconciler: %w", err)
	}
	return r, nil
}
