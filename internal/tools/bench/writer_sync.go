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

// newReconciler is the Reconciler every library writer uses: as
// ManagedBy, with the deletion gate and the delete guard open so that a
// sync that drops 10% of the RRsets deletes them at once, PATCH bodies of
// up to maxPatchBytes (the server's webserver-max-bodysize), ownership
// where store says.
func newReconciler(url, apiKey string, hc *http.Client, maxPatchBytes int, store reconcile.OwnershipStore) (*reconcile.Reconciler, error) {
	rec, err := reconcile.New(url,
		reconcile.WithAPIKey(apiKey),
		reconcile.WithManagedBy(ManagedBy),
		reconcile.WithHTTPClient(hc),
		reconcile.WithDeletionGate(1, 0),
		reconcile.WithDeleteGuard(1, 0),
		reconcile.WithMaxPatchBytes(maxPatchBytes),
		reconcile.WithOwnershipStore(store),
	)
	if err != nil {
		return nil, fmt.Errorf("new reconciler: %w", err)
	}
	return rec, nil
}

// desiredOf is specs as a controller hands them over: names relative to
// the zone, which the library canonicalises itself, inside the timed part.
func desiredOf(specs []Spec) []rrset.RRset {
	out := make([]rrset.RRset, len(specs))
	for i, s := range specs {
		out[i] = rrset.RRset{Name: s.Name, Type: s.Type, TTL: s.TTL, Records: slices.Clone(s.Records)}
	}
	return out
}

// SyncWriter writes with Reconciler.Sync.
type SyncWriter struct {
	rec     *reconcile.Reconciler
	counter *Counter
}

var _ Writer = (*SyncWriter)(nil)

// NewSyncWriter returns a SyncWriter for the server at url that sends PATCH
// bodies of up to maxPatchBytes.
func NewSyncWriter(url, apiKey string, base http.RoundTripper, maxPatchBytes int) (*SyncWriter, error) {
	counter := NewCounter(base)
	rec, err := newReconciler(url, apiKey, &http.Client{Transport: counter}, maxPatchBytes, reconcile.OwnershipAuto)
	if err != nil {
		return nil, err
	}
	return &SyncWriter{rec: rec, counter: counter}, nil
}

// ID implements Writer.
func (w *SyncWriter) ID() WriterID { return Sync }

// Counter implements Writer.
func (w *SyncWriter) Counter() *Counter { return w.counter }

// Prepare implements Writer.
func (w *SyncWriter) Prepare(_ context.Context, c Case) (func(context.Context) error, error) {
	desired := desiredOf(c.Desired)
	want := len(c.Changes)
	return func(ctx context.Context) error {
		res, err := w.rec.Sync(ctx, Zone, desired)
		if err != nil {
			return fmt.Errorf("sync: %w", err)
		}
		if n := len(res.Blocked) + len(res.Refused) + len(res.Deferred) + len(res.Postponed); n > 0 || len(res.Applied) != want {
			return fmt.Errorf("sync applied %d changes, want %d (blocked %d, refused %d, deferred %d, postponed %d)",
				len(res.Applied), want, len(res.Blocked), len(res.Refused), len(res.Deferred), len(res.Postponed))
		}
		if got := w.counter.Counts().Requests[http.MethodPatch]; got != res.Patches {
			return fmt.Errorf("sync reports %d PATCHes, %d were sent", res.Patches, got)
		}
		return nil
	}, nil
}

// Ownership returns what the library records besides the records on this
// server: its store and, where that is comments, the comments, read back
// from the server, so that every other writer writes the same and the
// library finds the RRsets of the start state its own. It writes one RRset
// into a fresh zone, which also makes the reconciler learn the server's
// ownership store before anything is timed.
func (w *SyncWriter) Ownership(ctx context.Context, admin *Admin) (Ownership, error) {
	store, err := w.rec.OwnershipStore(ctx)
	if err != nil {
		return Ownership{}, fmt.Errorf("learn the ownership store: %w", err)
	}
	if store == reconcile.OwnershipMetadata {
		return Ownership{Store: StoreMetadata}, nil
	}
	if err := admin.Reset(ctx, Zone, nil); err != nil {
		return Ownership{}, err
	}
	probe := Workload(1)[0]
	if _, err := w.rec.Sync(ctx, Zone, desiredOf([]Spec{probe})); err != nil {
		return Ownership{}, fmt.Errorf("sync probe RRset: %w", err)
	}
	live, err := admin.RRsets(ctx, Zone)
	if err != nil {
		return Ownership{}, err
	}
	for _, rr := range live {
		if rr.Name == nil || *rr.Name != probe.FQDN() {
			continue
		}
		if len(rr.Comments) == 0 {
			return Ownership{}, fmt.Errorf("the reconciler uses the %s store but recorded no comment on %s", store, probe.FQDN())
		}
		owner := make([]powerdns.Comment, len(rr.Comments))
		for i, c := range rr.Comments {
			owner[i] = powerdns.Comment{Content: c.Content, Account: c.Account}
		}
		return Ownership{Store: StoreComments, Comments: owner}, nil
	}
	return Ownership{}, fmt.Errorf("the probe RRset %s is not in the zone after Sync", probe.FQDN())
}

// Checker asks the library whether a zone is what a writer should have
// left: every desired RRset there, as desired, and the library's own
// (Reconciler.Plan finds nothing to write and nothing blocked). It sees the
// ownership the writers recorded, in comments or in metadata, as the
// library reads it.
type Checker struct {
	rec *reconcile.Reconciler
}

// NewChecker returns a Checker for the server at url that reads ownership
// from store.
func NewChecker(url, apiKey string, store Store) (*Checker, error) {
	s := reconcile.OwnershipComments
	if store == StoreMetadata {
		s = reconcile.OwnershipMetadata
	}
	rec, err := newReconciler(url, apiKey, &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}, reconcile.DefaultMaxPatchBytes, s)
	if err != nil {
		return nil, err
	}
	return &Checker{rec: rec}, nil
}

// Check fails unless the zone holds desired as the library's own.
func (ch *Checker) Check(ctx context.Context, desired []Spec) error {
	res, err := ch.rec.Plan(ctx, Zone, desiredOf(desired))
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	if n := len(res.Plan.Changes); n > 0 || len(res.Blocked) > 0 || len(res.Deferred) > 0 {
		return fmt.Errorf("the library would write %d changes to the zone (blocked %d, deferred %d): the writer did not leave it as the library would", n, len(res.Blocked), len(res.Deferred))
	}
	return nil
}
