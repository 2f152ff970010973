package bench

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/joeig/go-powerdns/v3"

	"github.com/pdnskit/reconcile"
	"github.com/pdnskit/reconcile/rrset"
)

// SyncWriter writes with Reconciler.Sync, as ManagedBy, with the deletion gate
// and the delete guard open so that a sync that drops 10% of the RRsets
// deletes them at once.
type SyncWriter struct {
	rec     *reconcile.Reconciler
	counter *Counter
}

var _ Writer = (*SyncWriter)(nil)

// NewSyncWriter returns a SyncWriter for the server at url that sends PATCH
// bodies of up to maxPatchBytes (the server's webserver-max-bodysize).
func NewSyncWriter(url, apiKey string, base http.RoundTripper, maxPatchBytes int) (*SyncWriter, error) {
	counter := NewCounter(base)
	rec, err := reconcile.New(url,
		reconcile.WithAPIKey(apiKey),
		reconcile.WithManagedBy(ManagedBy),
		reconcile.WithHTTPClient(&http.Client{Transport: counter}),
		reconcile.WithDeletionGate(1, 0),
		reconcile.WithDeleteGuard(1, 0),
		reconcile.WithMaxPatchBytes(maxPatchBytes),
	)
	if err != nil {
		return nil, fmt.Errorf("new reconciler: %w", err)
	}
	return &SyncWriter{rec: rec, counter: counter}, nil
}

// ID implements Writer.
func (w *SyncWriter) ID() WriterID { return Sync }

// Counter implements Writer.
func (w *SyncWriter) Counter() *Counter { return w.counter }

// Prepare implements Writer. The desired RRsets are handed over as a
// controller has them (names relative to the zone); Sync canonicalises them
// itself, inside the timed part.
func (w *SyncWriter) Prepare(_ context.Context, c Case) (func(context.Context) error, error) {
	desired := make([]rrset.RRset, len(c.Desired))
	for i, s := range c.Desired {
		desired[i] = rrset.RRset{Name: s.Name, Type: s.Type, TTL: s.TTL, Records: slices.Clone(s.Records)}
	}
	want := len(c.Changes)
	return func(ctx context.Context) error {
		res, err := w.rec.Sync(ctx, Zone, desired)
		if err != nil {
			return fmt.Errorf("sync: %w", err)
		}
		if n := len(res.Blocked) + len(res.Refused) + len(res.Deferred); n > 0 || len(res.Applied) != want {
			return fmt.Errorf("sync applied %d changes, want %d (blocked %d, refused %d, deferred %d)",
				len(res.Applied), want, len(res.Blocked), len(res.Refused), len(res.Deferred))
		}
		if got := w.counter.Counts().Requests[http.MethodPatch]; got != res.Patches {
			return fmt.Errorf("sync reports %d PATCHes, %d were sent", res.Patches, got)
		}
		return nil
	}, nil
}

// Ownership returns the comments the reconciler records on an RRset it
// writes, read back from the server: the other writers write the same, so
// that every writer leaves the same zone and the reconciler finds the
// RRsets of the start state its own. It writes one RRset into a fresh zone,
// which also makes the reconciler learn the server's ownership store before
// anything is timed.
func (w *SyncWriter) Ownership(ctx context.Context, admin *Admin) ([]powerdns.Comment, error) {
	if err := admin.Reset(ctx, Zone, nil); err != nil {
		return nil, err
	}
	probe := Workload(1)[0]
	if _, err := w.rec.Sync(ctx, Zone, []rrset.RRset{{Name: probe.Name, Type: probe.Type, TTL: probe.TTL, Records: probe.Records}}); err != nil {
		return nil, fmt.Errorf("sync probe RRset: %w", err)
	}
	live, err := admin.RRsets(ctx, Zone)
	if err != nil {
		return nil, err
	}
	for _, rr := range live {
		if rr.Name == nil || *rr.Name != probe.FQDN() {
			continue
		}
		if len(rr.Comments) == 0 {
			return nil, fmt.Errorf("the reconciler recorded no ownership comment on %s: the benchmark needs a backend that keeps comments (gsqlite3)", probe.FQDN())
		}
		owner := make([]powerdns.Comment, len(rr.Comments))
		for i, c := range rr.Comments {
			owner[i] = powerdns.Comment{Content: c.Content, Account: c.Account}
		}
		return owner, nil
	}
	return nil, fmt.Errorf("the probe RRset %s is not in the zone after Sync", probe.FQDN())
}
